#define _DEFAULT_SOURCE
/* Interactive session: after every edit (strokes in any order, erasing,
 * label patches, lambda) the warm re-cut equals a fresh build and cold
 * solve of the same seeds, bit for bit, and the final mask is the golden
 * `flowcut segment` mask; saves are atomic. CPU always; GPU where a device
 * exists ("skipped: no CUDA device" otherwise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/images.h"
#include "flowcut/segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FLOWCUT_EXAMPLES_DIR
#define FLOWCUT_EXAMPLES_DIR "examples"
#endif

static img_image photo, seeds;
static uint8_t *seed_labels; /* the example's seeds as labels */

static int setup(void **state)
{
    (void)state;
    img_error ie = {0};
    if (img_load_rgb(FLOWCUT_EXAMPLES_DIR "/coffee.png", 0, &photo, &ie) ||
        img_load_labels(FLOWCUT_EXAMPLES_DIR "/coffee-seeds.png", 0, &seeds, &ie))
        return -1;
    seed_labels = seeds.data; /* values 0, 1, 2 already */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    img_free(&photo);
    img_free(&seeds);
    return 0;
}

/* The mask `flowcut segment` computes: models fitted on the labels (or the
 * given frozen models), gb_build, a cold CPU solve. */
static void reference_mask(const uint8_t *labels, const gb_models *frozen, double lambda, uint8_t *mask,
                           int64_t *flow)
{
    seg_session_options so;
    seg_session_options_default(&so); /* the session's network: no geodesic prior */
    gb_params p = so.graph;
    p.lambda = lambda;
    gb_models *m = NULL;
    if (!frozen)
        assert_int_equal(gb_models_fit(photo.data, photo.width, photo.height, labels, &p, &m), GB_OK);
    mf_graph g;
    assert_int_equal(gb_build(photo.data, photo.width, photo.height, labels, frozen ? frozen : m, &p, &g, NULL),
                     GB_OK);
    mf_options o;
    mf_options_default(&o);
    o.cut_only = 1;
    mf_result r;
    mf_error e = {0};
    assert_int_equal(mf_solve_cpu(&g, &o, &r, &e), MF_OK);
    for (int64_t i = 0; i < (int64_t)photo.width * photo.height; i++)
        mask[i] = r.source_side[i] ? 255 : 0;
    *flow = r.flow_value;
    mf_result_free(&r);
    mf_graph_free(&g);
    gb_models_free(m);
}

static void expect_reference(seg_session *s, const gb_models *frozen, const char *what, int want_warm)
{
    size_t npx = (size_t)photo.width * photo.height;
    seg_cut_stats st;
    seg_error err = {0};
    if (seg_session_cut(s, &st, &err) != SEG_OK)
        fail_msg("%s: cut failed: %s", what, err.message);
    uint8_t *want = malloc(npx);
    int64_t flow = 0;
    reference_mask(seg_session_labels(s), frozen, seg_session_lambda(s), want, &flow);
    if (memcmp(want, seg_session_mask(s), npx) != 0)
        fail_msg("%s: session mask differs from a fresh solve", what);
    if (st.flow != flow)
        fail_msg("%s: session flow %lld, fresh %lld", what, (long long)st.flow, (long long)flow);
    printf("%s: total %.3f model %.3f update %.3f solve %.3f warm %d refit %d px %lld\n", what, st.total_seconds, st.model_seconds, st.update_seconds, st.solve_seconds, st.warm, st.refitted, (long long)st.changed_pixels);
    if (want_warm >= 0 && st.warm != want_warm)
        fail_msg("%s: warm %d, expected %d", what, st.warm, want_warm);
    free(want);
}

static void run_strokes(mf_engine engine)
{
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = engine;
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, NULL, &o, &s, &err), SEG_OK);
    /* no seeds yet: a clear refusal, empty mask */
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_ERR_NEED_SEEDS);
    assert_non_null(strstr(err.message, "foreground"));
    /* the example's seeds added in horizontal bands, bottom first: every
     * intermediate cut is warm and equals a fresh solve */
    int32_t w = photo.width, h = photo.height, bands = 5;
    uint8_t *zero = calloc((size_t)w * h, 1);
    int cuts = 0;
    for (int b = bands - 1; b >= 0; b--) {
        int32_t y0 = h * b / bands, y1 = h * (b + 1) / bands;
        assert_int_equal(seg_session_set_labels(s, 0, y0, w, y1 - y0, seed_labels + (int64_t)y0 * w, w), SEG_OK);
        int64_t nfg = 0, nbg = 0;
        for (int64_t i = 0; i < (int64_t)w * h; i++) {
            nfg += seg_session_labels(s)[i] == GB_FOREGROUND;
            nbg += seg_session_labels(s)[i] == GB_BACKGROUND;
        }
        if (!nfg || !nbg)
            continue;
        char what[64];
        snprintf(what, sizeof what, "band %d", b);
        expect_reference(s, NULL, what, -1);
        cuts++;
    }
    assert_true(cuts >= 2);
    assert_memory_equal(seg_session_labels(s), seed_labels, (size_t)w * h);
    /* the golden mask of `flowcut segment examples/coffee.png --seeds examples/coffee-seeds.png
     * --geodesic 0 --lambda 150`: the session's defaults */
    img_image golden = {0};
    img_error ie = {0};
    assert_int_equal(img_load_labels(FLOWCUT_TEST_DATA_DIR "/coffee-mask-session.png", 0, &golden, &ie), IMG_OK);
    assert_memory_equal(golden.data, seg_session_mask(s), (size_t)w * h);
    img_free(&golden);
    /* strokes: foreground, background, erase, each re-cut warm */
    assert_int_equal(seg_session_paint_line(s, GB_FOREGROUND, 100, 300, 180, 310, 4), SEG_OK);
    expect_reference(s, NULL, "foreground stroke", -1);
    assert_int_equal(seg_session_paint_line(s, GB_BACKGROUND, 550, 20, 590, 380, 6), SEG_OK);
    expect_reference(s, NULL, "background stroke", -1);
    assert_int_equal(seg_session_paint_line(s, GB_UNMARKED, 90, 290, 190, 320, 10), SEG_OK);
    expect_reference(s, NULL, "eraser", -1);
    assert_int_equal(seg_session_paint_line(s, GB_FOREGROUND, -50, -50, 10, 10, 3), SEG_OK); /* clipped */
    expect_reference(s, NULL, "clipped stroke", -1);
    /* lambda: rebuilt cold, then warm again */
    assert_int_equal(seg_session_set_lambda(s, 60), SEG_OK);
    expect_reference(s, NULL, "lambda 60", 0);
    assert_int_equal(seg_session_paint_line(s, GB_BACKGROUND, 300, 10, 320, 12, 2), SEG_OK);
    expect_reference(s, NULL, "stroke after lambda", -1);
    /* bad edits are refused and change nothing */
    assert_int_equal(seg_session_paint_line(s, 7, 0, 0, 1, 1, 1), SEG_ERR_INVALID);
    assert_int_equal(seg_session_set_labels(s, w - 1, 0, 2, 1, zero, 2), SEG_ERR_INVALID);
    uint8_t bad = 3;
    assert_int_equal(seg_session_set_labels(s, 0, 0, 1, 1, &bad, 1), SEG_ERR_INVALID);
    assert_int_equal(seg_session_set_lambda(s, -1), SEG_ERR_INVALID);
    /* everything erased: back to needing seeds */
    assert_int_equal(seg_session_set_all_labels(s, zero), SEG_OK);
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_ERR_NEED_SEEDS);
    free(zero);
    seg_session_close(s);
}

static int have_gpu(void)
{
    int count = 0;
    return mf_gpu_compiled() && mf_gpu_available(&count) == MF_OK && count > 0;
}

static void test_strokes_match_fresh_solves_cpu(void **state)
{
    (void)state;
    run_strokes(MF_ENGINE_CPU);
}

static void test_strokes_match_fresh_solves_gpu(void **state)
{
    (void)state;
    if (!have_gpu()) {
        printf("skipped: no CUDA device\n");
        skip();
    }
    run_strokes(MF_ENGINE_GPU);
}

/* With refit off, the models fitted at the first cut stay: strokes change
 * only the stroked pixels' terminal arcs. */
static void test_frozen_models(void **state)
{
    (void)state;
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    o.refit = 0;
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, seed_labels, &o, &s, &err), SEG_OK);
    seg_cut_stats st;
    assert_int_equal(seg_session_cut(s, &st, &err), SEG_OK);
    gb_params p = o.graph;
    gb_models *frozen = NULL;
    assert_int_equal(gb_models_fit(photo.data, photo.width, photo.height, seed_labels, &p, &frozen), GB_OK);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(seg_session_paint_line(s, k & 1 ? GB_BACKGROUND : GB_FOREGROUND, 50 + 100 * k, 50,
                                                80 + 100 * k, 350, 3),
                         SEG_OK);
        assert_int_equal(seg_session_cut(s, &st, &err), SEG_OK);
        assert_int_equal(st.refitted, 0);
        assert_true(st.changed_pixels > 0 && st.changed_pixels < 5000);
        assert_int_equal(st.warm, 1);
        uint8_t *want = malloc((size_t)photo.width * photo.height);
        int64_t flow;
        reference_mask(seg_session_labels(s), frozen, p.lambda, want, &flow);
        assert_memory_equal(want, seg_session_mask(s), (size_t)photo.width * photo.height);
        assert_int_equal(flow, st.flow);
        free(want);
    }
    gb_models_free(frozen);
    seg_session_close(s);
}

static void test_save_is_atomic(void **state)
{
    (void)state;
    seg_session *s = NULL;
    seg_error err = {0};
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, seed_labels, &o, &s, &err), SEG_OK);
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_OK);
    char dir[] = "/tmp/flowcut-session-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], seeds_path[256];
    snprintf(path, sizeof path, "%s/mask.png", dir);
    snprintf(seeds_path, sizeof seeds_path, "%s/seeds.png", dir);
    assert_int_equal(seg_session_save(s, SEG_SAVE_MASK, path, 0, &err), SEG_OK);
    assert_int_equal(seg_session_save(s, SEG_SAVE_MASK, path, 0, &err), SEG_ERR_IO); /* exists */
    assert_non_null(strstr(err.message, "already exists"));
    assert_int_equal(seg_session_save(s, SEG_SAVE_MASK, path, 1, &err), SEG_OK);
    assert_int_equal(seg_session_save(s, SEG_SAVE_SEEDS, seeds_path, 0, &err), SEG_OK);
    char other[256];
    snprintf(other, sizeof other, "%s/overlay.png", dir);
    assert_int_equal(seg_session_save(s, SEG_SAVE_OVERLAY, other, 0, &err), SEG_OK);
    snprintf(other, sizeof other, "%s/cutout.png", dir);
    assert_int_equal(seg_session_save(s, SEG_SAVE_CUTOUT, other, 0, &err), SEG_OK);
    snprintf(other, sizeof other, "%s/no/such/dir/mask.png", dir);
    assert_int_equal(seg_session_save(s, SEG_SAVE_MASK, other, 0, &err), SEG_ERR_IO);
    img_image back = {0};
    img_error ie = {0};
    assert_int_equal(img_load_labels(path, 0, &back, &ie), IMG_OK);
    assert_memory_equal(back.data, seg_session_mask(s), (size_t)photo.width * photo.height);
    img_free(&back);
    assert_int_equal(img_load_labels(seeds_path, 0, &back, &ie), IMG_OK);
    assert_memory_equal(back.data, seed_labels, (size_t)photo.width * photo.height);
    img_free(&back);
    /* only the four files: no temporary left behind */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 4", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    seg_session_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strokes_match_fresh_solves_cpu),
        cmocka_unit_test(test_strokes_match_fresh_solves_gpu),
        cmocka_unit_test(test_frozen_models),
        cmocka_unit_test(test_save_is_atomic),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
