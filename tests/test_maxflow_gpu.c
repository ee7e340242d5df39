/* GPU engine differential test: every family, size and seed against the
 * CPU engine (same value, bit-identical cut) and the certificate.
 * Without a CUDA device it says "skipped: no CUDA device" and exits 77,
 * which ctest reports as skipped.
 *   test_maxflow_gpu [--gpu-tuning KEY=VALUE[,KEY=VALUE...]]...
 * runs the same checks with the engine's tuning changed (tuning.h's
 * mf_gpu_tuning keys), to reach its other launch paths on small graphs:
 * e.g. small_push=0 (whole-grid rounds only) or hub_degree=3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"
#include "flowcut/graphbuild.h"
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mf_gpu_solver *solver; /* one solver reused across all graphs */

static void compare_engines(const mf_arclist *list, int phase2, const char *what)
{
    mf_graph g;
    mf_result cpu, gpu;
    mf_error err = {0};
    mf_options opt;
    mf_options_default(&opt);
    opt.phase2 = phase2;
    assert_int_equal(mf_graph_from_arcs(list, NULL, &g, &err), MF_OK);
    opt.engine = MF_ENGINE_CPU;
    assert_int_equal(mf_solve(&g, &opt, &cpu, &err), MF_OK);
    if (mf_gpu_solve(solver, &g, &opt, &gpu, &err) != MF_OK)
        fail_msg("%s: GPU solve failed: %s", what, err.message);
    if (gpu.flow_value != cpu.flow_value)
        fail_msg("%s: GPU flow %lld, CPU %lld", what, (long long)gpu.flow_value,
                 (long long)cpu.flow_value);
    if (mf_verify(&g, &gpu, phase2, &err) != MF_OK)
        fail_msg("%s: GPU certificate: %s", what, err.message);
    if (memcmp(gpu.source_side, cpu.source_side, (size_t)g.num_vertices) != 0)
        fail_msg("%s: GPU cut differs from the CPU cut", what);
    mf_result_free(&cpu);
    mf_result_free(&gpu);
    mf_graph_free(&g);
}

/* Renumbers list's vertices so that its source and sink come last, as
 * mf_gpu_solve_many wants them. */
static void terminals_last(mf_arclist *list)
{
    const int32_t n = list->num_vertices;
    int32_t *p = malloc(sizeof(int32_t) * (size_t)n);
    assert_non_null(p);
    for (int32_t v = 0; v < n; v++)
        p[v] = v;
    const int32_t want[2] = {list->source, list->sink};
    for (int j = 0; j < 2; j++) {
        const int32_t slot = n - 2 + j;
        int32_t x = 0;
        while (p[x] != slot)
            x++;
        const int32_t tmp = p[want[j]];
        p[want[j]] = slot;
        p[x] = tmp;
    }
    for (int32_t a = 0; a < list->num_arcs; a++) {
        list->tail[a] = p[list->tail[a]];
        list->head[a] = p[list->head[a]];
    }
    list->source = n - 2;
    list->sink = n - 1;
    free(p);
}

/* Capacity of the cut a source side gives, both directions of each arc. */
static int64_t cut_capacity(const mf_graph *g, const uint8_t *side)
{
    int64_t c = 0;
    for (int32_t u = 0; u < g->num_vertices; u++)
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            const int32_t w = g->arc_head[a];
            if (side[u] && !side[w])
                c += g->arc_cap[a];
            else if (!side[u] && side[w])
                c += g->arc_rcap[a];
        }
    return c;
}

/* Solves graphs[0..k) as one union on the device and each alone on the
 * CPU: the same value and the same cut, bit for bit, for every one, and
 * each cut's capacity is its value. */
static void compare_many(mf_graph *graphs, int k, const char *what)
{
    const mf_graph **parts = malloc(sizeof *parts * (size_t)k);
    mf_result *many = calloc((size_t)k, sizeof *many);
    mf_error err = {0};
    mf_options opt;
    mf_options_default(&opt);
    assert_non_null(parts);
    assert_non_null(many);
    for (int i = 0; i < k; i++)
        parts[i] = &graphs[i];
    if (mf_gpu_solve_many(solver, parts, k, &opt, many, &err) != MF_OK)
        fail_msg("%s: union solve failed: %s", what, err.message);
    /* and through the library's scheduler, which groups them into launches */
    mf_result *scheduled = calloc((size_t)k, sizeof *scheduled);
    assert_non_null(scheduled);
    if (mf_solve_many(parts, k, &opt, scheduled, &err) != MF_OK)
        fail_msg("%s: mf_solve_many failed: %s", what, err.message);
    opt.engine = MF_ENGINE_CPU;
    for (int i = 0; i < k; i++) {
        mf_result cpu;
        assert_int_equal(mf_solve(&graphs[i], &opt, &cpu, &err), MF_OK);
        if (many[i].flow_value != cpu.flow_value)
            fail_msg("%s: network %d of %d: union flow %lld, CPU %lld", what, i, k,
                     (long long)many[i].flow_value, (long long)cpu.flow_value);
        if (memcmp(many[i].source_side, cpu.source_side, (size_t)graphs[i].num_vertices) != 0)
            fail_msg("%s: network %d of %d: the union's cut differs from the CPU cut", what, i, k);
        if (cut_capacity(&graphs[i], many[i].source_side) + graphs[i].flow_offset != many[i].flow_value)
            fail_msg("%s: network %d of %d: cut capacity is not the value", what, i, k);
        assert_null(many[i].flow);
        if (scheduled[i].flow_value != cpu.flow_value ||
            memcmp(scheduled[i].source_side, cpu.source_side, (size_t)graphs[i].num_vertices) != 0)
            fail_msg("%s: network %d of %d: mf_solve_many's value or cut differs from the CPU's", what, i, k);
        if (scheduled[i].stats.engine_used != MF_ENGINE_GPU)
            fail_msg("%s: network %d of %d: mf_solve_many did not use the device", what, i, k);
        mf_result_free(&cpu);
        mf_result_free(&many[i]);
        mf_result_free(&scheduled[i]);
    }
    free(scheduled);
    free(parts);
    free(many);
}

static void graph_of(mf_arclist *list, mf_graph *g)
{
    mf_error err = {0};
    terminals_last(list);
    assert_int_equal(mf_graph_from_arcs(list, NULL, g, &err), MF_OK);
    mf_arclist_free(list);
}

static int32_t rnd(uint64_t *state, int32_t lo, int32_t hi)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (int32_t)((*state >> 33) % (uint64_t)(hi - lo + 1));
}

/* A photo-like network from pairs: a w x h 4-grid with random n-links and
 * terminal capacities on both sides (pre-cancelled into flow_offset). */
static void pairs_grid(int32_t w, int32_t h, uint64_t seed, mf_graph *g)
{
    const int32_t n = w * h;
    int64_t pairs = 0;
    int32_t *tail = malloc(sizeof(int32_t) * 2 * (size_t)n), *head = malloc(sizeof(int32_t) * 2 * (size_t)n);
    int32_t *cap = malloc(sizeof(int32_t) * 2 * (size_t)n), *rcap = malloc(sizeof(int32_t) * 2 * (size_t)n);
    int64_t *sc = malloc(sizeof(int64_t) * (size_t)n), *tc = malloc(sizeof(int64_t) * (size_t)n);
    mf_error err = {0};
    assert_true(tail && head && cap && rcap && sc && tc);
    uint64_t rng = seed;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            const int32_t v = y * w + x;
            if (x + 1 < w) {
                tail[pairs] = v, head[pairs] = v + 1;
                cap[pairs] = rnd(&rng, 0, 50), rcap[pairs++] = rnd(&rng, 0, 50);
            }
            if (y + 1 < h) {
                tail[pairs] = v, head[pairs] = v + w;
                cap[pairs] = rnd(&rng, 0, 50), rcap[pairs++] = rnd(&rng, 0, 50);
            }
            sc[v] = rnd(&rng, 0, 120);
            tc[v] = rnd(&rng, 0, 120);
        }
    assert_int_equal(mf_graph_from_pairs(n, pairs, tail, head, cap, rcap, sc, tc, g, &err), MF_OK);
    free(tail), free(head), free(cap), free(rcap), free(sc), free(tc);
}

static void test_solve_many(void **state)
{
    (void)state;
    mf_graph g[MF_GPU_MANY_MAX];
    mf_arclist list;
    int k = 0;
    /* grids and generator families together */
    assert_int_equal(mf_gen_grid(64, 48, 4, 1, &list), MF_OK);
    graph_of(&list, &g[k++]);
    assert_int_equal(mf_gen_genrmf(8, 8, 100, 10000, 2, &list), MF_OK);
    graph_of(&list, &g[k++]);
    assert_int_equal(mf_gen_washington_rlg(16, 32, 10000, 3, &list), MF_OK);
    graph_of(&list, &g[k++]);
    compare_many(g, k, "grid + genrmf + rlg");
    for (int i = 0; i < k; i++)
        mf_graph_free(&g[i]);
    /* every random family, unreachable sinks and values beyond 2^31 too */
    k = 0;
    for (int family = 0; family < FAMILY_COUNT; family++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            assert_int_equal(random_graph(family, 20 + (int32_t)(seed * 37 % 200), seed, &list), MF_OK);
            graph_of(&list, &g[k++]);
        }
    compare_many(g, k, "random families");
    compare_many(g + 3, 1, "one network");
    for (int i = 0; i < k; i++)
        mf_graph_free(&g[i]);
    /* the most networks at once, small ones */
    for (k = 0; k < MF_GPU_MANY_MAX; k++) {
        assert_int_equal(random_graph(k % FAMILY_COUNT, 2 + k % 30, 100 + (uint64_t)k, &list), MF_OK);
        graph_of(&list, &g[k]);
    }
    compare_many(g, k, "64 small networks");
    for (int i = 0; i < k; i++)
        mf_graph_free(&g[i]);
    /* photo-like networks from pairs, of different sizes */
    k = 0;
    pairs_grid(300, 200, 7, &g[k++]);
    pairs_grid(17, 5, 8, &g[k++]);
    pairs_grid(640, 480, 9, &g[k++]);
    pairs_grid(1, 1, 10, &g[k++]);
    compare_many(g, k, "pair grids");
    /* networks that break the rules: none, too many, terminals not last */
    mf_result res[MF_GPU_MANY_MAX + 1];
    mf_error err = {0};
    const mf_graph *parts[MF_GPU_MANY_MAX + 1];
    for (int i = 0; i <= MF_GPU_MANY_MAX; i++)
        parts[i] = &g[0];
    assert_int_equal(mf_gpu_solve_many(solver, parts, 0, NULL, res, &err), MF_ERR_INVALID);
    assert_int_equal(mf_gpu_solve_many(solver, parts, MF_GPU_MANY_MAX + 1, NULL, res, &err), MF_ERR_INVALID);
    g[1].source = 0;
    parts[1] = &g[1];
    assert_int_equal(mf_gpu_solve_many(solver, parts, 2, NULL, res, &err), MF_ERR_INVALID);
    assert_non_null(strstr(err.message, "network 1"));
    g[1].source = g[1].num_vertices - 2;
    for (int i = 0; i < k; i++)
        mf_graph_free(&g[i]);
}

/* A random grid form: weights (zero ones too), terminal capacities of
 * both signs and zero, its row counts as gb_build_grid sets them; pending:
 * the weights as squared colour distances with a similarity table, and
 * seeds marked, for the device to finish (gb_build_grid's form). */
static void random_grid(int32_t w, int32_t h, int nd, int all_terminals, int pending, uint64_t seed, mf_grid *g)
{
    const int64_t npx = (int64_t)w * h;
    memset(g, 0, sizeof *g);
    g->width = w;
    g->height = h;
    g->nd = nd;
    g->all_terminals = all_terminals;
    g->w = mf_alloc_big(sizeof(int32_t) * (size_t)(npx * nd));
    g->term = mf_alloc_big(sizeof(int32_t) * (size_t)npx);
    g->row_sources = mf_alloc_big(sizeof(int32_t) * (size_t)h);
    g->row_sinks = mf_alloc_big(sizeof(int32_t) * (size_t)h);
    assert_true(g->w && g->term && g->row_sources && g->row_sinks);
    uint64_t st = seed;
    for (int64_t i = 0; i < npx * nd; i++)
        g->w[i] = rnd(&st, 0, 4) == 0 ? 0 : rnd(&st, 1, 500);
    for (int32_t y = 0; y < h; y++) {
        g->row_sources[y] = g->row_sinks[y] = 0;
        for (int32_t x = 0; x < w; x++) {
            const int32_t t = rnd(&st, 0, 3) == 0 ? 0 : rnd(&st, -900, 900);
            g->term[(int64_t)y * w + x] = t;
            g->row_sources[y] += all_terminals || t > 0;
            g->row_sinks[y] += all_terminals || t < 0;
        }
    }
    g->flow_offset = rnd(&st, 0, 1000);
    if (pending) {
        g->table_size = rnd(&st, 1, 3000);
        g->table = mf_alloc_big(sizeof(double) * (size_t)g->table_size);
        assert_non_null(g->table);
        for (int32_t c = 0; c < g->table_size; c++)
            g->table[c] = (double)rnd(&st, 0, 1 << 30) / (double)(1 << 30);
        g->table_scale = 64.0 * rnd(&st, 1, 150);
        for (int64_t i = 0; i < npx * nd; i++)
            g->w[i] = rnd(&st, 0, 9) == 0 ? -1 : rnd(&st, 0, g->table_size - 1);
        for (int64_t i = 0; i < npx; i++) /* seeds; their sign keeps the row counts */
            if (rnd(&st, 0, 7) == 0)
                g->term[i] = g->term[i] > 0 ? MF_GRID_HARD : g->term[i] < 0 ? -MF_GRID_HARD : g->term[i];
    }
}

/* Grid forms expanded on the device: the value and the cut of the CSR
 * network gb_grid_to_graph makes of each, solved on the CPU; shapes down
 * to one row, one column and one pixel, both connectivities, with and
 * without both terminal arcs everywhere, rows wider than a block, half of
 * them with the weights and the seeds' capacity left to the device. */
static void test_solve_many_grids(void **state)
{
    (void)state;
    static const int32_t shapes[][2] = {{40, 30}, {1, 1}, {1, 57}, {300, 1}, {613, 9}, {17, 5}, {256, 3}, {257, 4},
                                        {120, 90}, {2, 2}};
    const int count = (int)(sizeof shapes / sizeof shapes[0]);
    mf_grid grids[2 * 10 * 2];
    mf_graph graphs[2 * 10 * 2];
    const mf_grid *parts[2 * 10 * 2];
    int k = 0;
    for (int nd = 2; nd <= 4; nd += 2)
        for (int i = 0; i < count; i++)
            for (int all = 0; all < 2; all++) { /* every other grid left to the device to finish */
                random_grid(shapes[i][0], shapes[i][1], nd, all, (i + all) % 2, 1000 + (uint64_t)k, &grids[k]);
                assert_int_equal(gb_grid_to_graph(&grids[k], 1, 2, &graphs[k]), GB_OK);
                parts[k] = &grids[k];
                k++;
            }
    mf_options opt;
    mf_options_default(&opt);
    mf_error err = {0};
    for (int pass = 0; pass < 2; pass++) { /* all at once, then each alone */
        const int step = pass == 0 ? k : 1;
        for (int first = 0; first < k; first += step) {
            mf_result many[2 * 10 * 2];
            const int parts_k = pass == 0 ? k : 1;
            opt.engine = MF_ENGINE_GPU;
            if (mf_gpu_solve_many_grids(solver, parts + first, parts_k, &opt, many, &err) != MF_OK)
                fail_msg("grid union of %d: %s", parts_k, err.message);
            opt.engine = MF_ENGINE_CPU;
            for (int i = 0; i < parts_k; i++) {
                const mf_graph *g = &graphs[first + i];
                mf_result cpu;
                assert_int_equal(mf_solve(g, &opt, &cpu, &err), MF_OK);
                if (many[i].flow_value != cpu.flow_value)
                    fail_msg("grid %d (%dx%d, nd %d, all %d): device %lld, CPU %lld", first + i, grids[first + i].width,
                             grids[first + i].height, grids[first + i].nd, grids[first + i].all_terminals,
                             (long long)many[i].flow_value, (long long)cpu.flow_value);
                if (memcmp(many[i].source_side, cpu.source_side, (size_t)g->num_vertices) != 0)
                    fail_msg("grid %d: the cut differs from the CPU cut", first + i);
                if (cut_capacity(g, many[i].source_side) + g->flow_offset != many[i].flow_value)
                    fail_msg("grid %d: cut capacity is not the value", first + i);
                mf_result_free(&cpu);
                mf_result_free(&many[i]);
            }
        }
    }
    /* a grid that is not one is refused */
    mf_grid bad = grids[0];
    bad.nd = 3;
    const mf_grid *badp[2] = {&grids[1], &bad};
    mf_result res[2];
    assert_int_equal(mf_gpu_solve_many_grids(solver, badp, 2, &opt, res, &err), MF_ERR_INVALID);
    assert_non_null(strstr(err.message, "grid 1"));
    for (int i = 0; i < k; i++) {
        mf_graph_free(&graphs[i]);
        mf_grid_free(&grids[i]);
    }
}

static void test_random_graphs(void **state)
{
    (void)state;
    int count = 0;
    for (int family = 0; family < FAMILY_COUNT; family++)
        for (uint64_t seed = 1; seed <= 40; seed++) {
            mf_arclist list;
            int32_t n = 2 + (int32_t)(seed * 53 % (family == FAMILY_DENSE ? 40 : 300));
            assert_int_equal(random_graph(family, n, seed, &list), MF_OK);
            char what[64];
            snprintf(what, sizeof what, "random family %d seed %llu", family, (unsigned long long)seed);
            compare_engines(&list, (int)(seed & 1), what);
            mf_arclist_free(&list);
            count++;
        }
    printf("compared %d random graphs\n", count);
}

static void test_generator_families(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        mf_arclist list;
        char what[96];
        static const int32_t rmf[][2] = {{8, 8}, {16, 4}, {6, 40}, {24, 24}};
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(mf_gen_genrmf(rmf[i][0], rmf[i][1], 100, 10000, seed, &list), MF_OK);
            snprintf(what, sizeof what, "genrmf %dx%d seed %llu", rmf[i][0], rmf[i][1], (unsigned long long)seed);
            compare_engines(&list, (int)(i & 1), what);
            mf_arclist_free(&list);
        }
        static const int32_t rlg[][2] = {{16, 32}, {64, 64}, {128, 256}};
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(mf_gen_washington_rlg(rlg[i][0], rlg[i][1], 10000, seed, &list), MF_OK);
            snprintf(what, sizeof what, "rlg %dx%d seed %llu", rlg[i][0], rlg[i][1], (unsigned long long)seed);
            compare_engines(&list, (int)(i & 1), what);
            mf_arclist_free(&list);
        }
        static const int32_t ad[] = {50, 300};
        for (size_t i = 0; i < 2; i++) {
            assert_int_equal(mf_gen_acyclic_dense(ad[i], seed, &list), MF_OK);
            snprintf(what, sizeof what, "acyclic-dense %d seed %llu", ad[i], (unsigned long long)seed);
            compare_engines(&list, (int)(i & 1), what);
            mf_arclist_free(&list);
        }
        static const int32_t grid[][3] = {{64, 48, 4}, {200, 150, 8}, {512, 512, 4}};
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(mf_gen_grid(grid[i][0], grid[i][1], grid[i][2], seed, &list), MF_OK);
            snprintf(what, sizeof what, "grid %dx%d/%d seed %llu", grid[i][0], grid[i][1], grid[i][2],
                     (unsigned long long)seed);
            compare_engines(&list, (int)(i & 1), what);
            mf_arclist_free(&list);
        }
    }
}

static void test_known_instances(void **state)
{
    (void)state;
    FILE *f = fopen(test_data_path("EXPECTED.tsv"), "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        char name[256];
        long long value;
        if (sscanf(line, "%255s %*d %*d %*d %*d %lld", name, &value) != 2)
            continue;
        mf_arclist list;
        mf_error err = {0};
        assert_int_equal(mf_read_dimacs(test_data_path(name), &list, &err), MF_OK);
        for (int phase2 = 0; phase2 < 2; phase2++)
            compare_engines(&list, phase2, name);
        mf_arclist_free(&list);
    }
    fclose(f);
}

/* Warm re-solve on the device: the CPU suite's batches, each against
 * Edmonds-Karp or a cold CPU solve, certificates included. */
static void test_dynamic_random(void **state)
{
    (void)state;
    check_dynamic_random(MF_ENGINE_GPU);
}

static void test_dynamic_generators(void **state)
{
    (void)state;
    check_dynamic_generators(MF_ENGINE_GPU);
}

/* Every wait mode may be set while solvers exist (batch sets it after the
 * first solver of a device); solves go on, same value and cut. Bad modes
 * and devices are refused. */
static void test_wait_modes(void **state)
{
    (void)state;
    static const mf_gpu_wait modes[] = {MF_GPU_WAIT_BLOCK, MF_GPU_WAIT_YIELD, MF_GPU_WAIT_SPIN, MF_GPU_WAIT_AUTO};
    mf_error err = {0};
    int count = 0;
    assert_int_equal(mf_gpu_available(&count), MF_OK);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (mf_gpu_set_wait(0, modes[i], &err) != MF_OK)
            fail_msg("wait mode %d: %s", (int)modes[i], err.message);
        mf_arclist list;
        assert_int_equal(mf_read_dimacs(test_data_path("max_flow7.dat"), &list, &err), MF_OK);
        compare_engines(&list, 1, "max_flow7.dat after a wait mode");
        mf_arclist_free(&list);
    }
    assert_int_equal(mf_gpu_set_wait(0, (mf_gpu_wait)7, &err), MF_ERR_INVALID);
    assert_int_equal(mf_gpu_set_wait(count, MF_GPU_WAIT_BLOCK, &err), MF_ERR_NO_DEVICE);
    assert_int_equal(mf_gpu_set_wait(-1, MF_GPU_WAIT_BLOCK, &err), MF_ERR_NO_DEVICE);
}

int main(int argc, char **argv)
{
    int count = 0;
    mf_error err = {0};
    mf_gpu_tuning tuning = mf_gpu_tuning_default();
    for (int i = 1; i < argc; i++) {
        char msg[200];
        if (strcmp(argv[i], "--gpu-tuning") || i + 1 == argc) {
            fprintf(stderr, "usage: test_maxflow_gpu [--gpu-tuning KEY=VALUE[,KEY=VALUE...]]...\n");
            return 2;
        }
        if (mf_gpu_tuning_parse(&tuning, argv[++i], msg, sizeof msg)) {
            fprintf(stderr, "test_maxflow_gpu: %s\n", msg);
            return 2;
        }
    }
    mf_gpu_tuning_set(&tuning);
    if (!mf_gpu_compiled() || mf_gpu_available(&count) != MF_OK || count == 0) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    if (mf_gpu_solver_create(0, &solver, &err) != MF_OK) {
        printf("GPU solver: %s\n", err.message);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_instances),
        cmocka_unit_test(test_random_graphs),
        cmocka_unit_test(test_generator_families),
        cmocka_unit_test(test_dynamic_random),
        cmocka_unit_test(test_dynamic_generators),
        cmocka_unit_test(test_solve_many),
        cmocka_unit_test(test_solve_many_grids),
        cmocka_unit_test(test_wait_modes),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    mf_gpu_solver_destroy(solver);
    return rc;
}
