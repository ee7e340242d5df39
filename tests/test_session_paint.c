#define _DEFAULT_SOURCE
/* The session's seed edits: strokes paint exactly the pixels within their
 * radius of the polyline, a huge stroke costs its box and not its
 * segments, and the undo history stays within its byte limit while the
 * steps it keeps undo and redo exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/images.h"
#include "flowcut/segment.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "session_fixture.h"

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The undo history is bounded in bytes: whatever the strokes, it never
 * holds more than the limit, the oldest steps go first, and the steps kept
 * undo and redo exactly. */
static void test_history_bounded_in_bytes(void **state)
{
    (void)state;
    seg_session *s = NULL;
    seg_error err = {0};
    int32_t w = photo.width, h = photo.height;
    size_t npx = (size_t)w * h;
    assert_int_equal(seg_session_open(photo.data, w, h, seed_labels, NULL, &s, &err), SEG_OK);
    assert_false(seg_session_can_undo(s));
    assert_int_equal(seg_session_undo(s), 0); /* the starting seeds are where undo stops */
    enum { STEPS = 300 };
    uint64_t *after = malloc(sizeof(uint64_t) * (STEPS + 1)); /* the labels after each step */
    int nafter = 0;
    after[nafter++] = fnv(seg_session_labels(s), npx);
    const size_t limit = 64 << 10;
    seg_session_set_history_limit(s, limit);
    size_t most = 0;
    for (int k = 1; k <= STEPS; k++) {
        /* a whole-photo stroke, or a thin scribble with a ragged edge */
        if (k % 3 == 0) {
            assert_int_equal(seg_session_paint_line(s, (uint8_t)(k % 2 ? GB_FOREGROUND : GB_BACKGROUND), 300, 200,
                                                    300, 200, 800),
                             SEG_OK);
        } else {
            double xy[8] = {(k * 37) % w, (k * 11) % h, (k * 53) % w, (k * 29) % h, (k * 7) % w, (k * 91) % h,
                            (k * 13) % w, (k * 17) % h};
            assert_int_equal(seg_session_paint_stroke(s, (uint8_t)(k % 3), xy, 4, 1.5 + k % 9), SEG_OK);
        }
        assert_int_equal(seg_session_commit(s), SEG_OK);
        uint64_t now = fnv(seg_session_labels(s), npx);
        if (now != after[nafter - 1]) /* a stroke that changed nothing is no step */
            after[nafter++] = now;
        size_t b = seg_session_history_bytes(s);
        assert_true(b <= limit);
        most = b > most ? b : most;
    }
    assert_true(most > limit / 2); /* the limit, not something else, bounded it */
    int undone = 0;
    while (seg_session_undo(s) == 1) {
        undone++;
        assert_int_equal(fnv(seg_session_labels(s), npx), after[nafter - 1 - undone]);
    }
    printf("history: %d of %d steps kept in %zu bytes (limit %zu)\n", undone, nafter - 1, most, limit);
    assert_true(nafter > STEPS / 2 && undone > 10 && undone < nafter - 1);
    for (int k = nafter - undone; k < nafter; k++) {
        assert_int_equal(seg_session_redo(s), 1);
        assert_int_equal(fnv(seg_session_labels(s), npx), after[k]);
    }
    assert_int_equal(seg_session_redo(s), 0);
    /* the session cuts from restored seeds as from painted ones */
    assert_int_equal(seg_session_undo(s), 1);
    assert_int_equal(seg_session_paint_line(s, GB_FOREGROUND, 200, 250, 260, 300, 5), SEG_OK);
    assert_int_equal(seg_session_paint_line(s, GB_BACKGROUND, 10, 10, 590, 10, 5), SEG_OK);
    expect_segment(s, NULL, "after undo/redo");
    assert_int_equal(seg_session_commit(s), SEG_OK);
    /* a smaller limit applies at once; 0 keeps nothing */
    seg_session_set_history_limit(s, 4096);
    assert_true(seg_session_history_bytes(s) <= 4096);
    seg_session_set_history_limit(s, 0);
    assert_int_equal(seg_session_history_bytes(s), 0);
    assert_false(seg_session_can_undo(s));
    assert_int_equal(seg_session_paint_line(s, GB_FOREGROUND, 10, 10, 50, 50, 3), SEG_OK);
    assert_true(seg_session_can_undo(s)); /* uncommitted edits are undoable... */
    assert_int_equal(seg_session_undo(s), 0); /* ...but with no room they are not kept */
    /* the default: 100 whole-photo strokes cost kilobytes, not 100 photos */
    seg_session_set_history_limit(s, SEG_SESSION_HISTORY_DEFAULT);
    for (int k = 0; k < 100; k++) {
        assert_int_equal(seg_session_paint_line(s, (uint8_t)(1 + k % 2), 300, 200, 300, 200, 800), SEG_OK);
        assert_int_equal(seg_session_commit(s), SEG_OK);
    }
    printf("history: 100 whole-photo strokes in %zu bytes\n", seg_session_history_bytes(s));
    assert_true(seg_session_history_bytes(s) < npx);
    /* an edit after undo ends the redo branch; uncommitted edits undo as a step */
    assert_int_equal(seg_session_undo(s), 1);
    assert_true(seg_session_can_redo(s));
    assert_int_equal(seg_session_paint_line(s, GB_UNMARKED, 0, 0, 20, 20, 2), SEG_OK);
    assert_false(seg_session_can_redo(s));
    assert_int_equal(seg_session_commit(s), SEG_OK);
    uint64_t before = fnv(seg_session_labels(s), npx);
    /* (the photo is all foreground here) */
    assert_int_equal(seg_session_paint_line(s, GB_BACKGROUND, 100, 100, 200, 100, 4), SEG_OK);
    assert_int_equal(seg_session_undo(s), 1);
    assert_int_equal(fnv(seg_session_labels(s), npx), before);
    assert_int_equal(seg_session_redo(s), 1);
    assert_int_equal(seg_session_redo(s), 0);
    free(after);
    seg_session_close(s);
}

/* The rule of a stroke, pixel by pixel: painted when its centre lies within
 * the radius of a segment (the page's preview applies the same test). */
static void reference_paint(uint8_t *labels, int32_t w, int32_t h, uint8_t label, const double *xy, int n, double radius)
{
    double r = radius < 0.5 ? 0.5 : radius;
    for (int k = 0; k < (n > 1 ? n - 1 : 1); k++) {
        double x0 = xy[2 * k], y0 = xy[2 * k + 1], x1 = n > 1 ? xy[2 * k + 2] : x0, y1 = n > 1 ? xy[2 * k + 3] : y0;
        double dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
        for (int32_t y = 0; y < h; y++)
            for (int32_t x = 0; x < w; x++) {
                double px = x + 0.5, py = y + 0.5;
                double t = len2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / len2 : 0;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
                double ex = x0 + t * dx - px, ey = y0 + t * dy - py;
                if (ex * ex + ey * ey <= r * r)
                    labels[(int64_t)y * w + x] = label;
            }
    }
}

/* Strokes painted span by span give exactly the pixels of the per-pixel
 * rule, for any radius, direction and clipping. */
static void test_stroke_spans_match_pixel_rule(void **state)
{
    (void)state;
    int32_t w = 97, h = 61;
    uint8_t *rgb = calloc((size_t)w * h * 3, 1), *want = calloc((size_t)w * h, 1);
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(rgb, w, h, NULL, NULL, &s, &err), SEG_OK);
    unsigned seed = 12345;
#define RND() (seed = seed * 1103515245u + 12345u, (seed >> 8) & 0xffff)
    static const double radii[] = {0, 0.5, 0.7, 1, 1.5, 2.25, 3, 7.5, 20, 45, 200};
    for (int trial = 0; trial < 400; trial++) {
        int n = 1 + (int)(RND() % 6);
        double xy[12];
        for (int i = 0; i < n; i++) {
            int grid = RND() % 3; /* integer, half-integer and arbitrary coordinates */
            double x = (double)(RND() % 140) - 20, y = (double)(RND() % 100) - 20;
            if (grid == 1)
                x += 0.5, y += 0.5;
            else if (grid == 2)
                x += (RND() % 1000) / 1000.0, y += (RND() % 1000) / 1000.0;
            xy[2 * i] = x, xy[2 * i + 1] = y;
        }
        if (trial % 7 == 0 && n > 1)
            xy[3] = xy[1]; /* horizontal */
        if (trial % 11 == 0 && n > 1)
            xy[2] = xy[0]; /* vertical */
        double r = radii[RND() % (sizeof radii / sizeof radii[0])];
        uint8_t label = (uint8_t)(RND() % 3);
        reference_paint(want, w, h, label, xy, n, r);
        assert_int_equal(seg_session_paint_stroke(s, label, xy, n, r), SEG_OK);
        if (memcmp(want, seg_session_labels(s), (size_t)w * h) != 0)
            fail_msg("trial %d: %d points radius %g: spans differ from the pixel rule", trial, n, r);
    }
#undef RND
    double bad[2] = {NAN, 1};
    assert_int_equal(seg_session_paint_stroke(s, 1, bad, 1, 1), SEG_ERR_INVALID);
    assert_int_equal(seg_session_paint_stroke(s, 1, bad, 0, 1), SEG_ERR_INVALID);
    bad[0] = 1;
    assert_int_equal(seg_session_paint_stroke(s, 1, bad, 1, SEG_STROKE_MAX_RADIUS + 1), SEG_ERR_INVALID);
    seg_session_close(s);
    free(rgb);
    free(want);
}

/* One stroke of 4,096 points with radius 1,000 over the photo: each pixel is
 * painted once, not once a segment (segment by segment it takes seconds). */
static void test_huge_stroke_is_cheap(void **state)
{
    (void)state;
    seg_session *s = NULL;
    seg_error err = {0};
    assert_int_equal(seg_session_open(photo.data, photo.width, photo.height, NULL, NULL, &s, &err), SEG_OK);
    double *xy = malloc(sizeof(double) * 2 * 4096);
    for (int k = 0; k < 4096; k++)
        xy[2 * k] = (k * 37) % photo.width, xy[2 * k + 1] = (k * 53) % photo.height;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(seg_session_paint_stroke(s, GB_FOREGROUND, xy, 4096, 1000), SEG_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("4096-point stroke, radius 1000: %.3f s\n", sec);
    for (int64_t i = 0; i < (int64_t)photo.width * photo.height; i++)
        assert_int_equal(seg_session_labels(s)[i], GB_FOREGROUND);
    assert_true(sec < 5.0); /* far above the usual time: room for ASan and a loaded machine */
    free(xy);
    seg_session_close(s);
}

/* A limit lowered after undoing: the redo branch loses its far end first,
 * so that each redo still gives the step after the labels as they are
 * (dropping the branch's first step made the next redo skip it). */
static void test_limit_lowered_after_undo(void **state)
{
    (void)state;
    seg_session *s = NULL;
    seg_error err = {0};
    int32_t w = photo.width, h = photo.height;
    size_t npx = (size_t)w * h;
    assert_int_equal(seg_session_open(photo.data, w, h, seed_labels, NULL, &s, &err), SEG_OK);
    uint64_t a = fnv(seg_session_labels(s), npx);
    assert_int_equal(seg_session_paint_line(s, GB_FOREGROUND, 100, 100, 140, 100, 6), SEG_OK);
    assert_int_equal(seg_session_commit(s), SEG_OK);
    uint64_t b = fnv(seg_session_labels(s), npx);
    assert_int_equal(seg_session_paint_line(s, GB_BACKGROUND, 100, 100, 140, 100, 6), SEG_OK);
    assert_int_equal(seg_session_commit(s), SEG_OK);
    size_t two = seg_session_history_bytes(s);
    assert_int_equal(seg_session_undo(s), 1);
    assert_int_equal(seg_session_undo(s), 1);
    assert_int_equal(fnv(seg_session_labels(s), npx), a);
    seg_session_set_history_limit(s, two - 1); /* room for one step */
    assert_true(seg_session_history_bytes(s) > 0 && seg_session_history_bytes(s) < two);
    assert_int_equal(seg_session_redo(s), 1);
    assert_int_equal(fnv(seg_session_labels(s), npx), b);
    assert_int_equal(seg_session_redo(s), 0); /* the far end was the step let go */
    assert_int_equal(seg_session_undo(s), 1);
    assert_int_equal(fnv(seg_session_labels(s), npx), a);
    seg_session_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_history_bounded_in_bytes),
        cmocka_unit_test(test_limit_lowered_after_undo),
        cmocka_unit_test(test_stroke_spans_match_pixel_rule),
        cmocka_unit_test(test_huge_stroke_is_cheap),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
