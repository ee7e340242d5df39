/* CPU engine, push-relabel: known instances, random graphs against Edmonds-Karp with
 * bit-identical cuts, certificates on every solve, 64-bit values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cpu/cpu_engines.h" /* mf_cpu_auto */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_known_instances(void **state)
{
    (void)state;
    check_known_instances(MF_CPU_PUSH_RELABEL, 0);
}

static void test_random_graphs_match_edmonds_karp(void **state)
{
    (void)state;
    check_random_graphs(MF_CPU_PUSH_RELABEL, 0);
}

static void test_value_beyond_32_bits(void **state)
{
    (void)state;
    check_value_beyond_32_bits(MF_CPU_PUSH_RELABEL);
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

/* mf_alloc_big: usable for every size, page-aligned from 64 KiB, huge-page
 * aligned from 2 MiB; mf_calloc_big zeroes and refuses overflowing sizes. */
static void test_big_allocations(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 4096, (size_t)64 << 10, ((size_t)64 << 10) + 3, (size_t)3 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t *p = mf_alloc_big(sizes[i]);
        assert_non_null(p);
        if (sizes[i] >= ((size_t)64 << 10))
            assert_int_equal((uintptr_t)p % 4096, 0);
        if (sizes[i] >= ((size_t)2 << 20))
            assert_int_equal((uintptr_t)p % ((size_t)2 << 20), 0);
        memset(p, 0xab, sizes[i]);
        free(p);
        int32_t *z = mf_calloc_big(sizes[i] / 4 + 1, sizeof(int32_t));
        assert_non_null(z);
        for (size_t k = 0; k < sizes[i] / 4 + 1; k++)
            assert_int_equal(z[k], 0);
        free(z);
    }
    assert_null(mf_calloc_big(SIZE_MAX / 2, 4));
    assert_null(mf_alloc_big(SIZE_MAX - 100));
}

/* mf_alloc_cache_limit: a released block comes back for a request it
 * fits (at most 8 times as large, with the alignment the request's size
 * calls for); past the limit the oldest blocks go. Only what must come
 * back is asserted: a fresh block may reuse a freed address. */
static void test_alloc_cache(void **state)
{
    (void)state;
    const size_t MiB = (size_t)1 << 20;
    /* usable sizes exceed the requests (glibc: 4 MiB aligned to 2 MiB uses 5.6) */
    mf_alloc_cache_limit(20 * MiB);
    uint8_t *a = mf_alloc_big(3 * MiB); /* a 4 MiB block */
    assert_non_null(a);
    memset(a, 1, 3 * MiB);
    mf_free_big(a);
    uint8_t *c = mf_alloc_big(5 * MiB); /* 6 MiB: a is too small */
    assert_non_null(c);
    assert_ptr_not_equal(c, a);
    uint8_t *d = mf_alloc_big(3 * MiB - 100); /* a fits */
    assert_ptr_equal(d, a);
    assert_int_equal((uintptr_t)d % (2 * MiB), 0);
    uint8_t *b = mf_alloc_big(256 << 10);
    assert_non_null(b);
    mf_free_big(b);
    uint8_t *e = mf_alloc_big(16 << 10); /* below 64 KiB: plain malloc, never from the cache */
    assert_ptr_not_equal(e, b);
    mf_free_big(e);
    uint8_t *f = mf_alloc_big(200 << 10); /* b fits */
    assert_ptr_equal(f, b);
    assert_int_equal((uintptr_t)f % 4096, 0);
    mf_free_big(f);
    uint8_t *big1 = mf_alloc_big(MiB); /* b is too small */
    assert_ptr_not_equal(big1, b);
    mf_free_big(big1);
    uint8_t *h = mf_alloc_big(64 << 10); /* the smallest that fits: b, 4 times as large */
    assert_ptr_equal(h, b);
    uint8_t *i = mf_alloc_big(64 << 10); /* big1 is 16 times as large: not taken */
    assert_ptr_not_equal(i, big1);
    mf_free_big(i);
    mf_free_big(h);
    mf_free_big(c);
    mf_free_big(d);
    /* 1 + 0.06 + 0.25 + 6 + 4 MiB and more kept; 12 more push out the oldest four */
    uint8_t *big = mf_alloc_big(12 * MiB);
    assert_non_null(big);
    mf_free_big(big);
    assert_ptr_equal(mf_alloc_big(3 * MiB), d);
    assert_ptr_equal(mf_alloc_big(12 * MiB), big);
    free(d); /* free() of any mf_alloc_big block stays valid */
    mf_free_big(big);
    mf_alloc_cache_limit(0); /* releases what is kept */
    mf_free_big(NULL);
}

/* --cpu-algorithm auto: BK where most vertices hang on a terminal arc
 * (photos, grids, dense DAGs) at any size unless every capacity is 1
 * (matchings: IBFS), push-relabel where the vertices lie far from the
 * source (genrmf, RLG; the old rule gave genrmf of 400,000 vertices to
 * BK), IBFS where they lie near it (R-MAT), push-relabel again where a
 * terminal is a hub (ECL's protocol on Graph500's quadrants). */
static void test_auto_algorithm(void **state)
{
    (void)state;
    struct {
        int family;
        mf_cpu_algorithm want;
    } cases[] = {{0, MF_CPU_BK},           {1, MF_CPU_BK},   {2, MF_CPU_PUSH_RELABEL}, {3, MF_CPU_PUSH_RELABEL},
                 {4, MF_CPU_PUSH_RELABEL}, {5, MF_CPU_IBFS}, {6, MF_CPU_IBFS},         {7, MF_CPU_BK},
                 {8, MF_CPU_PUSH_RELABEL}, {9, MF_CPU_IBFS}};
    const int32_t graph500[3] = {57, 19, 19}, rmat22[3] = {45, 15, 15};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mf_arclist list;
        mf_graph g;
        mf_error err = {0};
        int f = cases[i].family;
        int rc = f == 0   ? mf_gen_grid(120, 90, 4, 1, &list)
                 : f == 1 ? mf_gen_grid(120, 90, 8, 1, &list)
                 : f == 2 ? mf_gen_genrmf(8, 8, 100, 10000, 1, &list)
                 : f == 3 ? mf_gen_washington_rlg(64, 64, 10000, 1, &list)
                 : f == 4 ? mf_gen_genrmf(40, 250, 100, 10000, 1, &list) /* 400,000 vertices */
                 : f == 5 ? mf_gen_rmat(14, 16, 8, 10000, 1, &list)
                 : f == 6 ? mf_gen_matching(3000, 3000, 8, 1, &list)
                 : f == 7 ? mf_gen_acyclic_dense(300, 1, &list)
                 : f == 8 ? mf_gen_rmat_pair(16, 16, graph500, 1, 10000, 1, &list, NULL, 0)
                          : mf_gen_rmat_pair(16, 8, rmat22, 1, 10000, 1, &list, NULL, 0);
        assert_int_equal(rc, MF_OK);
        assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
        if (mf_cpu_auto(&g) != cases[i].want)
            fail_msg("case %zu (%d vertices): auto picked %d, want %d", i, g.num_vertices, (int)mf_cpu_auto(&g),
                     (int)cases[i].want);
        mf_graph_free(&g);
        mf_arclist_free(&list);
    }
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
        /* the wait mode, too, names the missing device */
        assert_int_equal(mf_gpu_set_wait(0, MF_GPU_WAIT_BLOCK, &err), MF_ERR_NO_DEVICE);
    }
    opt.engine = MF_ENGINE_AUTO;
    assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
    assert_int_equal(r.flow_value, reference_max_flow(&list, NULL));
    mf_result_free(&r);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

/* The engine decision: cpu never asks for a device; gpu names the missing
 * one; auto takes a usable device, else the CPU; only auto falls back,
 * and only when the device could not hold the network. */
static void test_engine_pick_and_fallback(void **state)
{
    (void)state;
    mf_options opt;
    mf_options_default(&opt);
    mf_error err = {0};
    mf_engine e = MF_ENGINE_AUTO;
    int devices = -1, count = 0;
    const int have = mf_gpu_compiled() && mf_gpu_available(&count) == MF_OK && count > 0;
    opt.engine = MF_ENGINE_CPU;
    assert_int_equal(mf_engine_pick(&opt, &e, &devices, &err), MF_OK);
    assert_int_equal(e, MF_ENGINE_CPU);
    assert_int_equal(devices, 0);
    opt.engine = MF_ENGINE_AUTO;
    assert_int_equal(mf_engine_pick(&opt, &e, &devices, &err), MF_OK);
    assert_int_equal(e, have ? MF_ENGINE_GPU : MF_ENGINE_CPU);
    assert_int_equal(devices, have ? count : 0);
    assert_int_equal(mf_engine_pick(NULL, &e, NULL, &err), MF_OK); /* NULL: auto */
    assert_int_equal(e, have ? MF_ENGINE_GPU : MF_ENGINE_CPU);
    opt.engine = MF_ENGINE_GPU;
    if (have) {
        assert_int_equal(mf_engine_pick(&opt, &e, &devices, &err), MF_OK);
        assert_int_equal(e, MF_ENGINE_GPU);
    } else {
        assert_int_equal(mf_engine_pick(&opt, &e, &devices, &err), MF_ERR_NO_DEVICE);
        assert_non_null(strstr(err.message, mf_gpu_compiled() ? "no CUDA device" : "no CUDA support"));
    }
    assert_false(mf_engine_falls_back(&opt, MF_ERR_DEVICE_MEMORY)); /* gpu named: no */
    opt.engine = MF_ENGINE_AUTO;
    assert_true(mf_engine_falls_back(&opt, MF_ERR_DEVICE_MEMORY));
    assert_true(mf_engine_falls_back(NULL, MF_ERR_DEVICE_MEMORY));
    assert_false(mf_engine_falls_back(&opt, MF_ERR_DEVICE));
    assert_false(mf_engine_falls_back(&opt, MF_OK));
    /* the launch grouping: the first always, then by count and vertices */
    assert_true(mf_gpu_launch_takes(0, 0, MF_GPU_LAUNCH_VERTICES * 2, 16));
    assert_true(mf_gpu_launch_takes(3, 100, 100, 16));
    assert_false(mf_gpu_launch_takes(16, 100, 100, 16));
    assert_false(mf_gpu_launch_takes(MF_GPU_MANY_MAX, 100, 100, 1000));
    assert_true(mf_gpu_launch_takes(1, MF_GPU_LAUNCH_VERTICES - 10, 10, 16));
    assert_false(mf_gpu_launch_takes(1, MF_GPU_LAUNCH_VERTICES - 10, 11, 16));
}

/* mf_solve_many gives each network the value and canonical cut it gets
 * alone, side by side on every core and in turn with threads given; a
 * network that fails fails the call and leaves no result behind. */
static void test_solve_many_equals_one_by_one(void **state)
{
    (void)state;
    enum { K = 9 };
    mf_arclist lists[K];
    mf_graph g[K];
    const mf_graph *ptr[K];
    mf_result alone[K], many[K];
    mf_error err = {0};
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.cut_only = 1;
    for (int i = 0; i < K; i++) {
        assert_int_equal(random_graph(i % 3 == 0 ? FAMILY_SPARSE : FAMILY_DENSE, 30 + 7 * i, 100 + i, &lists[i]),
                         MF_OK);
        assert_int_equal(mf_graph_from_arcs(&lists[i], NULL, &g[i], &err), MF_OK);
        ptr[i] = &g[i];
        assert_int_equal(mf_solve(&g[i], &opt, &alone[i], &err), MF_OK);
    }
    for (int threads = 0; threads <= 2; threads += 2) {
        opt.threads = threads;
        assert_int_equal(mf_solve_many(ptr, K, &opt, many, &err), MF_OK);
        for (int i = 0; i < K; i++) {
            assert_int_equal(many[i].flow_value, alone[i].flow_value);
            assert_int_equal(many[i].flow_value, reference_max_flow(&lists[i], NULL));
            assert_memory_equal(many[i].source_side, alone[i].source_side, (size_t)g[i].num_vertices);
            mf_result_free(&many[i]);
        }
    }
    assert_int_equal(mf_solve_many(ptr, 0, &opt, many, &err), MF_OK);
    assert_int_equal(mf_solve_many(ptr, -1, &opt, many, &err), MF_ERR_INVALID);
    /* a network BK refuses (one vertex) in the middle: the call fails
     * with its error and leaves no result behind */
    mf_graph bad = g[K / 2];
    bad.num_vertices = 1;
    ptr[K / 2] = &bad;
    opt.cpu_algorithm = MF_CPU_BK;
    opt.threads = 0;
    memset(many, 0x5a, sizeof many);
    assert_int_equal(mf_solve_many(ptr, K, &opt, many, &err), MF_ERR_INVALID);
    assert_non_null(strstr(err.message, "1 vertices"));
    for (int i = 0; i < K; i++)
        assert_null(many[i].source_side);
    for (int i = 0; i < K; i++) {
        mf_result_free(&alone[i]);
        mf_graph_free(&g[i]);
        mf_arclist_free(&lists[i]);
    }
}

/* mf_graph_finish checks the arcs and lists them by head on every core
 * past a million arcs: the first bad arc in arc order decides the error,
 * and the in-lists are the serial pass's. */
static void test_graph_finish_checks_and_in_lists(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        mf_arclist list;
        mf_graph g;
        mf_error err = {0};
        assert_int_equal(mf_gen_grid(big ? 700 : 40, big ? 500 : 30, 8, 3, &list), MF_OK);
        assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
        const int32_t m = g.num_arcs, n = g.num_vertices;
        assert_true(!big || m >= (1 << 20));
        /* the in-lists: by head, in arc order within a head */
        for (int32_t v = 0; v < n; v++)
            for (int32_t k = g.in_start[v]; k < g.in_start[v + 1]; k++) {
                const int32_t a = g.in_arc[k];
                assert_int_equal(g.arc_head[a], v);
                assert_int_equal(mf_arc_tail(&g, a), g.in_tail[k]);
                if (k > g.in_start[v])
                    assert_true(g.in_arc[k - 1] < a);
            }
        const int32_t late = m - 3, early = m / 3;
        const int32_t head = g.arc_head[late], cap = g.arc_cap[early];
        g.arc_head[late] = n;
        assert_int_equal(mf_graph_finish(&g, &err), MF_ERR_INVALID);
        assert_non_null(strstr(err.message, "arc head out of range"));
        g.arc_cap[early] = -1; /* an earlier fault of another kind wins */
        assert_int_equal(mf_graph_finish(&g, &err), MF_ERR_INVALID);
        assert_non_null(strstr(err.message, "arc capacity out of range"));
        g.arc_head[late] = head;
        g.arc_cap[early] = cap;
        const int32_t mid = g.out_start[n / 2];
        g.out_start[n / 2] = g.out_start[n / 2 + 1] + 1;
        assert_int_equal(mf_graph_finish(&g, &err), MF_ERR_INVALID);
        assert_non_null(strstr(err.message, "inconsistent CSR offsets"));
        g.out_start[n / 2] = mid;
        assert_int_equal(mf_graph_finish(&g, &err), MF_OK);
        mf_graph_free(&g);
        mf_arclist_free(&list);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_instances),
        cmocka_unit_test(test_random_graphs_match_edmonds_karp),
        cmocka_unit_test(test_value_beyond_32_bits),
        cmocka_unit_test(test_verify_rejects_a_wrong_certificate),
        cmocka_unit_test(test_auto_algorithm),
        cmocka_unit_test(test_gpu_engine_absent_or_named),
        cmocka_unit_test(test_engine_pick_and_fallback),
        cmocka_unit_test(test_solve_many_equals_one_by_one),
        cmocka_unit_test(test_big_allocations),
        cmocka_unit_test(test_alloc_cache),
        cmocka_unit_test(test_graph_finish_checks_and_in_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
