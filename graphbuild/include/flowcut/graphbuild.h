/* flowcut graphbuild library: photo + seeds -> grid flow network.
 *
 * Energy (Boykov-Jolly): E(L) = sum_p D_p(L_p) + sum_{p~q} w_pq [L_p != L_q]
 *  - n-links w_pq = lambda * exp(-beta ||I_p - I_q||^2) / dist(p, q), with
 *    beta = 1 / (2 <||I_p - I_q||^2>) estimated over the image (GrabCut);
 *  - t-links D_p = -log((1 - e) P(I_p | model) + e / 256^3) from colour
 *    models fitted on the seed pixels (Gaussian mixtures or 3-D
 *    histograms), blended with a uniform density of weight e = uniform_mix;
 *  - hard seeds get K = 1 + max_p sum_q w_pq toward their terminal;
 *  - priors from geodesic distances to the seeds (gb_params geodesic,
 *    border and star: a bounded data term, and K on one direction of an
 *    n-link), which keep sparse strokes from shrinking or leaking.
 * Energies are quantised to int32 as round(GB_SCALE * value); data terms are
 * clipped at GB_MAX_DATA_COST, so every capacity stays below
 * GB_SCALE * (8 * lambda + GB_MAX_DATA_COST) + 1 whatever the image size
 * (star-convexity arcs: GB_STAR_CAP), and the flow value is an int64.
 *
 * Vertex numbering: pixel (x, y) is vertex y * width + x; the source is
 * vertex width * height (foreground side), the sink width * height + 1.
 * Each pixel's two terminal capacities are pre-cancelled: min(cs, ct) goes
 * to mf_graph.flow_offset and at most one terminal arc remains. */
#ifndef FLOWCUT_GRAPHBUILD_H
#define FLOWCUT_GRAPHBUILD_H

#include "flowcut/maxflow.h"
#include "flowcut/maxflow_grid.h" /* gb_build_grid writes the compact grid form */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the interface: exported from the shared
 * library, which is built with all else hidden. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define GB_SCALE 64.0
#define GB_MAX_DATA_COST 40.0
/* Capacity of a star-convexity arc: breaking one would have to free a
 * sub-tree of over 2^26 / (GB_SCALE * GB_MAX_DATA_COST) = 26 000 pixels
 * whose data terms all sit at the clip; eight of them into one pixel
 * still sum below 2^31. */
#define GB_STAR_CAP (1 << 26)

/* Status codes: graphbuild's range, -100.. (maxflow.h says why). */
enum {
    GB_OK = 0,
    GB_ERR_NOMEM = -101,
    GB_ERR_INVALID = -102,
    GB_ERR_NO_FOREGROUND = -103,
    GB_ERR_NO_BACKGROUND = -104,
    GB_ERR_TOO_LARGE = -105
};

const char *gb_strerror(int code);

/* Seed label values of a seed map: */
enum { GB_UNMARKED = 0, GB_FOREGROUND = 1, GB_BACKGROUND = 2 };

/* The sides of the photo's frame on which a foreground seed lies. Such a
 * side is the object's, not background: a close-up's object runs into the
 * frame there, and a stroke painted to the frame says so. The border
 * stands in for background seeds (gb_params.border, and the colour
 * samples where no background is seeded) on the other sides only. */
enum { GB_SIDE_TOP = 1, GB_SIDE_BOTTOM = 2, GB_SIDE_LEFT = 4, GB_SIDE_RIGHT = 8 };
unsigned gb_frame_sides(const uint8_t *seeds, int32_t width, int32_t height);
/* Whether pixel (x, y) lies within `band` pixels of one of the sides. */
int gb_on_sides(int32_t x, int32_t y, int32_t width, int32_t height, int32_t band, unsigned sides);

typedef enum { GB_MODEL_GMM = 0, GB_MODEL_HIST = 1 } gb_model_kind;

typedef struct gb_params {
    double lambda;        /* n-link weight */
    int connectivity;     /* 4 or 8 */
    gb_model_kind model;
    int gmm_components;   /* per region */
    double uniform_mix;   /* weight of a uniform colour density blended into
                           * both models, in [0, 1): bounds the cost of colours
                           * the seeds missed (default 0.01) */
    int threads;          /* 0: all cores */
    double geodesic;      /* weight (nats) of the geodesic distance prior
                           * (default 14; 0: off): with distances d_f, d_b
                           * to the foreground and background seeds and
                           * r = d_f / (d_f + d_b), labelling a pixel
                           * foreground costs geodesic * r, background
                           * geodesic * (1 - r) */
    double border;        /* the photo's border counts as a background
                           * stroke at this geodesic distance (in colour
                           * edges crossed; default 0.2), except on the
                           * sides a foreground seed touches
                           * (gb_frame_sides); negative: not */
    int star;             /* 1: geodesic star convexity around the
                           * foreground seeds (a foreground pixel's parent
                           * on its shortest path is foreground: capacity
                           * GB_STAR_CAP on that arc); 0: off (default) */
    int in_lists;         /* 1 (default): the whole reverse CSR; 0: in_start
                           * only, in_arc and in_tail left unset, for a
                           * solver that derives them itself (a union launch,
                           * mf_gpu_solve_many); mf_graph_finish() completes
                           * the graph for any other use */
    int quick_fit;        /* 1: the mixtures' k-means and EM take half their
                           * passes (5 and 3 instead of 10 and 6): models for
                           * a first guess that a later fit refines, as the
                           * box's half-size cuts are; 0: all (default) */
    /* The previous answer as a prior: a click corrects an answer near where
     * it lands. With `previous` set (width * height bytes, nonzero where
     * that answer is foreground), an unseeded pixel pays
     * keep * min(1, d^2 / R^2) nats for leaving its label there, d its
     * distance to the correcting click (keep_x, keep_y) and R keep_radius
     * times the photo's shorter side: a pixel beyond R keeps its label
     * unless the colours and edges argue by more than `keep`. */
    double keep;          /* weight (nats; default 4; 0: off) */
    double keep_radius;   /* R as a share of the shorter side (default 0.1) */
    const uint8_t *previous; /* the answer the click corrects; NULL (default): none */
    int32_t keep_x, keep_y;  /* the click, inside the photo */
} gb_params;

void gb_params_default(gb_params *p);

/* Colour models of both regions, fitted once and reusable (iterations). */
typedef struct gb_models gb_models;

/* Fits foreground and background models on the pixels whose label is
 * GB_FOREGROUND or GB_BACKGROUND and, with the geodesic prior on
 * (p->geodesic > 0) and both regions seeded, on the unmarked pixels within
 * a quarter of a colour edge of one region's seeds and nearer to them than to the
 * other's (the prior's distances for these labels). rgb: width*height*3
 * bytes. Costs are tabulated for the colours of this photo only (quantised
 * to 6 bits per channel); other colours get the same cost in both models,
 * so use the models with the photo they were fitted on. */
int gb_models_fit(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels,
                  const gb_params *p, gb_models **out);
/* The same with the prior's distances for these labels given (those of
 * gb_prior_distances after gb_prior_update with the same labels), so that
 * the fit does not compute them again: the same models, bit for bit. */
int gb_models_fit_near(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels,
                       const float *dist_fg, const float *dist_bg, const gb_params *p, gb_models **out);
void gb_models_free(gb_models *m);

/* Builds the network for the photo, the fitted models and the hard seeds
 * (seeds may be NULL: no hard constraints). When cancelled is not NULL it
 * receives, per pixel, the capacity pre-cancelled from both terminal arcs. */
int gb_build(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
             const gb_models *models, const gb_params *p, mf_graph *g, int32_t *cancelled);

/* The same network in compact form (mf_grid: the n-link weights and
 * terminal capacities, no CSR) for a device that expands it itself
 * (mf_gpu_solve_many_grids): a fifth of the bytes to write and upload.
 * Not with p->star (GB_ERR_INVALID). Free with mf_grid_free. */
int gb_build_grid(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                  const gb_models *models, const gb_params *p, mf_grid *grid);

/* The CSR network a grid form stands for: the arrays gb_build makes (its
 * in_lists as p->in_lists), on up to threads threads. */
int gb_grid_to_graph(const mf_grid *grid, int in_lists, int threads, mf_graph *g);

/* The same network for warm re-solves (mf_dynamic): every pixel has both
 * terminal arcs, of capacity 0 where pre-cancelling leaves nothing, so
 * that a new stroke or new models only change capacities. Pixel p's sink
 * arc is its last out-arc, out_start[p + 1] - 1; its source arc is
 * out_start[source] + p. seed_cap receives the hard seeds' capacity K.
 * The canonical cut equals gb_build's (zero arcs carry nothing).
 * dist_fg and dist_bg: NULL, or the prior's distances for these seeds
 * (gb_prior_distances after gb_prior_update with the same seeds and
 * params; the geodesic prior on, no star convexity), which the build then
 * reads instead of scanning again: the same network, bit for bit. */
int gb_build_dynamic(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                     const float *dist_fg, const float *dist_bg, const gb_models *models, const gb_params *p,
                     mf_graph *g, int32_t *cancelled, int32_t *seed_cap);

/* The two terminal capacities of one pixel (before pre-cancelling), as the
 * builders compute them without the geodesic prior: cs toward the source,
 * ct toward the sink. */
void gb_pixel_terminals(const uint8_t *rgb, uint8_t seed, const gb_models *models, int32_t seed_cap,
                        int32_t *cs, int32_t *ct);

/* gb_build (grid NULL) or gb_build_grid (g NULL) with the colour models
 * fitted on the way, as gb_models_fit on model_labels (the seeds when
 * NULL) fits them: where those are the seeds, the fit reads the distances
 * the build computes for the prior instead of computing them again.
 * *models receives the models (gb_models_free), also on a later error;
 * *fit_seconds (may be NULL) the fit's share of the time. */
int gb_build_fitting(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                     const uint8_t *model_labels, const gb_params *p, mf_graph *g, int32_t *cancelled, mf_grid *grid,
                     gb_models **models, double *fit_seconds);

/* The photo's side of the geodesic prior, kept between seed edits: every
 * pixel's terminal capacities for new seeds and models, exactly as
 * gb_build (and gb_build_dynamic) sets them before pre-cancelling (data
 * terms, hard seeds at seed_cap, the prior on unseeded pixels; without the
 * prior, p->geodesic 0, the data terms alone). The photo (rgb) must stay
 * alive and unchanged while pr is. Not for star convexity (its arcs are
 * n-links). */
typedef struct gb_prior gb_prior;
int gb_prior_new(const uint8_t *rgb, int32_t width, int32_t height, const gb_params *p, gb_prior **out);
int gb_prior_terminals(gb_prior *pr, const uint8_t *seeds, const gb_models *models, int32_t seed_cap, int32_t *cs,
                       int32_t *ct);
/* The prior's distances brought to new seeds: the first call computes
 * them, later ones update the last call's where they move (bit for bit
 * what a computation from scratch gives, for any edit: seeds added,
 * erased or changed). *changed (may be NULL) receives, for every row y,
 * the columns [changed[2y], changed[2y + 1]) outside which no pixel's seed
 * or distances changed since the last call (every pixel at the first):
 * the pixels whose terminals may have moved. Valid until the next call. */
int gb_prior_update(gb_prior *pr, const uint8_t *seeds, const int32_t **changed);
/* Pixel i's two terminal capacities for the seeds and distances of the
 * last gb_prior_update (or gb_prior_terminals), as gb_prior_terminals
 * sets them. */
void gb_prior_pixel_terminals(const gb_prior *pr, int64_t i, const gb_models *models, int32_t seed_cap, int32_t *cs,
                              int32_t *ct);
/* gb_prior_pixel_terminals for every pixel of the row spans span[2y] <=
 * x < span[2y + 1] (those of gb_prior_update's *changed; NULL: every
 * pixel), into cs[i] and ct[i] (width * height each; the other pixels'
 * entries are left alone), on up to the params' threads when the spans
 * are large. */
void gb_prior_span_terminals(const gb_prior *pr, const int32_t *span, const gb_models *models, int32_t seed_cap,
                             int32_t *cs, int32_t *ct);
/* A new previous answer and correcting click for the terminals to come
 * (gb_params.previous, keep_x, keep_y; previous NULL: none), copied: the
 * next gb_prior_update reports the pixels whose term moved among the
 * changed ones. GB_ERR_INVALID for a click outside the photo. */
int gb_prior_set_previous(gb_prior *pr, const uint8_t *previous, int32_t x, int32_t y);
/* The foreground (bg 0) or background (bg 1) distances of the last
 * gb_prior_update; NULL before it or without the prior. */
const float *gb_prior_distances(const gb_prior *pr, int bg);
void gb_prior_free(gb_prior *pr);

/* 1 when both models give every colour of the photo the same costs. */
int gb_models_equal(const gb_models *a, const gb_models *b);

/* The network as an arc list with each pixel's terminal arcs restored
 * (cancelled[] from gb_build), so that any max-flow solver finds the same
 * value and cut. n-links appear as two opposite arcs. */
int gb_to_arclist(const mf_graph *g, const int32_t *cancelled, mf_arclist *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
