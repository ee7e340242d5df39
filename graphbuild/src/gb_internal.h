/* graphbuild internals: the data-cost lookup tables. */
#ifndef FLOWCUT_GB_INTERNAL_H
#define FLOWCUT_GB_INTERNAL_H

#include "flowcut/graphbuild.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>

/* C11 without extensions does not define these */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_SQRT2
#define M_SQRT2 1.41421356237309504880
#endif

#define GB_LUT_SIDE 64
#define GB_LUT_STEP (256 / GB_LUT_SIDE)
#define GB_LUT_SIZE (GB_LUT_SIDE * GB_LUT_SIDE * GB_LUT_SIDE)

struct gb_models {
    float cost_fg[GB_LUT_SIZE]; /* -log P(colour | foreground), shifted */
    float cost_bg[GB_LUT_SIZE];
};

/* Sets a flag that many threads may set at once, storing only where it is
 * still 0: stores from every thread to the few lines of common values kept
 * those lines moving between cores, which made the build's colour
 * distances on many threads several times slower. */
static inline void gb_mark(_Atomic unsigned char *flag)
{
    if (!atomic_load_explicit(flag, memory_order_relaxed))
        atomic_store_explicit(flag, 1, memory_order_relaxed);
}

/* Squared RGB difference of two pixels: the n-link weights' and the
 * geodesic step costs' distance, an index into the similarity table. */
static inline int32_t gb_colour_dist2(const unsigned char *a, const unsigned char *b)
{
    int32_t d0 = (int32_t)a[0] - b[0], d1 = (int32_t)a[1] - b[1], d2 = (int32_t)a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* The geodesic prior on one unseeded pixel's terminal capacities (cs:
 * the cost of labelling it background, ct: foreground): with
 * r = d_fg / (d_fg + d_bg), 0 at the foreground seeds and 1 at the
 * background ones, labelling it foreground costs geodesic * r more and
 * background geodesic * (1 - r); clipped like the data terms. The one
 * definition for every builder, so that a network re-made pixel by pixel
 * (an interactive session) equals gb_build's bit for bit. */
static inline void gb_add_prior(double geodesic, double df, double db, int32_t *cs, int32_t *ct)
{
    const double cap_max = GB_SCALE * GB_MAX_DATA_COST;
    double r = df + db > 0 && isfinite(df + db) ? df / (df + db) : (isfinite(df) ? 0.0 : isfinite(db) ? 1.0 : 0.5);
    double cost_fg = *ct + GB_SCALE * geodesic * r + 0.5, cost_bg = *cs + GB_SCALE * geodesic * (1.0 - r) + 0.5;
    *cs = (int32_t)(cost_bg < cap_max ? cost_bg : cap_max);
    *ct = (int32_t)(cost_fg < cap_max ? cost_fg : cap_max);
}

/* The previous answer's term (gb_params.keep), its constants worked out
 * once per build: the one definition for every builder, like the prior's. */
typedef struct gb_keep {
    const uint8_t *previous; /* NULL: no term */
    int32_t width;
    double x, y, inv_r2, scale;
} gb_keep;

/* 1 when p's previous answer is usable on a width x height photo (or
 * there is none); the term is then set up in *k (previous NULL: none). */
static inline int gb_keep_init(gb_keep *k, const gb_params *p, int32_t width, int32_t height)
{
    k->previous = NULL;
    if (!p->previous || !(p->keep > 0))
        return 1;
    if (!(p->keep_radius > 0) || !(p->keep <= GB_MAX_DATA_COST) || p->keep_x < 0 || p->keep_x >= width ||
        p->keep_y < 0 || p->keep_y >= height)
        return 0;
    const double r = p->keep_radius * (width < height ? width : height);
    k->previous = p->previous;
    k->width = width;
    k->x = p->keep_x;
    k->y = p->keep_y;
    k->inv_r2 = r > 0.5 ? 1.0 / (r * r) : 4.0;
    k->scale = GB_SCALE * p->keep;
    return 1;
}

/* Pixel i's term: leaving its previous label costs scale * min(1, d^2 / R^2). */
static inline void gb_add_keep(const gb_keep *k, int64_t i, int32_t *cs, int32_t *ct)
{
    const double dx = (double)(i % k->width) - k->x, dy = (double)(i / k->width) - k->y;
    const double f = (dx * dx + dy * dy) * k->inv_r2, cap_max = GB_SCALE * GB_MAX_DATA_COST;
    int32_t *c = k->previous[i] ? cs : ct; /* cs is paid on the background side */
    const double v = *c + k->scale * (f < 1.0 ? f : 1.0) + 0.5;
    *c = (int32_t)(v < cap_max ? v : cap_max);
}

static inline int gb_lut_index(const unsigned char *px)
{
    return ((px[0] / GB_LUT_STEP) * GB_LUT_SIDE + px[1] / GB_LUT_STEP) * GB_LUT_SIDE + px[2] / GB_LUT_STEP;
}

#include <stddef.h>

/* Runs fn on items[0 .. count) (items `size` bytes apart, count <=
 * GB_RUN_MAX): item 0 on the caller, the others on threads of their own;
 * an item whose thread cannot start runs on the caller (threads.c). */
#define GB_RUN_MAX 256
void gb_run_threads(void *(*fn)(void *), void *items, size_t size, int count);

/* Threads a build or a fit may use: p->threads, or every online core when
 * 0 (at least 1). */
struct gb_params;
int gb_threads(const struct gb_params *p);

/* exp(-beta * d2) for every squared colour difference d2 of two RGB
 * pixels, 0 .. GB_DIST2_MAX, filled on up to `threads` threads (release
 * with mf_free_big()); NULL when out of memory (similarity.c). The n-link
 * weights and the geodesic step costs both read it: a photo has far fewer distinct
 * differences than neighbour pairs, and exp per pair is a visible part of
 * a segment run. */
#define GB_DIST2_MAX (3 * 255 * 255)
double *gb_similarity_table(double beta, int threads);
/* beta as gb_build estimates it (1 / (2 mean d2) over the forward pairs),
 * in integers, so the same on any split (similarity.c). */
double gb_estimate_beta(const uint8_t *rgb, int32_t w, int32_t h, int connectivity);
/* The same with only the distances marked in present computed (the
 * others 0): what a photo's pairs need. */
double *gb_similarity_table_for(double beta, const _Atomic uint8_t *present, int threads);

/* Geodesic distances from the foreground and background seeds (either
 * output may be NULL; unseeded border pixels start the background
 * distance at `border` unless it is negative) and the foreground
 * shortest-path forest (parent pixel, -1 at seeds and where unreached; may
 * be NULL), on up to `threads` threads (the same result for any number;
 * photos under 1 Mpx run on one; a negative count forces -threads column
 * blocks whatever the size, for tests); see geodesic.c. */
int gb_geodesic(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds, int connectivity,
                double beta, double border, int threads, float *dist_fg, float *dist_bg, int32_t *parent_fg);
/* The same with beta's similarity table given (gb_similarity_table), and
 * when pair_d2 is not NULL the squared colour distance of every pixel's
 * forward pairs (npx * connectivity / 2, in the builder's order E, S, SE,
 * SW; negative where the neighbour is outside) instead of the colours. */
int gb_geodesic_with(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds, int connectivity,
                     const double *similarity, const int32_t *pair_d2, double border, int threads,
                     float *dist_fg, float *dist_bg, int32_t *parent_fg);

/* The raster passes of the geodesic scans (forward, backward, repeated):
 * more than two pairs cost time without improving the masks. */
#define GB_GEO_PASSES 4
/* The photo's border starts the background distance only where the
 * foreground seeds are farther than this (in colour edges crossed, each
 * worth about 1): where the object the user marked runs into the frame
 * without an edge between, the frame there is the object's, not
 * background, so a close-up's object keeps the part that touches it. Half
 * an edge: neutral on the dev sets' strokes and clicks, where few objects
 * touch the frame (docs/benchmarks.md). */
#define GB_BORDER_FG_GAP 0.5
/* How far (in colour edges) from a region's seeds the colour models take
 * their samples with the prior on (gb_models_fit): a quarter of an edge
 * gave the click robot the fewest clicks of none, a quarter, a half, one
 * and two, with the stroke protocols level (docs/benchmarks.md). */
#define GB_SAMPLE_REACH 0.25
/* gb_geodesic_with in two steps, for a caller that keeps the step costs
 * between seed edits (prior.c): the costs, connectivity / 2 planes of
 * width * height (plane k: every pixel's step k, E, S, SE, SW; infinity
 * where the neighbour is outside); then the scans on them, with when
 * stages_fg / stages_bg are not NULL every pass's distances but the last
 * (GB_GEO_PASSES - 1 arrays of width * height each). */
int gb_geodesic_costs(const uint8_t *rgb, int32_t width, int32_t height, int connectivity, const double *similarity,
                      const int32_t *pair_d2, int threads, float *cost);
int gb_geodesic_scan(const float *cost, int32_t width, int32_t height, const uint8_t *seeds, int connectivity,
                     double border, int threads, float *dist_fg, float *dist_bg, int32_t *parent_fg,
                     float *const *stages_fg, float *const *stages_bg);
/* Pass k (< GB_GEO_PASSES; the last: the distances) of a prior's
 * foreground (bg 0) or background (bg 1) distances; NULL without the
 * prior. For tests. */
const float *gb_prior_pass(const gb_prior *pr, int bg, int k);

#endif
