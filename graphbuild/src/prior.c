/* Every pixel's terminal capacities for new seeds, as gb_build would set
 * them, without building a network: what an interactive session needs
 * after each edit when the geodesic prior is on (the distances, and with
 * them unseeded pixels' terminals, depend on every seed). The photo's part
 * (beta, the similarity table, the geodesic step costs) is computed once.
 *
 * The distances are updated, not recomputed: the scans of geodesic.c are
 * GB_GEO_PASSES raster passes, and a pass sets every pixel to the minimum
 * of its value before the pass and its already scanned neighbours' values
 * after it plus the step. Each pass's result is kept; after an edit a
 * pixel of a pass is recomputed from that rule only where one of its
 * inputs changed (its seed or start, its value in the pass before, a
 * scanned neighbour's value in this pass), in the pass's order, and a
 * pixel none of whose inputs changed keeps its value. The passes then
 * hold exactly what a scan from scratch computes, bit for bit, whether
 * seeds were added, erased or undone, at the cost of the pixels whose
 * distances move. */
#include "flowcut/graphbuild.h"
#include "gb_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct gb_prior {
    const uint8_t *rgb;
    int32_t width, height;
    gb_params p;
    double *similarity;
    int nd;            /* step directions: 2 (4-connected) or 4 */
    float *cost;       /* nd planes of step costs (gb_geodesic_costs) */
    float *dist[2];    /* foreground, background: the last pass */
    float *stage[2][GB_GEO_PASSES - 1]; /* the passes before it */
    uint8_t *seeds;    /* the seeds the distances are for */
    int ready;         /* distances computed for seeds */
    float *edge_fg;    /* the foreground distances of the border pixels before an update */
    unsigned sides;    /* gb_frame_sides of seeds: no border start there */
    int32_t *changed;  /* per row [lo, hi): pixels whose terminals may have moved at the last update */
    int32_t *span[4];  /* per row [lo, hi): work */
    gb_keep keep;      /* the previous answer's term (gb_prior_set_previous) */
    uint8_t *previous; /* its copy of the previous answer, 0 or 1 */
    int32_t *keep_moved; /* per row [lo, hi): pixels whose term moved since the last update */
};

/* The prior's arrays: the seeds and the spans always, the costs and every
 * pass of both regions' distances with the prior on. */
static int alloc_arrays(gb_prior *pr)
{
    const size_t npx = (size_t)pr->width * (size_t)pr->height, rows = 2 * (size_t)pr->height;
    pr->seeds = malloc(npx);
    pr->changed = malloc(sizeof(int32_t) * rows);
    pr->keep_moved = malloc(sizeof(int32_t) * rows);
    int ok = pr->seeds && pr->changed && pr->keep_moved;
    for (int k = 0; k < 4; k++)
        ok &= (pr->span[k] = malloc(sizeof(int32_t) * rows)) != NULL;
    if (pr->p.geodesic > 0) {
        pr->similarity = gb_similarity_table(gb_estimate_beta(pr->rgb, pr->width, pr->height, pr->p.connectivity),
                                             gb_threads(&pr->p));
        pr->cost = mf_alloc_big(sizeof(float) * npx * (size_t)pr->nd);
        pr->edge_fg = malloc(sizeof(float) * 2 * ((size_t)pr->width + (size_t)pr->height));
        ok &= pr->similarity && pr->cost && pr->edge_fg;
        for (int r = 0; r < 2; r++) {
            ok &= (pr->dist[r] = mf_alloc_big(sizeof(float) * npx)) != NULL;
            for (int k = 0; k < GB_GEO_PASSES - 1; k++)
                ok &= (pr->stage[r][k] = mf_alloc_big(sizeof(float) * npx)) != NULL;
        }
    }
    return ok ? GB_OK : GB_ERR_NOMEM;
}

static void spans_clear(int32_t *sp, int32_t h, int32_t w);

int gb_prior_new(const uint8_t *rgb, int32_t width, int32_t height, const gb_params *p, gb_prior **out)
{
    *out = NULL;
    if (!rgb || !p || width < 1 || height < 1 || (p->connectivity != 4 && p->connectivity != 8) ||
        (int64_t)width * height > INT32_MAX / 4)
        return GB_ERR_INVALID;
    gb_prior *pr = calloc(1, sizeof *pr);
    if (!pr)
        return GB_ERR_NOMEM;
    pr->rgb = rgb;
    pr->width = width;
    pr->height = height;
    pr->p = *p;
    pr->p.previous = NULL; /* set below, from the prior's own copy */
    pr->nd = p->connectivity == 4 ? 2 : 4;
    int rc = alloc_arrays(pr);
    if (!rc) {
        spans_clear(pr->keep_moved, height, width);
        if (p->previous && p->keep > 0)
            rc = gb_prior_set_previous(pr, p->previous, p->keep_x, p->keep_y);
    }
    if (!rc && p->geodesic > 0)
        rc = gb_geodesic_costs(rgb, width, height, p->connectivity, pr->similarity, NULL, gb_threads(p), pr->cost);
    if (rc) {
        gb_prior_free(pr);
        return rc;
    }
    *out = pr;
    return GB_OK;
}

void gb_prior_free(gb_prior *pr)
{
    if (!pr)
        return;
    mf_free_big(pr->similarity);
    mf_free_big(pr->cost);
    for (int r = 0; r < 2; r++) {
        mf_free_big(pr->dist[r]);
        for (int k = 0; k < GB_GEO_PASSES - 1; k++)
            mf_free_big(pr->stage[r][k]);
    }
    free(pr->seeds);
    free(pr->previous);
    free(pr->keep_moved);
    free(pr->edge_fg);
    free(pr->changed);
    for (int k = 0; k < 4; k++)
        free(pr->span[k]);
    free(pr);
}

/* Spans of a row: [sp[2y], sp[2y + 1]), empty when lo >= hi. */
static void spans_clear(int32_t *sp, int32_t h, int32_t w)
{
    for (int32_t y = 0; y < h; y++)
        sp[2 * y] = w, sp[2 * y + 1] = 0;
}

static void span_add(int32_t *sp, int32_t y, int32_t lo, int32_t hi)
{
    if (lo >= hi)
        return;
    sp[2 * y] = lo < sp[2 * y] ? lo : sp[2 * y];
    sp[2 * y + 1] = hi > sp[2 * y + 1] ? hi : sp[2 * y + 1];
}

static inline float min_f(float a, float b) { return b < a ? b : a; }

/* One region's update: its seed kind, its start (the border's for the
 * background), its passes, and the spans of the pixels to recompute. */
typedef struct region_pass {
    const gb_prior *pr;
    int bg;              /* 0: foreground distances, 1: background */
    const int32_t *in;   /* pixels whose value in the pass before (or start) changed */
    const int32_t *base; /* pixels whose seed or start changed: an input of every pass */
    int32_t *out;        /* pixels whose value in this pass changed */
} region_pass;

/* The distance a pixel starts at (geodesic.c's scan_init): 0 at the
 * region's seeds, unreached at the other's and elsewhere, except that the
 * background starts at the border where the foreground is not near. */
static inline float start_value(const gb_prior *pr, int bg, int64_t p, int32_t x, int32_t y)
{
    const uint8_t s = pr->seeds[p], which = bg ? GB_BACKGROUND : GB_FOREGROUND;
    if (s == which)
        return 0.0f;
    if (s != GB_UNMARKED || !bg || pr->p.border < 0 ||
        !(y == 0 || y == pr->height - 1 || x == 0 || x == pr->width - 1) ||
        gb_on_sides(x, y, pr->width, pr->height, 1, pr->sides))
        return INFINITY;
    return pr->dist[0][p] <= (float)GB_BORDER_FG_GAP ? INFINITY : (float)pr->p.border;
}

/* The rows' inputs of one pass: the pixels of in and base, and those
 * next to the neighbour row's changes (expanded by one column when
 * 8-connected); returns the row's span in *lo, *hi. */
static void row_input(const region_pass *rp, int32_t y, int32_t plo, int32_t phi, int32_t *lo, int32_t *hi)
{
    const int32_t w = rp->pr->width, diag = rp->pr->nd == 4;
    int32_t a = rp->in[2 * y] < rp->base[2 * y] ? rp->in[2 * y] : rp->base[2 * y];
    int32_t b = rp->in[2 * y + 1] > rp->base[2 * y + 1] ? rp->in[2 * y + 1] : rp->base[2 * y + 1];
    if (plo < phi) {
        a = plo - diag < a ? plo - diag : a;
        b = phi + diag > b ? phi + diag : b;
    }
    *lo = a < 0 ? 0 : a;
    *hi = b > w ? w : b;
}

/* A forward pass (geodesic.c's row_forward): from W, N, NW and NE. prev:
 * the pass before (NULL: the start), cur: this pass's values. */
static void pass_forward(const region_pass *rp, const float *prev, float *cur)
{
    const gb_prior *pr = rp->pr;
    const int32_t w = pr->width, h = pr->height;
    const int64_t plane = (int64_t)w * h;
    const int diag = pr->nd == 4;
    const float *ce = pr->cost, *cs = ce + plane, *cse = cs + plane, *csw = cse + plane;
    int32_t plo = 0, phi = 0;
    for (int32_t y = 0; y < h; y++) {
        int32_t lo, hi, olo = w, ohi = 0;
        row_input(rp, y, plo, phi, &lo, &hi);
        int moved = 0; /* the pixel before changed: the chain goes on */
        for (int32_t x = lo; x < w && (x < hi || moved); x++) {
            const int64_t p = (int64_t)y * w + x;
            float v = prev ? prev[p] : start_value(pr, rp->bg, p, x, y);
            if (pr->seeds[p] == GB_UNMARKED) {
                if (x > 0)
                    v = min_f(v, cur[p - 1] + ce[p - 1]);
                if (y > 0) {
                    v = min_f(v, cur[p - w] + cs[p - w]);
                    if (diag && x > 0)
                        v = min_f(v, cur[p - w - 1] + cse[p - w - 1]);
                    if (diag && x + 1 < w)
                        v = min_f(v, cur[p - w + 1] + csw[p - w + 1]);
                }
            }
            moved = v != cur[p];
            if (moved) {
                cur[p] = v;
                olo = x < olo ? x : olo;
                ohi = x + 1;
            }
        }
        rp->out[2 * y] = olo;
        rp->out[2 * y + 1] = ohi;
        plo = olo, phi = ohi;
    }
}

/* A backward pass (geodesic.c's row_backward): from E, S, SE and SW,
 * through the pixel's own steps. */
static void pass_backward(const region_pass *rp, const float *prev, float *cur)
{
    const gb_prior *pr = rp->pr;
    const int32_t w = pr->width, h = pr->height;
    const int64_t plane = (int64_t)w * h;
    const int diag = pr->nd == 4;
    const float *ce = pr->cost, *cs = ce + plane, *cse = cs + plane, *csw = cse + plane;
    int32_t plo = 0, phi = 0;
    for (int32_t y = h - 1; y >= 0; y--) {
        int32_t lo, hi, olo = w, ohi = 0;
        row_input(rp, y, plo, phi, &lo, &hi);
        int moved = 0;
        for (int32_t x = hi - 1; x >= 0 && (x >= lo || moved); x--) {
            const int64_t p = (int64_t)y * w + x;
            float v = prev[p];
            if (pr->seeds[p] == GB_UNMARKED) {
                if (x + 1 < w)
                    v = min_f(v, cur[p + 1] + ce[p]);
                if (y + 1 < h) {
                    v = min_f(v, cur[p + w] + cs[p]);
                    if (diag && x + 1 < w)
                        v = min_f(v, cur[p + w + 1] + cse[p]);
                    if (diag && x > 0)
                        v = min_f(v, cur[p + w - 1] + csw[p]);
                }
            }
            moved = v != cur[p];
            if (moved) {
                cur[p] = v;
                olo = x;
                ohi = x + 1 > ohi ? x + 1 : ohi;
            }
        }
        rp->out[2 * y] = olo;
        rp->out[2 * y + 1] = ohi;
        plo = olo, phi = ohi;
    }
}

/* Every pass of one region, from base (the pixels whose seed or start
 * changed); the pixels whose final distance changed join pr->changed. */
static void region_update(gb_prior *pr, int bg, const int32_t *base)
{
    int32_t *a = pr->span[2], *b = pr->span[3];
    region_pass rp = {pr, bg, base, base, a};
    for (int k = 0; k < GB_GEO_PASSES; k++) {
        float *cur = k < GB_GEO_PASSES - 1 ? pr->stage[bg][k] : pr->dist[bg];
        rp.out = k & 1 ? b : a;
        if (k & 1)
            pass_backward(&rp, pr->stage[bg][k - 1], cur);
        else
            pass_forward(&rp, k ? pr->stage[bg][k - 1] : NULL, cur);
        rp.in = rp.out;
    }
    for (int32_t y = 0; y < pr->height; y++)
        span_add(pr->changed, y, rp.in[2 * y], rp.in[2 * y + 1]);
}

/* The border pixels in a fixed order: top row, bottom row, then the first
 * and last columns of the rows between. */
static int64_t edge_pixel(const gb_prior *pr, int64_t k)
{
    const int32_t w = pr->width, h = pr->height;
    if (k < w)
        return k;
    if (k < 2 * (int64_t)w)
        return (int64_t)(h - 1) * w + (k - w);
    k -= 2 * (int64_t)w;
    return (int64_t)(1 + k / 2) * w + (k & 1 ? w - 1 : 0);
}

static int64_t edge_count(const gb_prior *pr)
{
    return pr->height > 2 ? 2 * (int64_t)pr->width + 2 * (int64_t)(pr->height - 2)
                          : (int64_t)pr->width * pr->height;
}

/* The distances for new seeds, from the last ones; base: the rows' spans
 * of seeds that changed. */
static void update_distances(gb_prior *pr, const int32_t *base)
{
    const int32_t w = pr->width, h = pr->height;
    const int64_t ne = edge_count(pr);
    for (int64_t k = 0; k < ne; k++)
        pr->edge_fg[k] = pr->dist[0][edge_pixel(pr, k)];
    region_update(pr, 0, base);
    /* the background's start moves where a border pixel's foreground
     * distance crossed the gap */
    int32_t *bg_base = pr->span[1];
    memcpy(bg_base, base, sizeof(int32_t) * 2 * (size_t)h);
    /* and on a side a foreground seed came to touch or left */
    const unsigned sides = gb_frame_sides(pr->seeds, w, h), moved = sides ^ pr->sides;
    pr->sides = sides;
    for (int64_t k = 0; k < ne; k++) {
        int64_t p = edge_pixel(pr, k);
        const int32_t x = (int32_t)(p % w), y = (int32_t)(p / w);
        if ((pr->edge_fg[k] <= (float)GB_BORDER_FG_GAP) != (pr->dist[0][p] <= (float)GB_BORDER_FG_GAP) ||
            (moved && gb_on_sides(x, y, w, h, 1, moved)))
            span_add(bg_base, y, x, x + 1);
    }
    region_update(pr, 1, bg_base);
}

int gb_prior_update(gb_prior *pr, const uint8_t *seeds, const int32_t **changed)
{
    if (!pr || !seeds)
        return GB_ERR_INVALID;
    const int32_t w = pr->width, h = pr->height;
    int32_t *base = pr->span[0];
    spans_clear(pr->changed, h, w);
    spans_clear(base, h, w);
    for (int32_t y = 0; y < h; y++) /* the previous answer's term moved there */
        span_add(pr->changed, y, pr->keep_moved[2 * y], pr->keep_moved[2 * y + 1]);
    spans_clear(pr->keep_moved, h, w);
    int rc = GB_OK;
    if (!pr->ready) { /* every pixel, from scratch */
        memcpy(pr->seeds, seeds, (size_t)w * (size_t)h);
        for (int32_t y = 0; y < h; y++)
            span_add(pr->changed, y, 0, w);
        pr->sides = gb_frame_sides(pr->seeds, w, h);
        if (pr->p.geodesic > 0)
            rc = gb_geodesic_scan(pr->cost, w, h, pr->seeds, pr->p.connectivity, pr->p.border, gb_threads(&pr->p),
                                  pr->dist[0], pr->dist[1], NULL, pr->stage[0], pr->stage[1]);
        pr->ready = rc == GB_OK;
    } else {
        int any = 0;
        for (int32_t y = 0; y < h; y++) {
            const uint8_t *a = pr->seeds + (int64_t)y * w, *b = seeds + (int64_t)y * w;
            if (!memcmp(a, b, (size_t)w))
                continue;
            int32_t lo = 0, hi = w;
            while (a[lo] == b[lo])
                lo++;
            while (a[hi - 1] == b[hi - 1])
                hi--;
            span_add(base, y, lo, hi);
            span_add(pr->changed, y, lo, hi);
            memcpy(pr->seeds + (int64_t)y * w + lo, b + lo, (size_t)(hi - lo));
            any = 1;
        }
        if (any && pr->p.geodesic > 0)
            update_distances(pr, base);
    }
    if (changed)
        *changed = pr->changed;
    return rc;
}

void gb_prior_pixel_terminals(const gb_prior *pr, int64_t i, const gb_models *models, int32_t seed_cap, int32_t *cs,
                              int32_t *ct)
{
    const uint8_t seed = pr->seeds[i];
    gb_pixel_terminals(pr->rgb + 3 * i, seed, models, seed_cap, cs, ct);
    if (pr->p.geodesic > 0 && seed == GB_UNMARKED)
        gb_add_prior(pr->p.geodesic, pr->dist[0][i], pr->dist[1][i], cs, ct);
    if (pr->keep.previous && seed == GB_UNMARKED)
        gb_add_keep(&pr->keep, i, cs, ct);
}

/* The rows' columns within the term's radius of a click at (x, y) (plus a
 * pixel for rounding) join keep_moved. */
static void keep_disc(gb_prior *pr, const gb_keep *k)
{
    const double r = 1.0 / sqrt(k->inv_r2) + 1.0;
    for (int32_t y = 0; y < pr->height; y++) {
        const double dy = y - k->y;
        if (dy * dy > r * r)
            continue;
        const double half = sqrt(r * r - dy * dy);
        const double lo = floor(k->x - half), hi = ceil(k->x + half) + 1;
        span_add(pr->keep_moved, y, lo < 0 ? 0 : (int32_t)lo, hi > pr->width ? pr->width : (int32_t)hi);
    }
}

int gb_prior_set_previous(gb_prior *pr, const uint8_t *previous, int32_t x, int32_t y)
{
    const int32_t w = pr->width, h = pr->height;
    gb_params p = pr->p;
    p.previous = previous, p.keep_x = x, p.keep_y = y;
    gb_keep k;
    if (!gb_keep_init(&k, &p, w, h))
        return GB_ERR_INVALID;
    if (k.previous && !pr->previous && !(pr->previous = malloc((size_t)w * (size_t)h)))
        return GB_ERR_NOMEM;
    const int was = pr->keep.previous != NULL;
    if (was != (k.previous != NULL)) { /* the term comes or goes: every pixel's */
        for (int32_t row = 0; row < h; row++)
            span_add(pr->keep_moved, row, 0, w);
        for (int64_t i = 0; k.previous && i < (int64_t)w * h; i++)
            pr->previous[i] = previous[i] != 0;
    } else if (was) {
        /* the same click: the term moves where the answer did; a click that
         * moved also moves it within the radius of either click (beyond
         * both it is the whole weight toward the answer's label) */
        if (x != pr->p.keep_x || y != pr->p.keep_y) {
            keep_disc(pr, &pr->keep);
            keep_disc(pr, &k);
        }
        for (int32_t row = 0; row < h; row++) {
            uint8_t *a = pr->previous + (int64_t)row * w;
            const uint8_t *b = previous + (int64_t)row * w;
            if (!memcmp(a, b, (size_t)w))
                continue; /* a 0 / 1 answer, as the session's, unchanged here */
            int32_t lo = 0, hi = w;
            while (lo < w && a[lo] == (b[lo] != 0))
                lo++;
            while (hi > lo && a[hi - 1] == (b[hi - 1] != 0))
                hi--;
            span_add(pr->keep_moved, row, lo, hi);
            for (int32_t c = lo; c < hi; c++) /* the copy: outside [lo, hi) it holds already */
                a[c] = b[c] != 0;
        }
    }
    if (k.previous)
        k.previous = pr->previous;
    pr->keep = k;
    pr->p.previous = k.previous, pr->p.keep_x = x, pr->p.keep_y = y;
    return GB_OK;
}

/* One thread's rows of gb_prior_span_terminals. */
typedef struct span_job {
    const gb_prior *pr;
    const int32_t *span;
    const gb_models *models;
    int32_t seed_cap, y0, y1;
    int32_t *cs, *ct;
} span_job;

static void *span_rows(void *arg)
{
    const span_job *j = arg;
    const int32_t w = j->pr->width;
    for (int32_t y = j->y0; y < j->y1; y++) {
        const int32_t lo = j->span ? j->span[2 * y] : 0, hi = j->span ? j->span[2 * y + 1] : w;
        for (int64_t p = (int64_t)y * w + lo; p < (int64_t)y * w + hi; p++)
            gb_prior_pixel_terminals(j->pr, p, j->models, j->seed_cap, &j->cs[p], &j->ct[p]);
    }
    return NULL;
}

/* The pixels of row y's span (span NULL: the whole row). */
static int32_t span_width(const int32_t *span, int32_t y, int32_t w)
{
    return !span ? w : span[2 * y + 1] > span[2 * y] ? span[2 * y + 1] - span[2 * y] : 0;
}

/* Spans under this many pixels are computed on the calling thread: a
 * thread's start costs about what a few thousand pixels do. */
#define SPAN_PIXELS_PER_THREAD 65536

void gb_prior_span_terminals(const gb_prior *pr, const int32_t *span, const gb_models *models, int32_t seed_cap,
                             int32_t *cs, int32_t *ct)
{
    const int32_t w = pr->width, h = pr->height;
    int64_t total = 0;
    for (int32_t y = 0; y < h; y++)
        total += span_width(span, y, w);
    int t = gb_threads(&pr->p);
    if ((int64_t)t > total / SPAN_PIXELS_PER_THREAD)
        t = (int)(total / SPAN_PIXELS_PER_THREAD);
    t = t < 1 ? 1 : t > GB_RUN_MAX ? GB_RUN_MAX : t;
    span_job jobs[GB_RUN_MAX];
    /* rows split where each thread has about the same pixels to compute */
    int64_t done = 0;
    int32_t y = 0;
    for (int k = 0; k < t; k++) {
        jobs[k] = (span_job){pr, span, models, seed_cap, y, y, cs, ct};
        const int64_t goal = total * (k + 1) / t;
        while (y < h && (done < goal || k == t - 1)) {
            done += span_width(span, y++, w);
        }
        jobs[k].y1 = y;
    }
    gb_run_threads(span_rows, jobs, sizeof jobs[0], t);
}

const float *gb_prior_distances(const gb_prior *pr, int bg)
{
    return pr && pr->ready ? pr->dist[bg & 1] : NULL;
}

const float *gb_prior_pass(const gb_prior *pr, int bg, int k)
{
    if (!pr->dist[bg & 1] || k < 0 || k >= GB_GEO_PASSES)
        return NULL;
    return k == GB_GEO_PASSES - 1 ? pr->dist[bg & 1] : pr->stage[bg & 1][k];
}

int gb_prior_terminals(gb_prior *pr, const uint8_t *seeds, const gb_models *models, int32_t seed_cap, int32_t *cs,
                       int32_t *ct)
{
    if (!pr || !seeds || !models || !cs || !ct)
        return GB_ERR_INVALID;
    int rc = gb_prior_update(pr, seeds, NULL);
    if (rc)
        return rc;
    gb_prior_span_terminals(pr, NULL, models, seed_cap, cs, ct);
    return GB_OK;
}
