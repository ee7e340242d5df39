/* Helpers shared by the segmentation library's translation units. */
#ifndef FLOWCUT_SEG_INTERNAL_H
#define FLOWCUT_SEG_INTERNAL_H

#include "flowcut/segment.h"

#include <math.h>

/* Fills err (when not NULL) and returns code. */
int seg_fail(seg_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Seconds on the monotonic clock: the library's stage timings. */
double seg_now(void);

/* bytes, at most a quarter of the machine's memory: what a cache of
 * released arrays (mf_alloc_cache_limit) may keep. */
size_t seg_memory_share(size_t bytes);

/* Row y of a click's disc, the pixels (x, y) with (x - cx)^2 + (y - cy)^2
 * <= r^2, clipped to columns [0, width): [*xa, *xb], or 0 when the row has
 * none. The one definition for seg_prompts_paint and the session's clicks,
 * which must paint the same pixels (a session equals `flowcut segment`),
 * and a row's span costs O(1) however large the radius. */
static inline int seg_disc_row(int32_t cx, int32_t cy, int32_t r, int32_t y, int32_t width, int32_t *xa,
                               int32_t *xb)
{
    const int64_t dy = (int64_t)y - cy, rest = (int64_t)r * r - dy * dy;
    if (rest < 0)
        return 0;
    int64_t h = (int64_t)sqrt((double)rest); /* the largest h with h^2 <= rest */
    while (h * h > rest)
        h--;
    while ((h + 1) * (h + 1) <= rest)
        h++;
    const int64_t a = cx - h < 0 ? 0 : cx - h, b = cx + h >= width ? width - 1 : cx + h;
    *xa = (int32_t)a;
    *xb = (int32_t)b;
    return a <= b;
}

/* The name --scribble-colors gives rgb ("red"), or NULL: for messages. */
const char *seg_colour_name(const uint8_t rgb[3]);

/* seg_prompts_paint with the answer the last click corrects (NULL: none):
 * that click's disc, unless given, is seg_click_radius()'s; *last_radius
 * (may be NULL) gets the last click's radius (0: no click). */
int seg_prompts_paint_previous(const seg_prompts *p, int32_t width, int32_t height, const uint8_t *previous,
                               uint8_t *labels, int32_t *last_radius, seg_error *err);

/* The labels the colour models are first fitted on, for every front end
 * alike (segment, batch, the session): without background seeds, the
 * unmarked pixels of the photo's border band (seg_border_band wide) along
 * the sides no foreground seed touches (gb_frame_sides) are background
 * samples (soft: not hard seeds, so an object touching the frame can
 * still keep it); with a box (x, y, w, h; NULL: none), the
 * unmarked pixels of the box's inside less SEG_BOX_SAMPLE_MARGIN of its
 * width and height on each side are foreground samples beside the
 * foreground seeds (the box's outside is background already) and
 * *box_route is set: the cut takes the box's route (GrabCut's: re-fitted
 * on its cuts, the seeds hard constraints).
 * *out is NULL when the seeds have both regions and there is no box (fit
 * on the labels themselves), else malloc'ed (the caller frees it). -1 when out of
 * memory, 1 when there is no background seed and foreground seeds touch
 * every side or cover the band (nothing can stand in). */
int seg_model_labels(const uint8_t *labels, int32_t width, int32_t height, const int32_t *box, uint8_t **out,
                     int *box_route);
int32_t seg_border_band(int32_t width, int32_t height);
/* The part of box (x, y, w, h) on a width x height photo, in out; 0 when
 * none of it is. A box past the photo's edges boxes what it covers: the
 * same mask however far it overshoots. */
int seg_box_clip(const int32_t *box, int32_t width, int32_t height, int32_t out[4]);
#define SEG_NO_BACKGROUND_SAMPLE \
    "no background seed, and foreground seeds touch every side of the photo: mark some background"

#endif
