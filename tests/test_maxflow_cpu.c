/* CPU engine, push-relabel: known instances, random graphs against Edmonds-Karp with
 * bit-identical cuts, certificates on every solve, 64-bit values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_known_instances(void **state)
{
    (void)state;
    FILE *f = fopen(test_data_path("EXPECTED.tsv"), "r");
    assert_non_null(f);
    char line[1024];
    int count = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char name[256];
        long long nodes, arcs, s, t, value;
        if (sscanf(line, "%255s %lld %lld %lld %lld %lld", name, &nodes, &arcs, &s, &t, &value) != 6)
            continue;
        mf_arclist list;
        mf_error err = {0};
        if (mf_read_dimacs(test_data_path(name), &list, &err) != MF_OK)
            fail_msg("%s: %s", name, err.message);
        assert_int_equal(list.num_vertices, nodes);
        assert_int_equal(list.num_arcs, arcs);
        assert_int_equal(reference_max_flow(&list, NULL), value);
        for (int merge = 0; merge < 2; merge++)
            for (int phase2 = 0; phase2 < 2; phase2++)
                check_cpu_solve(&list, merge, phase2, MF_CPU_PUSH_RELABEL, name);
        mf_arclist_free(&list);
        count++;
    }
    fclose(f);
    assert_true(count >= 12);
}

static void test_random_graphs_match_edmonds_karp(void **state)
{
    (void)state;
    int solved = 0;
    for (int family = 0; family < FAMILY_COUNT; family++) {
        for (uint64_t seed = 1; seed <= 60; seed++) {
            int32_t n = 2 + (int32_t)(seed * 37 % (family == FAMILY_DENSE ? 24 : 70));
            mf_arclist list;
            assert_int_equal(random_graph(family, n, seed, &list), MF_OK);
            char what[64];
            snprintf(what, sizeof what, "family %d seed %llu", family, (unsigned long long)seed);
            check_cpu_solve(&list, (int)(seed & 1), (int)((seed >> 1) & 1), MF_CPU_PUSH_RELABEL, what);
            mf_arclist_free(&list);
            solved++;
        }
    }
    assert_true(solved >= 300);
}

static void test_value_beyond_32_bits(void **state)
{
    (void)state;
    mf_arclist list;
    assert_int_equal(mf_arclist_init(&list, 12, 32), MF_OK);
    list.source = 0;
    list.sink = 11;
    for (int32_t v = 1; v <= 10; v++) {
        assert_int_equal(mf_arclist_add(&list, 0, v, INT32_MAX), MF_OK);
        assert_int_equal(mf_arclist_add(&list, v, 11, INT32_MAX), MF_OK);
    }
    mf_graph g;
    mf_result r;
    mf_error err = {0};
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.phase2 = 1;
    assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
    assert_true(r.flow_value == 10LL * INT32_MAX);
    assert_int_equal(mf_verify(&g, &r, 1, &err), MF_OK);
    mf_result_free(&r);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

static void test_verify_rejects_a_wrong_certificate(void **state)
{
    (void)state;
    mf_arclist list;
    assert_int_equal(random_graph(FAMILY_SPARSE, 30, 5, &list), MF_OK);
    mf_graph g;
    mf_result r;
    mf_error err = {0};
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    assert_int_equal(mf_solve_cpu(&g, NULL, &r, &err), MF_OK);
    r.flow_value += 1;
    assert_int_equal(mf_verify(&g, &r, 0, &err), MF_ERR_VERIFY);
    r.flow_value -= 1;
    r.source_side[g.sink] = 1;
    assert_int_equal(mf_verify(&g, &r, 0, &err), MF_ERR_VERIFY);
    mf_result_free(&r);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

static void test_gpu_engine_absent_or_named(void **state)
{
    (void)state;
    /* Asking for the GPU either works or fails with MF_ERR_NO_DEVICE;
     * auto always solves. */
    mf_arclist list;
    assert_int_equal(random_graph(FAMILY_SPARSE, 20, 3, &list), MF_OK);
    mf_graph g;
    mf_result r;
    mf_error err = {0};
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    int count = 0;
    int have = mf_gpu_available(&count) == MF_OK && count > 0;
    opt.engine = MF_ENGINE_GPU;
    int rc = mf_solve(&g, &opt, &r, &err);
    if (have) {
        assert_int_equal(rc, MF_OK);
        mf_result_free(&r);
    } else {
        assert_int_equal(rc, MF_ERR_NO_DEVICE);
    }
    opt.engine = MF_ENGINE_AUTO;
    assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
    assert_int_equal(r.flow_value, reference_max_flow(&list, NULL));
    mf_result_free(&r);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_instances),
        cmocka_unit_test(test_random_graphs_match_edmonds_karp),
        cmocka_unit_test(test_value_beyond_32_bits),
        cmocka_unit_test(test_verify_rejects_a_wrong_certificate),
        cmocka_unit_test(test_gpu_engine_absent_or_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
