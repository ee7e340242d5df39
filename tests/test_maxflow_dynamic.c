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

/* Every arc changed: above the cold fraction the batch solves cold, and the
 * answer is the same either way. */
static void test_heavy_batch_solves_cold(void **state)
{
    (void)state;
    mf_arclist list;
    mf_graph g;
    mf_error err = {0};
    mf_dynamic *d = NULL;
    assert_int_equal(mf_gen_grid(20, 20, 4, 9, &list), MF_OK);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    assert_int_equal(mf_dynamic_create(&g, &opt, &d, &err), MF_OK);
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
        assert_int_equal(r.stats.changed_arcs, g.num_arcs);
        uint8_t *side = calloc((size_t)list.num_vertices, 1);
        assert_int_equal(r.flow_value, reference_max_flow(&list, side));
        assert_memory_equal(side, r.source_side, (size_t)list.num_vertices);
        free(side);
        mf_result_free(&r);
    }
    mf_dynamic_destroy(d);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_batches_match_edmonds_karp),
        cmocka_unit_test(test_generator_families_match_cold),
        cmocka_unit_test(test_bad_changes_are_refused),
        cmocka_unit_test(test_heavy_batch_solves_cold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
