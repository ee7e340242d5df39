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
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "session_fixture.h"
#include "session_internal.h" /* session_set_final_clicks */

/* The mask `flowcut segment` computes: models fitted on the labels (or the
 * given frozen models), gb_build, a cold CPU solve; the session's energy
 * (geodesic prior on unless geodesic says 0). */
static double reference_geodesic = -1; /* < 0: the default */

/* The previous answer and click of reference_mask's network (previous
 * NULL: none). */
static gb_params reference_previous;

static void reference_mask(const uint8_t *labels, const gb_models *frozen, double lambda, uint8_t *mask,
                           int64_t *flow)
{
    seg_session_options so;
    seg_session_options_default(&so);
    gb_params p = so.graph;
    p.lambda = lambda;
    if (reference_geodesic >= 0)
        p.geodesic = reference_geodesic;
    p.previous = reference_previous.previous;
    p.keep_x = reference_previous.keep_x;
    p.keep_y = reference_previous.keep_y;
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
    /* the golden mask of `flowcut segment examples/coffee.png --seeds
     * examples/coffee-seeds.png`: the session runs segment's energy */
    img_image golden = {0};
    img_error ie = {0};
    assert_int_equal(img_load_labels(FLOWCUT_TEST_DATA_DIR "/coffee-mask.png", 0, &golden, &ie), IMG_OK);
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

static void test_strokes_match_fresh_solves_cpu(void **state)
{
    (void)state;
    run_strokes(MF_ENGINE_CPU);
}

static void test_strokes_match_fresh_solves_gpu(void **state)
{
    (void)state;
    require_gpu();
    run_strokes(MF_ENGINE_GPU);
}

/* With refit off and no geodesic prior, the models fitted at the first
 * cut stay: strokes change only the stroked pixels' terminal arcs. On up
 * to two threads each cut is a warm repair; on more, where a cold solve
 * on every thread is the faster, each is cold; the masks are the same. */
/* A CPU session on the example's seeds with refit off and no prior (the
 * reference's energy: reference_geodesic 0 until the caller resets it). */
static seg_session *open_frozen(int threads, seg_session_options *o)
{
    seg_session_options_default(o);
    o->solve.engine = MF_ENGINE_CPU;
    o->solve.threads = threads;
    o->refit = 0;
    o->graph.geodesic = 0;
    reference_geodesic = 0;
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, seed_labels, o, &s, &err), SEG_OK);
    return s;
}

static void frozen_models(int threads, int want_warm)
{
    seg_session_options o;
    seg_session *s = open_frozen(threads, &o);
    seg_error err = {0};
    seg_cut_stats st;
    assert_int_equal(seg_session_cut(s, &st, &err), SEG_OK);
    /* the first answer is cut-only; a refined cut (the page's next
     * request) keeps its flow for the repairs, the models unchanged */
    assert_int_equal(seg_session_refine_pending(s), want_warm);
    const int64_t first_flow = st.flow;
    seg_session_set_refit(s, 1);
    assert_int_equal(seg_session_cut(s, &st, &err), SEG_OK);
    seg_session_set_refit(s, 0);
    assert_int_equal(st.refitted, 0);
    assert_int_equal(st.flow, first_flow);
    assert_int_equal(seg_session_refine_pending(s), 0);
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
        assert_int_equal(st.warm, want_warm);
        uint8_t *want = malloc((size_t)photo.width * photo.height);
        int64_t flow;
        reference_mask(seg_session_labels(s), frozen, p.lambda, want, &flow);
        assert_memory_equal(want, seg_session_mask(s), (size_t)photo.width * photo.height);
        assert_int_equal(flow, st.flow);
        free(want);
    }
    gb_models_free(frozen);
    seg_session_close(s);
    reference_geodesic = -1;
}

static void test_frozen_models(void **state)
{
    (void)state;
    frozen_models(2, 1);
}

static void test_frozen_models_many_threads(void **state)
{
    (void)state;
    frozen_models(4, 0);
}

/* Without the refined cut in between, the first quick cut after the
 * cut-only answer solves cold and keeps its flow, and the next is warm:
 * the same masks either way. */
static void test_quick_cut_keeps_first_flow(void **state)
{
    (void)state;
    seg_session_options o;
    seg_session *s = open_frozen(1, &o);
    gb_models *frozen = NULL;
    assert_int_equal(gb_models_fit(photo.data, photo.width, photo.height, seed_labels, &o.graph, &frozen), GB_OK);
    expect_reference(s, frozen, "first answer", 0);
    assert_int_equal(seg_session_refine_pending(s), 1);
    assert_int_equal(seg_session_paint_line(s, GB_FOREGROUND, 300, 180, 380, 200, 4), SEG_OK);
    expect_reference(s, frozen, "first quick cut", 0);
    assert_int_equal(seg_session_paint_line(s, GB_BACKGROUND, 520, 40, 580, 300, 4), SEG_OK);
    expect_reference(s, frozen, "second quick cut", 1);
    gb_models_free(frozen);
    seg_session_close(s);
    reference_geodesic = -1;
}

/* The prior's distances are updated edit by edit, not recomputed, and the
 * network's terminals only where they moved; the quick cut (models kept)
 * is re-solved warm. After every edit of a long mixed sequence (strokes of
 * both kinds, clicks, erasing, undo and redo), the quick cut equals a
 * fresh build and cold solve with the kept models, and the refined cut
 * (models re-fitted) equals `flowcut segment`, bit for bit. */
static void test_prior_updates_equal_fresh_builds(void **state)
{
    (void)state;
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    o.solve.threads = 2; /* the warm repair (more threads solve cold) */
    o.graph.keep = 0;    /* the prior's updates alone: clicks correct nothing here */
    session_set_final_clicks(0); /* a click's quick cut keeps the models too */
    seg_session *s = NULL;
    seg_error err = {0};
    const int32_t w = photo.width, h = photo.height;
    const size_t npx = (size_t)w * h;
    assert_int_equal(seg_session_open(photo.data, w, h, seed_labels, &o, &s, &err), SEG_OK);
    expect_segment(s, NULL, "opened");
    gb_params p = o.graph;
    gb_models *kept = NULL;
    assert_int_equal(gb_models_fit(photo.data, w, h, seg_session_labels(s), &p, &kept), GB_OK);
    uint64_t rng = 5;
    int warm = 0, undos = 0;
    double last[4] = {300, 180, 360, 200}; /* the last stroke: the eraser takes part of it back */
    for (int edit = 0; edit < 12; edit++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(rng >> 33);
        double x0 = 40 + r % 520, y0 = 30 + (r >> 10) % 340, x1 = x0 + (double)((r >> 3) % 120) - 60,
               y1 = y0 + (double)((r >> 7) % 80) - 40;
        int kind = edit < 4 ? edit : (int)((r >> 20) % 6);
        char what[64];
        if (kind == 0 || kind == 1) {
            assert_int_equal(seg_session_paint_line(s, kind ? GB_BACKGROUND : GB_FOREGROUND, x0, y0, x1, y1, 3),
                             SEG_OK);
            last[0] = x0, last[1] = y0, last[2] = x1, last[3] = y1;
            snprintf(what, sizeof what, "edit %d: %s stroke", edit, kind ? "background" : "foreground");
        } else if (kind == 2) {
            assert_int_equal(seg_session_paint_line(s, GB_UNMARKED, last[0], last[1], (last[0] + last[2]) / 2,
                                                    (last[1] + last[3]) / 2, 6),
                             SEG_OK);
            snprintf(what, sizeof what, "edit %d: eraser", edit);
        } else if (kind == 3) {
            uint8_t l = r & 1 ? GB_BACKGROUND : GB_FOREGROUND;
            assert_int_equal(seg_session_click(s, (int32_t)x0, (int32_t)y0, l), SEG_OK);
            snprintf(what, sizeof what, "edit %d: click", edit);
        } else if (kind == 4) {
            undos += seg_session_undo(s);
            snprintf(what, sizeof what, "edit %d: undo", edit);
        } else {
            seg_session_redo(s);
            snprintf(what, sizeof what, "edit %d: redo", edit);
        }
        if (kind < 4)
            assert_int_equal(seg_session_commit(s), SEG_OK);
        /* the quick cut: the kept models, warm */
        seg_session_set_refit(s, 0);
        seg_cut_stats st;
        if (seg_session_cut(s, &st, &err) != SEG_OK)
            fail_msg("%s: cut failed: %s", what, err.message);
        assert_int_equal(st.refitted, 0);
        assert_true(st.changed_pixels < (int64_t)npx);
        printf("%s, quick: total %.3f solve %.3f warm %d px %lld\n", what, st.total_seconds, st.solve_seconds,
               st.warm, (long long)st.changed_pixels);
        warm += st.warm;
        uint8_t *want = malloc(npx);
        int64_t flow;
        reference_mask(seg_session_labels(s), kept, p.lambda, want, &flow);
        if (memcmp(want, seg_session_mask(s), npx) || flow != st.flow)
            fail_msg("%s: the quick cut differs from a fresh build with the kept models (flow %lld vs %lld, mask %d)", what, (long long)st.flow, (long long)flow, memcmp(want, seg_session_mask(s), npx) != 0);
        free(want);
        /* the refined cut: models re-fitted, as segment fits them */
        seg_session_set_refit(s, 1);
        expect_segment(s, NULL, what);
        gb_models_free(kept);
        kept = NULL;
        assert_int_equal(gb_models_fit(photo.data, w, h, seg_session_labels(s), &p, &kept), GB_OK);
    }
    /* the warm repair was exercised (the first quick cut has no flow to
     * start from, and edits that move much of the prior are solved cold) */
    printf("quick cuts warm: %d of 12\n", warm);
    assert_true(warm >= 4);
    assert_true(undos >= 1);
    gb_models_free(kept);
    seg_session_close(s);
    session_set_final_clicks((1u << MF_ENGINE_CPU) | (1u << MF_ENGINE_GPU));
}

/* One energy: after clicks (one foreground click alone, the border as the
 * background), a box, strokes, erasing and undo, the session's mask and
 * flow equal `flowcut segment`'s on the same seeds, bit for bit; and the
 * clicked pixels are on their side. */
static void test_session_equals_segment(void **state)
{
    (void)state;
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, NULL, &o, &s, &err), SEG_OK);
    const size_t npx = (size_t)photo.width * photo.height;
    uint8_t *prev = malloc(npx);
    assert_int_equal(seg_session_click(s, 300, 150, GB_FOREGROUND), SEG_OK);
    expect_segment(s, NULL, "one click");
    assert_int_equal(seg_session_mask(s)[150 * photo.width + 300], 255);
    assert_int_equal(seg_session_commit(s), SEG_OK);
    /* a click after a cut corrects its mask: `--previous` replays it */
    memcpy(prev, seg_session_mask(s), npx);
    assert_int_equal(seg_session_click(s, 420, 330, GB_FOREGROUND), SEG_OK);
    expect_segment_full(s, NULL, -1, prev, &(seg_click){420, 330, GB_FOREGROUND, 0}, "two clicks");
    memcpy(prev, seg_session_mask(s), npx);
    assert_int_equal(seg_session_click(s, 60, 60, GB_BACKGROUND), SEG_OK);
    expect_segment_full(s, NULL, -1, prev, &(seg_click){60, 60, GB_BACKGROUND, 0}, "a background click");
    assert_int_equal(seg_session_mask(s)[60 * photo.width + 60], 0);
    assert_int_equal(seg_session_paint_line(s, GB_FOREGROUND, 250, 200, 350, 210, 4), SEG_OK);
    expect_segment(s, NULL, "a stroke");
    assert_int_equal(seg_session_paint_line(s, GB_UNMARKED, 240, 190, 360, 220, 8), SEG_OK);
    expect_segment(s, NULL, "erasing");
    assert_int_equal(seg_session_undo(s), 1);
    expect_segment(s, NULL, "undo");
    assert_int_equal(seg_session_redo(s), 1);
    expect_segment(s, NULL, "redo");
    /* a foreground click at the frame: that side is no longer background
     * (the prior's start moves along the whole side), and back */
    assert_int_equal(seg_session_commit(s), SEG_OK);
    memcpy(prev, seg_session_mask(s), npx);
    assert_int_equal(seg_session_click(s, 300, photo.height - 1, GB_FOREGROUND), SEG_OK);
    expect_segment_full(s, NULL, -1, prev, &(seg_click){300, photo.height - 1, GB_FOREGROUND, 0}, "a click at the frame");
    assert_int_equal(seg_session_undo(s), 1);
    expect_segment(s, NULL, "the click at the frame undone");
    assert_int_equal(seg_session_click(s, photo.width, 0, GB_FOREGROUND), SEG_ERR_INVALID);
    assert_int_equal(seg_session_click(s, 0, 0, 3), SEG_ERR_INVALID);
    seg_session_close(s);
    free(prev);

    /* a box alone, then a click inside it */
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, NULL, &o, &s, &err), SEG_OK);
    const int32_t box[4] = {150, 60, 320, 280};
    assert_int_equal(seg_session_box(s, box[0], box[1], box[2], box[3]), SEG_OK);
    expect_segment(s, box, "a box");
    for (int32_t x = 0; x < photo.width; x += 7)
        assert_int_equal(seg_session_mask(s)[x], 0); /* the top row is outside */
    assert_int_equal(seg_session_click(s, 300, 150, GB_FOREGROUND), SEG_OK);
    expect_segment(s, box, "a box and a click"); /* the box's route, the click a seed */
    assert_int_equal(seg_session_click(s, 200, 100, GB_BACKGROUND), SEG_OK);
    expect_segment(s, box, "a box and two clicks");
    assert_int_equal(seg_session_mask(s)[100 * photo.width + 200], 0);
    assert_int_equal(seg_session_mask(s)[150 * photo.width + 300], 255);
    /* the box and the clicks undone (one step), then a background stroke:
     * no foreground seed, and the undone box's route must not come back */
    assert_int_equal(seg_session_undo(s), 1);
    assert_int_equal(seg_session_paint_line(s, GB_BACKGROUND, 5, 5, 50, 5, 2), SEG_OK);
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_ERR_NEED_SEEDS);
    seg_session_close(s);

    /* foreground-only with the border off: refused, as segment refuses it */
    o.graph.border = -1;
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, NULL, &o, &s, &err), SEG_OK);
    assert_int_equal(seg_session_click(s, 300, 150, GB_FOREGROUND), SEG_OK);
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_ERR_NEED_SEEDS);
    assert_non_null(strstr(err.message, "no background seed"));
    seg_session_close(s);
}

/* Cuts a click session's next click (quick, then refined as the page
 * does) and checks it against `flowcut segment --previous`; returns the
 * mask (malloc'ed). A final click cut (the default) is the refined answer
 * already; otherwise the quick cut keeps the models fitted before the
 * click. */
static uint8_t *click_and_check(seg_session *s, int32_t x, int32_t y, uint8_t label, const uint8_t *prev,
                                const char *what, int final)
{
    const size_t npx = (size_t)photo.width * photo.height;
    seg_error err = {0};
    gb_params p;
    gb_params_default(&p);
    gb_models *kept = NULL; /* the quick cut's: fitted before the click (on the seeds when both regions have some) */
    const uint8_t *l = seg_session_labels(s);
    int has[3] = {0};
    for (size_t i = 0; i < npx; i++)
        has[l[i]] = 1;
    if (has[GB_FOREGROUND] && has[GB_BACKGROUND])
        assert_int_equal(gb_models_fit(photo.data, photo.width, photo.height, l, &p, &kept), GB_OK);
    assert_int_equal(seg_session_click(s, x, y, label), SEG_OK);
    seg_session_set_refit(s, 0);
    if (final) { /* one cut, the refined answer at once: nothing left to refine */
        expect_segment_full(s, NULL, -1, prev, prev ? &(seg_click){x, y, label, 0} : NULL, what);
        assert_int_equal(seg_session_refine_pending(s), 0);
        assert_int_equal(seg_session_models_stale(s), 0);
        gb_models_free(kept);
        seg_session_set_refit(s, 1);
        uint8_t *m = malloc(npx);
        memcpy(m, seg_session_mask(s), npx);
        seg_cut_stats st; /* a refine finds the same network: no solve, the same mask */
        assert_int_equal(seg_session_cut(s, &st, &err), SEG_OK);
        assert_memory_equal(seg_session_mask(s), m, npx);
        assert_true(st.solve_seconds == 0);
        assert_int_equal(seg_session_commit(s), SEG_OK);
        return m;
    }
    seg_cut_stats st;
    assert_int_equal(seg_session_cut(s, &st, &err), SEG_OK);
    if (prev && kept) { /* the quick cut equals a fresh build with those models and the term */
        uint8_t *want = malloc(npx);
        int64_t flow;
        reference_previous.previous = prev, reference_previous.keep_x = x, reference_previous.keep_y = y;
        reference_mask(seg_session_labels(s), kept, p.lambda, want, &flow);
        reference_previous.previous = NULL;
        if (memcmp(want, seg_session_mask(s), npx) || flow != st.flow)
            fail_msg("%s: the quick cut differs from a fresh build (flow %lld vs %lld)", what, (long long)st.flow,
                     (long long)flow);
        printf("%s, quick: total %.3f solve %.3f warm %d px %lld\n", what, st.total_seconds, st.solve_seconds,
               st.warm, (long long)st.changed_pixels);
        free(want);
    }
    gb_models_free(kept);
    seg_session_set_refit(s, 1);
    expect_segment_full(s, NULL, -1, prev, prev ? &(seg_click){x, y, label, 0} : NULL, what);
    assert_int_equal(seg_session_commit(s), SEG_OK);
    uint8_t *m = malloc(npx);
    memcpy(m, seg_session_mask(s), npx);
    return m;
}

/* The previous answer's term: each click corrects the mask before it, undo
 * and redo bring back each step's mask bit for bit, and any other edit
 * (or a click before the last one was cut) ends the term. */
static void clicks_correct_previous_answers(int final)
{
    const size_t npx = (size_t)photo.width * photo.height;
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    o.solve.threads = 2; /* warm repairs */
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, NULL, &o, &s, &err), SEG_OK);
    uint8_t *m1 = click_and_check(s, 300, 150, GB_FOREGROUND, NULL, "first click", final);
    uint8_t *m2 = click_and_check(s, 200, 120, GB_BACKGROUND, m1, "second click", final);
    uint8_t *m3 = click_and_check(s, 420, 330, GB_FOREGROUND, m2, "third click", final);
    uint8_t *m4 = click_and_check(s, 330, 250, GB_BACKGROUND, m3, "fourth click", final);
    const uint8_t *want[] = {m3, m2, m1};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(seg_session_undo(s), 1);
        assert_int_equal(seg_session_cut(s, NULL, &err), SEG_OK);
        assert_memory_equal(seg_session_mask(s), want[k], npx);
    }
    assert_int_equal(seg_session_redo(s), 1);
    assert_int_equal(seg_session_redo(s), 1);
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_OK);
    assert_memory_equal(seg_session_mask(s), m3, npx);
    assert_int_equal(seg_session_redo(s), 1);
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_OK);
    assert_memory_equal(seg_session_mask(s), m4, npx);
    /* two clicks with no cut between: the mask answers neither, no term */
    assert_int_equal(seg_session_click(s, 100, 300, GB_BACKGROUND), SEG_OK);
    assert_int_equal(seg_session_click(s, 380, 200, GB_FOREGROUND), SEG_OK);
    expect_segment(s, NULL, "two clicks at once");
    /* a stroke ends the term */
    uint8_t *before = malloc(npx);
    memcpy(before, seg_session_mask(s), npx);
    uint8_t *m5 = click_and_check(s, 250, 300, GB_FOREGROUND, before, "a click", final);
    free(before);
    assert_int_equal(seg_session_paint_line(s, GB_BACKGROUND, 10, 10, 80, 12, 3), SEG_OK);
    expect_segment(s, NULL, "a stroke after a click");
    /* with no history the term still holds for the cut after the click */
    seg_session_set_history_limit(s, 0);
    memcpy(m5, seg_session_mask(s), npx);
    free(click_and_check(s, 150, 330, GB_BACKGROUND, m5, "a click with no history", final));
    seg_session_close(s);
    free(m1), free(m2), free(m3), free(m4), free(m5);

    /* keep 0: clicks alone, as without --previous */
    o.graph.keep = 0;
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, NULL, &o, &s, &err), SEG_OK);
    free(click_and_check(s, 300, 150, GB_FOREGROUND, NULL, "first click, keep 0", final));
    free(click_and_check(s, 200, 120, GB_BACKGROUND, NULL, "second click, keep 0", final));
    seg_session_close(s);
}

static void test_clicks_correct_previous_answers(void **state)
{
    (void)state;
    clicks_correct_previous_answers(1); /* final click cuts, the default */
    session_set_final_clicks(0);        /* and quick cuts with the models kept */
    clicks_correct_previous_answers(0);
    session_set_final_clicks((1u << MF_ENGINE_CPU) | (1u << MF_ENGINE_GPU));
}

/* The memory a front end may keep for the session's cold cuts: 256 bytes
 * a pixel, never more than a quarter of the machine's. */
static void test_cache_bytes(void **state)
{
    (void)state;
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, NULL, NULL, &s, &err), SEG_OK);
    const size_t want = (size_t)photo.width * photo.height * 256, got = seg_session_cache_bytes(s);
    const size_t quarter = (size_t)sysconf(_SC_PHYS_PAGES) / 4 * (size_t)sysconf(_SC_PAGESIZE);
    assert_true(got == (want < quarter ? want : quarter));
    assert_true(got > 0);
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
        cmocka_unit_test(test_frozen_models_many_threads),
        cmocka_unit_test(test_quick_cut_keeps_first_flow),
        cmocka_unit_test(test_session_equals_segment),
        cmocka_unit_test(test_clicks_correct_previous_answers),
        cmocka_unit_test(test_prior_updates_equal_fresh_builds),
        cmocka_unit_test(test_cache_bytes),
        cmocka_unit_test(test_save_is_atomic),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
