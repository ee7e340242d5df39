/* Colour models: Gaussian mixtures (k-means init, then EM, as in GrabCut)
 * and smoothed 3-D histograms. Both are turned into a 64^3 table of data
 * costs so that evaluating a pixel is one lookup. */
#include "flowcut/graphbuild.h"
#include "gb_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SAMPLES 300000
#define MAX_K 8
#define MAX_THREADS 64

typedef struct gauss {
    double weight, mean[3], inv[9], log_norm; /* log(w) - 0.5 log det - 1.5 log 2pi */
    double cov[9];
} gauss;

const char *gb_strerror(int code)
{
    switch (code) {
    case GB_OK: return "success";
    case GB_ERR_NOMEM: return "out of memory";
    case GB_ERR_INVALID: return "invalid argument";
    case GB_ERR_NO_FOREGROUND: return "no foreground seed";
    case GB_ERR_NO_BACKGROUND: return "no background seed";
    case GB_ERR_TOO_LARGE: return "image too large";
    default: return "unknown error";
    }
}

void gb_params_default(gb_params *p)
{
    memset(p, 0, sizeof *p);
    /* chosen on both seg_eval.py protocols and both dev sets
     * (docs/benchmarks.md, "Segmentation quality"): with the geodesic prior
     * a lower lambda wins than without it */
    p->lambda = 70.0;
    p->connectivity = 8;
    p->model = GB_MODEL_GMM;
    p->gmm_components = 5;
    p->uniform_mix = 0.01;
    p->threads = 0;
    p->geodesic = 14.0;
    p->border = 0.2;
    p->star = 0;
    p->in_lists = 1;
    p->quick_fit = 0;
    /* chosen with the click robot on both dev sets (docs/benchmarks.md,
     * "The previous answer near a click") */
    p->keep = 4.0;
    p->keep_radius = 0.1;
    p->previous = NULL;
}

/* Samples of one region, subsampled evenly past MAX_SAMPLES. */
static int collect(const uint8_t *rgb, int64_t npx, const uint8_t *labels, uint8_t which,
                   double **out, int32_t *count)
{
    int64_t total = 0;
    for (int64_t i = 0; i < npx; i++)
        total += labels[i] == which;
    *count = 0;
    *out = NULL;
    if (!total)
        return GB_OK;
    int64_t step = total > MAX_SAMPLES ? (total + MAX_SAMPLES - 1) / MAX_SAMPLES : 1;
    double *s = mf_alloc_big(sizeof(double) * 3 * (size_t)(total / step + 1));
    if (!s)
        return GB_ERR_NOMEM;
    int64_t seen = 0;
    int32_t c = 0;
    for (int64_t i = 0; i < npx; i++) {
        if (labels[i] != which)
            continue;
        if (seen++ % step == 0) {
            s[3 * c] = rgb[3 * i];
            s[3 * c + 1] = rgb[3 * i + 1];
            s[3 * c + 2] = rgb[3 * i + 2];
            c++;
        }
    }
    *out = s;
    *count = c;
    return GB_OK;
}

static int invert3(const double *m, double *inv, double *det)
{
    double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7], i = m[8];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    *det = a * A + b * B + c * C;
    if (!(*det > 1e-12))
        return -1;
    double r = 1.0 / *det;
    inv[0] = A * r; inv[1] = -(b * i - c * h) * r; inv[2] = (b * f - c * e) * r;
    inv[3] = B * r; inv[4] = (a * i - c * g) * r;  inv[5] = -(a * f - c * d) * r;
    inv[6] = C * r; inv[7] = -(a * h - b * g) * r; inv[8] = (a * e - b * d) * r;
    return 0;
}

static double maha(const gauss *g, const double *x)
{
    double d0 = x[0] - g->mean[0], d1 = x[1] - g->mean[1], d2 = x[2] - g->mean[2];
    return d0 * (g->inv[0] * d0 + g->inv[1] * d1 + g->inv[2] * d2) +
           d1 * (g->inv[3] * d0 + g->inv[4] * d1 + g->inv[5] * d2) +
           d2 * (g->inv[6] * d0 + g->inv[7] * d1 + g->inv[8] * d2);
}

/* Finishes a component from accumulated sums; regularised so that flat
 * scribbles (one colour) still give an invertible covariance. */
static void finish_component(gauss *g, double n, const double *sum, const double *sq, double total)
{
    g->weight = n / total;
    for (int a = 0; a < 3; a++)
        g->mean[a] = sum[a] / n;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            g->cov[3 * a + b] = sq[3 * a + b] / n - g->mean[a] * g->mean[b] + (a == b ? 4.0 : 0.0);
    double det;
    if (invert3(g->cov, g->inv, &det)) {
        memset(g->cov, 0, sizeof g->cov);
        g->cov[0] = g->cov[4] = g->cov[8] = 100.0;
        invert3(g->cov, g->inv, &det);
    }
    g->log_norm = log(g->weight) - 0.5 * log(det) - 1.5 * log(2 * M_PI);
}

/* The per-colour halves of k-means and EM (nearest centre; responsibilities)
 * on up to `threads` threads: each colour's result depends on that colour
 * alone, and the sums over colours stay on one thread in the colours'
 * order, so the models are the same bit for bit for any number of threads
 * (a 12 Mpx photo's strokes give hundreds of thousands of samples, and the
 * E-steps are most of the model stage). */
#define MIN_SAMPLES_PER_THREAD 20000

typedef struct sample_pass {
    const double *s;
    int32_t lo, hi;
    int k;
    const double (*centre)[3]; /* k-means: nearest centre into assign */
    int32_t *assign;
    const gauss *comp;         /* EM: responsibilities into resp */
    double *resp;
} sample_pass;

static void *sample_pass_main(void *arg)
{
    const sample_pass *w = arg;
    const double *s = w->s;
    int k = w->k;
    for (int32_t i = w->lo; i < w->hi; i++) {
        if (w->centre) {
            int best = 0;
            double bd = 1e300;
            for (int j = 0; j < k; j++) {
                double d0 = s[3 * i] - w->centre[j][0], d1 = s[3 * i + 1] - w->centre[j][1],
                       d2 = s[3 * i + 2] - w->centre[j][2];
                double d = d0 * d0 + d1 * d1 + d2 * d2;
                if (d < bd) {
                    bd = d;
                    best = j;
                }
            }
            w->assign[i] = best;
        } else {
            double lp[MAX_K], mx = -1e300, tot = 0;
            for (int j = 0; j < k; j++) {
                lp[j] = w->comp[j].log_norm - 0.5 * maha(&w->comp[j], &s[3 * i]);
                mx = lp[j] > mx ? lp[j] : mx;
            }
            for (int j = 0; j < k; j++)
                tot += (lp[j] = exp(lp[j] - mx));
            for (int j = 0; j < k; j++)
                w->resp[(size_t)i * k + j] = lp[j] / tot;
        }
    }
    return NULL;
}

static void run_sample_pass(sample_pass base, int32_t count, int threads)
{
    sample_pass parts[MAX_THREADS];
    int t = threads;
    if (t > MAX_THREADS)
        t = MAX_THREADS;
    if ((int64_t)t * MIN_SAMPLES_PER_THREAD > count)
        t = (int)(count / MIN_SAMPLES_PER_THREAD);
    if (t < 1)
        t = 1;
    for (int i = 0; i < t; i++) {
        parts[i] = base;
        parts[i].lo = (int32_t)((int64_t)count * i / t);
        parts[i].hi = (int32_t)((int64_t)count * (i + 1) / t);
    }
    gb_run_threads(sample_pass_main, parts, sizeof parts[0], t);
}

/* The samples' distinct colours, in order of first appearance: u (3
 * doubles each) and how many samples have each (w). A pass of k-means or
 * an E-step gives every sample of one colour the same result, and so does
 * its share of the sums: both run once a colour, the sums weighted by the
 * count (strokes on photos repeat many colours; grey photos have 256). The
 * order is the samples', so the models do not depend on the threads. */
static int distinct_colours(const double *s, int32_t count, double **u_out, int32_t *nu_out, double **w_out)
{
    size_t slots = 1024;
    int bits = 10;
    while (slots < 2 * (size_t)count) {
        slots *= 2;
        bits++;
    }
    int32_t *slot = mf_alloc_big(sizeof(int32_t) * slots);
    double *u = mf_alloc_big(sizeof(double) * 3 * (size_t)count), *w = mf_alloc_big(sizeof(double) * (size_t)count);
    if (!slot || !w || !u) {
        mf_free_big(slot);
        mf_free_big(w);
        mf_free_big(u);
        return GB_ERR_NOMEM;
    }
    for (size_t i = 0; i < slots; i++)
        slot[i] = -1;
    int32_t nu = 0;
    for (int32_t i = 0; i < count; i++) {
        const double *x = &s[3 * i];
        /* the samples are 8-bit colours */
        uint32_t key = ((uint32_t)x[0] << 16) | ((uint32_t)x[1] << 8) | (uint32_t)x[2];
        size_t h = (uint32_t)(key * 2654435761u) >> (32 - bits); /* the product's top bits: all of key's */
        while (slot[h] >= 0 && memcmp(&u[3 * slot[h]], x, 3 * sizeof *x))
            h = (h + 1) & (slots - 1);
        if (slot[h] < 0) {
            slot[h] = nu;
            memcpy(&u[3 * nu], x, 3 * sizeof *x);
            w[nu++] = 0;
        }
        w[slot[h]] += 1;
    }
    mf_free_big(slot);
    *u_out = u;
    *nu_out = nu;
    *w_out = w;
    return GB_OK;
}

/* k-means (deterministic init at luminance quantiles), then EM: 10 and 6
 * passes, or with quick 5 and 3. */
static int fit_gmm(const double *s, int32_t count, int k, gauss *comp, int *k_out, int threads, int quick)
{
    const int kmeans_passes = quick ? 5 : 10, em_passes = quick ? 3 : 6;
    if (count < k)
        k = count;
    *k_out = k;
    double *u = NULL, *w = NULL;
    int32_t nu = 0;
    int rc = distinct_colours(s, count, &u, &nu, &w);
    if (rc)
        return rc;
    int32_t *assign = mf_alloc_big(sizeof(int32_t) * (size_t)nu);
    double *resp = mf_alloc_big(sizeof(double) * (size_t)nu * (size_t)k);
    if (!assign || !resp) {
        mf_free_big(assign);
        mf_free_big(resp);
        mf_free_big(u);
        mf_free_big(w);
        return GB_ERR_NOMEM;
    }
    /* init: centres at luminance quantiles (the first sample nearest each
     * quantile has the first colour nearest it) */
    double lum_min = 1e9, lum_max = -1e9;
    for (int32_t i = 0; i < nu; i++) {
        double l = u[3 * i] + u[3 * i + 1] + u[3 * i + 2];
        lum_min = l < lum_min ? l : lum_min;
        lum_max = l > lum_max ? l : lum_max;
    }
    double centre[MAX_K][3];
    for (int j = 0; j < k; j++) {
        double target = lum_min + (lum_max - lum_min) * (j + 0.5) / k, best = 1e18;
        for (int32_t i = 0; i < nu; i++) {
            double l = u[3 * i] + u[3 * i + 1] + u[3 * i + 2];
            if (fabs(l - target) < best) {
                best = fabs(l - target);
                memcpy(centre[j], &u[3 * i], sizeof centre[j]);
            }
        }
    }
    for (int iter = 0; iter < kmeans_passes; iter++) {
        double sum[MAX_K][3] = {{0}};
        double n[MAX_K] = {0};
        run_sample_pass((sample_pass){.s = u, .k = k, .centre = (const double(*)[3])centre, .assign = assign}, nu,
                        threads);
        for (int32_t i = 0; i < nu; i++) {
            int best = assign[i];
            n[best] += w[i];
            for (int a = 0; a < 3; a++)
                sum[best][a] += w[i] * u[3 * i + a];
        }
        for (int j = 0; j < k; j++)
            if (n[j] > 0)
                for (int a = 0; a < 3; a++)
                    centre[j][a] = sum[j][a] / n[j];
    }
    /* responsibilities from the hard assignment, then EM */
    for (int32_t i = 0; i < nu; i++)
        for (int j = 0; j < k; j++)
            resp[(size_t)i * k + j] = assign[i] == j;
    for (int iter = 0; iter < em_passes; iter++) {
        int used = 0;
        gauss next[MAX_K];
        /* a pass over the colours per component, its 13 sums in locals
         * (in arrays indexed by component each term was a load and a
         * store); every sum adds its terms in the colours' order */
        double n[MAX_K] = {0}, sum[MAX_K][3] = {{0}}, sq[MAX_K][9] = {{0}};
        for (int j = 0; j < k; j++) {
            double nj = 0, m[3] = {0, 0, 0}, q[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
            for (int32_t i = 0; i < nu; i++) {
                const double *x = &u[3 * i];
                double r = resp[(size_t)i * k + j] * w[i];
                if (r <= 0)
                    continue;
                nj += r;
                for (int a = 0; a < 3; a++) {
                    m[a] += r * x[a];
                    for (int b = 0; b < 3; b++)
                        q[3 * a + b] += r * x[a] * x[b];
                }
            }
            n[j] = nj;
            memcpy(sum[j], m, sizeof m);
            memcpy(sq[j], q, sizeof q);
        }
        for (int j = 0; j < k; j++) {
            if (n[j] < 1e-9)
                continue;
            finish_component(&next[used++], n[j], sum[j], sq[j], (double)count);
        }
        k = used;
        memcpy(comp, next, sizeof(gauss) * (size_t)k);
        if (iter == em_passes - 1)
            break;
        run_sample_pass((sample_pass){.s = u, .k = k, .comp = comp, .resp = resp}, nu, threads);
    }
    *k_out = k;
    mf_free_big(assign);
    mf_free_big(resp);
    mf_free_big(u);
    mf_free_big(w);
    return GB_OK;
}

/* log((1 - mix) e^log_model + mix / 256^3): the colour model blended with
 * a uniform density over the RGB cube. Sparse strokes sample few colours,
 * and a pure mixture gives colours the strokes missed a near-infinite cost
 * that no smoothness can overrule; the blend bounds every cost at
 * -log(mix / 256^3) (21 nats at mix 0.01). */
typedef struct blend {
    double mix, log_keep, log_uniform; /* log(1 - mix), log(mix / 256^3): once per table */
} blend;

static blend blend_make(double mix)
{
    blend bl = {mix, 0, 0};
    if (mix > 0) {
        bl.log_keep = log1p(-mix);
        bl.log_uniform = log(mix) - 3 * log(256.0);
    }
    return bl;
}

static double blend_uniform(double log_model, const blend *bl)
{
    if (bl->mix <= 0)
        return log_model;
    double a = bl->log_keep + log_model, b = bl->log_uniform;
    double hi = a > b ? a : b;
    return hi + log(exp(a - hi) + exp(b - hi));
}

static void gmm_table(const gauss *comp, int k, double mix, const uint8_t *present, float *table)
{
    const blend bl = blend_make(mix);
    for (int r = 0; r < GB_LUT_SIDE; r++)
        for (int g = 0; g < GB_LUT_SIDE; g++)
            for (int b = 0; b < GB_LUT_SIDE; b++) {
                if (!present[(r * GB_LUT_SIDE + g) * GB_LUT_SIDE + b])
                    continue;
                double x[3] = {r * GB_LUT_STEP + (GB_LUT_STEP - 1) / 2.0,
                               g * GB_LUT_STEP + (GB_LUT_STEP - 1) / 2.0,
                               b * GB_LUT_STEP + (GB_LUT_STEP - 1) / 2.0};
                double lp[MAX_K], mx = -1e300, tot = 0;
                for (int j = 0; j < k; j++) {
                    lp[j] = comp[j].log_norm - 0.5 * maha(&comp[j], x);
                    mx = lp[j] > mx ? lp[j] : mx;
                }
                for (int j = 0; j < k; j++)
                    tot += exp(lp[j] - mx);
                double cost = -blend_uniform(mx + log(tot), &bl);
                /* costs are relative: both regions use the same density units */
                table[(r * GB_LUT_SIDE + g) * GB_LUT_SIDE + b] = (float)cost;
            }
}

/* 16 bins per channel, [1 2 1] smoothing along each axis, plus a floor so
 * that colours never seen in the seeds do not get infinite cost. */
static int hist_table(const double *s, int32_t count, double mix, float *table)
{
    const blend bl = blend_make(mix);
    enum { B = 16 };
    double *h = calloc(B * B * B, sizeof(double)), *t = calloc(B * B * B, sizeof(double));
    if (!h || !t) {
        free(h);
        free(t);
        return GB_ERR_NOMEM;
    }
    for (int32_t i = 0; i < count; i++)
        h[((int)s[3 * i] / 16 * B + (int)s[3 * i + 1] / 16) * B + (int)s[3 * i + 2] / 16] += 1;
    for (int axis = 0; axis < 3; axis++) {
        int stride = axis == 0 ? B * B : axis == 1 ? B : 1;
        for (int i = 0; i < B * B * B; i++) {
            int c = (i / stride) % B;
            double v = 2 * h[i], w = 2;
            if (c > 0) { v += h[i - stride]; w += 1; }
            if (c < B - 1) { v += h[i + stride]; w += 1; }
            t[i] = v / w;
        }
        memcpy(h, t, sizeof(double) * B * B * B);
    }
    double total = 0;
    for (int i = 0; i < B * B * B; i++)
        total += h[i];
    double floor_p = 1e-4 / (B * B * B);
    for (int r = 0; r < GB_LUT_SIDE; r++)
        for (int g = 0; g < GB_LUT_SIDE; g++)
            for (int b = 0; b < GB_LUT_SIDE; b++) {
                int bin = ((r * GB_LUT_STEP / 16) * B + g * GB_LUT_STEP / 16) * B + b * GB_LUT_STEP / 16;
                double p = h[bin] / total + floor_p;
                /* a bin is 16^3 colours: per colour, as the mixtures are */
                double log_density = log(p) - 3 * log(16.0);
                table[(r * GB_LUT_SIDE + g) * GB_LUT_SIDE + b] = (float)(-blend_uniform(log_density, &bl));
            }
    free(h);
    free(t);
    return GB_OK;
}

/* Marks the photo's colours in present, a band of pixels per thread. */
typedef struct mark_job {
    const uint8_t *rgb;
    _Atomic uint8_t *present;
    int64_t lo, hi;
} mark_job;

static void *mark_main(void *arg)
{
    const mark_job *j = arg;
    for (int64_t i = j->lo; i < j->hi; i++)
        gb_mark(&j->present[gb_lut_index(j->rgb + 3 * i)]);
    return NULL;
}

/* One region's model: its samples, the fit, its cost table. */
typedef struct region_job {
    const uint8_t *rgb, *labels, *present;
    int64_t npx;
    const gb_params *p;
    uint8_t which;
    float *table;
    int threads; /* for the fit's sample passes */
    int rc;
} region_job;

static void *region_main(void *arg)
{
    region_job *j = arg;
    double *s;
    int32_t count;
    j->rc = collect(j->rgb, j->npx, j->labels, j->which, &s, &count);
    if (j->rc)
        return NULL;
    if (!count) {
        j->rc = j->which == GB_FOREGROUND ? GB_ERR_NO_FOREGROUND : GB_ERR_NO_BACKGROUND;
        return NULL;
    }
    if (j->p->model == GB_MODEL_HIST) {
        j->rc = hist_table(s, count, j->p->uniform_mix, j->table);
    } else {
        gauss comp[MAX_K];
        int k = j->p->gmm_components < 1 ? 1 : j->p->gmm_components > MAX_K ? MAX_K : j->p->gmm_components;
        j->rc = fit_gmm(s, count, k, comp, &k, j->threads, j->p->quick_fit != 0);
        if (!j->rc)
            gmm_table(comp, k, j->p->uniform_mix, j->present, j->table);
    }
    mf_free_big(s);
    return NULL;
}

/* The labels the models are fitted on: the seeds, and with the geodesic
 * prior on every unmarked pixel within GB_SAMPLE_REACH colour edges of
 * one region's seeds and strictly nearer to them than to the other's
 * (dist_fg, dist_bg: the prior's distances for these labels). A click's
 * disc or a short stroke is a small sample of the surface it lands on;
 * the pixels it reaches without crossing an edge are the same surface.
 * Only when both regions have seeds: a region without any is the
 * caller's error to report. *out stays NULL when nothing is added. */
static int both_seeded(const uint8_t *labels, int64_t npx)
{
    int has_fg = 0, has_bg = 0;
    for (int64_t i = 0; i < npx && !(has_fg && has_bg); i++) {
        has_fg |= labels[i] == GB_FOREGROUND;
        has_bg |= labels[i] == GB_BACKGROUND;
    }
    return has_fg && has_bg;
}

static int near_labels(const uint8_t *labels, int64_t npx, const float *dist_fg, const float *dist_bg,
                       uint8_t **out)
{
    *out = NULL;
    if (!both_seeded(labels, npx))
        return GB_OK;
    uint8_t *m = malloc((size_t)npx);
    if (!m)
        return GB_ERR_NOMEM;
    const float reach = (float)GB_SAMPLE_REACH;
    for (int64_t i = 0; i < npx; i++) {
        const float f = dist_fg[i], b = dist_bg[i];
        m[i] = labels[i];
        if (labels[i] == GB_UNMARKED && f <= reach && f < b)
            m[i] = GB_FOREGROUND;
        else if (labels[i] == GB_UNMARKED && b <= reach && b < f)
            m[i] = GB_BACKGROUND;
    }
    *out = m;
    return GB_OK;
}

static int fit(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels, const gb_params *p,
               gb_models **out);

int gb_models_fit_near(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels,
                       const float *dist_fg, const float *dist_bg, const gb_params *p, gb_models **out)
{
    *out = NULL;
    if (!rgb || !labels || width <= 0 || height <= 0 || !p)
        return GB_ERR_INVALID;
    uint8_t *near = NULL;
    if (p->geodesic > 0 && dist_fg && dist_bg && near_labels(labels, (int64_t)width * height, dist_fg, dist_bg, &near))
        return GB_ERR_NOMEM;
    int rc = fit(rgb, width, height, near ? near : labels, p, out);
    free(near);
    return rc;
}

int gb_models_fit(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels,
                  const gb_params *p, gb_models **out)
{
    *out = NULL;
    if (!rgb || !labels || width <= 0 || height <= 0 || !p)
        return GB_ERR_INVALID;
    const size_t npx = (size_t)width * (size_t)height;
    /* the scan feeds near_labels alone: not without the prior, for a
     * connectivity that defines no distances, or with a region unseeded */
    if (!(p->geodesic > 0) || (p->connectivity != 4 && p->connectivity != 8) || !both_seeded(labels, (int64_t)npx))
        return fit(rgb, width, height, labels, p, out);
    /* the prior's distances for these labels, as gb_build computes them */
    float *df = mf_alloc_big(sizeof(float) * npx), *db = mf_alloc_big(sizeof(float) * npx);
    int rc = df && db ? GB_OK : GB_ERR_NOMEM;
    if (!rc)
        rc = gb_geodesic(rgb, width, height, labels, p->connectivity,
                         gb_estimate_beta(rgb, width, height, p->connectivity), p->border, gb_threads(p), df, db,
                         NULL);
    if (!rc)
        rc = gb_models_fit_near(rgb, width, height, labels, df, db, p, out);
    mf_free_big(df);
    mf_free_big(db);
    return rc;
}

static int fit(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels, const gb_params *p,
               gb_models **out)
{
    *out = NULL;
    if (!rgb || !labels || width <= 0 || height <= 0 || !p ||
        !(p->uniform_mix >= 0 && p->uniform_mix < 1))
        return GB_ERR_INVALID;
    int64_t npx = (int64_t)width * height;
    int threads = gb_threads(p);
    threads = threads > MAX_THREADS ? MAX_THREADS : threads;
    gb_models *m = mf_alloc_big(sizeof *m); /* every entry is written below */
    /* only the colours of this photo need a cost: a 0.2 Mpx photo uses a
     * small part of the table, and evaluating the mixtures is the cost */
    uint8_t *present = mf_calloc_big(GB_LUT_SIZE, 1);
    if (!m || !present) {
        mf_free_big(m);
        mf_free_big(present);
        return GB_ERR_NOMEM;
    }
    /* 1 Mpx a thread: the pass is a few ms a megapixel */
    int marks = (int)(npx >> 20) < threads ? (int)(npx >> 20) : threads;
    marks = marks < 1 ? 1 : marks;
    mark_job mj[MAX_THREADS];
    for (int t = 0; t < marks; t++)
        mj[t] = (mark_job){rgb, (_Atomic uint8_t *)present, npx * t / marks, npx * (t + 1) / marks};
    gb_run_threads(mark_main, mj, sizeof mj[0], marks);
    /* the two regions side by side, each with half the threads */
    region_job rj[2];
    for (int region = 0; region < 2; region++)
        rj[region] = (region_job){rgb, labels, present, npx, p, region == 0 ? GB_FOREGROUND : GB_BACKGROUND,
                                  region == 0 ? m->cost_fg : m->cost_bg, threads > 1 ? threads / 2 : 1, GB_OK};
    gb_run_threads(region_main, rj, sizeof rj[0], threads > 1 ? 2 : 1);
    if (threads == 1)
        region_main(&rj[1]);
    int rc = rj[0].rc ? rj[0].rc : rj[1].rc;
    if (rc) {
        mf_free_big(m);
        mf_free_big(present);
        return rc;
    }
    /* shift both tables by one common constant so that the photo's costs
     * start at zero; colours absent from the photo get a neutral cost */
    float lo = 1e30f;
    for (int i = 0; i < GB_LUT_SIZE; i++) {
        if (!present[i])
            continue;
        lo = m->cost_fg[i] < lo ? m->cost_fg[i] : lo;
        lo = m->cost_bg[i] < lo ? m->cost_bg[i] : lo;
    }
    for (int i = 0; i < GB_LUT_SIZE; i++) {
        if (present[i]) {
            m->cost_fg[i] -= lo;
            m->cost_bg[i] -= lo;
        } else {
            m->cost_fg[i] = m->cost_bg[i] = (float)GB_MAX_DATA_COST;
        }
    }
    mf_free_big(present);
    *out = m;
    return GB_OK;
}

void gb_models_free(gb_models *m) { mf_free_big(m); }

int gb_models_equal(const gb_models *a, const gb_models *b)
{
    return !memcmp(a->cost_fg, b->cost_fg, sizeof a->cost_fg) && !memcmp(a->cost_bg, b->cost_bg, sizeof a->cost_bg);
}
