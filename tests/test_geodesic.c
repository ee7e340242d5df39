/* graphbuild's geodesic priors: the distances against Dijkstra
 * and the properties the builder relies on (a parent forest rooted at the
 * foreground seeds, never through background seeds), the distance prior
 * deciding what colour alone cannot, the border as a background stroke,
 * star convexity keeping the cut's foreground connected to its seeds, and
 * the colour models sampling the pixels near the seeds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/graphbuild.h"
#include "gb_internal.h"
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The geodesic step cost as geodesic.c defines it (eps 0.001). */
static double step_cost(const uint8_t *rgb, int32_t w, int32_t p, int32_t q, double beta)
{
    const uint8_t *a = rgb + 3 * p, *b = rgb + 3 * q;
    double d2 = 0;
    for (int k = 0; k < 3; k++)
        d2 += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
    int diag = (p % w != q % w) && (p / w != q / w);
    return (diag ? M_SQRT2 : 1.0) * (0.001 + 1.0 - exp(-beta * d2));
}

/* The pixels next to u under conn (4 or 8); returns how many. */
static int neighbours(int32_t u, int32_t w, int32_t h, int conn, int32_t out[8])
{
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int32_t x = u % w + dx, y = u / w + dy;
            if ((dx || dy) && x >= 0 && y >= 0 && x < w && y < h && (conn == 8 || !(dx && dy)))
                out[n++] = y * w + x;
        }
    return n;
}

/* Plain O(n^2) Dijkstra from the pixels labelled which, never entering the
 * other kind's seeds (as the scans). */
static void dijkstra(const uint8_t *rgb, int32_t w, int32_t h, const uint8_t *seeds, uint8_t which, int conn,
                     double beta, double *d)
{
    int32_t n = w * h;
    uint8_t *done = calloc((size_t)n, 1);
    for (int32_t i = 0; i < n; i++)
        d[i] = seeds[i] == which ? 0.0 : INFINITY;
    for (;;) {
        int32_t u = -1;
        for (int32_t i = 0; i < n; i++)
            if (!done[i] && isfinite(d[i]) && (u < 0 || d[i] < d[u]))
                u = i;
        if (u < 0)
            break;
        done[u] = 1;
        int32_t nb[8];
        for (int k = neighbours(u, w, h, conn, nb) - 1; k >= 0; k--) {
            double c = d[u] + step_cost(rgb, w, u, nb[k], beta);
            if (seeds[nb[k]] == GB_UNMARKED && c < d[nb[k]])
                d[nb[k]] = c;
        }
    }
    free(done);
}

/* Random blocky photos: the scans' distances are lengths of real paths
 * (never below Dijkstra's), exact on flat photos; parents are neighbours
 * of smaller distance whose chains end at a foreground seed. */
static void test_distances_and_forest(void **state)
{
    (void)state;
    uint64_t rng = 7;
    for (int trial = 0; trial < 60; trial++) {
        int32_t w = 5 + (int32_t)(next(&rng) % 14), h = 4 + (int32_t)(next(&rng) % 12), n = w * h;
        int conn = trial % 2 ? 4 : 8, flat = trial % 3 == 0;
        uint8_t *rgb = malloc((size_t)n * 3), *seeds = calloc((size_t)n, 1);
        for (int32_t i = 0; i < n; i++) {
            int block = (i % w) / 3 + 7 * ((i / w) / 3);
            for (int k = 0; k < 3; k++)
                rgb[3 * i + k] = flat ? 90 : (uint8_t)((block * 57 + k * 31 + (int)(next(&rng) % 24)) & 255);
            uint64_t r = next(&rng) % 100;
            seeds[i] = r < 4 ? GB_FOREGROUND : r < (flat ? 4u : 8u) ? GB_BACKGROUND : GB_UNMARKED;
        }
        seeds[0] = GB_FOREGROUND;
        double beta = 1.0 / 5000.0;
        float *df = malloc(sizeof(float) * (size_t)n), *db = malloc(sizeof(float) * (size_t)n);
        int32_t *parent = malloc(sizeof(int32_t) * (size_t)n);
        double *ref = malloc(sizeof(double) * (size_t)n);
        assert_int_equal(gb_geodesic(rgb, w, h, seeds, conn, beta, -1.0, -(1 + trial % 3), df, db, parent), GB_OK);
        {
            /* the scans without the forest (both regions side by side on one
             * thread) find the same distances, borders and narrow photos included */
            float *df2 = malloc(sizeof(float) * (size_t)n), *db2 = malloc(sizeof(float) * (size_t)n);
            assert_int_equal(gb_geodesic(rgb, w, h, seeds, conn, beta, -1.0, 1, df2, db2, NULL), GB_OK);
            assert_memory_equal(df, df2, sizeof(float) * (size_t)n);
            assert_memory_equal(db, db2, sizeof(float) * (size_t)n);
            free(df2);
            free(db2);
        }
        dijkstra(rgb, w, h, seeds, GB_FOREGROUND, conn, beta, ref);
        for (int32_t i = 0; i < n; i++) {
            if (!isfinite(ref[i])) {
                assert_false(isfinite(df[i]));
                assert_int_equal(parent[i], -1);
                continue;
            }
            if (!(df[i] >= ref[i] * (1 - 1e-5) - 1e-6))
                fail_msg("trial %d pixel %d: scan %g below Dijkstra %g", trial, i, df[i], ref[i]);
            if (flat && fabs(df[i] - ref[i]) > 1e-5 * (1 + ref[i]))
                fail_msg("trial %d pixel %d: flat photo, scan %g vs Dijkstra %g", trial, i, df[i], ref[i]);
            if (seeds[i] == GB_FOREGROUND) {
                assert_true(df[i] == 0.0f && parent[i] == -1);
                continue;
            }
            assert_int_equal(seeds[i], GB_UNMARKED);
            int32_t q = parent[i];
            assert_true(q >= 0 && q < n);
            int32_t dx = abs(q % w - i % w), dy = abs(q / w - i / w);
            assert_true(dx <= 1 && dy <= 1 && (dx || dy) && (conn == 8 || dx + dy == 1));
            assert_true(df[q] < df[i]);
            assert_true(df[i] >= df[q] + (float)step_cost(rgb, w, i, q, beta) * (1 - 1e-5f));
            int32_t steps = 0, v = i;
            while (parent[v] >= 0 && steps <= n)
                v = parent[v], steps++;
            assert_int_equal(seeds[v], GB_FOREGROUND);
        }
        /* the background distances against Dijkstra from the background seeds */
        dijkstra(rgb, w, h, seeds, GB_BACKGROUND, conn, beta, ref);
        for (int32_t i = 0; i < n; i++)
            if (isfinite(ref[i]))
                assert_true(db[i] >= ref[i] * (1 - 1e-5) - 1e-6);
            else
                assert_false(isfinite(db[i]));
        free(rgb);
        free(seeds);
        free(df);
        free(db);
        free(parent);
        free(ref);
    }
}

/* The wavefront over column blocks gives the serial scan's distances and
 * parents bit for bit, whatever the number of threads. */
static void test_threads_give_identical_distances(void **state)
{
    (void)state;
    enum { W = 1100, H = 90, N = W * H };
    uint8_t *rgb = malloc(N * 3), *seeds = calloc(N, 1);
    uint64_t rng = 11;
    for (int i = 0; i < N; i++) {
        int x = i % W, y = i / W;
        for (int k = 0; k < 3; k++)
            rgb[3 * i + k] = (uint8_t)(((x / 17 + y / 13) % 4) * 60 + (int)(next(&rng) % 40));
        uint64_t r = next(&rng) % 1000;
        seeds[i] = r < 3 ? GB_FOREGROUND : r < 6 ? GB_BACKGROUND : GB_UNMARKED;
    }
    float *df[2], *db[2];
    int32_t *par[2];
    for (int k = 0; k < 2; k++) {
        df[k] = malloc(sizeof(float) * N);
        db[k] = malloc(sizeof(float) * N);
        par[k] = malloc(sizeof(int32_t) * N);
    }
    for (int conn = 4; conn <= 8; conn += 4) {
        assert_int_equal(gb_geodesic(rgb, W, H, seeds, conn, 1.0 / 3000, 0.2, 1, df[0], db[0], par[0]), GB_OK);
        for (int threads = 2; threads <= 16; threads += threads < 4 ? 1 : 6) {
            /* negative: that many column blocks although the photo is small */
            assert_int_equal(gb_geodesic(rgb, W, H, seeds, conn, 1.0 / 3000, 0.2, -threads, df[1], db[1], par[1]),
                             GB_OK);
            assert_memory_equal(df[0], df[1], sizeof(float) * N);
            assert_memory_equal(db[0], db[1], sizeof(float) * N);
            assert_memory_equal(par[0], par[1], sizeof(int32_t) * N);
        }
        /* without the forest the rows take the two-sweep scans: on one
         * thread both regions side by side, on two each on its own, on
         * column blocks as a wavefront; the same distances */
        for (int threads = 1; threads <= 3; threads++) {
            int arg = threads == 3 ? -3 : threads;
            assert_int_equal(gb_geodesic(rgb, W, H, seeds, conn, 1.0 / 3000, 0.2, arg, df[1], db[1], NULL), GB_OK);
            assert_memory_equal(df[0], df[1], sizeof(float) * N);
            assert_memory_equal(db[0], db[1], sizeof(float) * N);
        }
    }
    for (int k = 0; k < 2; k++) {
        free(df[k]);
        free(db[k]);
        free(par[k]);
    }
    free(rgb);
    free(seeds);
}

static void solve_mask(const uint8_t *rgb, int32_t w, int32_t h, const uint8_t *seeds, const gb_params *p,
                       uint8_t *fg)
{
    gb_models *m;
    assert_int_equal(gb_models_fit(rgb, w, h, seeds, p, &m), GB_OK);
    mf_graph g;
    assert_int_equal(gb_build(rgb, w, h, seeds, m, p, &g, NULL), GB_OK);
    mf_options o;
    mf_options_default(&o);
    mf_result r;
    mf_error e = {0};
    assert_int_equal(mf_solve_cpu(&g, &o, &r, &e), MF_OK);
    for (int32_t i = 0; i < w * h; i++)
        fg[i] = r.source_side[i];
    mf_result_free(&r);
    mf_graph_free(&g);
    gb_models_free(m);
}

/* Green left half with a foreground stroke, blue right half with a
 * background one, and two grey squares the strokes never touched, one in
 * each half: the colour models give both squares the same data terms; the
 * geodesic prior leans each to the side of its half. */
static void test_prior_decides_unseen_colours(void **state)
{
    (void)state;
    enum { W = 40, H = 20 };
    uint8_t rgb[W * H * 3], seeds[W * H] = {0}, fg[W * H];
    for (int32_t y = 0; y < H; y++)
        for (int32_t x = 0; x < W; x++) {
            uint8_t *c = rgb + 3 * (y * W + x);
            int square = y >= 7 && y < 13 && ((x >= 6 && x < 12) || (x >= 28 && x < 34));
            c[0] = square ? 128 : 20;
            c[1] = square ? 128 : x < W / 2 ? 200 : 20;
            c[2] = square ? 128 : x < W / 2 ? 20 : 200;
            if (y == 3 && x >= 2 && x < 16)
                seeds[y * W + x] = GB_FOREGROUND;
            if (y == 16 && x >= 24 && x < 38)
                seeds[y * W + x] = GB_BACKGROUND;
        }
    gb_params p;
    gb_params_default(&p);
    assert_true(p.geodesic > 0);
    p.border = -1; /* the border prior would push the squares' halves apart too */
    solve_mask(rgb, W, H, seeds, &p, fg);
    assert_int_equal(fg[10 * W + 9], 1);
    assert_int_equal(fg[10 * W + 31], 0);
    gb_models *m;
    mf_graph g;
    assert_int_equal(gb_models_fit(rgb, W, H, seeds, &p, &m), GB_OK);
    for (int prior = 0; prior < 2; prior++) {
        p.geodesic = prior ? 14 : 0;
        assert_int_equal(gb_build(rgb, W, H, seeds, m, &p, &g, NULL), GB_OK);
        int64_t left = graph_terminal_term(&g, 10 * W + 9), right = graph_terminal_term(&g, 10 * W + 31);
        if (prior)
            assert_true(left > GB_SCALE && right < -GB_SCALE); /* (1 - 2/3) * 14 nats either way */
        else
            assert_true(left == 0 && right == 0);
        mf_graph_free(&g);
    }
    p.geodesic = -1;
    assert_int_equal(gb_build(rgb, W, H, seeds, m, &p, &g, NULL), GB_ERR_INVALID);
    gb_models_free(m);
}

/* The border as a background stroke: on rows of two alternating greys
 * (both strokes lie on rows of one grey, so the colour models agree) with
 * the foreground stroke two rows above the background one in the middle,
 * the top corner leans to the foreground without it (14 row edges to
 * cross against 16) and to the background with it. */
static void test_border_is_a_background_stroke(void **state)
{
    (void)state;
    enum { W = 30, H = 30 };
    uint8_t rgb[W * H * 3], seeds[W * H] = {0}, fg[W * H];
    for (int i = 0; i < W * H; i++)
        rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = (uint8_t)((i / W) % 2 ? 130 : 100);
    for (int x = 12; x < 18; x++) {
        seeds[14 * W + x] = GB_FOREGROUND;
        seeds[16 * W + x] = GB_BACKGROUND;
    }
    gb_params p;
    gb_params_default(&p);
    p.lambda = 0; /* data terms alone */
    p.border = -1;
    solve_mask(rgb, W, H, seeds, &p, fg);
    int top_left_without = fg[0];
    p.border = 0.2;
    solve_mask(rgb, W, H, seeds, &p, fg);
    assert_int_equal(top_left_without, 1); /* nearer the foreground stroke */
    assert_int_equal(fg[0], 0);
}

/* The border stands in for the background only where the foreground seeds
 * are more than half an edge away: a frame the marked object runs into
 * without an edge starts no background distance; a frame beyond a strong
 * edge does (at the border distance). */
static void test_border_yields_to_a_touching_object(void **state)
{
    (void)state;
    enum { W = 40, H = 20 };
    uint8_t rgb[W * H * 3], seeds[W * H] = {0};
    float df[W * H], db[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) /* one colour, a weak stripe at x 10-11 */
            memset(rgb + 3 * (y * W + x), x == 10 || x == 11 ? 110 : 100, 3);
    seeds[10 * W + 30] = GB_FOREGROUND;
    assert_int_equal(gb_geodesic(rgb, W, H, seeds, 8, 1.0 / 3000, 0.2, 1, df, db, NULL), GB_OK);
    assert_true(df[10 * W] < 0.5f);  /* the frame is reached across the weak stripe */
    assert_false(isfinite(db[10 * W])); /* so it starts no background */
    assert_false(isfinite(db[0]));
    /* a strong ring at the frame: the object ends before it */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (x == 0 || y == 0 || x == W - 1 || y == H - 1)
                memset(rgb + 3 * (y * W + x), 250, 3);
    assert_int_equal(gb_geodesic(rgb, W, H, seeds, 8, 1.0 / 3000, 0.2, 1, df, db, NULL), GB_OK);
    assert_true(df[10 * W] > 0.5f);
    assert_true(fabsf(db[10 * W] - 0.2f) < 1e-6f);
    assert_true(fabsf(db[0] - 0.2f) < 1e-6f);
}

/* A side of the frame that a foreground seed touches starts no background
 * distance, however far the rest of that side lies from the seeds in
 * colour edges (gb_frame_sides); the other sides still do. */
static void test_border_yields_to_a_touched_side(void **state)
{
    (void)state;
    enum { W = 40, H = 20 };
    uint8_t rgb[W * H * 3], seeds[W * H] = {0};
    float df[W * H], db[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) /* stripes: an edge every other column */
            memset(rgb + 3 * (y * W + x), x % 2 ? 60 : 200, 3);
    seeds[10 * W + 20] = GB_FOREGROUND;
    assert_int_equal(gb_frame_sides(seeds, W, H), 0u);
    assert_int_equal(gb_geodesic(rgb, W, H, seeds, 8, 1.0 / 3000, 0.2, 1, df, db, NULL), GB_OK);
    assert_true(df[10 * W] > 0.5f); /* edges between the seed and the left side */
    assert_true(fabsf(db[10 * W] - 0.2f) < 1e-6f);
    for (int x = 0; x <= 20; x++) /* a stroke to the left side */
        seeds[10 * W + x] = GB_FOREGROUND;
    assert_int_equal(gb_frame_sides(seeds, W, H), (unsigned)GB_SIDE_LEFT);
    assert_int_equal(gb_geodesic(rgb, W, H, seeds, 8, 1.0 / 3000, 0.2, 1, df, db, NULL), GB_OK);
    for (int y = 0; y < H; y++) /* the left side starts nothing: reached from the right */
        assert_true(db[y * W] > 0.2f);
    for (int y = 0; y < H; y++)
        assert_true(fabsf(db[y * W + W - 1] - 0.2f) < 1e-6f);
    assert_true(fabsf(db[30] - 0.2f) < 1e-6f); /* the top row away from the stroke still does */
    assert_int_equal(gb_on_sides(0, 7, W, H, 1, GB_SIDE_LEFT), 1);
    assert_int_equal(gb_on_sides(1, 7, W, H, 1, GB_SIDE_LEFT), 0);
    assert_int_equal(gb_on_sides(1, 7, W, H, 2, GB_SIDE_LEFT), 1);
    assert_int_equal(gb_on_sides(5, H - 1, W, H, 1, GB_SIDE_LEFT | GB_SIDE_BOTTOM), 1);
}

/* Flood fill of the mask from the foreground seeds (conn-connected). */
static int32_t reachable(const uint8_t *fg, const uint8_t *seeds, int32_t w, int32_t h, int conn)
{
    int32_t n = w * h, *stack = malloc(sizeof(int32_t) * (size_t)n), top = 0, count = 0;
    uint8_t *seen = calloc((size_t)n, 1);
    for (int32_t i = 0; i < n; i++)
        if (seeds[i] == GB_FOREGROUND && fg[i])
            seen[i] = 1, stack[top++] = i;
    while (top) {
        int32_t u = stack[--top];
        count++;
        int32_t nb[8];
        for (int k = neighbours(u, w, h, conn, nb) - 1; k >= 0; k--)
            if (fg[nb[k]] && !seen[nb[k]])
                seen[nb[k]] = 1, stack[top++] = nb[k];
    }
    free(stack);
    free(seen);
    return count;
}

/* Noisy photos with islands of the foreground strokes' colour: without
 * star convexity some islands join the foreground on their own; with it
 * the foreground is always connected to its seeds. */
static void test_star_keeps_foreground_connected(void **state)
{
    (void)state;
    uint64_t rng = 3;
    int disconnected_without = 0;
    for (int trial = 0; trial < 20; trial++) {
        enum { W = 36, H = 28 };
        uint8_t rgb[W * H * 3], seeds[W * H] = {0}, fg[W * H];
        for (int32_t y = 0; y < H; y++)
            for (int32_t x = 0; x < W; x++) {
                int island = ((x / 6) + (y / 6)) % 3 == 0;
                uint8_t *c = rgb + 3 * (y * W + x);
                for (int k = 0; k < 3; k++)
                    c[k] = (uint8_t)((island ? (k == 0 ? 210 : 40) : (k == 2 ? 180 : 60)) + next(&rng) % 30);
            }
        for (int x = 0; x < 5; x++)
            seeds[2 * W + x] = GB_FOREGROUND; /* inside the island at (0..5, 0..5) */
        seeds[(H - 3) * W + W / 2 + 1] = GB_BACKGROUND;
        seeds[(H - 3) * W + W / 2 + 2] = GB_BACKGROUND;
        int conn = trial % 2 ? 4 : 8;
        gb_params p;
        gb_params_default(&p);
        p.connectivity = conn;
        p.lambda = 20;
        p.geodesic = 0;
        solve_mask(rgb, W, H, seeds, &p, fg);
        int32_t nfg = 0;
        for (int i = 0; i < W * H; i++)
            nfg += fg[i];
        disconnected_without += reachable(fg, seeds, W, H, conn) < nfg;
        p.star = 1;
        solve_mask(rgb, W, H, seeds, &p, fg);
        nfg = 0;
        for (int i = 0; i < W * H; i++)
            nfg += fg[i];
        if (reachable(fg, seeds, W, H, conn) != nfg)
            fail_msg("trial %d: star convexity left foreground pixels cut off from the seeds", trial);
        for (int i = 0; i < W * H; i++)
            if (seeds[i])
                assert_int_equal(fg[i], seeds[i] == GB_FOREGROUND);
    }
    assert_true(disconnected_without > 0); /* the photos do test something */
}

/* beta as the builder and gb_prior estimate it, over the forward pairs. */
static double photo_beta(const uint8_t *rgb, int32_t w, int32_t h, int conn)
{
    int64_t sum = 0, pairs = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            for (int d = 0; d < (conn == 4 ? 2 : 4); d++) {
                static const int DX[4] = {1, 0, 1, -1}, DY[4] = {0, 1, 1, 1};
                int32_t qx = x + DX[d], qy = y + DY[d];
                if (qx >= 0 && qx < w && qy < h) {
                    sum += gb_colour_dist2(rgb + 3 * (y * w + x), rgb + 3 * (qy * w + qx));
                    pairs++;
                }
            }
    return pairs && sum > 0 ? 1.0 / (2.0 * (double)sum / (double)pairs) : 0.0;
}

/* One random edit of the seeds: a disc painted foreground, background or
 * erased, a rectangle of one label, a seed map from the past (an undo or
 * a redo), or everything at once. */
static void random_edit(uint8_t *seeds, int32_t w, int32_t h, uint8_t *const *past, int npast, uint64_t *rng)
{
    int32_t n = w * h, kind = (int32_t)(next(rng) % 10);
    if (kind < 5) { /* a disc: 0, 1 or 2 */
        int32_t cx = (int32_t)(next(rng) % (uint64_t)w), cy = (int32_t)(next(rng) % (uint64_t)h);
        int32_t r = 1 + (int32_t)(next(rng) % 4);
        uint8_t l = (uint8_t)(kind < 2 ? GB_FOREGROUND : kind < 4 ? GB_BACKGROUND : GB_UNMARKED);
        for (int32_t y = cy - r; y <= cy + r; y++)
            for (int32_t x = cx - r; x <= cx + r; x++)
                if (x >= 0 && y >= 0 && x < w && y < h && (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r)
                    seeds[y * w + x] = l;
    } else if (kind < 7) { /* a rectangle, up to the whole photo */
        int32_t x0 = (int32_t)(next(rng) % (uint64_t)w), y0 = (int32_t)(next(rng) % (uint64_t)h);
        int32_t x1 = x0 + (int32_t)(next(rng) % (uint64_t)w), y1 = y0 + (int32_t)(next(rng) % (uint64_t)h);
        uint8_t l = (uint8_t)(next(rng) % 3);
        for (int32_t y = y0; y < y1 && y < h; y++)
            for (int32_t x = x0; x < x1 && x < w; x++)
                seeds[y * w + x] = l;
    } else if (kind < 9 && npast > 0) { /* undo or redo to any earlier map */
        memcpy(seeds, past[next(rng) % (uint64_t)npast], (size_t)n);
    } else { /* new seeds everywhere */
        for (int32_t i = 0; i < n; i++) {
            uint64_t r = next(rng) % 100;
            seeds[i] = r < 3 ? GB_FOREGROUND : r < 6 ? GB_BACKGROUND : GB_UNMARKED;
        }
    }
}

/* A session's prior updates its distances edit by edit: after any
 * sequence of strokes, erasures, undos and redos every pass of both
 * regions equals a computation from scratch bit for bit, the distances
 * equal gb_geodesic's, and every pixel whose seed or distances changed
 * lies in the spans the update reports. Textured photos, so that the
 * scans stop short of the exact distances and the passes matter. */
static void test_prior_updates_equal_fresh_scans(void **state)
{
    (void)state;
    uint64_t rng = 23;
    for (int trial = 0; trial < 24; trial++) {
        int32_t w = 6 + (int32_t)(next(&rng) % 50), h = 5 + (int32_t)(next(&rng) % 40), n = w * h;
        if (trial == 0)
            w = 1;
        if (trial == 1)
            h = 1;
        n = w * h;
        gb_params p;
        gb_params_default(&p);
        p.connectivity = trial % 2 ? 4 : 8;
        p.border = trial % 3 == 0 ? -1.0 : trial % 3 == 1 ? 0.2 : 0.0;
        p.threads = 1 + trial % 2;
        uint8_t *rgb = malloc((size_t)n * 3), *seeds = calloc((size_t)n, 1);
        for (int32_t i = 0; i < n; i++) {
            int block = (i % w) / 4 + 5 * ((i / w) / 4);
            for (int k = 0; k < 3; k++)
                rgb[3 * i + k] = (uint8_t)((block * 71 + k * 29 + (int)(next(&rng) % 90)) & 255);
        }
        double *sim = gb_similarity_table(photo_beta(rgb, w, h, p.connectivity), 1);
        float *df = malloc(sizeof(float) * (size_t)n), *db = malloc(sizeof(float) * (size_t)n);
        float *old_f = malloc(sizeof(float) * (size_t)n), *old_b = malloc(sizeof(float) * (size_t)n);
        uint8_t *old_seeds = calloc((size_t)n, 1), *past[32];
        int npast = 0;
        gb_prior *pr;
        assert_int_equal(gb_prior_new(rgb, w, h, &p, &pr), GB_OK);
        for (int edit = 0; edit < 30; edit++) {
            random_edit(seeds, w, h, past, npast, &rng);
            if (npast < 32 && (past[npast] = malloc((size_t)n)))
                memcpy(past[npast++], seeds, (size_t)n);
            const int32_t *changed;
            assert_int_equal(gb_prior_update(pr, seeds, &changed), GB_OK);
            gb_prior *fresh;
            assert_int_equal(gb_prior_new(rgb, w, h, &p, &fresh), GB_OK);
            assert_int_equal(gb_prior_update(fresh, seeds, NULL), GB_OK);
            for (int bg = 0; bg < 2; bg++)
                for (int k = 0; k < GB_GEO_PASSES; k++)
                    if (memcmp(gb_prior_pass(pr, bg, k), gb_prior_pass(fresh, bg, k), sizeof(float) * (size_t)n))
                        fail_msg("trial %d edit %d: pass %d of region %d differs from a fresh scan", trial, edit, k,
                                 bg);
            gb_prior_free(fresh);
            assert_int_equal(gb_geodesic_with(rgb, w, h, seeds, p.connectivity, sim, NULL, p.border, 1, df, db, NULL),
                             GB_OK);
            assert_memory_equal(df, gb_prior_pass(pr, 0, GB_GEO_PASSES - 1), sizeof(float) * (size_t)n);
            assert_memory_equal(db, gb_prior_pass(pr, 1, GB_GEO_PASSES - 1), sizeof(float) * (size_t)n);
            for (int32_t i = 0; edit > 0 && i < n; i++) {
                int32_t x = i % w, y = i / w;
                int moved = seeds[i] != old_seeds[i] || memcmp(&df[i], &old_f[i], sizeof(float)) ||
                            memcmp(&db[i], &old_b[i], sizeof(float));
                if (moved && (x < changed[2 * y] || x >= changed[2 * y + 1]))
                    fail_msg("trial %d edit %d: pixel (%d, %d) changed outside the reported spans", trial, edit, x, y);
            }
            if (edit == 0) /* the first update computes every pixel */
                for (int32_t y = 0; y < h; y++)
                    assert_true(changed[2 * y] == 0 && changed[2 * y + 1] == w);
            memcpy(old_seeds, seeds, (size_t)n);
            memcpy(old_f, df, sizeof(float) * (size_t)n);
            memcpy(old_b, db, sizeof(float) * (size_t)n);
        }
        gb_prior_free(pr);
        for (int k = 0; k < npast; k++)
            free(past[k]);
        mf_free_big(sim);
        free(rgb);
        free(seeds);
        free(df);
        free(db);
        free(old_f);
        free(old_b);
        free(old_seeds);
    }
}

/* With the prior on, a region's model also samples the unmarked pixels
 * within GB_SAMPLE_REACH edges of its seeds: a shade next to a one-column
 * stroke on a smooth gradient costs the foreground less than the stroke
 * alone would make it; the prior's own distances give the same models
 * (gb_models_fit_near); without the prior the seeds alone are sampled. */
static void test_models_sample_near_seeds(void **state)
{
    (void)state;
    enum { W = 40, H = 20 };
    uint8_t rgb[W * H * 3], seeds[W * H];
    uint64_t rng = 5;
    for (int32_t y = 0; y < H; y++)
        for (int32_t x = 0; x < W; x++) {
            uint8_t *px = rgb + 3 * (y * W + x);
            int noise = (int)(next(&rng) % 21) - 10;
            if (x < W / 2) { /* red, brightening by 5 a column */
                px[0] = (uint8_t)(150 + 5 * x);
                px[1] = px[2] = 40;
            } else {
                px[0] = px[1] = (uint8_t)(40 + noise);
                px[2] = (uint8_t)(200 + noise);
            }
            seeds[y * W + x] = x == 0 ? GB_FOREGROUND : x == W - 1 ? GB_BACKGROUND : GB_UNMARKED;
        }
    gb_params p;
    gb_params_default(&p);
    p.threads = 1;
    assert_true(p.geodesic > 0);
    gb_models *near = NULL, *alone = NULL, *given = NULL;
    assert_int_equal(gb_models_fit(rgb, W, H, seeds, &p, &near), GB_OK);
    gb_prior *pr;
    assert_int_equal(gb_prior_new(rgb, W, H, &p, &pr), GB_OK);
    assert_int_equal(gb_prior_update(pr, seeds, NULL), GB_OK);
    assert_int_equal(gb_models_fit_near(rgb, W, H, seeds, gb_prior_distances(pr, 0), gb_prior_distances(pr, 1), &p,
                                        &given),
                     GB_OK);
    assert_true(gb_models_equal(near, given));
    gb_params off = p;
    off.geodesic = 0;
    assert_int_equal(gb_models_fit(rgb, W, H, seeds, &off, &alone), GB_OK);
    const uint8_t shade[3] = {165, 40, 40}; /* column 3's colour, not a seed's */
    const int k = gb_lut_index(shade);
    if (!(near->cost_fg[k] - near->cost_bg[k] < alone->cost_fg[k] - alone->cost_bg[k] - 1.0f))
        fail_msg("the shade next to the stroke: fg - bg cost %.2f with near samples, %.2f with the seeds alone",
                 near->cost_fg[k] - near->cost_bg[k], alone->cost_fg[k] - alone->cost_bg[k]);
    gb_prior_free(pr);
    gb_models_free(near);
    gb_models_free(given);
    gb_models_free(alone);
}

/* gb_build_dynamic given the prior's distances builds without scanning
 * again: the network it builds scanning them itself, array for array,
 * for one click's disc (the border standing for the background) and for
 * strokes of both kinds; a missing distance or star convexity is refused. */
static void test_build_with_given_distances(void **state)
{
    (void)state;
    enum { W = 48, H = 36 };
    uint8_t rgb[W * H * 3], seeds[W * H];
    uint64_t rng = 11;
    for (int32_t i = 0; i < W * H * 3; i++)
        rgb[i] = (uint8_t)(next(&rng) % 256);
    gb_params p;
    gb_params_default(&p);
    p.threads = 1;
    for (int round = 0; round < 2; round++) {
        memset(seeds, GB_UNMARKED, sizeof seeds);
        for (int32_t y = 0; y < H; y++)
            for (int32_t x = 0; x < W; x++) {
                if ((x - 20) * (x - 20) + (y - 15) * (y - 15) <= 9)
                    seeds[y * W + x] = GB_FOREGROUND;
                if (round && x == 40 && y > 4)
                    seeds[y * W + x] = GB_BACKGROUND;
            }
        uint8_t ml[W * H]; /* the models' samples: the seeds and the last column as background */
        memcpy(ml, seeds, sizeof ml);
        for (int32_t y = 0; y < H; y++)
            ml[y * W + W - 1] = GB_BACKGROUND;
        gb_models *m = NULL;
        assert_int_equal(gb_models_fit(rgb, W, H, ml, &p, &m), GB_OK);
        gb_prior *pr;
        assert_int_equal(gb_prior_new(rgb, W, H, &p, &pr), GB_OK);
        assert_int_equal(gb_prior_update(pr, seeds, NULL), GB_OK);
        mf_graph a, b;
        int32_t ca[W * H], cb[W * H], ka = 0, kb = 0;
        assert_int_equal(gb_build_dynamic(rgb, W, H, seeds, NULL, NULL, m, &p, &a, ca, &ka), GB_OK);
        assert_int_equal(gb_build_dynamic(rgb, W, H, seeds, gb_prior_distances(pr, 0), gb_prior_distances(pr, 1),
                                          m, &p, &b, cb, &kb),
                         GB_OK);
        assert_int_equal(a.num_vertices, b.num_vertices);
        assert_int_equal(a.num_arcs, b.num_arcs);
        assert_int_equal(ka, kb);
        assert_true(a.flow_offset == b.flow_offset);
        assert_memory_equal(a.out_start, b.out_start, sizeof(int32_t) * ((size_t)a.num_vertices + 1));
        assert_memory_equal(a.arc_head, b.arc_head, sizeof(int32_t) * (size_t)a.num_arcs);
        assert_memory_equal(a.arc_cap, b.arc_cap, sizeof(int32_t) * (size_t)a.num_arcs);
        assert_memory_equal(a.arc_rcap, b.arc_rcap, sizeof(int32_t) * (size_t)a.num_arcs);
        assert_memory_equal(ca, cb, sizeof ca);
        mf_graph_free(&b);
        assert_int_equal(gb_build_dynamic(rgb, W, H, seeds, gb_prior_distances(pr, 0), NULL, m, &p, &b, cb, &kb),
                         GB_ERR_INVALID);
        gb_params star = p;
        star.star = 1;
        assert_int_equal(gb_build_dynamic(rgb, W, H, seeds, gb_prior_distances(pr, 0), gb_prior_distances(pr, 1),
                                          m, &star, &b, cb, &kb),
                         GB_ERR_INVALID);
        mf_graph_free(&a);
        gb_prior_free(pr);
        gb_models_free(m);
    }
}

/* gb_prior_span_terminals: every pixel of the spans (or of the photo)
 * gets gb_prior_pixel_terminals' capacities on 1 and on 4 threads (a photo
 * large enough to split), the pixels outside them are left alone. */
static void test_span_terminals(void **state)
{
    (void)state;
    const int32_t w = 640, h = 480, n = w * h;
    uint8_t *rgb = malloc((size_t)n * 3), *seeds = calloc((size_t)n, 1);
    int32_t *cs = malloc(sizeof(int32_t) * (size_t)n), *ct = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *span = malloc(sizeof(int32_t) * 2 * (size_t)h);
    assert_true(rgb && seeds && cs && ct && span);
    uint32_t r = 7;
    for (int32_t i = 0; i < n; i++) {
        r = r * 1664525u + 1013904223u;
        int x = i % w;
        for (int c = 0; c < 3; c++)
            rgb[3 * i + c] = (uint8_t)((x < w / 2 ? 60 : 190) + (int)((r >> (8 * c)) & 31));
        seeds[i] = x < 8 ? GB_FOREGROUND : x >= w - 8 ? GB_BACKGROUND : GB_UNMARKED;
    }
    for (int threads = 1; threads <= 4; threads += 3) {
        gb_params p;
        gb_params_default(&p);
        p.threads = threads;
        gb_models *m = NULL;
        gb_prior *pr = NULL;
        assert_int_equal(gb_models_fit(rgb, w, h, seeds, &p, &m), GB_OK);
        assert_int_equal(gb_prior_new(rgb, w, h, &p, &pr), GB_OK);
        assert_int_equal(gb_prior_update(pr, seeds, NULL), GB_OK);
        for (int32_t y = 0; y < h; y++) { /* ragged spans, some rows empty */
            span[2 * y] = y % 5 == 0 ? w : (y * 37) % (w / 2);
            span[2 * y + 1] = y % 5 == 0 ? 0 : w - (y * 11) % (w / 3);
        }
        for (int whole = 0; whole <= 1; whole++) {
            for (int32_t i = 0; i < n; i++)
                cs[i] = ct[i] = -7;
            gb_prior_span_terminals(pr, whole ? NULL : span, m, 1000, cs, ct);
            for (int32_t i = 0; i < n; i++) {
                const int32_t x = i % w, y = i / w;
                const int in = whole || (x >= span[2 * y] && x < span[2 * y + 1]);
                int32_t a = -7, b = -7;
                if (in)
                    gb_prior_pixel_terminals(pr, i, m, 1000, &a, &b);
                if (cs[i] != a || ct[i] != b)
                    fail_msg("%d threads, %s: pixel (%d, %d) has %d/%d, expected %d/%d", threads,
                             whole ? "every pixel" : "spans", x, y, cs[i], ct[i], a, b);
            }
        }
        gb_prior_free(pr);
        gb_models_free(m);
    }
    free(rgb);
    free(seeds);
    free(cs);
    free(ct);
    free(span);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distances_and_forest),
        cmocka_unit_test(test_threads_give_identical_distances),
        cmocka_unit_test(test_prior_decides_unseen_colours),
        cmocka_unit_test(test_border_is_a_background_stroke),
        cmocka_unit_test(test_border_yields_to_a_touching_object),
        cmocka_unit_test(test_border_yields_to_a_touched_side),
        cmocka_unit_test(test_star_keeps_foreground_connected),
        cmocka_unit_test(test_prior_updates_equal_fresh_scans),
        cmocka_unit_test(test_models_sample_near_seeds),
        cmocka_unit_test(test_build_with_given_distances),
        cmocka_unit_test(test_span_terminals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
