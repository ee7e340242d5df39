/* CPU engines that augment along paths between two search trees,
 * Boykov-Kolmogorov and IBFS (built once per algorithm: PATH_ALGORITHM):
 * the same instances as push-relabel, plus the terminal handling they
 * share (terminal residuals per vertex, pre-cancelled s->v->t capacity,
 * flows mapped back onto terminal arcs). Both return a valid flow, so
 * every solve is checked as a flow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"
#include "internal.h" /* mf_test_fail_allocation */
#include "tuning.h"   /* BK's blocks and spines on small graphs */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PATH_ALGORITHM
#define PATH_ALGORITHM MF_CPU_BK
#endif

static void test_known_instances(void **state)
{
    (void)state;
    check_known_instances(PATH_ALGORITHM, 1);
}

static void test_random_graphs_match_edmonds_karp(void **state)
{
    (void)state;
    check_random_graphs(PATH_ALGORITHM, 1);
}

static void test_terminal_arcs_of_every_kind(void **state)
{
    (void)state;
    for (int merge = 0; merge < 2; merge++) {
        mf_arclist list;
        assert_int_equal(mf_arclist_init(&list, 7, 32), MF_OK);
        list.source = 0;
        list.sink = 6;
        static const int32_t arcs[][3] = {
            {0, 1, 9}, {0, 1, 4}, {1, 0, 7}, {1, 6, 3},  /* both terminals, parallel */
            {0, 2, 5}, {2, 6, 5}, {6, 2, 8},             /* fully pre-cancelled */
            {3, 0, 6}, {6, 3, 2}, {3, 4, 10},            /* only reverse terminal arcs */
            {0, 4, 12}, {4, 5, 6}, {5, 6, 4}, {5, 6, 1}, {4, 6, 2},
            {0, 6, 11}, {6, 0, 13}, {1, 2, 3}, {2, 5, 2}, {5, 1, 9}};
        for (size_t i = 0; i < sizeof arcs / sizeof arcs[0]; i++)
            assert_int_equal(mf_arclist_add(&list, arcs[i][0], arcs[i][1], arcs[i][2]), MF_OK);
        check_cpu_solve(&list, merge, 1, PATH_ALGORITHM, merge ? "terminals, merged" : "terminals");
        mf_arclist_free(&list);
    }
}

static void test_value_beyond_32_bits(void **state)
{
    (void)state;
    check_value_beyond_32_bits(PATH_ALGORITHM);
}

static void test_grids_match_push_relabel(void **state)
{
    (void)state;
    for (int conn = 4; conn <= 8; conn += 4) {
        for (uint64_t seed = 1; seed <= 4; seed++) {
            mf_arclist list;
            mf_graph g;
            mf_result pr, bk; /* bk: the algorithm under test */
            mf_error err = {0};
            assert_int_equal(mf_gen_grid(60 + (int32_t)seed * 7, 45, conn, seed, &list), MF_OK);
            assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
            mf_options opt;
            mf_options_default(&opt);
            opt.engine = MF_ENGINE_CPU;
            assert_int_equal(mf_solve(&g, &opt, &pr, &err), MF_OK);
            opt.cpu_algorithm = PATH_ALGORITHM;
            assert_int_equal(mf_solve(&g, &opt, &bk, &err), MF_OK);
            assert_true(bk.flow_value == pr.flow_value);
            assert_memory_equal(bk.source_side, pr.source_side, (size_t)g.num_vertices);
            if (mf_verify(&g, &bk, 1, &err) != MF_OK)
                fail_msg("grid %d-connected seed %llu: %s", conn, (unsigned long long)seed, err.message);
            mf_result_free(&pr);
            mf_result_free(&bk);
            mf_graph_free(&g);
            mf_arclist_free(&list);
        }
    }
}

/* A segmentation-like grid (every pixel with terminal capacity), its
 * graph and push-relabel's result on one thread; returns BK's options on
 * one thread for the test to vary. */
static mf_options grid_with_reference(int32_t width, int32_t height, int conn, uint64_t seed, mf_arclist *list,
                                      mf_graph *g, mf_result *pr)
{
    mf_error err = {0};
    assert_int_equal(mf_gen_grid(width, height, conn, seed, list), MF_OK);
    assert_int_equal(mf_graph_from_arcs(list, NULL, g, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.threads = 1;
    assert_int_equal(mf_solve(g, &opt, pr, &err), MF_OK);
    opt.cpu_algorithm = MF_CPU_BK;
    return opt;
}

/* BK's tuning with blocks of 60 vertices allowed whatever their arcs
 * cross, so that small graphs merge blocks on a few threads. */
static void small_blocks(void)
{
    mf_bk_tuning t = mf_bk_tuning_default();
    t.min_block = 60;
    t.max_crossing = 1;
    mf_bk_tuning_set(&t);
}

/* Calls fn on the segmentation-like grids of the excess and spine tests
 * (4- and 8-connected, four seeds each, push-relabel's result in pr), with
 * blocks of 60 vertices allowed so that three threads merge. */
typedef void (*grid_case)(mf_graph *g, mf_options *opt, const mf_result *pr, int conn, uint64_t seed, void *ctx);
static void over_small_grids(grid_case fn, void *ctx)
{
    small_blocks();
    for (int conn = 4; conn <= 8; conn += 4)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            mf_arclist list;
            mf_graph g;
            mf_result pr;
            mf_options opt = grid_with_reference(90, 60 + 5 * (int32_t)seed, conn, seed, &list, &g, &pr);
            fn(&g, &opt, &pr, conn, seed, ctx);
            mf_result_free(&pr);
            mf_graph_free(&g);
            mf_arclist_free(&list);
        }
    mf_bk_tuning_set(NULL);
}

static void excess_case(mf_graph *g, mf_options *opt, const mf_result *pr, int conn, uint64_t seed, void *ctx)
{
    int64_t *walked = ctx;
    mf_result r;
    mf_error err = {0};
    mf_bk_tuning t = *mf_bk_tuning_get();
    t.spine_length = INT32_MAX;
    mf_bk_tuning_set(&t);
    /* one thread: one block, with excesses if cut only; three: merged
     * blocks, which keep none */
    for (int run = 0; run < 4; run++) {
        opt->cut_only = run & 1;
        opt->threads = run & 2 ? 3 : 1;
        assert_int_equal(mf_solve(g, opt, &r, &err), MF_OK);
        if (r.flow_value != pr->flow_value || memcmp(r.source_side, pr->source_side, (size_t)g->num_vertices))
            fail_msg("grid %d-connected seed %llu, cut only %d, %d threads: value %lld, push-relabel %lld, or "
                     "the cut differs",
                     conn, (unsigned long long)seed, opt->cut_only, opt->threads, (long long)r.flow_value,
                     (long long)pr->flow_value);
        if (opt->threads == 1)
            walked[opt->cut_only] += r.stats.visits;
        mf_result_free(&r);
    }
    opt->cut_only = 0;
}

/* BK, cut only: the source side sends all it can along a path and the
 * sink side keeps what an arc cannot pass as an excess (bk_engine.c,
 * augment, discharge), where the graph is one block. On
 * segmentation-like grids, on one thread and on blocks merged by three:
 * push-relabel's value and canonical cut, and on one thread fewer
 * vertices walked than a full-flow solve, which keeps no excesses (its
 * spines held off by a path length no path reaches, so that both walk
 * every path). */
static void test_excesses_keep_value_and_cut(void **state)
{
    (void)state;
    if (PATH_ALGORITHM != MF_CPU_BK)
        skip(); /* IBFS keeps no excesses */
    int64_t walked[2] = {0, 0};
    over_small_grids(excess_case, walked);
    if (!(walked[1] < walked[0]))
        fail_msg("%lld vertices walked with excesses, %lld without", (long long)walked[1], (long long)walked[0]);
}

static void spine_case(mf_graph *g, mf_options *opt, const mf_result *pr, int conn, uint64_t seed, void *ctx)
{
    int64_t *walked = ctx;
    mf_result r;
    mf_error err = {0};
    for (int run = 0; run < 6; run++) {
        /* spines never (a path length no path reaches), from the first
         * path (these grids' paths are short), or switched on and off by
         * a low path length */
        static const int32_t length[3] = {INT32_MAX, 0, 12};
        int spine = run % 3;
        opt->threads = run / 3 ? 3 : 1;
        mf_bk_tuning t = *mf_bk_tuning_get();
        t.spine_length = length[spine];
        mf_bk_tuning_set(&t);
        assert_int_equal(mf_solve(g, opt, &r, &err), MF_OK);
        if (r.flow_value != pr->flow_value || memcmp(r.source_side, pr->source_side, (size_t)g->num_vertices))
            fail_msg("grid %d-connected seed %llu, spines %d, %d threads: value %lld, push-relabel %lld, or the "
                     "cut differs",
                     conn, (unsigned long long)seed, spine, opt->threads, (long long)r.flow_value,
                     (long long)pr->flow_value);
        if (mf_verify(g, &r, 1, &err) != MF_OK)
            fail_msg("grid %d-connected seed %llu, spines %d, %d threads: %s", conn, (unsigned long long)seed,
                     spine, opt->threads, err.message);
        walked[spine] += r.stats.visits;
        mf_result_free(&r);
    }
}

/* BK with spines (bk_engine.c, bk_spine: the last path's branches cached
 * with the flow their arcs do not show yet), on one thread and on blocks
 * merged by three, full flows: push-relabel's
 * value and canonical cut, a valid flow (so every arc got its flow when
 * it left a spine), and fewer vertices walked than without spines. */
static void test_spines_keep_flow_and_cut(void **state)
{
    (void)state;
    if (PATH_ALGORITHM != MF_CPU_BK)
        skip(); /* IBFS has no spines */
    int64_t walked[3] = {0, 0, 0};
    over_small_grids(spine_case, walked);
    if (!(walked[1] < walked[0]) || !(walked[2] < walked[0]))
        fail_msg("%lld and %lld vertices walked with spines (always, switched), %lld without", (long long)walked[1],
                 (long long)walked[2], (long long)walked[0]);
}

/* The CPU engine with the algorithm under test on `threads` threads. */
static mf_options path_options(int threads, int cut_only)
{
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.cpu_algorithm = PATH_ALGORITHM;
    opt.threads = threads;
    opt.cut_only = cut_only;
    return opt;
}

/* A graph large enough that the set-up and clean-up passes split into
 * ranges on several threads (65,536 vertices a range): a grid with
 * terminal arcs of every kind spread over it (v -> s, t -> v, s -> t and
 * t -> s besides the grid's own), solved on 1 to 4 threads, for flows and
 * for the cut alone, against push-relabel's value and canonical cut. */
static void test_terminal_arcs_on_split_ranges(void **state)
{
    (void)state;
    mf_arclist list;
    mf_graph g;
    mf_result pr, r;
    mf_error err = {0};
    assert_int_equal(mf_gen_grid(700, 400, 4, 3, &list), MF_OK);
    int32_t s = list.source, t = list.sink, n = list.num_vertices;
    for (int32_t v = 0; v < n; v += 7)
        if (v != s && v != t) {
            assert_int_equal(mf_arclist_add(&list, v, s, 3 + v % 5), MF_OK);     /* only a reverse capacity */
            assert_int_equal(mf_arclist_add(&list, t, v, 2 + v % 3), MF_OK);     /* v -> t as a reverse */
            assert_int_equal(mf_arclist_add(&list, s, v, 1 + v % 4), MF_OK);     /* parallel to the grid's */
        }
    assert_int_equal(mf_arclist_add(&list, s, t, 17), MF_OK);
    assert_int_equal(mf_arclist_add(&list, t, s, 5), MF_OK);
    assert_true(n > 4 * 65536);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    assert_int_equal(mf_solve(&g, &opt, &pr, &err), MF_OK);
    for (int threads = 1; threads <= 4; threads++)
        for (int cut_only = 0; cut_only < 2; cut_only++) {
            opt = path_options(threads, cut_only);
            assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
            if (r.flow_value != pr.flow_value || memcmp(r.source_side, pr.source_side, (size_t)n))
                fail_msg("%d threads%s: value %lld, push-relabel %lld, or the cut differs", threads,
                         cut_only ? ", cut only" : "", (long long)r.flow_value, (long long)pr.flow_value);
            if (!cut_only && mf_verify(&g, &r, 1, &err) != MF_OK)
                fail_msg("%d threads: %s", threads, err.message);
            mf_result_free(&r);
        }
    mf_result_free(&pr);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

/* BK's time stats (mf_stats): the longest task lies on some chain of
 * tasks and each chain is a part of the work, so 0 < longest <= critical
 * <= work (up to the order of the sums' rounding), and the critical chain
 * is inside the solve; one block is one task, all three equal. */
static void check_block_times(const mf_result *r)
{
    const mf_stats *st = &r->stats;
    const double slack = 1e-9 * (1 + st->work_seconds);
    if (!(st->longest_task_seconds > 0 && st->longest_task_seconds <= st->critical_seconds &&
          st->critical_seconds <= st->work_seconds + slack && st->critical_seconds <= st->solve_seconds + slack))
        fail_msg("%lld blocks: longest %.9f, critical %.9f, work %.9f, solve %.9f s", (long long)st->rounds,
                 st->longest_task_seconds, st->critical_seconds, st->work_seconds, st->solve_seconds);
    if (st->rounds == 1 && (st->work_seconds != st->critical_seconds || st->work_seconds != st->longest_task_seconds))
        fail_msg("one block: work %.9f, critical %.9f, longest %.9f s differ", st->work_seconds,
                 st->critical_seconds, st->longest_task_seconds);
}

/* A width x height grid solved on 1 to max_threads threads: the same value
 * and cut every time, and BK with per blocks a thread (64 at most), so that
 * its pool runs more tasks than threads. */
static void grid_cuts_agree(int32_t width, int32_t height, int conn, uint64_t seed, int max_threads, int per,
                            int cut_only)
{
    mf_error err = {0};
    mf_arclist list;
    mf_graph g;
    mf_result one;
    assert_int_equal(mf_gen_grid(width, height, conn, seed, &list), MF_OK);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    static const int counts[] = {1, 2, 3, 4, 5, 8, 12, 16, 24};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0] && counts[i] <= max_threads; i++) {
        const int threads = counts[i];
        mf_options opt = path_options(threads, cut_only);
        mf_result r;
        assert_int_equal(mf_solve(&g, &opt, threads == 1 ? &one : &r, &err), MF_OK);
        if (PATH_ALGORITHM == MF_CPU_BK)
            check_block_times(threads == 1 ? &one : &r);
        if (threads == 1)
            continue;
        assert_true(r.flow_value == one.flow_value);
        assert_memory_equal(r.source_side, one.source_side, (size_t)g.num_vertices);
        int want = per * threads < 64 ? per * threads : 64;
        if (PATH_ALGORITHM == MF_CPU_BK && r.stats.rounds != want)
            fail_msg("%dx%d, %d a thread, %d threads: %lld blocks, want %d", width, height, per, threads,
                     (long long)r.stats.rounds, want);
        mf_result_free(&r);
    }
    mf_result_free(&one);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

/* Any thread count gives the same value and the same canonical cut: BK
 * merges blocks of vertices (forced here on small graphs, and on graphs
 * whose arcs cross the blocks, which the engine would solve serially). */
static void test_thread_counts_give_identical_cuts(void **state)
{
    (void)state;
    small_blocks();
    mf_error err = {0};
    for (int family = 0; family < FAMILY_COUNT; family++) {
        for (uint64_t seed = 1; seed <= 12; seed++) {
            mf_arclist list;
            mf_graph g;
            assert_int_equal(random_graph(family, 300 + (int32_t)seed * 40, seed, &list), MF_OK);
            uint8_t *want = malloc((size_t)list.num_vertices);
            int64_t value = reference_max_flow(&list, want);
            assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
            for (int threads = 1; threads <= 8; threads++) {
                mf_options opt = path_options(threads, 0);
                mf_result r;
                opt.phase2 = 1;
                assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
                if (r.flow_value != value || memcmp(r.source_side, want, (size_t)g.num_vertices))
                    fail_msg("family %d seed %llu, %d threads: value %lld, want %lld, or the cut differs",
                             family, (unsigned long long)seed, threads, (long long)r.flow_value, (long long)value);
                if (mf_verify(&g, &r, 1, &err) != MF_OK)
                    fail_msg("family %d seed %llu, %d threads: %s", family, (unsigned long long)seed, threads,
                             err.message);
                mf_result_free(&r);
                /* value and cut alone (BK then leaves the terminal arcs out of its residual graph) */
                opt.cut_only = 1;
                assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
                if (r.flow_value != value || memcmp(r.source_side, want, (size_t)g.num_vertices) || r.flow)
                    fail_msg("family %d seed %llu, %d threads, cut only: value %lld, want %lld, or the cut differs",
                             family, (unsigned long long)seed, threads, (long long)r.flow_value, (long long)value);
                mf_result_free(&r);
            }
            free(want);
            mf_graph_free(&g);
            mf_arclist_free(&list);
        }
    }
    /* grids in row order: the blocks are row bands, as in photos */
    grid_cuts_agree(210, 160, 4, 9, 16, 2, 0);
    grid_cuts_agree(210, 160, 8, 9, 16, 2, 0);
    /* as many blocks as threads, and 4 a thread (up to the cap of 64 blocks) */
    mf_bk_tuning t = *mf_bk_tuning_get();
    t.blocks_per_thread = 1;
    mf_bk_tuning_set(&t);
    grid_cuts_agree(300, 120, 8, 4, 24, 1, 1);
    t.blocks_per_thread = 4;
    mf_bk_tuning_set(&t);
    grid_cuts_agree(300, 120, 8, 4, 24, 4, 1);
    mf_bk_tuning_set(NULL);
}

/* A cut-only solve that sets up on one thread reads no in-lists (a
 * builder may leave them unset, graphbuild's in_lists 0): with in_arc and
 * in_tail overwritten by garbage it gives the same value and cut. Every
 * other solve says it reads them. */
static void test_set_up_without_in_lists(void **state)
{
    (void)state;
    mf_error err = {0};
    mf_arclist list;
    mf_graph g;
    assert_int_equal(mf_gen_grid(400, 400, 8, 11, &list), MF_OK); /* 160,002 vertices */
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    mf_options one = path_options(1, 1), flows = path_options(1, 0), many = path_options(4, 1), pr = one;
    pr.cpu_algorithm = MF_CPU_PUSH_RELABEL;
    assert_int_equal(mf_cpu_reads_in_lists(&g, &one), 0);
    assert_int_equal(mf_cpu_reads_in_lists(&g, &flows), 1);
    assert_int_equal(mf_cpu_reads_in_lists(&g, &many), PATH_ALGORITHM == MF_CPU_BK); /* threaded set-up */
    assert_int_equal(mf_cpu_reads_in_lists(&g, &pr), 1);
    mf_options automatic = one;
    automatic.cpu_algorithm = MF_CPU_AUTO; /* a photo-like grid: BK, one thread */
    assert_int_equal(mf_cpu_reads_in_lists(&g, &automatic), 0);
    mf_result clean, blind;
    assert_int_equal(mf_solve(&g, &one, &clean, &err), MF_OK);
    for (int32_t i = 0; i < g.num_arcs; i++)
        g.in_arc[i] = g.in_tail[i] = INT32_MIN;
    assert_int_equal(mf_solve(&g, &one, &blind, &err), MF_OK);
    assert_true(blind.flow_value == clean.flow_value);
    assert_memory_equal(blind.source_side, clean.source_side, (size_t)g.num_vertices);
    mf_result_free(&clean);
    mf_result_free(&blind);
    mf_graph_free(&g);
    mf_arclist_free(&list);
    /* not photo-like: auto's distance pass walks the in-lists */
    assert_int_equal(random_graph(FAMILY_SPARSE, 500, 3, &list), MF_OK);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    assert_int_equal(mf_cpu_reads_in_lists(&g, &automatic), 1);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

/* Skewed degrees: in the threaded set-up a vertex of out-degree above 64
 * has its arcs' places among the kept ones tabulated, the others count
 * them (counting cost a hub O(degree^2)); and a graph whose arcs cross any
 * blocks is planned as one block before the set-up (BK), while a grid in
 * row order keeps its bands. */
static void test_hubs_and_scattered_arcs(void **state)
{
    (void)state;
    mf_error err = {0};
    mf_arclist list;
    mf_graph g;
    assert_int_equal(mf_gen_rmat(12, 16, 4, 1000, 3, &list), MF_OK);
    uint8_t *want = malloc((size_t)list.num_vertices);
    assert_non_null(want);
    int64_t value = reference_max_flow(&list, want);
    assert_true(value > 0);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    int32_t max_degree = 0;
    for (int32_t v = 0; v < g.num_vertices; v++)
        if (v != g.source && v != g.sink && g.out_start[v + 1] - g.out_start[v] > max_degree)
            max_degree = g.out_start[v + 1] - g.out_start[v];
    assert_true(max_degree > 64);
    mf_bk_tuning t = mf_bk_tuning_default();
    t.setup = MF_BK_SETUP_PARALLEL;
    t.min_block = 60;
    mf_bk_tuning_set(&t);
    for (int threads = 1; threads <= 4; threads++)
        for (int cut_only = 0; cut_only < 2; cut_only++) {
            mf_options opt = path_options(threads, cut_only);
            mf_result r;
            assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
            if (r.flow_value != value || memcmp(r.source_side, want, (size_t)g.num_vertices))
                fail_msg("R-MAT, %d threads, cut only %d: value %lld, want %lld, or the cut differs", threads,
                         cut_only, (long long)r.flow_value, (long long)value);
            if (PATH_ALGORITHM == MF_CPU_BK)
                assert_int_equal(r.stats.rounds, 1); /* one block: its arcs cross them all */
            mf_result_free(&r);
        }
    t.setup = MF_BK_SETUP_AUTO;
    mf_bk_tuning_set(&t);
    free(want);
    mf_graph_free(&g);
    mf_arclist_free(&list);
    if (PATH_ALGORITHM == MF_CPU_BK) {
        /* 100 x 2000 in row order, 8 threads: 16 bands of 12,500 vertices */
        assert_int_equal(mf_gen_grid(100, 2000, 4, 7, &list), MF_OK);
        assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
        mf_options opt = path_options(8, 1);
        mf_result r;
        assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
        assert_int_equal(r.stats.rounds, 16);
        mf_result_free(&r);
        mf_graph_free(&g);
        mf_arclist_free(&list);
    }
    mf_bk_tuning_set(NULL);
}

/* A block or merge that cannot get its buffers fails the solve cleanly, on
 * whichever thread it runs: the other tasks only count down, the pool does
 * not hang, and nothing leaks (ASan in tests/run.sh). A leaf's list of
 * border vertices that cannot be had leaves the graph in one block, which
 * solves it all the same. Every allocation is made to fail in turn, then
 * the solve runs through. */
static void test_allocation_failure_in_blocks(void **state)
{
    (void)state;
    if (PATH_ALGORITHM != MF_CPU_BK)
        skip(); /* IBFS has no blocks */
    small_blocks(); /* thin bands of a small grid */
    mf_error err = {0};
    mf_arclist list;
    mf_graph g;
    mf_result one, r;
    assert_int_equal(mf_gen_grid(210, 160, 8, 5, &list), MF_OK);
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    mf_options opt = path_options(1, 1);
    assert_int_equal(mf_solve(&g, &opt, &one, &err), MF_OK);
    opt.threads = 6; /* 12 blocks (a border list each), 23 tasks of 7 buffers each (a queue, the
                      * orphans, the path and the two spines' two arrays) */
    int failures = 0, one_block = 0;
    for (int64_t after = 0;; after++) {
        mf_test_fail_allocation(after);
        int rc = mf_solve(&g, &opt, &r, &err);
        mf_test_fail_allocation(-1);
        if (rc == MF_OK) {
            assert_true(r.flow_value == one.flow_value);
            assert_memory_equal(r.source_side, one.source_side, (size_t)g.num_vertices);
            int64_t blocks = r.stats.rounds;
            mf_result_free(&r);
            if (blocks == 12)
                break;
            assert_int_equal(blocks, 1);
            one_block++;
        } else {
            assert_int_equal(rc, MF_ERR_NOMEM);
            assert_int_equal(err.code, MF_ERR_NOMEM);
            failures++;
        }
        assert_true(after < 1000);
    }
    assert_int_equal(one_block, 12);
    assert_int_equal(failures, 7 * 23);
    mf_result_free(&one);
    mf_graph_free(&g);
    mf_arclist_free(&list);
    mf_bk_tuning_set(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_instances),
        cmocka_unit_test(test_random_graphs_match_edmonds_karp),
        cmocka_unit_test(test_terminal_arcs_of_every_kind),
        cmocka_unit_test(test_value_beyond_32_bits),
        cmocka_unit_test(test_grids_match_push_relabel),
        cmocka_unit_test(test_excesses_keep_value_and_cut),
        cmocka_unit_test(test_spines_keep_flow_and_cut),
        cmocka_unit_test(test_thread_counts_give_identical_cuts),
        cmocka_unit_test(test_terminal_arcs_on_split_ranges),
        cmocka_unit_test(test_set_up_without_in_lists),
        cmocka_unit_test(test_hubs_and_scattered_arcs),
        cmocka_unit_test(test_allocation_failure_in_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
