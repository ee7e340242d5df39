/* Warm re-solve on the CPU: random graphs and generator families with
 * batches of increases, decreases (to 0, below the flow) and mixed
 * changes, each against Edmonds-Karp or a cold solve of the updated graph
 * (value, bit-identical cut, certificate); argument checks; the cold
 * fallback for heavy batches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_random_batches_match_edmonds_karp(void **state)
{
    (void)state;
    check_dynamic_random(MF_ENGINE_CPU);
}

static void test_generator_families_match_cold(void **state)
{
    (void)state;
    check_dynamic_generators(MF_ENGINE_CPU);
}

static void test_bad_changes_are_refused(void **state)
{
    (void)state;
    mf_arclist list;
    mf_graph g;
    mf_error err = {0};
    mf_dynamic *d = NULL;
    assert_int_equal(random_graph(FAMILY_SPARSE, 10, 2, &list), MF_OK);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    assert_int_equal(mf_dynamic_create(&g, &opt, &d, &err), MF_OK);
    assert_int_equal(mf_dynamic_engine(d), MF_ENGINE_CPU);
    assert_int_equal(mf_dynamic_set_arc(d, -1, 1, 0, &err), MF_ERR_INVALID);
    assert_int_equal(mf_dynamic_set_arc(d, g.num_arcs, 1, 0, &err), MF_ERR_INVALID);
    assert_int_equal(mf_dynamic_set_arc(d, 0, -1, 0, &err), MF_ERR_INVALID);
    assert_int_equal(mf_dynamic_set_arc(d, 0, INT32_MAX, 1, &err), MF_ERR_INVALID);
    assert_int_equal(mf_dynamic_set_input_arc(d, list.num_arcs, 1, &err), MF_ERR_INVALID);
    assert_int_equal(mf_dynamic_set_input_arc(d, -1, 1, &err), MF_ERR_INVALID);
    /* nothing was queued by the refused calls: the solve equals a cold one */
    mf_result r;
    assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
    assert_int_equal(r.flow_value, reference_max_flow(&list, NULL));
    assert_int_equal(r.stats.warm, 0);
    mf_result_free(&r);
    /* a repeated solve without changes is warm and does no work */
    assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
    assert_int_equal(r.stats.warm, 1);
    assert_int_equal(r.stats.pushes, 0);
    assert_int_equal(r.flow_value, reference_max_flow(&list, NULL));
    mf_result_free(&r);
    mf_dynamic_destroy(d);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

/* A CPU solver of a generated grid network (mf_gen_grid's arguments); the
 * arc list stays the caller's, for the reference answers. */
static mf_dynamic *grid_solver(int32_t w, int32_t h, int conn, uint64_t seed, mf_arclist *list)
{
    mf_graph g;
    mf_error err = {0};
    mf_dynamic *d = NULL;
    assert_int_equal(mf_gen_grid(w, h, conn, seed, list), MF_OK);
    assert_int_equal(mf_graph_from_arcs(list, NULL, &g, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    assert_int_equal(mf_dynamic_create(&g, &opt, &d, &err), MF_OK);
    mf_graph_free(&g);
    return d;
}

/* Every arc changed: above the cold fraction the batch solves cold, and the
 * answer is the same either way. */
static void test_heavy_batch_solves_cold(void **state)
{
    (void)state;
    mf_arclist list;
    mf_error err = {0};
    mf_dynamic *d = grid_solver(20, 20, 4, 9, &list);
    mf_result r;
    assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
    mf_result_free(&r);
    for (int pass = 0; pass < 2; pass++) {
        mf_dynamic_set_cold_fraction(d, pass ? 2.0 : 0.5);
        for (int32_t i = 0; i < list.num_arcs; i++) {
            list.cap[i] = (list.cap[i] * 7 + 3 + pass) % 50;
            assert_int_equal(mf_dynamic_set_input_arc(d, i, list.cap[i], &err), MF_OK);
        }
        assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
        assert_int_equal(r.stats.warm, pass);
        assert_int_equal(r.stats.changed_arcs, mf_dynamic_graph(d)->num_arcs);
        uint8_t *side = calloc((size_t)list.num_vertices, 1);
        assert_int_equal(r.flow_value, reference_max_flow(&list, side));
        assert_memory_equal(side, r.source_side, (size_t)list.num_vertices);
        free(side);
        mf_result_free(&r);
    }
    mf_dynamic_destroy(d);
    mf_arclist_free(&list);
}


/* Cold fraction 0 (every change solved cold, as a session's final click
 * cut asks): the pending changes go straight into the network, each arc's
 * last one winning, counted once per arc; a solve with nothing pending
 * stays a warm no-op; a warm repair after it (cold fraction 2: always)
 * gives the reference answer again. */
static void test_every_change_cold(void **state)
{
    (void)state;
    mf_arclist list;
    mf_error err = {0};
    mf_dynamic *d = grid_solver(16, 12, 4, 5, &list);
    mf_result r;
    uint8_t *side = calloc((size_t)list.num_vertices, 1);
    assert_non_null(side);
    for (int round = 0; round < 4; round++) {
        const int cold = round < 3;
        mf_dynamic_set_cold_fraction(d, cold ? 0 : 2.0); /* 2: warm whatever changed */
        int32_t changed = 0;
        for (int32_t i = round % 3; i < list.num_arcs; i += 3) {
            /* a first value, then the one that must win */
            assert_int_equal(mf_dynamic_set_input_arc(d, i, list.cap[i] + 11, &err), MF_OK);
            list.cap[i] = (list.cap[i] * 5 + 2 + round) % 40;
            assert_int_equal(mf_dynamic_set_input_arc(d, i, list.cap[i], &err), MF_OK);
            changed++;
        }
        assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
        assert_int_equal(r.stats.warm, round == 3);
        if (round > 0)
            assert_int_equal(r.stats.changed_arcs, changed);
        memset(side, 0, (size_t)list.num_vertices);
        assert_int_equal(r.flow_value, reference_max_flow(&list, side));
        assert_memory_equal(side, r.source_side, (size_t)list.num_vertices);
        mf_result_free(&r);
        if (round == 1) { /* nothing pending: no solve to do */
            assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
            assert_int_equal(r.stats.warm, 1);
            assert_int_equal(r.stats.changed_arcs, 0);
            assert_int_equal(r.flow_value, reference_max_flow(&list, side));
            mf_result_free(&r);
        }
    }
    free(side);
    mf_dynamic_destroy(d);
    mf_arclist_free(&list);
}

/* mf_dynamic_edit_cold: capacities written in place after pending changes
 * (which it applies first) give a cold solve of the new network, and the
 * warm repairs after it start from that solve's state. */
static void test_edit_in_place(void **state)
{
    (void)state;
    mf_arclist list;
    mf_error err = {0};
    mf_dynamic *d = grid_solver(14, 10, 4, 7, &list);
    mf_result r;
    uint8_t *side = calloc((size_t)list.num_vertices, 1);
    assert_non_null(side);
    for (int round = 0; round < 4; round++) {
        const int in_place = round % 2 == 0;
        mf_dynamic_set_cold_fraction(d, 2.0); /* warm unless the edit says cold */
        /* a pending change first: in place, the edit applies it */
        list.cap[0] = (list.cap[0] + 9) % 30;
        assert_int_equal(mf_dynamic_set_input_arc(d, 0, list.cap[0], &err), MF_OK);
        if (in_place) {
            mf_graph *e = mf_dynamic_edit_cold(d);
            assert_non_null(e->input_map);
            for (int32_t i = 1 + round; i < list.num_arcs; i += 2) {
                const int32_t at = e->input_map[i];
                if (at < 0)
                    continue; /* a dropped self-loop */
                list.cap[i] = (list.cap[i] * 3 + 5 + round) % 30;
                (at & 1 ? e->arc_rcap : e->arc_cap)[at >> 1] = list.cap[i]; /* stored arc, its direction */
            }
        }
        assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
        assert_int_equal(r.stats.warm, !in_place);
        memset(side, 0, (size_t)list.num_vertices);
        assert_int_equal(r.flow_value, reference_max_flow(&list, side));
        assert_memory_equal(side, r.source_side, (size_t)list.num_vertices);
        mf_result_free(&r);
    }
    free(side);
    mf_dynamic_destroy(d);
    mf_arclist_free(&list);
}

/* mf_dynamic_adopt takes the graph's arrays instead of copying them: the
 * same answers as mf_dynamic_create, cold and warm, and the caller's graph
 * left empty whatever the outcome (a refused graph is freed too). */
static void test_adopt_takes_the_graph(void **state)
{
    (void)state;
    mf_arclist list;
    mf_graph g, h;
    mf_error err = {0};
    mf_dynamic *copied = NULL, *adopted = NULL;
    assert_int_equal(mf_gen_grid(16, 12, 8, 5, &list), MF_OK);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &h, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    assert_int_equal(mf_dynamic_create(&g, &opt, &copied, &err), MF_OK);
    assert_int_equal(mf_dynamic_adopt(&h, &opt, &adopted, &err), MF_OK);
    assert_null(h.out_start);
    assert_null(h.arc_cap);
    assert_int_equal(h.num_arcs, 0);
    mf_graph_free(&h); /* a no-op on the emptied graph */
    for (int pass = 0; pass < 3; pass++) {
        if (pass) /* a few arcs changed: warm */
            for (int32_t i = pass; i < list.num_arcs; i += 17) {
                list.cap[i] = (list.cap[i] * 5 + pass) % 40;
                assert_int_equal(mf_dynamic_set_input_arc(copied, i, list.cap[i], &err), MF_OK);
                assert_int_equal(mf_dynamic_set_input_arc(adopted, i, list.cap[i], &err), MF_OK);
            }
        mf_result a, b;
        assert_int_equal(mf_dynamic_solve(copied, &a, &err), MF_OK);
        assert_int_equal(mf_dynamic_solve(adopted, &b, &err), MF_OK);
        assert_int_equal(a.flow_value, reference_max_flow(&list, NULL));
        assert_int_equal(b.flow_value, a.flow_value);
        assert_int_equal(b.stats.warm, pass > 0);
        assert_memory_equal(a.source_side, b.source_side, (size_t)list.num_vertices);
        mf_result_free(&a);
        mf_result_free(&b);
    }
    mf_dynamic_destroy(copied);
    mf_dynamic_destroy(adopted);
    /* a graph the solver refuses (source = sink) is freed and emptied */
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &h, &err), MF_OK);
    h.sink = h.source;
    assert_int_equal(mf_dynamic_adopt(&h, &opt, &adopted, &err), MF_ERR_INVALID);
    assert_null(adopted);
    assert_null(h.out_start);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

/* A merged antiparallel pair shares one stored arc whose two capacities
 * may sum to at most INT32_MAX. An update script that breaks that rule is
 * refused as a whole, with its line, before anything is solved; one that
 * keeps it is applied without a refusal. */
static void test_update_scripts_are_checked_before_solving(void **state)
{
    (void)state;
    const char *problem = "p max 3 3\nn 1 s\nn 3 t\na 1 2 5\na 2 1 7\na 2 3 2147483647\n";
    const char *bad = "c raise arc 1 past what its pair can hold\nb\nu 2 3\nb\nu 1 2147483647\n";
    const char *good = "b\nu 2 0\nb\nu 1 2147483647\nb\nu 1 2147483640\nu 2 7\n";
    mf_arclist list;
    mf_error err = {0};
    mf_updates upd;
    assert_int_equal(mf_parse_dimacs(problem, strlen(problem), "p.max", &list, &err), MF_OK);
    for (int merge = 1; merge >= 0; merge--) {
        mf_graph g;
        mf_build_options bopt = {.merge_antiparallel = merge};
        assert_int_equal(mf_graph_from_arcs(&list, &bopt, &g, &err), MF_OK);
        assert_int_equal(mf_parse_updates(bad, strlen(bad), "bad.u", list.num_arcs, &upd, &err), MF_OK);
        assert_int_equal(upd.line[1], 5);
        memset(&err, 0, sizeof err);
        int rc = mf_updates_check(&g, &upd, "bad.u", &err);
        if (merge) {
            assert_int_equal(rc, MF_ERR_TOO_LARGE);
            assert_int_equal(err.line, 5);
            assert_string_equal(err.file, "bad.u");
            assert_non_null(strstr(err.message, "2147483650"));
        } else {
            assert_int_equal(rc, MF_OK); /* unmerged, each input arc has its own stored arc */
        }
        mf_updates_free(&upd);
        /* the script that keeps the rule: every change is taken, every
         * batch equals a cold solve */
        assert_int_equal(mf_parse_updates(good, strlen(good), "good.u", list.num_arcs, &upd, &err), MF_OK);
        assert_int_equal(mf_updates_check(&g, &upd, "good.u", &err), MF_OK);
        mf_options opt;
        mf_options_default(&opt);
        opt.engine = MF_ENGINE_CPU;
        mf_dynamic *d = NULL;
        mf_result r;
        assert_int_equal(mf_dynamic_create(&g, &opt, &d, &err), MF_OK);
        assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
        assert_int_equal(r.flow_value, 5);
        mf_result_free(&r);
        const int64_t want[] = {5, 2147483647, 2147483640};
        for (int32_t b = 0; b < upd.num_batches; b++) {
            for (int64_t k = upd.batch_start[b]; k < upd.batch_start[b + 1]; k++)
                assert_int_equal(mf_dynamic_set_input_arc(d, upd.arc[k], upd.cap[k], &err), MF_OK);
            assert_int_equal(mf_dynamic_solve(d, &r, &err), MF_OK);
            assert_int_equal(r.flow_value, want[b]);
            mf_result_free(&r);
        }
        mf_dynamic_destroy(d);
        mf_updates_free(&upd);
        mf_graph_free(&g);
    }
    mf_arclist_free(&list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_batches_match_edmonds_karp),
        cmocka_unit_test(test_generator_families_match_cold),
        cmocka_unit_test(test_bad_changes_are_refused),
        cmocka_unit_test(test_heavy_batch_solves_cold),
        cmocka_unit_test(test_every_change_cold),
        cmocka_unit_test(test_edit_in_place),
        cmocka_unit_test(test_adopt_takes_the_graph),
        cmocka_unit_test(test_update_scripts_are_checked_before_solving),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
