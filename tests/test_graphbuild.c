/* graphbuild: capacities of a tiny image against hand computation, the
 * seed rules, pre-cancellation, and DIMACS export giving the same value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/graphbuild.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 3x1 image: black, black, white. 4-connected: pairs (0,1) diff 0, (1,2)
 * diff^2 = 3*255^2. beta = 1 / (2 * mean) = 1 / (3*255^2). */
static void test_tiny_image_capacities(void **state)
{
    (void)state;
    const uint8_t rgb[9] = {0, 0, 0, 0, 0, 0, 255, 255, 255};
    const uint8_t seeds[3] = {GB_FOREGROUND, GB_UNMARKED, GB_BACKGROUND};
    gb_params p;
    gb_params_default(&p);
    p.connectivity = 4;
    p.lambda = 10;
    gb_models *m;
    assert_int_equal(gb_models_fit(rgb, 3, 1, seeds, &p, &m), GB_OK);
    mf_graph g;
    int32_t cancelled[3];
    assert_int_equal(gb_build(rgb, 3, 1, seeds, m, &p, &g, cancelled), GB_OK);
    assert_int_equal(g.num_vertices, 5);
    assert_int_equal(g.source, 3);
    assert_int_equal(g.sink, 4);
    int32_t w01 = (int32_t)(GB_SCALE * 10 + 0.5);
    int32_t w12 = (int32_t)(GB_SCALE * 10 * exp(-1.0 / (3.0 * 255 * 255) * 3 * 255 * 255) + 0.5);
    /* pixel 0 stores arc 0->1, pixel 1 stores 1->2 */
    assert_int_equal(g.arc_head[g.out_start[0]], 1);
    assert_int_equal(g.arc_cap[g.out_start[0]], w01);
    assert_int_equal(g.arc_rcap[g.out_start[0]], w01);
    assert_int_equal(g.arc_head[g.out_start[1]], 2);
    assert_int_equal(g.arc_cap[g.out_start[1]], w12);
    /* K = 1 + max_p sum_q w_pq = 1 + w01 + w12 (pixel 1) */
    int32_t K = 1 + w01 + w12;
    /* seeds: source -> 0 with K, 2 -> sink with K, none pre-cancelled */
    assert_int_equal(cancelled[0], 0);
    assert_int_equal(cancelled[2], 0);
    int found_src = 0, found_snk = 0;
    for (int32_t a = g.out_start[g.source]; a < g.out_start[g.source + 1]; a++)
        if (g.arc_head[a] == 0) {
            assert_int_equal(g.arc_cap[a], K);
            found_src = 1;
        }
    for (int32_t a = g.out_start[2]; a < g.out_start[3]; a++)
        if (g.arc_head[a] == g.sink) {
            assert_int_equal(g.arc_cap[a], K);
            found_snk = 1;
        }
    assert_true(found_src && found_snk);
    /* unmarked black pixel: foreground colour, so it ends on the source side */
    mf_result r;
    mf_error err = {0};
    assert_int_equal(mf_solve_cpu(&g, NULL, &r, &err), MF_OK);
    assert_int_equal(mf_verify(&g, &r, 0, &err), MF_OK);
    assert_int_equal(r.source_side[0], 1);
    assert_int_equal(r.source_side[1], 1);
    assert_int_equal(r.source_side[2], 0);
    assert_int_equal(r.flow_value, w12 + g.flow_offset);
    mf_result_free(&r);
    mf_graph_free(&g);
    gb_models_free(m);
}

static void test_missing_seeds_are_errors(void **state)
{
    (void)state;
    const uint8_t rgb[6] = {1, 2, 3, 4, 5, 6};
    const uint8_t only_fg[2] = {GB_FOREGROUND, GB_UNMARKED}, only_bg[2] = {GB_BACKGROUND, 0};
    gb_params p;
    gb_params_default(&p);
    gb_models *m;
    assert_int_equal(gb_models_fit(rgb, 2, 1, only_fg, &p, &m), GB_ERR_NO_BACKGROUND);
    assert_int_equal(gb_models_fit(rgb, 2, 1, only_bg, &p, &m), GB_ERR_NO_FOREGROUND);
}

/* Red photo half with foreground strokes, blue half with background ones,
 * and an unseeded column of a red the strokes never showed: unlikely under
 * the tight red mixture, impossible under the blue one. Without the uniform
 * blend the blue model's cost hits the clip and the column is pushed hard
 * toward the foreground by colour alone; with it both costs meet the
 * uniform floor and the column is left to the smoothness term. */
static void test_uniform_mix_bounds_unseen_colours(void **state)
{
    (void)state;
    enum { W = 24, H = 8 };
    uint8_t rgb[W * H * 3], seeds[W * H];
    uint64_t rng = 99;
    memset(seeds, GB_UNMARKED, sizeof seeds);
    for (int i = 0; i < W * H; i++) {
        int x = i % W;
        uint8_t c[3];
        for (int k = 0; k < 3; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            c[k] = (uint8_t)(20 + (int)(rng >> 60));
        }
        c[x < W / 2 ? 0 : 2] = (uint8_t)(c[x < W / 2 ? 0 : 2] + 160);
        if (x == 6) {
            c[0] = 160;
            c[1] = c[2] = 40;
        }
        memcpy(rgb + 3 * i, c, 3);
        if (x >= 1 && x <= 3)
            seeds[i] = GB_FOREGROUND;
        if (x >= W - 4 && x <= W - 2)
            seeds[i] = GB_BACKGROUND;
    }
    int64_t column_term[2];
    for (int blend = 0; blend < 2; blend++) {
        gb_params p;
        gb_params_default(&p);
        assert_true(p.uniform_mix == 0.01);
        p.geodesic = 0; /* colour alone: the seeds' distances would pull the column too */
        if (!blend)
            p.uniform_mix = 0;
        gb_models *m;
        mf_graph g;
        assert_int_equal(gb_models_fit(rgb, W, H, seeds, &p, &m), GB_OK);
        assert_int_equal(gb_build(rgb, W, H, seeds, m, &p, &g, NULL), GB_OK);
        column_term[blend] = graph_terminal_term(&g, 3 * W + 6);
        /* the seen reds keep a clear foreground preference either way */
        assert_true(graph_terminal_term(&g, 3 * W + 9) > 2 * GB_SCALE);
        mf_graph_free(&g);
        gb_models_free(m);
    }
    if (!(column_term[0] > 5 * GB_SCALE))
        fail_msg("without the blend the unseen red should lean on colour: %lld", (long long)column_term[0]);
    if (!(llabs(column_term[1]) < GB_SCALE / 2))
        fail_msg("with the blend the unseen red should be neutral: %lld", (long long)column_term[1]);

    gb_params bad;
    gb_params_default(&bad);
    gb_models *m;
    bad.uniform_mix = 1.0;
    assert_int_equal(gb_models_fit(rgb, W, H, seeds, &bad, &m), GB_ERR_INVALID);
    bad.uniform_mix = -0.1;
    assert_int_equal(gb_models_fit(rgb, W, H, seeds, &bad, &m), GB_ERR_INVALID);
}

/* A random photo: the exported DIMACS network has the same value and cut. */
static int same_arrays(const int32_t *a, const int32_t *b, size_t n)
{
    return memcmp(a, b, n * sizeof(int32_t)) == 0;
}

/* A noisy two-tone photo (dark left half, light right half) with a
 * foreground stroke down column 3 and a background one down column w - 4. */
static void two_tone(int32_t w, int32_t h, uint64_t rng, uint8_t **rgb_out, uint8_t **seeds_out)
{
    uint8_t *rgb = malloc((size_t)w * h * 3), *seeds = calloc((size_t)w * h, 1);
    assert_non_null(rgb);
    assert_non_null(seeds);
    for (int i = 0; i < w * h * 3; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        rgb[i] = (uint8_t)((i / 3 % w < w / 2 ? 40 : 200) + (int)(rng >> 59));
    }
    for (int32_t y = 5; y < h - 5; y++) {
        seeds[y * w + 3] = GB_FOREGROUND;
        seeds[y * w + w - 4] = GB_BACKGROUND;
    }
    *rgb_out = rgb;
    *seeds_out = seeds;
}

/* The parallel build writes both CSR directions itself: the reverse one
 * must be what mf_graph_finish derives, and no array may depend on the
 * number of threads. */
static void test_parallel_build_is_exact(void **state)
{
    (void)state;
    const int32_t w = 37, h = 53; /* 53 rows: three bands of uneven height */
    uint8_t *rgb, *seeds;
    two_tone(w, h, 12345, &rgb, &seeds);
    for (int conn = 4; conn <= 8; conn += 4) {
        gb_params p;
        gb_params_default(&p);
        p.connectivity = conn;
        gb_models *m;
        assert_int_equal(gb_models_fit(rgb, w, h, seeds, &p, &m), GB_OK);
        mf_graph g1, g3, ref;
        p.threads = 1;
        assert_int_equal(gb_build(rgb, w, h, seeds, m, &p, &g1, NULL), GB_OK);
        p.threads = 3;
        assert_int_equal(gb_build(rgb, w, h, seeds, m, &p, &g3, NULL), GB_OK);
        assert_int_equal(gb_build(rgb, w, h, seeds, m, &p, &ref, NULL), GB_OK);
        assert_int_equal(mf_graph_finish(&ref, NULL), MF_OK); /* rewrites the reverse CSR */
        const size_t n1 = (size_t)g1.num_vertices + 1, m1 = (size_t)g1.num_arcs;
        assert_int_equal(g1.num_arcs, g3.num_arcs);
        assert_true(g1.flow_offset == g3.flow_offset);
        assert_true(same_arrays(g1.out_start, g3.out_start, n1));
        assert_true(same_arrays(g1.arc_head, g3.arc_head, m1));
        assert_true(same_arrays(g1.arc_cap, g3.arc_cap, m1));
        assert_true(same_arrays(g1.arc_rcap, g3.arc_rcap, m1));
        assert_true(same_arrays(g1.in_start, g3.in_start, n1));
        assert_true(same_arrays(g1.in_arc, g3.in_arc, m1));
        assert_true(same_arrays(g1.in_tail, g3.in_tail, m1));
        assert_true(same_arrays(g1.in_start, ref.in_start, n1));
        assert_true(same_arrays(g1.in_arc, ref.in_arc, m1));
        assert_true(same_arrays(g1.in_tail, ref.in_tail, m1));
        /* without in-lists (for a union launch): the same in_start, on 1 and
         * 3 threads, and mf_graph_finish completes the rest to the bit */
        for (int threads = 1; threads <= 3; threads += 2) {
            mf_graph part;
            p.threads = threads;
            p.in_lists = 0;
            assert_int_equal(gb_build(rgb, w, h, seeds, m, &p, &part, NULL), GB_OK);
            p.in_lists = 1;
            assert_true(same_arrays(g1.out_start, part.out_start, n1));
            assert_true(same_arrays(g1.arc_head, part.arc_head, m1));
            assert_true(same_arrays(g1.in_start, part.in_start, n1));
            assert_int_equal(mf_graph_finish(&part, NULL), MF_OK);
            assert_true(same_arrays(g1.in_arc, part.in_arc, m1));
            assert_true(same_arrays(g1.in_tail, part.in_tail, m1));
            mf_graph_free(&part);
        }
        mf_graph_free(&g1);
        mf_graph_free(&g3);
        mf_graph_free(&ref);
        gb_models_free(m);
    }
    free(rgb);
    free(seeds);
}

/* gb_prior_terminals gives every pixel the terminal capacities of
 * gb_build_dynamic's network (its arcs plus what was pre-cancelled), prior
 * on and off, border on and off, 4 and 8 neighbours, on 1 and 3 threads:
 * what lets a session re-make them pixel by pixel and stay bit-identical. */
static void test_prior_terminals_match_the_build(void **state)
{
    (void)state;
    const int32_t w = 41, h = 29;
    uint8_t *rgb, *seeds;
    two_tone(w, h, 777, &rgb, &seeds);
    const int64_t npx = (int64_t)w * h;
    int32_t *cs = malloc(sizeof(int32_t) * npx), *ct = malloc(sizeof(int32_t) * npx),
            *cancelled = malloc(sizeof(int32_t) * npx);
    assert_non_null(cs);
    assert_non_null(ct);
    assert_non_null(cancelled);
    for (int variant = 0; variant < 8; variant++) {
        gb_params p;
        gb_params_default(&p);
        p.connectivity = variant & 1 ? 4 : 8;
        p.geodesic = variant & 2 ? 0.0 : p.geodesic;
        p.border = variant & 4 ? -1.0 : p.border;
        p.threads = variant & 1 ? 3 : 1;
        gb_models *m;
        assert_int_equal(gb_models_fit(rgb, w, h, seeds, &p, &m), GB_OK);
        mf_graph g;
        int32_t K;
        assert_int_equal(gb_build_dynamic(rgb, w, h, seeds, NULL, NULL, m, &p, &g, cancelled, &K), GB_OK);
        gb_prior *pr;
        assert_int_equal(gb_prior_new(rgb, w, h, &p, &pr), GB_OK);
        assert_int_equal(gb_prior_terminals(pr, seeds, m, K, cs, ct), GB_OK);
        for (int64_t i = 0; i < npx; i++) {
            int32_t src = g.arc_cap[g.out_start[g.source] + i], snk = g.arc_cap[g.out_start[i + 1] - 1];
            if (cs[i] != src + cancelled[i] || ct[i] != snk + cancelled[i])
                fail_msg("variant %d pixel %lld: prior terminals %d/%d, the build's %d/%d", variant, (long long)i,
                         cs[i], ct[i], src + cancelled[i], snk + cancelled[i]);
        }
        gb_prior_free(pr);
        mf_graph_free(&g);
        gb_models_free(m);
    }
    free(cs);
    free(ct);
    free(cancelled);
    free(rgb);
    free(seeds);
}

/* The grid form (gb_build_grid) stands for gb_build's network: expanded
 * on the host (gb_grid_to_graph: the weights from the distances, the
 * seeds' capacity) it gives the same arrays to the bit, with and without
 * in-lists, whatever the threads; its row counts add up to the terminal
 * arcs. The device expands the same form (test_maxflow_gpu). */
static void test_grid_form_is_the_network(void **state)
{
    (void)state;
    const int32_t w = 41, h = 35;
    uint8_t *rgb, *seeds;
    two_tone(w, h, 777, &rgb, &seeds);
    for (int conn = 4; conn <= 8; conn += 4)
        for (int geo = 0; geo < 2; geo++) {
            gb_params p;
            gb_params_default(&p);
            p.connectivity = conn;
            p.geodesic = geo ? 14.0 : 0.0;
            gb_models *m;
            assert_int_equal(gb_models_fit(rgb, w, h, seeds, &p, &m), GB_OK);
            for (int threads = 1; threads <= 3; threads += 2) {
                p.threads = threads;
                mf_grid grid;
                assert_int_equal(gb_build_grid(rgb, w, h, seeds, m, &p, &grid), GB_OK);
                assert_int_equal(grid.nd, conn / 2);
                for (int lists = 0; lists < 2; lists++) {
                    mf_graph ref, g;
                    p.in_lists = lists;
                    assert_int_equal(gb_build(rgb, w, h, seeds, m, &p, &ref, NULL), GB_OK);
                    assert_int_equal(gb_grid_to_graph(&grid, lists, threads, &g), GB_OK);
                    const size_t n1 = (size_t)ref.num_vertices + 1, m1 = (size_t)ref.num_arcs;
                    assert_int_equal(g.num_vertices, ref.num_vertices);
                    assert_int_equal(g.num_arcs, ref.num_arcs);
                    assert_int_equal(g.source, ref.source);
                    assert_int_equal(g.sink, ref.sink);
                    assert_true(g.flow_offset == ref.flow_offset && grid.flow_offset == ref.flow_offset);
                    assert_true(same_arrays(g.out_start, ref.out_start, n1));
                    assert_true(same_arrays(g.arc_head, ref.arc_head, m1));
                    assert_true(same_arrays(g.arc_cap, ref.arc_cap, m1));
                    assert_true(same_arrays(g.arc_rcap, ref.arc_rcap, m1));
                    assert_true(same_arrays(g.in_start, ref.in_start, n1));
                    if (lists) {
                        assert_true(same_arrays(g.in_arc, ref.in_arc, m1));
                        assert_true(same_arrays(g.in_tail, ref.in_tail, m1));
                    }
                    int64_t sources = 0, sinks = 0;
                    for (int32_t y = 0; y < h; y++) {
                        sources += grid.row_sources[y];
                        sinks += grid.row_sinks[y];
                    }
                    assert_true(sources == ref.out_start[ref.sink] - ref.out_start[ref.source]);
                    assert_true(sinks == ref.in_start[ref.sink + 1] - ref.in_start[ref.sink]);
                    mf_graph_free(&g);
                    mf_graph_free(&ref);
                }
                p.in_lists = 1;
                /* the weights and seed capacity are left to the solver; a
                 * distance beyond the table is refused, not read */
                assert_non_null(grid.table);
                const int32_t keep = grid.w[0];
                grid.w[0] = grid.table_size;
                mf_graph bad;
                assert_int_equal(gb_grid_to_graph(&grid, 1, threads, &bad), GB_ERR_INVALID);
                grid.w[0] = keep;
                mf_grid_free(&grid);
                assert_null(grid.w);
            }
            p.star = 1; /* star arcs are not their pair's weight: no grid form */
            mf_grid grid;
            assert_int_equal(gb_build_grid(rgb, w, h, seeds, m, &p, &grid), GB_ERR_INVALID);
            gb_models_free(m);
        }
    mf_grid bad = {0};
    mf_graph g;
    assert_int_equal(gb_grid_to_graph(&bad, 1, 1, &g), GB_ERR_INVALID);
    free(rgb);
    free(seeds);
}

/* The models fitted on several threads (the regions side by side, each
 * E-step split over its samples) are the single-threaded ones to the bit:
 * 80,000 samples a region, so that 4 threads a region really split them. */
static void test_parallel_models_are_exact(void **state)
{
    (void)state;
    const int32_t w = 600, h = 400;
    uint8_t *rgb = malloc((size_t)w * h * 3), *seeds = calloc((size_t)w * h, 1);
    assert_non_null(rgb);
    assert_non_null(seeds);
    uint64_t rng = 777;
    for (int32_t i = 0; i < w * h; i++) {
        int32_t x = i % w, y = i / w;
        for (int c = 0; c < 3; c++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            /* a few colour clusters per side, and noise */
            int base = x < w / 2 ? 30 + 60 * ((x / 37 + y / 23 + c) % 3) : 120 + 40 * ((x / 29 + c) % 3);
            rgb[3 * i + c] = (uint8_t)(base + (int)(rng >> 58));
        }
        seeds[i] = x < w / 3 ? GB_FOREGROUND : x >= w - w / 3 ? GB_BACKGROUND : 0;
    }
    for (int model = 0; model < 2; model++) {
        gb_params p;
        gb_params_default(&p);
        p.model = model ? GB_MODEL_HIST : GB_MODEL_GMM;
        p.threads = 1;
        gb_models *one;
        assert_int_equal(gb_models_fit(rgb, w, h, seeds, &p, &one), GB_OK);
        for (int threads = 2; threads <= 9; threads += threads < 4 ? 2 : 5) {
            gb_models *many;
            p.threads = threads;
            assert_int_equal(gb_models_fit(rgb, w, h, seeds, &p, &many), GB_OK);
            assert_true(gb_models_equal(one, many));
            gb_models_free(many);
        }
        gb_models_free(one);
    }
    /* a region without seeds is still an error on several threads */
    memset(seeds, GB_FOREGROUND, (size_t)w * h);
    gb_params p;
    gb_params_default(&p);
    p.threads = 4;
    gb_models *m = NULL;
    assert_int_equal(gb_models_fit(rgb, w, h, seeds, &p, &m), GB_ERR_NO_BACKGROUND);
    assert_null(m);
    free(rgb);
    free(seeds);
}

static void test_export_matches_the_network(void **state)
{
    (void)state;
    const int32_t w = 40, h = 30;
    uint8_t *rgb = malloc((size_t)w * h * 3), *seeds = calloc((size_t)w * h, 1);
    uint64_t s = 12345;
    for (int i = 0; i < w * h * 3; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        rgb[i] = (uint8_t)((i / 3 % w < w / 2 ? 60 : 190) + (int)(s >> 60));
    }
    for (int y = 5; y < 25; y++) {
        seeds[y * w + 5] = GB_FOREGROUND;
        seeds[y * w + 35] = GB_BACKGROUND;
    }
    for (int model = 0; model < 2; model++)
        for (int conn = 4; conn <= 8; conn += 4) {
            gb_params p;
            gb_params_default(&p);
            p.model = (gb_model_kind)model;
            p.connectivity = conn;
            gb_models *m;
            assert_int_equal(gb_models_fit(rgb, w, h, seeds, &p, &m), GB_OK);
            mf_graph g, g2;
            int32_t *cancelled = malloc(sizeof(int32_t) * (size_t)w * h);
            assert_int_equal(gb_build(rgb, w, h, seeds, m, &p, &g, cancelled), GB_OK);
            mf_arclist list;
            assert_int_equal(gb_to_arclist(&g, cancelled, &list), GB_OK);
            mf_result r1, r2;
            mf_error err = {0};
            assert_int_equal(mf_solve_cpu(&g, NULL, &r1, &err), MF_OK);
            assert_int_equal(mf_verify(&g, &r1, 0, &err), MF_OK);
            assert_int_equal(mf_graph_from_arcs(&list, NULL, &g2, &err), MF_OK);
            assert_int_equal(mf_solve_cpu(&g2, NULL, &r2, &err), MF_OK);
            assert_int_equal(r1.flow_value, r2.flow_value);
            assert_int_equal(r1.flow_value, reference_max_flow(&list, NULL));
            assert_memory_equal(r1.source_side, r2.source_side, (size_t)g.num_vertices);
            mf_result_free(&r1);
            mf_result_free(&r2);
            mf_graph_free(&g);
            mf_graph_free(&g2);
            mf_arclist_free(&list);
            free(cancelled);
            gb_models_free(m);
        }
    free(rgb);
    free(seeds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_image_capacities),
        cmocka_unit_test(test_missing_seeds_are_errors),
        cmocka_unit_test(test_export_matches_the_network),
        cmocka_unit_test(test_parallel_build_is_exact),
        cmocka_unit_test(test_prior_terminals_match_the_build),
        cmocka_unit_test(test_grid_form_is_the_network),
        cmocka_unit_test(test_parallel_models_are_exact),
        cmocka_unit_test(test_uniform_mix_bounds_unseen_colours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
