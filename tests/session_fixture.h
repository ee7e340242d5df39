/* The session tests' common ground: the sample photo and its seeds
 * (setup, teardown), whether a CUDA device is there, and the check that a
 * session's cut equals `flowcut segment`'s. Included by test_session.c and
 * test_session_box.c. */
#ifndef FLOWCUT_SESSION_FIXTURE_H
#define FLOWCUT_SESSION_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/images.h"
#include "flowcut/segment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define FIXTURE_UNUSED __attribute__((unused))
#else
#define FIXTURE_UNUSED
#endif

#ifndef FLOWCUT_EXAMPLES_DIR
#define FLOWCUT_EXAMPLES_DIR "examples"
#endif

static img_image photo, seeds;
static uint8_t *seed_labels; /* the example's seeds as labels */

FIXTURE_UNUSED static int setup(void **state)
{
    (void)state;
    img_error ie = {0};
    if (img_load_rgb(FLOWCUT_EXAMPLES_DIR "/coffee.png", 0, &photo, &ie) ||
        img_load_labels(FLOWCUT_EXAMPLES_DIR "/coffee-seeds.png", 0, &seeds, &ie))
        return -1;
    seed_labels = seeds.data; /* values 0, 1, 2 already */
    return 0;
}

FIXTURE_UNUSED static int teardown(void **state)
{
    (void)state;
    img_free(&photo);
    img_free(&seeds);
    return 0;
}

/* Skips the calling test, saying why, where no CUDA device is there. */
FIXTURE_UNUSED static void require_gpu(void)
{
    int count = 0;
    if (!mf_gpu_compiled() || mf_gpu_available(&count) != MF_OK || count <= 0) {
        printf("skipped: no CUDA device\n");
        skip();
    }
}

/* The mask `flowcut segment` gives the session's photo and seeds (and its
 * box while there is no foreground seed): seg_segment, defaults; with
 * previous, the answer the click corrects (`--clicks X,Y --previous`). */
FIXTURE_UNUSED static void expect_segment_full(seg_session *s, const int32_t *box, double lambda,
                                               const uint8_t *previous, const seg_click *click, const char *what)
{
    size_t npx = (size_t)photo.width * photo.height;
    seg_cut_stats st;
    seg_error err = {0};
    if (seg_session_cut(s, &st, &err) != SEG_OK)
        fail_msg("%s: cut failed: %s", what, err.message);
    seg_options o;
    seg_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    if (lambda >= 0)
        o.graph.lambda = lambda;
    seg_prompts *p = seg_prompts_new();
    if (box) {
        assert_int_equal(seg_prompts_set_box(p, box[0], box[1], box[2], box[3], &err), SEG_OK);
        o.prompts = p;
    }
    if (previous) { /* the click painted again over the seeds: the same disc */
        assert_int_equal(seg_prompts_add_click(p, click->x, click->y, click->label, &err), SEG_OK);
        o.prompts = p;
        seg_options_set_previous(&o, previous, photo.width, photo.height);
    }
    uint8_t *want = malloc(npx);
    seg_info info;
    if (seg_segment(photo.data, photo.width, photo.height, seg_session_labels(s), 1, &o, want, &info, &err))
        fail_msg("%s: seg_segment failed: %s", what, err.message);
    if (memcmp(want, seg_session_mask(s), npx) != 0)
        fail_msg("%s: the session's mask differs from flowcut segment's", what);
    if (info.flow != st.flow)
        fail_msg("%s: session flow %lld, segment %lld", what, (long long)st.flow, (long long)info.flow);
    printf("%s: total %.3f model %.3f update %.3f solve %.3f warm %d px %lld fg %lld\n", what, st.total_seconds,
           st.model_seconds, st.update_seconds, st.solve_seconds, st.warm, (long long)st.changed_pixels,
           (long long)st.foreground);
    seg_prompts_free(p);
    free(want);
}

FIXTURE_UNUSED static void expect_segment_lambda(seg_session *s, const int32_t *box, double lambda, const char *what)
{
    expect_segment_full(s, box, lambda, NULL, NULL, what);
}

FIXTURE_UNUSED static void expect_segment(seg_session *s, const int32_t *box, const char *what)
{
    expect_segment_lambda(s, box, -1, what);
}

#endif
