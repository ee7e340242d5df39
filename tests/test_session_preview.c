/* The session's preview (seg_session_preview): on a large photo it is the
 * cut of the photo shrunk by a whole factor, each block one answer; the
 * clicked pixel is on its side, a box's outside stays background, and
 * the preview changes nothing: a session that previews before each cut
 * cuts the same masks as one that does not, bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/segment.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 1280 x 962 (1.2 Mpx; the last row of blocks cut short): a red ellipse
 * and a blue square on a grey ramp with a little deterministic noise. */
enum { W = 1280, H = 962 };

static uint8_t *make_photo(void)
{
    uint8_t *rgb = malloc((size_t)W * H * 3);
    uint32_t r = 12345;
    for (int32_t y = 0; y < H; y++)
        for (int32_t x = 0; x < W; x++) {
            r = r * 1103515245u + 12345u;
            const int noise = (int)(r >> 27) - 16;
            const double ex = (x - 520.0) / 300, ey = (y - 480.0) / 220;
            uint8_t *p = rgb + 3 * ((int64_t)y * W + x);
            int c[3] = {90 + x / 32, 100 + y / 32, 95};
            if (ex * ex + ey * ey < 1)
                c[0] = 200, c[1] = 40, c[2] = 30;
            else if (x > 950 && x < 1150 && y > 300 && y < 500)
                c[0] = 30, c[1] = 50, c[2] = 190;
            for (int k = 0; k < 3; k++) {
                const int v = c[k] + noise;
                p[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    return rgb;
}

static seg_session *open_session_threads(const uint8_t *rgb, int threads)
{
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    o.solve.threads = o.graph.threads = threads;
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(rgb, W, H, NULL, &o, &s, &err), SEG_OK);
    return s;
}

static seg_session *open_session(const uint8_t *rgb) { return open_session_threads(rgb, 0); }

/* The block side the preview shrinks by: the smallest whole factor that
 * brings the photo to SEG_PREVIEW_PIXELS or fewer (its documented rule). */
static int32_t factor(void)
{
    int32_t f = 1;
    while ((int64_t)((W + f - 1) / f) * ((H + f - 1) / f) > SEG_PREVIEW_PIXELS)
        f++;
    return f;
}

static double iou(const uint8_t *a, const uint8_t *b)
{
    int64_t in = 0, un = 0;
    for (int64_t i = 0; i < (int64_t)W * H; i++) {
        in += a[i] && b[i];
        un += a[i] || b[i];
    }
    return un ? (double)in / (double)un : 1;
}

static void test_preview_of_a_click(void **state)
{
    (void)state;
    uint8_t *rgb = make_photo(), *pm = malloc((size_t)W * H);
    seg_session *s = open_session(rgb);
    seg_error err = {0};
    seg_cut_stats st;
    assert_true(seg_session_preview_pays(s));
    /* no seed yet: nothing to preview, as nothing to cut */
    assert_int_equal(seg_session_preview(s, pm, &st, &err), SEG_ERR_NEED_SEEDS);
    assert_int_equal(seg_session_preview(s, NULL, &st, &err), SEG_ERR_INVALID);
    assert_int_equal(seg_session_click(s, 520, 480, GB_FOREGROUND), SEG_OK);
    assert_int_equal(seg_session_preview(s, pm, &st, &err), SEG_OK);
    assert_int_equal(pm[480 * W + 520], 255);
    /* each block one answer */
    const int32_t f = factor();
    assert_true(f > 1);
    int64_t fg = 0;
    for (int32_t y = 0; y < H; y++)
        for (int32_t x = 0; x < W; x++) {
            fg += pm[(int64_t)y * W + x] != 0;
            assert_int_equal(pm[(int64_t)y * W + x], pm[(int64_t)(y / f * f) * W + x / f * f]);
        }
    assert_int_equal(st.foreground, fg);
    assert_true(st.total_seconds > 0);
    /* the same on one thread and on three (the passes over the photo in bands) */
    for (int threads = 1; threads <= 3; threads += 2) {
        seg_session *t = open_session_threads(rgb, threads);
        uint8_t *tm = malloc((size_t)W * H);
        assert_int_equal(seg_session_click(t, 520, 480, GB_FOREGROUND), SEG_OK);
        assert_int_equal(seg_session_preview(t, tm, NULL, &err), SEG_OK);
        assert_memory_equal(tm, pm, (size_t)W * H);
        seg_session_close(t);
        free(tm);
    }
    /* close to the exact cut, which the preview left to do */
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_OK);
    assert_true(iou(pm, seg_session_mask(s)) > 0.95);
    seg_session_close(s);
    free(pm);
    free(rgb);
}

/* Two sessions take the same clicks and box; one previews before every
 * cut: their cuts are the same bit for bit, and so are the previews of
 * the same state taken twice. */
static void test_preview_changes_nothing(void **state)
{
    (void)state;
    uint8_t *rgb = make_photo(), *pm = malloc((size_t)W * H), *pm2 = malloc((size_t)W * H);
    seg_session *a = open_session(rgb), *b = open_session(rgb);
    seg_error err = {0};
    const int32_t clicks[][3] = {{520, 480, GB_FOREGROUND}, {1050, 400, GB_BACKGROUND}, {300, 480, GB_FOREGROUND}};
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < 2; i++) {
            seg_session *s = i ? b : a;
            if (k < 3)
                assert_int_equal(seg_session_click(s, clicks[k][0], clicks[k][1], (uint8_t)clicks[k][2]), SEG_OK);
            else
                assert_int_equal(seg_session_box(s, 150, 200, 800, 560), SEG_OK);
            assert_int_equal(seg_session_commit(s), SEG_OK);
        }
        /* the clicks after the first correct the cut before them: the
         * preview shrinks that answer too */
        assert_true((seg_session_get_previous(a, NULL) != NULL) == (k == 1 || k == 2));
        assert_int_equal(seg_session_preview(a, pm, NULL, &err), SEG_OK);
        assert_int_equal(seg_session_preview(a, pm2, NULL, &err), SEG_OK);
        assert_memory_equal(pm, pm2, (size_t)W * H);
        assert_int_equal(seg_session_cut(a, NULL, &err), SEG_OK);
        assert_int_equal(seg_session_cut(b, NULL, &err), SEG_OK);
        assert_memory_equal(seg_session_mask(a), seg_session_mask(b), (size_t)W * H);
        assert_true(iou(pm, seg_session_mask(a)) > 0.9);
    }
    /* the box's outside stays background, up to the block the box's edge cuts */
    const int32_t f = factor();
    for (int32_t y = 0; y < H; y++)
        for (int32_t x = 0; x < W; x++)
            if (pm[(int64_t)y * W + x])
                assert_true(x >= 150 - f && x < 950 + f && y >= 200 - f && y < 760 + f);
    seg_session_close(a);
    seg_session_close(b);
    free(pm);
    free(pm2);
    free(rgb);
}

/* A library caller's box may run far past the photo (only its corner is
 * checked): the preview clips it to the shrunk photo. */
static void test_box_past_the_photo(void **state)
{
    (void)state;
    uint8_t *rgb = make_photo(), *pm = malloc((size_t)W * H);
    seg_session *s = open_session(rgb);
    seg_error err = {0};
    assert_int_equal(seg_session_box(s, 10, 10, INT32_MAX - 5, INT32_MAX - 5), SEG_OK);
    assert_int_equal(seg_session_click(s, 520, 480, GB_FOREGROUND), SEG_OK);
    assert_int_equal(seg_session_preview(s, pm, NULL, &err), SEG_OK);
    assert_int_equal(pm[480 * W + 520], 255);
    seg_session_close(s);
    free(pm);
    free(rgb);
}

/* A click on a standing box's route with the models kept is a warm
 * repair, quicker than a preview would make the exact mask: none pays
 * then; a new box, or the route run again (refit on), is cold. */
static void test_no_preview_for_a_warm_box_click(void **state)
{
    (void)state;
    uint8_t *rgb = make_photo();
    seg_session *s = open_session(rgb);
    seg_error err = {0};
    seg_session_set_refit(s, 0);
    assert_int_equal(seg_session_box(s, 150, 200, 800, 560), SEG_OK);
    assert_true(seg_session_preview_pays(s));
    assert_int_equal(seg_session_cut(s, NULL, &err), SEG_OK);
    assert_int_equal(seg_session_click(s, 520, 480, GB_FOREGROUND), SEG_OK);
    assert_false(seg_session_preview_pays(s));
    seg_session_set_refit(s, 1);
    assert_true(seg_session_preview_pays(s));
    seg_session_set_refit(s, 0);
    assert_int_equal(seg_session_box(s, 100, 150, 900, 660), SEG_OK);
    assert_true(seg_session_preview_pays(s));
    seg_session_close(s);
    free(rgb);
}

/* A small photo: the exact cut is quick, a preview does not pay. */
static void test_small_photo_needs_none(void **state)
{
    (void)state;
    uint8_t rgb[64 * 48 * 3] = {0};
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(rgb, 64, 48, NULL, NULL, &s, &err), SEG_OK);
    assert_false(seg_session_preview_pays(s));
    assert_false(seg_session_preview_pays(NULL));
    seg_session_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preview_of_a_click),
        cmocka_unit_test(test_preview_changes_nothing),
        cmocka_unit_test(test_box_past_the_photo),
        cmocka_unit_test(test_no_preview_for_a_warm_box_click),
        cmocka_unit_test(test_small_photo_needs_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
