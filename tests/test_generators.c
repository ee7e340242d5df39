/* Generators: documented sizes, capacity ranges, determinism, solvable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"

#include <stdlib.h>
#include <string.h>

static void check_ranges(const mf_arclist *l, int32_t lo, int32_t hi)
{
    for (int32_t i = 0; i < l->num_arcs; i++) {
        assert_true(l->tail[i] >= 0 && l->tail[i] < l->num_vertices);
        assert_true(l->head[i] >= 0 && l->head[i] < l->num_vertices);
        assert_true(l->tail[i] != l->head[i]);
        assert_true(l->cap[i] >= lo && l->cap[i] <= hi);
    }
}

static void check_solves_like_reference(const mf_arclist *l)
{
    mf_graph g;
    mf_result r;
    mf_error err = {0};
    assert_int_equal(mf_graph_from_arcs(l, NULL, &g, &err), MF_OK);
    assert_int_equal(mf_solve_cpu(&g, NULL, &r, &err), MF_OK);
    assert_int_equal(r.flow_value, reference_max_flow(l, NULL));
    assert_true(r.flow_value > 0);
    assert_int_equal(mf_verify(&g, &r, 0, &err), MF_OK);
    mf_result_free(&r);
    mf_graph_free(&g);
}

static void test_genrmf(void **state)
{
    (void)state;
    mf_arclist a, b;
    assert_int_equal(mf_gen_genrmf(6, 5, 100, 10000, 3, &a), MF_OK);
    assert_int_equal(a.num_vertices, 6 * 6 * 5);
    assert_int_equal(a.num_arcs, 4 * 6 * 5 * 5 + 36 * 4);
    assert_int_equal(a.source, 0);
    assert_int_equal(a.sink, 6 * 6 * 5 - 1);
    check_ranges(&a, 100, 10000 * 36);
    check_solves_like_reference(&a);
    assert_int_equal(mf_gen_genrmf(6, 5, 100, 10000, 3, &b), MF_OK);
    assert_memory_equal(a.head, b.head, sizeof(int32_t) * (size_t)a.num_arcs);
    assert_memory_equal(a.cap, b.cap, sizeof(int32_t) * (size_t)a.num_arcs);
    mf_arclist_free(&b);
    assert_int_equal(mf_gen_genrmf(6, 5, 100, 10000, 4, &b), MF_OK);
    assert_true(memcmp(a.cap, b.cap, sizeof(int32_t) * (size_t)a.num_arcs) != 0);
    mf_arclist_free(&a);
    mf_arclist_free(&b);
    /* ecl-maxflow's table: genrmf-wide a64 b64 has 1,290,240 arcs */
    assert_int_equal(mf_gen_genrmf(64, 64, 100, 10000, 1, &a), MF_OK);
    assert_int_equal(a.num_arcs, 1290240);
    mf_arclist_free(&a);
}

static void test_washington_rlg(void **state)
{
    (void)state;
    mf_arclist a;
    assert_int_equal(mf_gen_washington_rlg(8, 10, 1000, 9, &a), MF_OK);
    assert_int_equal(a.num_vertices, 8 * 10 + 2);
    assert_int_equal(a.num_arcs, 3 * 8 * 9 + 2 * 8);
    check_ranges(&a, 1, 3000);
    for (int32_t i = 0; i < a.num_arcs; i++) {
        if (a.tail[i] == a.source || a.head[i] == a.sink)
            assert_int_equal(a.cap[i], 3000);
        else /* links lead to the next level only */
            assert_int_equal(a.head[i] / 8, a.tail[i] / 8 + 1);
    }
    check_solves_like_reference(&a);
    mf_arclist_free(&a);
}

static void test_acyclic_dense(void **state)
{
    (void)state;
    mf_arclist a;
    assert_int_equal(mf_gen_acyclic_dense(30, 2, &a), MF_OK);
    assert_int_equal(a.num_arcs, 30 * 29 / 2);
    check_ranges(&a, 1, 10000);
    for (int32_t i = 0; i < a.num_arcs; i++)
        assert_true(a.tail[i] < a.head[i]);
    check_solves_like_reference(&a);
    mf_arclist_free(&a);
}

static void test_grid(void **state)
{
    (void)state;
    for (int conn = 4; conn <= 8; conn += 4) {
        mf_arclist a;
        assert_int_equal(mf_gen_grid(40, 30, conn, 5, &a), MF_OK);
        assert_int_equal(a.num_vertices, 40 * 30 + 2);
        check_ranges(&a, 0, INT32_MAX);
        /* at most one terminal arc per pixel */
        int *terminal = calloc(40 * 30, sizeof(int));
        for (int32_t i = 0; i < a.num_arcs; i++) {
            if (a.tail[i] == a.source)
                terminal[a.head[i]]++;
            if (a.head[i] == a.sink)
                terminal[a.tail[i]]++;
        }
        for (int p = 0; p < 40 * 30; p++)
            assert_true(terminal[p] <= 1);
        free(terminal);
        check_solves_like_reference(&a);
        mf_arclist_free(&a);
    }
}

/* Every CPU algorithm against the reference, value and cut. */
static void check_all_cpu(const mf_arclist *l)
{
    mf_graph g;
    mf_error err = {0};
    uint8_t *want = malloc((size_t)l->num_vertices);
    int64_t value = reference_max_flow(l, want);
    assert_int_equal(mf_graph_from_arcs(l, NULL, &g, &err), MF_OK);
    static const mf_cpu_algorithm algs[] = {MF_CPU_PUSH_RELABEL, MF_CPU_BK, MF_CPU_IBFS};
    for (int i = 0; i < 3; i++) {
        mf_options opt;
        mf_result r;
        mf_options_default(&opt);
        opt.cpu_algorithm = algs[i];
        assert_int_equal(mf_solve_cpu(&g, &opt, &r, &err), MF_OK);
        assert_true(r.flow_value == value);
        assert_memory_equal(r.source_side, want, (size_t)l->num_vertices);
        mf_result_free(&r);
    }
    mf_graph_free(&g);
    free(want);
}

static void test_rmat(void **state)
{
    (void)state;
    mf_arclist a, b;
    assert_int_equal(mf_gen_rmat(9, 8, 4, 100, 3, &a), MF_OK);
    assert_int_equal(mf_gen_rmat(9, 8, 4, 100, 3, &b), MF_OK);
    assert_int_equal(a.num_vertices, 512 + 2);
    assert_int_equal(a.num_arcs, b.num_arcs); /* deterministic from the seed */
    assert_memory_equal(a.head, b.head, sizeof(int32_t) * (size_t)a.num_arcs);
    check_ranges(&a, 1, INT32_MAX);
    /* skewed: the largest degree far above the mean */
    int32_t *deg = calloc(512, sizeof(int32_t)), top = 0, terminals = 0;
    for (int32_t i = 0; i < a.num_arcs; i++) {
        if (a.tail[i] == a.source || a.head[i] == a.sink) {
            terminals++;
            continue;
        }
        deg[a.tail[i]]++;
        deg[a.head[i]]++;
    }
    for (int v = 0; v < 512; v++)
        top = deg[v] > top ? deg[v] : top;
    assert_true(top > 8 * 2 * 8); /* mean degree 16 */
    assert_int_equal(terminals, 8);
    free(deg);
    check_solves_like_reference(&a);
    check_all_cpu(&a);
    mf_arclist_free(&a);
    mf_arclist_free(&b);
}

/* ECL-MaxFlow's undirected protocol: each edge once, both ways with one
 * capacity, no loops; the terminals are the degree ranks of the pair. */
static void test_rmat_pair(void **state)
{
    (void)state;
    const int32_t prob[3] = {45, 15, 15};
    mf_arclist a, b;
    int32_t ranks[6];
    assert_int_equal(mf_gen_rmat_pair(10, 8, prob, 1, 100, 5, &a, ranks, 6), MF_OK);
    assert_int_equal(mf_gen_rmat_pair(10, 8, prob, 2, 100, 5, &b, NULL, 0), MF_OK);
    assert_int_equal(ranks[0], a.source);
    assert_int_equal(ranks[1], a.sink);
    assert_int_equal(ranks[2], b.source);
    assert_int_equal(ranks[3], b.sink);
    assert_int_equal(a.num_vertices, 1024);
    assert_int_equal(a.num_arcs, b.num_arcs); /* the same graph, other terminals */
    assert_memory_equal(a.head, b.head, sizeof(int32_t) * (size_t)a.num_arcs);
    assert_memory_equal(a.cap, b.cap, sizeof(int32_t) * (size_t)a.num_arcs);
    check_ranges(&a, 1, 100);
    assert_int_equal(a.num_arcs % 2, 0);
    /* arcs come in pairs u->v, v->u of one capacity, edges in order (no repeats) */
    int32_t *deg = calloc(1024, sizeof(int32_t));
    for (int32_t i = 0; i < a.num_arcs; i += 2) {
        assert_int_equal(a.tail[i], a.head[i + 1]);
        assert_int_equal(a.head[i], a.tail[i + 1]);
        assert_int_equal(a.cap[i], a.cap[i + 1]);
        assert_true(a.tail[i] < a.head[i]);
        if (i)
            assert_true(a.tail[i - 2] < a.tail[i] || (a.tail[i - 2] == a.tail[i] && a.head[i - 2] < a.head[i]));
        deg[a.tail[i]]++;
        deg[a.head[i]]++;
    }
    assert_true(a.num_arcs > 2 * 1024 * 8 / 2); /* repeats cost some of the 8 * 1024 edges, not half */
    /* ranks: a's source the highest degree (lowest id on ties), then its sink, then b's pair */
    const int32_t order[4] = {a.source, a.sink, b.source, b.sink};
    for (int k = 0; k < 4; k++) {
        for (int32_t v = 0; v < 1024; v++) {
            int taken = 0;
            for (int j = 0; j < k; j++)
                taken |= order[j] == v;
            if (taken || v == order[k])
                continue;
            assert_true(deg[v] < deg[order[k]] || (deg[v] == deg[order[k]] && v > order[k]));
        }
    }
    assert_true(deg[a.source] > 4 * 16); /* skewed: mean degree below 16 */
    free(deg);
    check_solves_like_reference(&a);
    check_all_cpu(&a);
    check_solves_like_reference(&b);
    mf_arclist_free(&a);
    mf_arclist_free(&b);
    const int32_t bad[3] = {60, 30, 20};
    assert_int_equal(mf_gen_rmat_pair(10, 8, bad, 1, 100, 5, &a, NULL, 0), MF_ERR_INVALID);
    assert_int_equal(mf_gen_rmat_pair(10, 8, prob, 0, 100, 5, &a, NULL, 0), MF_ERR_INVALID);
    assert_int_equal(mf_gen_rmat_pair(10, 8, prob, MF_GEN_PAIR_MAX + 1, 100, 5, &a, NULL, 0), MF_ERR_INVALID);
    assert_int_equal(mf_gen_rmat_pair(10, 8, prob, 1, 100, 5, &a, NULL, 4), MF_ERR_INVALID);
    assert_int_equal(mf_gen_rmat_pair(3, 8, prob, 5, 100, 5, &a, NULL, 0), MF_ERR_TOO_LARGE);
}

static void test_matching(void **state)
{
    (void)state;
    mf_arclist a;
    assert_int_equal(mf_gen_matching(300, 200, 4, 7, &a), MF_OK);
    assert_int_equal(a.num_vertices, 502);
    check_ranges(&a, 1, 1);
    check_solves_like_reference(&a);
    check_all_cpu(&a);
    mf_arclist_free(&a);
}

static void test_invalid_parameters(void **state)
{
    (void)state;
    mf_arclist a;
    assert_int_equal(mf_gen_genrmf(0, 3, 1, 2, 1, &a), MF_ERR_INVALID);
    assert_int_equal(mf_gen_genrmf(3, 3, 5, 2, 1, &a), MF_ERR_INVALID);
    assert_int_equal(mf_gen_acyclic_dense(1, 1, &a), MF_ERR_INVALID);
    assert_int_equal(mf_gen_grid(10, 10, 6, 1, &a), MF_ERR_INVALID);
    assert_int_equal(mf_gen_acyclic_dense(100000, 1, &a), MF_ERR_TOO_LARGE);
    assert_int_equal(mf_gen_rmat(1, 16, 8, 10, 1, &a), MF_ERR_INVALID);
    assert_int_equal(mf_gen_rmat(4, 16, 9, 10, 1, &a), MF_ERR_TOO_LARGE);
    assert_int_equal(mf_gen_matching(0, 5, 2, 1, &a), MF_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_genrmf),         cmocka_unit_test(test_washington_rlg),
        cmocka_unit_test(test_acyclic_dense),  cmocka_unit_test(test_grid),
        cmocka_unit_test(test_rmat),           cmocka_unit_test(test_rmat_pair),
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_invalid_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
