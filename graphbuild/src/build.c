/* Grid network construction straight into CSR: the degree of every pixel
 * is known from the grid, so there is no edge list and no sort. */
#define _POSIX_C_SOURCE 200809L
#include "flowcut/graphbuild.h"
#include "gb_internal.h"
#include "flowcut_nlink.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* forward neighbour offsets: E, S, SE, SW (a pixel stores the arcs to its
 * forward neighbours; each arc carries both directions). The order, the
 * weights and their sums come from flowcut_nlink.h, which the GPU engine
 * compiles too: its grid expansion must equal this network to the bit. */
static const int FDX[4] = FC_NLINK_DX, FDY[4] = FC_NLINK_DY;

/* The build runs in row bands on all cores. Every sum across bands is an
 * integer, so the network is the same whatever the number of threads. */
#define MAX_BANDS GB_RUN_MAX

typedef struct band {
    int32_t y0, y1;
    int64_t dist_sum, pairs;               /* for beta */
    int32_t kmax;                          /* max n-link weight sum */
    int64_t offset, source_arcs, sink_arcs, out_arcs, in_arcs;
    int64_t out_base, in_base, source_base; /* prefix sums, filled between passes */
} band;

typedef struct build {
    const uint8_t *rgb, *seeds;
    const gb_models *models;
    int32_t width, height;
    int nd;
    double beta, wscale;
    double *similarity; /* exp(-beta * d2), gb_similarity_table */
    _Atomic uint8_t *present; /* 1 at the squared colour distances that occur */
    int32_t K;
    int32_t *w;      /* npx * nd: first each pair's squared colour distance
                      * (-1 where the neighbour is outside), then its weight
                      * (0 there) */
    int32_t *term;   /* cs - ct after pre-cancelling */
    int32_t *cancelled;
    int all_terminals; /* both terminal arcs at every pixel, zero or not */
    double geodesic;   /* weight of the geodesic prior, 0: none */
    gb_keep keep;      /* the previous answer's term */
    float *dist_fg, *dist_bg; /* dist_bg only with the prior (star needs dist_fg alone) */
    int32_t *parent_fg; /* star convexity: p on the source side => parent too */
    int32_t *row_sources, *row_sinks; /* per row, for the grid form (gb_build_grid) */
    mf_graph *g;
    band bands[MAX_BANDS];
    int nbands;
} build;

static int valid(const build *b, int32_t x, int32_t y, int d)
{
    int32_t qx = x + FDX[d], qy = y + FDY[d];
    return qx >= 0 && qx < b->width && qy < b->height;
}

/* 1 when (x, y) is the forward neighbour d of a pixel: the arc is stored there. */
static int has_backward(const build *b, int32_t x, int32_t y, int d)
{
    int32_t px = x - FDX[d], py = y - FDY[d];
    return px >= 0 && px < b->width && py >= 0;
}

/* 1 when every forward neighbour of (x, y) exists: away from the bottom
 * row and the side columns (the left one only for the SW step), which the
 * passes test once instead of per direction. */
static inline int all_forward(const build *b, int32_t x, int32_t y)
{
    return x >= (b->nd == 4) && x + 1 < b->width && y + 1 < b->height;
}

/* The same for the backward neighbours (SE, S, SW, E steps ending here). */
static inline int all_backward(const build *b, int32_t x, int32_t y)
{
    return x >= 1 && (b->nd == 2 || x + 1 < b->width) && y >= 1;
}

static int has_source_arc(const build *b, int64_t i) { return b->all_terminals || b->term[i] > 0; }
static int has_sink_arc(const build *b, int64_t i) { return b->all_terminals || b->term[i] < 0; }

/* One pair of pass_beta: its distance, added to the sum and marked. */
static inline int32_t beta_pair(const uint8_t *p, const uint8_t *q, _Atomic uint8_t *present, int64_t *sum)
{
    int32_t d2 = gb_colour_dist2(p, q);
    *sum += d2;
    gb_mark(&present[d2]);
    return d2;
}

/* pass_beta's pixels near the edges: the forward pairs that exist, -1
 * in w for the others; returns the pairs. */
static int beta_edge_pixel(build *b, int32_t x, int32_t y, const int64_t *off, int64_t *sum)
{
    int64_t pi = (int64_t)y * b->width + x;
    const uint8_t *p = b->rgb + 3 * pi;
    int32_t *wd = b->w + pi * b->nd;
    int pairs = 0;
    for (int d = 0; d < b->nd; d++) {
        int32_t d2 = -1;
        if (valid(b, x, y, d)) {
            d2 = beta_pair(p, p + off[d], b->present, sum);
            pairs++;
        }
        wd[d] = d2;
    }
    return pairs;
}

/* Each pair's squared colour distance, once: into w (the weights pass
 * and the geodesic step costs read it), its sum for beta, and which
 * distances occur (only those get a similarity). */
static void pass_beta(build *b, band *bd)
{
    const int nd = b->nd;
    const int32_t width = b->width;
    int64_t off[4];
    for (int d = 0; d < nd; d++)
        off[d] = 3 * ((int64_t)FDY[d] * width + FDX[d]);
    _Atomic uint8_t *present = b->present;
    /* sums in locals: through bd they were a load and a store a pair */
    int64_t sum = 0, pairs = 0;
    for (int32_t y = bd->y0; y < bd->y1; y++) {
        /* the columns [lo, hi) that have every forward neighbour take a
         * loop without tests (unrolled for 8 and 4 neighbours), the
         * others beta_edge_pixel */
        int32_t lo = nd == 4 ? 1 : 0, hi = y + 1 < b->height ? width - 1 : 0;
        hi = hi > lo ? hi : lo;
        for (int32_t x = 0; x < lo && x < width; x++)
            pairs += beta_edge_pixel(b, x, y, off, &sum);
        const uint8_t *p = b->rgb + 3 * ((int64_t)y * width + lo);
        int32_t *wd = b->w + ((int64_t)y * width + lo) * nd;
        if (nd == 4)
            for (int32_t x = lo; x < hi; x++, p += 3, wd += 4) {
                wd[0] = beta_pair(p, p + off[0], present, &sum);
                wd[1] = beta_pair(p, p + off[1], present, &sum);
                wd[2] = beta_pair(p, p + off[2], present, &sum);
                wd[3] = beta_pair(p, p + off[3], present, &sum);
            }
        else
            for (int32_t x = lo; x < hi; x++, p += 3, wd += 2) {
                wd[0] = beta_pair(p, p + off[0], present, &sum);
                wd[1] = beta_pair(p, p + off[1], present, &sum);
            }
        pairs += (int64_t)nd * (hi - lo);
        for (int32_t x = hi; x < width; x++)
            pairs += beta_edge_pixel(b, x, y, off, &sum);
    }
    bd->dist_sum = sum;
    bd->pairs = pairs;
}

static void pass_weights(build *b, band *bd)
{
    const int nd = b->nd;
    int32_t *w = b->w + (int64_t)bd->y0 * b->width * nd, *end = b->w + (int64_t)bd->y1 * b->width * nd;
    for (; w < end; w += nd)
        for (int d = 0; d < nd; d++)
            w[d] = fc_nlink_weight(b->wscale, b->similarity, w[d], d);
}

static void pass_kmax(build *b, band *bd)
{
    int32_t kmax = 0;
    for (int32_t y = bd->y0; y < bd->y1; y++)
        for (int32_t x = 0; x < b->width; x++) {
            int32_t sum = fc_nlink_weight_sum(b->w, b->width, b->nd, x, y);
            kmax = sum > kmax ? sum : kmax;
        }
    bd->kmax = kmax;
}

/* fmin(x, cap) for a cap that is not NaN, NaN x included: inline, where
 * fmin is a library call without -ffast-math */
static inline double cap_at(double x, double cap) { return x < cap ? x : cap; }

static inline void pixel_terminals(const uint8_t *rgb, uint8_t seed, const gb_models *models, int32_t seed_cap,
                                   int32_t *cs, int32_t *ct)
{
    const int32_t cap_max = (int32_t)(GB_SCALE * GB_MAX_DATA_COST);
    if (seed == GB_FOREGROUND) {
        *cs = seed_cap;
        *ct = 0;
    } else if (seed == GB_BACKGROUND) {
        *cs = 0;
        *ct = seed_cap;
    } else {
        int li = gb_lut_index(rgb);
        double dbg = models->cost_bg[li], dfg = models->cost_fg[li];
        *cs = (int32_t)cap_at(GB_SCALE * dbg + 0.5, cap_max); /* cost of labelling p background */
        *ct = (int32_t)cap_at(GB_SCALE * dfg + 0.5, cap_max);
    }
}

void gb_pixel_terminals(const uint8_t *rgb, uint8_t seed, const gb_models *models, int32_t seed_cap,
                        int32_t *cs, int32_t *ct)
{
    pixel_terminals(rgb, seed, models, seed_cap, cs, ct);
}

/* The band's arc counts: its terminal arcs, and the n-links row by row
 * (direction d pairs W - |dx| pixels of a row with the row dy below, where
 * there is one). */
static void band_counts(build *b, band *bd, int64_t source_arcs, int64_t sink_arcs)
{
    bd->source_arcs = source_arcs;
    bd->sink_arcs = sink_arcs;
    bd->out_arcs = sink_arcs;
    bd->in_arcs = source_arcs;
    for (int32_t y = bd->y0; y < bd->y1; y++)
        for (int d = 0; d < b->nd; d++) {
            int64_t pairs = b->width - (FDX[d] ? 1 : 0);
            bd->out_arcs += y + FDY[d] < b->height ? pairs : 0;
            bd->in_arcs += y - FDY[d] >= 0 ? pairs : 0;
        }
}

/* Terminal capacities, pre-cancelled; counts each band's arcs. The
 * build's options are read once, outside the pixel loop. */
static void pass_terminals(build *b, band *bd)
{
    const uint8_t *seeds = b->seeds;
    const int prior = b->dist_bg != NULL, all = b->all_terminals, keep = b->keep.previous != NULL;
    int32_t *term = b->term, *cancelled = b->cancelled;
    int64_t offset = 0, source_arcs = 0, sink_arcs = 0;
    for (int32_t y = bd->y0; y < bd->y1; y++) {
        int32_t src = 0, snk = 0;
        for (int64_t i = (int64_t)y * b->width, end = i + b->width; i < end; i++) {
            int32_t cs, ct;
            uint8_t seed = seeds ? seeds[i] : GB_UNMARKED;
            pixel_terminals(b->rgb + 3 * i, seed, b->models, b->K, &cs, &ct);
            if (prior && seed == GB_UNMARKED)
                gb_add_prior(b->geodesic, b->dist_fg[i], b->dist_bg[i], &cs, &ct);
            if (keep && seed == GB_UNMARKED)
                gb_add_keep(&b->keep, i, &cs, &ct);
            int32_t m = cs < ct ? cs : ct, t = cs - ct;
            offset += m;
            if (cancelled)
                cancelled[i] = m;
            term[i] = t;
            /* has_source_arc and has_sink_arc of the value just stored */
            src += all | (t > 0);
            snk += all | (t < 0);
        }
        if (b->row_sources) {
            b->row_sources[y] = src;
            b->row_sinks[y] = snk;
        }
        source_arcs += src;
        sink_arcs += snk;
    }
    bd->offset = offset;
    band_counts(b, bd, source_arcs, sink_arcs);
}

/* The band's terminal arcs counted from term (gb_grid_to_graph), and per
 * row when the grid form wants them. */
static void pass_counts(build *b, band *bd)
{
    int64_t source_arcs = 0, sink_arcs = 0;
    for (int32_t y = bd->y0; y < bd->y1; y++) {
        int64_t src = 0, snk = 0;
        for (int64_t i = (int64_t)y * b->width, end = i + b->width; i < end; i++) {
            src += has_source_arc(b, i);
            snk += has_sink_arc(b, i);
        }
        if (b->row_sources) {
            b->row_sources[y] = (int32_t)src;
            b->row_sinks[y] = (int32_t)snk;
        }
        source_arcs += src;
        sink_arcs += snk;
    }
    band_counts(b, bd, source_arcs, sink_arcs);
}

/* Index of the arc from (x, y) toward forward direction d. A pixel away
 * from the bottom row and the side columns stores all its forward arcs,
 * so the arc is its d-th (the common case, without the count). */
static int32_t arc_of(const build *b, int32_t x, int32_t y, int d)
{
    int32_t a = b->g->out_start[(int64_t)y * b->width + x];
    if (all_forward(b, x, y))
        return a + d;
    for (int k = 0; k < d; k++)
        a += valid(b, x, y, k);
    return a;
}

/* Forward CSR of the band's pixels, then their part of the source's arcs. */
static void pass_out_arcs(build *b, band *bd)
{
    mf_graph *g = b->g;
    const int32_t snk = g->sink;
    int32_t a = (int32_t)bd->out_base, sa = (int32_t)bd->source_base;
    for (int32_t y = bd->y0; y < bd->y1; y++)
        for (int32_t x = 0; x < b->width; x++) {
            int64_t pi = (int64_t)y * b->width + x;
            int inside = all_forward(b, x, y);
            g->out_start[pi] = a;
            for (int d = 0; d < b->nd; d++)
                if (inside || valid(b, x, y, d)) {
                    int32_t w = b->w[pi * b->nd + d];
                    int64_t qi = pi + (int64_t)FDY[d] * b->width + FDX[d];
                    g->arc_head[a] = (int32_t)qi;
                    g->arc_cap[a] = w;
                    g->arc_rcap[a] = w;
                    if (b->parent_fg) { /* star convexity: the arc child -> parent */
                        if (b->parent_fg[pi] == qi)
                            g->arc_cap[a] = GB_STAR_CAP;
                        if (b->parent_fg[qi] == pi)
                            g->arc_rcap[a] = GB_STAR_CAP;
                    }
                    a++;
                }
            if (has_sink_arc(b, pi)) {
                g->arc_head[a] = snk;
                g->arc_cap[a] = b->term[pi] < 0 ? -b->term[pi] : 0;
                g->arc_rcap[a] = 0;
                a++;
            }
            if (has_source_arc(b, pi)) {
                g->arc_head[sa] = (int32_t)pi;
                g->arc_cap[sa] = b->term[pi] > 0 ? b->term[pi] : 0;
                g->arc_rcap[sa] = 0;
                sa++;
            }
        }
}

/* Reverse CSR, tails ascending as mf_graph_finish orders them: for pixel q
 * the backward neighbours SE, S, SW, E (by index), then the source; the
 * sink's in-arcs come from the band's sink arcs. */
static void pass_in_arcs(build *b, band *bd)
{
    static const int order8[4] = {2, 1, 3, 0}, order4[2] = {1, 0};
    const int *order = b->nd == 4 ? order8 : order4;
    mf_graph *g = b->g;
    const int32_t src = g->source;
    int32_t i = (int32_t)bd->in_base, sa = (int32_t)bd->source_base;
    for (int32_t y = bd->y0; y < bd->y1; y++)
        for (int32_t x = 0; x < b->width; x++) {
            int64_t qi = (int64_t)y * b->width + x;
            int inside = all_backward(b, x, y);
            g->in_start[qi] = i;
            for (int k = 0; k < b->nd; k++) {
                int d = order[k];
                int32_t px = x - FDX[d], py = y - FDY[d];
                if (inside || has_backward(b, x, y, d)) {
                    g->in_arc[i] = arc_of(b, px, py, d);
                    g->in_tail[i] = (int32_t)((int64_t)py * b->width + px);
                    i++;
                }
            }
            if (has_source_arc(b, qi)) {
                g->in_arc[i] = sa++;
                g->in_tail[i] = src;
                i++;
            }
        }
}

/* in_start alone, as pass_in_arcs sets it: a pixel's backward neighbours
 * and its source arc. */
static void pass_in_starts(build *b, band *bd)
{
    mf_graph *g = b->g;
    int32_t i = (int32_t)bd->in_base;
    for (int32_t y = bd->y0; y < bd->y1; y++)
        for (int32_t x = 0; x < b->width; x++) {
            int64_t qi = (int64_t)y * b->width + x;
            int inside = all_backward(b, x, y);
            g->in_start[qi] = i;
            for (int d = 0; d < b->nd; d++)
                i += inside || has_backward(b, x, y, d);
            i += has_source_arc(b, qi);
        }
}

/* The sink's in-arcs: every sink arc, by tail. */
static void pass_sink_in(build *b, band *bd)
{
    mf_graph *g = b->g;
    int32_t i = g->in_start[g->sink] + (int32_t)bd->in_base;
    for (int32_t y = bd->y0; y < bd->y1; y++)
        for (int32_t x = 0; x < b->width; x++) {
            int64_t pi = (int64_t)y * b->width + x;
            if (has_sink_arc(b, pi)) {
                g->in_arc[i] = g->out_start[pi + 1] - 1; /* the sink arc is a pixel's last */
                g->in_tail[i] = (int32_t)pi;
                i++;
            }
        }
}

typedef void (*pass_fn)(build *, band *);

typedef struct worker {
    build *b;
    pass_fn fn;
    int first, step;
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    for (int k = w->first; k < w->b->nbands; k += w->step)
        w->fn(w->b, &w->b->bands[k]);
    return NULL;
}

/* Runs fn on every band with up to `threads` threads (the caller is one;
 * it also takes the share of any thread that could not start). */
static void run_pass(build *b, pass_fn fn, int threads)
{
    worker ws[MAX_BANDS];
    if (threads > b->nbands)
        threads = b->nbands;
    for (int t = 0; t < threads; t++)
        ws[t] = (worker){b, fn, t, threads};
    gb_run_threads(run_worker, ws, sizeof ws[0], threads);
}

static int build_network(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                         const gb_models *models, const gb_params *p, mf_graph *g, int32_t *cancelled,
                         int all_terminals, int32_t *seed_cap, mf_grid *grid, const uint8_t *model_labels,
                         gb_models **fitted, double *fit_seconds, const float *given_fg, const float *given_bg);
static int finish_csr(build *b, mf_graph *g, int in_lists, int threads);
static void make_bands(build *b, int32_t height);
static void set_seed_cap(build *b, int threads);

int gb_build(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
             const gb_models *models, const gb_params *p, mf_graph *g, int32_t *cancelled)
{
    return build_network(rgb, width, height, seeds, models, p, g, cancelled, 0, NULL, NULL, NULL, NULL, NULL, NULL,
                         NULL);
}

int gb_build_dynamic(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                     const float *dist_fg, const float *dist_bg, const gb_models *models, const gb_params *p,
                     mf_graph *g, int32_t *cancelled, int32_t *seed_cap)
{
    return build_network(rgb, width, height, seeds, models, p, g, cancelled, 1, seed_cap, NULL, NULL, NULL, NULL,
                         dist_fg, dist_bg);
}

int gb_build_grid(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                  const gb_models *models, const gb_params *p, mf_grid *grid)
{
    memset(grid, 0, sizeof *grid);
    if (p && p->star)
        return GB_ERR_INVALID; /* star arcs differ from their pair's weight */
    return build_network(rgb, width, height, seeds, models, p, NULL, NULL, 0, NULL, grid, NULL, NULL, NULL, NULL, NULL);
}

int gb_build_fitting(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                     const uint8_t *model_labels, const gb_params *p, mf_graph *g, int32_t *cancelled, mf_grid *grid,
                     gb_models **models, double *fit_seconds)
{
    if (models)
        *models = NULL;
    if (grid)
        memset(grid, 0, sizeof *grid);
    if (!models || !seeds || (!g) == (!grid) || (grid && p && p->star))
        return GB_ERR_INVALID;
    return build_network(rgb, width, height, seeds, NULL, p, g, cancelled, 0, NULL, grid,
                         model_labels ? model_labels : seeds, models, fit_seconds, NULL, NULL);
}

/* The seeds' capacity K: one more than the largest sum of the weights of
 * one pixel's n-links, so that no cut separates a seed from its terminal. */
static void set_seed_cap(build *b, int threads)
{
    run_pass(b, pass_kmax, threads);
    int32_t kmax = 0;
    for (int k = 0; k < b->nbands; k++)
        kmax = b->bands[k].kmax > kmax ? b->bands[k].kmax : kmax;
    b->K = kmax + 1;
}

static int build_network(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                         const gb_models *models, const gb_params *p, mf_graph *g, int32_t *cancelled,
                         int all_terminals, int32_t *seed_cap, mf_grid *grid, const uint8_t *model_labels,
                         gb_models **fitted, double *fit_seconds, const float *given_fg, const float *given_bg)
{
    if (g)
        memset(g, 0, sizeof *g);
    if (!rgb || (!models && !fitted) || !p || width < 1 || height < 1 ||
        (p->connectivity != 4 && p->connectivity != 8) || !(p->lambda >= 0) || !(p->geodesic >= 0) ||
        ((given_fg || given_bg) && (!given_fg || !given_bg || !seeds || p->star || !(p->geodesic > 0))))
        return GB_ERR_INVALID;
    const int nd = p->connectivity == 4 ? 2 : 4;
    const int64_t npx = (int64_t)width * height;
    if (npx + 2 > INT32_MAX / 2 || npx * (nd + 2) > (INT32_MAX >> 1))
        return GB_ERR_TOO_LARGE;
    build *b = calloc(1, sizeof *b);
    if (!b)
        return GB_ERR_NOMEM;
    int rc = GB_OK;
    b->rgb = rgb;
    b->seeds = seeds;
    b->models = models;
    b->width = width;
    b->height = height;
    b->nd = nd;
    b->cancelled = cancelled;
    b->all_terminals = all_terminals;
    if (!gb_keep_init(&b->keep, p, width, height)) {
        free(b);
        return GB_ERR_INVALID;
    }
    b->g = g;
    b->w = mf_alloc_big(sizeof(int32_t) * (size_t)npx * (size_t)nd);
    b->term = mf_alloc_big(sizeof(int32_t) * (size_t)npx);
    b->present = mf_calloc_big(GB_DIST2_MAX + 1, 1);
    if (grid) {
        b->row_sources = mf_alloc_big(sizeof(int32_t) * (size_t)height);
        b->row_sinks = mf_alloc_big(sizeof(int32_t) * (size_t)height);
    }
    if (!b->w || !b->term || !b->present || (grid && (!b->row_sources || !b->row_sinks))) {
        rc = GB_ERR_NOMEM;
        goto done;
    }
    int threads = gb_threads(p);
    make_bands(b, height);
    /* beta from the mean squared colour difference of neighbours */
    run_pass(b, pass_beta, threads);
    int64_t sum = 0, pairs = 0;
    for (int k = 0; k < b->nbands; k++) {
        sum += b->bands[k].dist_sum;
        pairs += b->bands[k].pairs;
    }
    b->beta = pairs && sum > 0 ? 1.0 / (2.0 * (double)sum / (double)pairs) : 0.0;
    b->wscale = GB_SCALE * p->lambda;
    b->similarity = gb_similarity_table_for(b->beta, b->present, threads);
    if (!b->similarity) {
        rc = GB_ERR_NOMEM;
        goto done;
    }
    /* the geodesic step costs read the pairs' distances, before the
     * weights pass turns them into weights */
    if (seeds && given_fg) { /* the caller's distances for these seeds */
        b->geodesic = p->geodesic;
        b->dist_fg = (float *)given_fg;
        b->dist_bg = (float *)given_bg;
    } else if (seeds && (p->geodesic > 0 || p->star)) {
        b->geodesic = p->geodesic;
        b->dist_fg = mf_alloc_big(sizeof(float) * (size_t)npx);
        b->dist_bg = p->geodesic > 0 ? mf_alloc_big(sizeof(float) * (size_t)npx) : NULL;
        b->parent_fg = p->star ? mf_alloc_big(sizeof(int32_t) * (size_t)npx) : NULL;
        if (!b->dist_fg || (p->geodesic > 0 && !b->dist_bg) || (p->star && !b->parent_fg)) {
            rc = GB_ERR_NOMEM;
            goto done;
        }
        rc = gb_geodesic_with(rgb, width, height, seeds, p->connectivity, b->similarity, b->w, p->border,
                              threads, b->dist_fg, b->dist_bg, b->parent_fg);
        if (rc)
            goto done;
    }
    if (fitted) {
        /* the models from the prior's distances just computed where they
         * are the labels' own; other labels need their own (gb_models_fit) */
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        rc = model_labels == seeds && b->dist_bg
                 ? gb_models_fit_near(rgb, width, height, model_labels, b->dist_fg, b->dist_bg, p, fitted)
                 : gb_models_fit(rgb, width, height, model_labels, p, fitted);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (fit_seconds)
            *fit_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (rc)
            goto done;
        b->models = *fitted;
    }
    if (grid) {
        /* the weights and the seeds' capacity are left to the solver: w
         * keeps the distances, and seeds are marked (mf_grid) */
        b->K = MF_GRID_HARD;
    } else {
        run_pass(b, pass_weights, threads);
        set_seed_cap(b, threads);
    }
    if (seed_cap)
        *seed_cap = b->K;
    run_pass(b, pass_terminals, threads);
    int64_t offset = 0;
    for (int k = 0; k < b->nbands; k++)
        offset += b->bands[k].offset;
    if (grid) { /* the arrays go to the grid form; the device makes the CSR */
        int32_t sim_size = GB_DIST2_MAX + 1; /* up to the largest distance that occurs */
        while (sim_size > 1 && !atomic_load_explicit(&b->present[sim_size - 1], memory_order_relaxed))
            sim_size--;
        *grid = (mf_grid){.width = width, .height = height, .nd = nd, .all_terminals = all_terminals,
                          .w = b->w, .term = b->term, .row_sources = b->row_sources, .row_sinks = b->row_sinks,
                          .flow_offset = offset, .table = b->similarity, .table_size = sim_size, .table_scale = b->wscale};
        b->w = b->term = b->row_sources = b->row_sinks = NULL;
        b->similarity = NULL;
        goto done;
    }
    g->flow_offset = offset;
    rc = finish_csr(b, g, p->in_lists, threads);
done:
    if (rc && g)
        mf_graph_free(g);
    mf_free_big(b->w);
    mf_free_big(b->term);
    mf_free_big(b->row_sources);
    mf_free_big(b->row_sinks);
    mf_free_big(b->similarity);
    mf_free_big((void *)b->present);
    if (!given_fg) { /* the caller's distances stay the caller's */
        mf_free_big(b->dist_fg);
        mf_free_big(b->dist_bg);
    }
    mf_free_big(b->parent_fg);
    free(b);
    return rc;
}

/* The bands laid out at m = 0, then g's arrays from b's weights and
 * terminal capacities (b->bands' counts set). */
static int finish_csr(build *b, mf_graph *g, int in_lists, int threads)
{
    const int64_t npx = (int64_t)b->width * b->height;
    const int64_t offset = g->flow_offset;
    int rc = GB_OK;
    b->g = g;
    int64_t m = 0, source_arcs = 0, in_pixels = 0;
    for (int k = 0; k < b->nbands; k++) {
        band *bd = &b->bands[k];
        bd->out_base = m;
        bd->source_base = source_arcs;
        bd->in_base = in_pixels;
        m += bd->out_arcs;
        in_pixels += bd->in_arcs;
        source_arcs += bd->source_arcs;
    }
    const int64_t pixel_arcs = m;
    m += source_arcs;
    rc = mf_graph_alloc(g, (int32_t)(npx + 2), (int32_t)m);
    if (rc)
        return rc == MF_ERR_TOO_LARGE ? GB_ERR_TOO_LARGE : GB_ERR_NOMEM;
    const int32_t src = (int32_t)npx, snk = (int32_t)npx + 1;
    g->source = src;
    g->sink = snk;
    g->flow_offset = offset;
    for (int k = 0; k < b->nbands; k++)
        b->bands[k].source_base += pixel_arcs;
    g->out_start[src] = (int32_t)pixel_arcs;
    g->out_start[snk] = (int32_t)m;
    g->out_start[snk + 1] = (int32_t)m;
    run_pass(b, pass_out_arcs, threads);
    /* in-arcs: pixels (n-links, source arcs), none at the source, then the sink's */
    g->in_start[src] = (int32_t)in_pixels;
    g->in_start[snk] = (int32_t)in_pixels;
    g->in_start[snk + 1] = (int32_t)m;
    if (!in_lists) {
        run_pass(b, pass_in_starts, threads);
        return GB_OK;
    }
    run_pass(b, pass_in_arcs, threads);
    int64_t sink_base = 0;
    for (int k = 0; k < b->nbands; k++) {
        band *bd = &b->bands[k];
        bd->in_base = sink_base;
        sink_base += bd->sink_arcs;
    }
    run_pass(b, pass_sink_in, threads);
    return GB_OK;
}

/* Sets b's bands over height rows: at least 16 rows each; the band count
 * does not change the result. */
static void make_bands(build *b, int32_t height)
{
    b->nbands = height / 16 < 1 ? 1 : height / 16 > MAX_BANDS ? MAX_BANDS : height / 16;
    for (int k = 0; k < b->nbands; k++) {
        b->bands[k].y0 = (int32_t)((int64_t)height * k / b->nbands);
        b->bands[k].y1 = (int32_t)((int64_t)height * (k + 1) / b->nbands);
    }
}

int gb_grid_to_graph(const mf_grid *grid, int in_lists, int threads, mf_graph *g)
{
    memset(g, 0, sizeof *g);
    if (!grid || !grid->w || !grid->term || grid->width < 1 || grid->height < 1 || (grid->nd != 2 && grid->nd != 4))
        return GB_ERR_INVALID;
    const int64_t npx = (int64_t)grid->width * grid->height;
    if (npx + 2 > INT32_MAX / 2 || npx * (grid->nd + 2) > (INT32_MAX >> 1))
        return GB_ERR_TOO_LARGE;
    build *b = calloc(1, sizeof *b);
    if (!b)
        return GB_ERR_NOMEM;
    b->width = grid->width;
    b->height = grid->height;
    b->nd = grid->nd;
    b->all_terminals = grid->all_terminals;
    b->w = grid->w; /* read only: the grid keeps them */
    b->term = grid->term;
    make_bands(b, grid->height);
    if (threads < 1)
        threads = 1;
    int rc = GB_OK;
    int32_t *w = NULL, *term = NULL; /* the weights and capacities the grid left to the solver */
    if (grid->table) {
        const int64_t pairs = npx * grid->nd;
        w = mf_alloc_big(sizeof(int32_t) * (size_t)pairs);
        term = mf_alloc_big(sizeof(int32_t) * (size_t)npx);
        if (!w || !term) {
            rc = GB_ERR_NOMEM;
            goto done;
        }
        for (int64_t i = 0; i < pairs; i++) {
            if (grid->w[i] >= grid->table_size) {
                rc = GB_ERR_INVALID;
                goto done;
            }
            w[i] = grid->w[i];
        }
        b->w = w;
        b->similarity = grid->table;
        b->wscale = grid->table_scale;
        run_pass(b, pass_weights, threads);
        set_seed_cap(b, threads);
        for (int64_t i = 0; i < npx; i++) {
            const int32_t t = grid->term[i];
            term[i] = t == MF_GRID_HARD ? b->K : t == -MF_GRID_HARD ? -b->K : t;
        }
        b->term = term;
    }
    run_pass(b, pass_counts, threads);
    g->flow_offset = grid->flow_offset;
    rc = finish_csr(b, g, in_lists, threads);
done:
    if (rc)
        mf_graph_free(g);
    mf_free_big(w);
    mf_free_big(term);
    free(b);
    return rc;
}

int gb_to_arclist(const mf_graph *g, const int32_t *cancelled, mf_arclist *out)
{
    int32_t npx = g->num_vertices - 2, src = g->source, snk = g->sink;
    int64_t m = 0;
    for (int32_t a = 0; a < g->num_arcs; a++)
        m += g->arc_rcap[a] > 0 ? 2 : 1;
    m += 2 * (int64_t)npx;
    if (m > (INT32_MAX >> 1))
        return GB_ERR_TOO_LARGE;
    int rc = mf_arclist_init(out, g->num_vertices, (int32_t)m);
    if (rc)
        return GB_ERR_NOMEM;
    out->source = src;
    out->sink = snk;
    int32_t *to_src = calloc((size_t)npx, sizeof(int32_t)), *to_snk = calloc((size_t)npx, sizeof(int32_t));
    if (!to_src || !to_snk) {
        free(to_src);
        free(to_snk);
        mf_arclist_free(out);
        return GB_ERR_NOMEM;
    }
    for (int32_t u = 0; u < g->num_vertices && !rc; u++)
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1] && !rc; a++) {
            int32_t v = g->arc_head[a];
            if (u == src) {
                to_src[v] += g->arc_cap[a];
            } else if (v == snk) {
                to_snk[u] += g->arc_cap[a];
            } else {
                rc = mf_arclist_add(out, u, v, g->arc_cap[a]);
                if (!rc && g->arc_rcap[a] > 0)
                    rc = mf_arclist_add(out, v, u, g->arc_rcap[a]);
            }
        }
    for (int32_t p = 0; p < npx && !rc; p++) {
        int32_t c = cancelled ? cancelled[p] : 0;
        if (to_src[p] + c > 0)
            rc = mf_arclist_add(out, src, p, to_src[p] + c);
        if (!rc && to_snk[p] + c > 0)
            rc = mf_arclist_add(out, p, snk, to_snk[p] + c);
    }
    free(to_src);
    free(to_snk);
    if (rc) {
        mf_arclist_free(out);
        return GB_ERR_NOMEM;
    }
    return GB_OK;
}
