/* Interactive segmentation session: seeds edited in place, the network and
 * a warm max-flow solver kept alive, the mask re-cut after each edit. */
#define _POSIX_C_SOURCE 200809L
#include "session_internal.h"

#include "pipeline.h"

#include "flowcut/images.h"
#include "flowcut_threads.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void seg_session_options_default(seg_session_options *o)
{
    memset(o, 0, sizeof *o);
    /* `flowcut segment`'s energy, prior included: the session's mask after
     * any edits equals `flowcut segment` on the same seeds */
    gb_params_default(&o->graph);
    mf_options_default(&o->solve);
    o->solve.cpu_algorithm = MF_CPU_AUTO;
    o->solve.cut_only = 1;
    o->refit = 1;
}

static double cold_fraction = 0.1;

void session_set_cold_fraction(double fraction) { cold_fraction = fraction; }

/* The engines whose click cuts are final (final_clicks), a bit per
 * mf_engine; benchmarks compare the two ways on an engine. */
static unsigned final_click_engines = (1u << MF_ENGINE_CPU) | (1u << MF_ENGINE_GPU);

void session_set_final_clicks(unsigned engines) { final_click_engines = engines; }

/* A click without a box moves the prior over much of the photo, so its cut
 * is cold whether the models are kept or re-fitted. That cut re-fits the
 * models and keeps no flow: the first answer is the refined one, and no
 * second cold solve follows it (seg_session_refine_pending stays 0). A
 * click's refined mask came 30-35% sooner on the GPU and 2-3 times sooner
 * on the CPU than a quick answer followed by a refined one; the first
 * mask on screen comes later on the GPU, by 40% (bench_session --clicks
 * --final-clicks, docs/benchmarks.md). */
static int final_clicks(const seg_session *s, int box, mf_engine engine)
{
    return s->click_cuts && !box && (final_click_engines >> engine & 1u);
}

/* 1 when the network's arcs depend on the seeds beyond their own pixels
 * (star convexity): a seed edit rebuilds it. */
static int seed_arcs(const seg_session *s)
{
    return s->opt.graph.star;
}

static void drop_network(seg_session *s)
{
    s->cut_valid = 0;
    s->keep_pending = 0;
    mf_dynamic_destroy(s->dyn);
    s->dyn = NULL;
    gb_models_free(s->models);
    s->models = NULL;
    gb_prior_free(s->prior);
    s->prior = NULL;
    mf_graph_free(&s->graph);
    free(s->cancelled);
    free(s->cur_cs);
    free(s->cur_ct);
    free(s->new_cs);
    free(s->new_ct);
    s->cancelled = s->cur_cs = s->cur_ct = s->new_cs = s->new_ct = NULL;
}

void seg_session_close(seg_session *s)
{
    if (!s)
        return;
    drop_network(s);
    free(s->rgb);
    free(s->labels);
    free(s->mask);
    free(s->committed);
    free(s->keep_mask);
    session_history_free(s);
    free(s);
}


static void grow_box(int32_t *b, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    if (b[0] >= b[2]) {
        b[0] = x0, b[1] = y0, b[2] = x1, b[3] = y1;
        return;
    }
    b[0] = x0 < b[0] ? x0 : b[0];
    b[1] = y0 < b[1] ? y0 : b[1];
    b[2] = x1 > b[2] ? x1 : b[2];
    b[3] = y1 > b[3] ? y1 : b[3];
}

void session_mark_dirty(seg_session *s, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    if (x0 >= x1 || y0 >= y1)
        return;
    s->models_stale = 1;
    grow_box(s->dirty, x0, y0, x1, y1);
}

void session_mark_edit(seg_session *s, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    if (x0 >= x1 || y0 >= y1)
        return;
    session_mark_dirty(s, x0, y0, x1, y1);
    grow_box(s->step, x0, y0, x1, y1);
    s->keep_on = 0;      /* a click sets its term after this */
    s->stroke_edit = 1;  /* and puts this back */
}

int seg_session_open(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels,
                     const seg_session_options *o, seg_session **out, seg_error *err)
{
    *out = NULL;
    if (!rgb || width < 1 || height < 1 || (int64_t)width * height > (INT32_MAX >> 3))
        return seg_fail(err, SEG_ERR_INVALID, "photo size %dx%d is not supported", width, height);
    seg_session *s = calloc(1, sizeof *s);
    if (!s)
        return seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    s->width = width;
    s->height = height;
    s->npx = (int64_t)width * height;
    if (o)
        s->opt = *o;
    else
        seg_session_options_default(&s->opt);
    s->opt.solve.cut_only = 1;
    s->rgb = malloc((size_t)s->npx * 3);
    s->labels = calloc((size_t)s->npx, 1);
    s->mask = calloc((size_t)s->npx, 1);
    s->committed = calloc((size_t)s->npx, 1);
    s->keep_mask = calloc((size_t)s->npx, 1);
    s->hist_limit = SEG_SESSION_HISTORY_DEFAULT;
    if (!s->rgb || !s->labels || !s->mask || !s->committed || !s->keep_mask) {
        seg_session_close(s);
        return seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    }
    memcpy(s->rgb, rgb, (size_t)s->npx * 3);
    if (labels) {
        int rc = seg_session_set_all_labels(s, labels);
        if (rc) {
            seg_session_close(s);
            return seg_fail(err, rc, "seed labels must be 0, 1 or 2");
        }
        /* the starting seeds are where undo stops */
        memcpy(s->committed, s->labels, (size_t)s->npx);
        s->step[0] = s->step[2] = 0;
    }
    *out = s;
    return SEG_OK;
}

int32_t seg_session_width(const seg_session *s) { return s->width; }
int32_t seg_session_height(const seg_session *s) { return s->height; }
const uint8_t *seg_session_mask(const seg_session *s) { return s->mask; }
const uint8_t *seg_session_labels(const seg_session *s) { return s->labels; }
const uint8_t *seg_session_rgb(const seg_session *s) { return s->rgb; }
double seg_session_lambda(const seg_session *s) { return s->opt.graph.lambda; }

/* 256 bytes a pixel: a cold CPU solve's residual network, trees and cut
 * (bench_session --alloc-cache at 3 Mpx: 768 MiB kept most of the gain,
 * twice that little more). */
size_t seg_session_cache_bytes(const seg_session *s) { return seg_memory_share((size_t)s->npx * 256); }

void seg_session_set_refit(seg_session *s, int refit) { s->opt.refit = refit != 0; }

int seg_session_models_stale(const seg_session *s) { return s->dyn && s->models_stale; }

int seg_session_refine_pending(const seg_session *s) { return s->dyn && (s->models_stale || s->keep_pending); }

int seg_session_set_lambda(seg_session *s, double lambda)
{
    if (!(lambda >= 0) || lambda > SEG_LAMBDA_MAX)
        return SEG_ERR_INVALID;
    if (lambda != s->opt.graph.lambda) {
        s->opt.graph.lambda = lambda;
        s->rebuild = 1;
    }
    return SEG_OK;
}

/* Pixel p's two terminal arcs (source side, sink side) and the
 * capacities they take for terminal capacities (cs, ct), pre-cancelled:
 * the difference on one arc, 0 on the other, min(cs, ct) routed outside
 * the arcs (the flow offset). */
typedef struct {
    int32_t arc[2], want[2], cancelled;
} pixel_arcs;

static pixel_arcs terminal_arcs(const mf_graph *g, int64_t p, int32_t cs, int32_t ct)
{
    const int32_t term = cs - ct;
    return (pixel_arcs){{g->out_start[g->source] + (int32_t)p, g->out_start[p + 1] - 1},
                        {term > 0 ? term : 0, term < 0 ? -term : 0},
                        cs < ct ? cs : ct};
}

/* Gives pixel p the terminal capacities (cs, ct) in the network for a warm
 * repair (terminal_arcs). Kohli and Torr: raising both terminal arcs by
 * the same amount changes no cut, so where the new capacities would cut
 * into the flow the arcs now carry (the CPU's state says how much), both
 * are raised until it fits and the offset lowered to match; the state
 * stays a valid preflow with no deficit to repair, and the re-solve only
 * adds flow. A cold solve, which starts from no flow, has its capacities
 * written in place instead (update_terminals). */
static int apply_terminals(seg_session *s, int64_t p, int32_t cs, int32_t ct, int64_t *changed_arcs, mf_error *e)
{
    const mf_graph *g = mf_dynamic_graph(s->dyn);
    pixel_arcs t = terminal_arcs(g, p, cs, ct);
    int32_t f_src = 0, f_snk = 0;
    if (mf_dynamic_arc_flow(s->dyn, t.arc[0], &f_src) == MF_OK &&
        mf_dynamic_arc_flow(s->dyn, t.arc[1], &f_snk) == MF_OK) {
        int32_t lift = f_src - t.want[0] > f_snk - t.want[1] ? f_src - t.want[0] : f_snk - t.want[1];
        if (lift > 0 && lift <= INT32_MAX - (t.want[0] > t.want[1] ? t.want[0] : t.want[1])) {
            t.want[0] += lift;
            t.want[1] += lift;
            t.cancelled -= lift;
        }
    }
    int rc = MF_OK;
    for (int k = 0; k < 2 && rc == MF_OK; k++)
        if (g->arc_cap[t.arc[k]] != t.want[k]) {
            rc = mf_dynamic_set_arc(s->dyn, t.arc[k], t.want[k], 0, e);
            ++*changed_arcs;
        }
    if (rc == MF_OK && t.cancelled != s->cancelled[p]) {
        mf_dynamic_add_offset(s->dyn, (int64_t)t.cancelled - s->cancelled[p]);
        s->cancelled[p] = t.cancelled;
    }
    s->cur_cs[p] = cs;
    s->cur_ct[p] = ct;
    return rc;
}

/* seg_segment's options for the session's energy and engine. */
static void segment_options(const seg_session *s, seg_options *o)
{
    seg_options_default(o);
    o->graph = s->opt.graph;
    o->solve = s->opt.solve;
}

/* The box's models for the current seeds, as the box's route fits them
 * for its last cut (seg_job_begin: the box's first samples, its cuts at
 * half size, then the fit on the last of them at full size), so that the
 * session's cut equals `flowcut segment --box` bit for bit. Only for
 * photos the route halves (seg_session_cut). */
static int fit_box_models(const seg_session *s, gb_models **m, seg_error *err)
{
    uint8_t *ml = NULL;
    int route = 0, done = 0;
    int rc = seg_model_labels(s->labels, s->width, s->height, s->net_box, &ml, &route);
    if (rc)
        return rc > 0 ? seg_fail(err, SEG_ERR_NEED_SEEDS, "%s", SEG_NO_BACKGROUND_SAMPLE)
                      : seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    seg_options o;
    segment_options(s, &o);
    seg_times times = {0};
    rc = seg_box_coarse(s->rgb, s->width, s->height, s->labels, ml, &o, &times, &done, err);
    if (!rc && !done)
        rc = seg_fail(err, SEG_ERR_INVALID, "box: photo too small for the half-size cuts");
    if (!rc && (rc = gb_models_fit(s->rgb, s->width, s->height, ml, &s->net, m)))
        rc = seg_fail(err, SEG_ERR_MODEL, "colour models: %s", gb_strerror(rc));
    free(ml);
    return rc;
}

/* Fits the models on the seeds, or where a region has none on what
 * stands in for it (seg_model_labels). On the seeds themselves the
 * prior's distances, brought to them already, spare the fit its own scan
 * (gb_models_fit_near: the same models). */
static int fit_models(const seg_session *s, gb_models **m, seg_error *err)
{
    if (s->box_net)
        return fit_box_models(s, m, err);
    uint8_t *owned = NULL;
    int box_route;
    int rc = seg_model_labels(s->labels, s->width, s->height, NULL, &owned, &box_route);
    if (rc)
        return rc > 0 ? seg_fail(err, SEG_ERR_NEED_SEEDS, "%s", SEG_NO_BACKGROUND_SAMPLE)
                      : seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    const uint8_t *ml = owned ? owned : s->labels;
    const float *df = s->prior ? gb_prior_distances(s->prior, 0) : NULL;
    const float *db = s->prior ? gb_prior_distances(s->prior, 1) : NULL;
    rc = !owned && df && db ? gb_models_fit_near(s->rgb, s->width, s->height, ml, df, db, &s->net, m)
                            : gb_models_fit(s->rgb, s->width, s->height, ml, &s->net, m);
    free(owned);
    return rc ? seg_fail(err, SEG_ERR_MODEL, "colour models: %s", gb_strerror(rc)) : SEG_OK;
}

/* The warm repair runs on one core, a cold CPU solve on every thread the
 * solve may use. Measured (bench_session --threads on 1 to 16 threads,
 * 1 and 3 Mpx, models kept): the repair beats the cold solve on one
 * thread (1.3-1.6x), is level on two, and loses from four on (0.6x at
 * 4, 0.3x at 16; docs/benchmarks.md). So past two threads a CPU
 * session solves every cut cold, from no kept state. */
#define SESSION_WARM_MAX_THREADS 2

static int warm_pays(const seg_session *s)
{
    return mf_dynamic_engine(s->dyn) != MF_ENGINE_CPU || mf_threads(s->opt.solve.threads) <= SESSION_WARM_MAX_THREADS;
}

/* Builds the network from scratch and creates its solver (a cold solve). */
static int build_fresh(seg_session *s, seg_error *err)
{
    drop_network(s);
    int rc;
    /* the prior's distances for these seeds first: the fit reads them, and
     * later cuts update them */
    if (!seed_arcs(s) && ((rc = gb_prior_new(s->rgb, s->width, s->height, &s->net, &s->prior)) ||
                          (rc = gb_prior_update(s->prior, s->labels, NULL))))
        return seg_fail(err, rc == GB_ERR_NOMEM ? SEG_ERR_NOMEM : SEG_ERR_MODEL, "prior: %s", gb_strerror(rc));
    if ((rc = fit_models(s, &s->models, err)))
        return rc;
    size_t n = (size_t)s->npx;
    s->cancelled = malloc(sizeof(int32_t) * n);
    s->cur_cs = malloc(sizeof(int32_t) * n);
    s->cur_ct = malloc(sizeof(int32_t) * n);
    s->new_cs = malloc(sizeof(int32_t) * n);
    s->new_ct = malloc(sizeof(int32_t) * n);
    if (!s->cancelled || !s->cur_cs || !s->cur_ct || !s->new_cs || !s->new_ct)
        return seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    /* the prior's distances are these seeds' already: not computed again */
    const float *df = s->prior ? gb_prior_distances(s->prior, 0) : NULL;
    const float *db = s->prior ? gb_prior_distances(s->prior, 1) : NULL;
    rc = gb_build_dynamic(s->rgb, s->width, s->height, s->labels, df, db, s->models, &s->net, &s->graph, s->cancelled,
                          &s->seed_cap);
    if (rc)
        return seg_fail(err, rc == GB_ERR_NOMEM ? SEG_ERR_NOMEM : SEG_ERR_MODEL, "network: %s", gb_strerror(rc));
    const mf_graph *g = &s->graph;
    for (int64_t p = 0; p < s->npx; p++) { /* what the network holds, before pre-cancelling */
        s->cur_cs[p] = g->arc_cap[g->out_start[g->source] + p] + s->cancelled[p];
        s->cur_ct[p] = g->arc_cap[g->out_start[p + 1] - 1] + s->cancelled[p];
    }
    mf_error e = {0};
    rc = mf_dynamic_adopt(&s->graph, &s->opt.solve, &s->dyn, &e); /* the solver takes the arrays */
    if (rc)
        return seg_fail(err, SEG_ERR_SOLVE, "solver: %s", e.message);
    /* The quick cuts to come (refit off) repair a kept flow. On the GPU the
     * first solve keeps it. On the CPU keeping it costs a cold solve about
     * twice as much again (3 Mpx: the box's answer in the page took 3.1 to
     * 4.1 s instead of 2.1 to 2.4; docs/benchmarks.md), so the first
     * answer is cut-only and the next cut keeps the flow: a refined one
     * (seg_session_refine_pending, which the web UI sends while the user
     * looks at the answer) or else the next quick one. */
    const int keep = !s->opt.refit && warm_pays(s) && cold_fraction > 0 &&
                     !final_clicks(s, s->box_net, mf_dynamic_engine(s->dyn));
    const int defer = keep && mf_dynamic_engine(s->dyn) == MF_ENGINE_CPU;
    mf_dynamic_set_cold_fraction(s->dyn, keep && !defer ? cold_fraction : 0);
    s->keep_pending = defer;
    /* a prior edit changes the terminals of a few to some tens of percent
     * of the pixels; the local repair settles those in a fifth to a half
     * of the paths' time (docs/benchmarks.md), so paths only past half */
    mf_dynamic_set_paths_fraction(s->dyn, 0.5);
    s->rebuild = 0;
    s->models_stale = 0;
    return SEG_OK;
}

/* Terminal changes of more than this fraction of the pixels are solved
 * cold: an edit that moves that much of the prior (a stroke across the
 * cut) made the warm repair take several times what it takes for a few
 * percent, up to three times a cold solve, where a cold one costs the
 * same for any edit (docs/benchmarks.md). */
#define SESSION_WARM_PIXELS 0.12

/* The cold fraction of mf_dynamic (of the network's arcs) that stands for
 * SESSION_WARM_PIXELS: a pixel's change rewrites one or two terminal arcs. */
static double warm_fraction(const seg_session *s)
{
    const mf_graph *g = mf_dynamic_graph(s->dyn);
    return g->num_arcs > 0 ? SESSION_WARM_PIXELS * (double)s->npx / (double)g->num_arcs : 0;
}

/* Re-fits the models when the seeds changed; *all set when they differ
 * (every pixel's terminals change). */
static int refit(seg_session *s, int *all, seg_error *err)
{
    gb_models *m = NULL;
    int rc = fit_models(s, &m, err);
    if (rc)
        return rc;
    if (!gb_models_equal(m, s->models)) {
        gb_models_free(s->models);
        s->models = m;
        *all = 1;
    } else {
        gb_models_free(m);
    }
    s->models_stale = 0;
    return SEG_OK;
}

/* New models' terminals written into the network in place, rows [y0, y1)
 * (update_terminals): on the session's threads, as every pixel's two arcs
 * are its own (at 12 Mpx a pass of 0.05-0.07 s on one core). A first pass
 * (g NULL) only counts the pixels that change. */
typedef struct write_in {
    seg_session *s;
    mf_graph *g;
    _Atomic int64_t pixels, arcs, offset; /* integers: the same sums in any order */
} write_in;

static void write_rows(void *arg, int32_t y0, int32_t y1)
{
    write_in *w = arg;
    seg_session *s = w->s;
    int64_t pixels = 0, arcs = 0, offset = 0;
    for (int64_t p = (int64_t)y0 * s->width; p < (int64_t)y1 * s->width; p++) {
        const int32_t cs = s->new_cs[p], ct = s->new_ct[p];
        if (cs == s->cur_cs[p] && ct == s->cur_ct[p])
            continue;
        pixels++;
        if (!w->g)
            continue;
        const pixel_arcs t = terminal_arcs(w->g, p, cs, ct);
        for (int k = 0; k < 2; k++)
            if (w->g->arc_cap[t.arc[k]] != t.want[k]) {
                w->g->arc_cap[t.arc[k]] = t.want[k];
                w->g->arc_rcap[t.arc[k]] = 0;
                arcs++;
            }
        offset += (int64_t)t.cancelled - s->cancelled[p];
        s->cancelled[p] = t.cancelled;
        s->cur_cs[p] = cs;
        s->cur_ct[p] = ct;
    }
    w->pixels += pixels;
    w->arcs += arcs;
    w->offset += offset;
}

/* New terminal capacities for the seeds: every pixel's when all is set
 * (new models), else those of the pixels whose seeds or prior distances
 * changed since the last cut (gb_prior_update: the distances updated where
 * they move, exactly as a fresh build computes them). Only pixels whose
 * capacities differ from the network's are touched. */
static int update_terminals(seg_session *s, int all, const int32_t *span, seg_cut_stats *st, seg_error *err)
{
    if (!s->prior)
        return SEG_OK; /* star convexity: an edit rebuilds */
    mf_error e = {0};
    /* the capacities on every thread, then the changes in pixel order */
    gb_prior_span_terminals(s->prior, all ? NULL : span, s->models, s->seed_cap, s->new_cs, s->new_ct);
    if (all) {
        /* new models: every pixel's terminals, and the solve is cold (a
         * repair would redo the whole flow piecemeal), so they are written
         * into the network in place (terminal_arcs, no lift: a cold
         * solve starts from no flow), not recorded as changes one by one */
        const int threads = mf_threads(s->opt.graph.threads);
        write_in w = {s, NULL, 0, 0, 0};
        mf_parallel_for(threads, s->height, 1, write_rows, &w); /* what changes */
        if (!w.pixels)
            return SEG_OK; /* the network stands as it is, and its kept flow with it */
        w.g = mf_dynamic_edit_cold(s->dyn);
        w.pixels = 0;
        mf_parallel_for(threads, s->height, 1, write_rows, &w);
        w.g->flow_offset += w.offset;
        st->changed_pixels += w.pixels;
        st->changed_arcs += w.arcs;
        return SEG_OK;
    }
    for (int32_t y = 0; y < s->height; y++) {
        for (int64_t p = (int64_t)y * s->width + span[2 * y]; p < (int64_t)y * s->width + span[2 * y + 1]; p++) {
            const int32_t cs = s->new_cs[p], ct = s->new_ct[p];
            if (cs == s->cur_cs[p] && ct == s->cur_ct[p])
                continue;
            st->changed_pixels++;
            if (apply_terminals(s, p, cs, ct, &st->changed_arcs, &e))
                return seg_fail(err, SEG_ERR_SOLVE, "solver: %s", e.message);
        }
    }
    return SEG_OK;
}

/* While a box stands on a photo too small for the route's half-size cuts
 * (SEG_BOX_COARSE_MIN_SIDE): the one-shot pipeline's box route (`flowcut
 * segment --box`: the box's middle as the foreground's first sample,
 * re-fitted on the cuts at full size, the session's seeds hard
 * constraints), a cold cut every time; the network is rebuilt at the
 * first cut after the box is undone. Larger photos keep the route's last
 * network (seg_session_cut). */
static int cut_box(seg_session *s, seg_cut_stats *st, double t0, seg_error *err)
{
    seg_options o;
    segment_options(s, &o);
    seg_prompts *p = seg_prompts_new();
    if (!p)
        return seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    int rc = seg_prompts_set_box(p, s->box[0], s->box[1], s->box[2], s->box[3], err);
    o.prompts = p;
    seg_info info;
    if (!rc)
        rc = seg_segment(s->rgb, s->width, s->height, s->labels, 1, &o, s->mask, &info, err);
    seg_prompts_free(p);
    if (rc)
        return rc;
    drop_network(s);
    st->foreground = info.foreground;
    st->flow = info.flow;
    st->engine = info.engine;
    st->model_seconds = info.model_seconds;
    st->update_seconds = info.build_seconds;
    st->solve_seconds = info.solve_seconds;
    st->changed_pixels = s->npx;
    snprintf(st->device, sizeof st->device, "%s", info.device);
    st->total_seconds = seg_now() - t0;
    return SEG_OK;
}

/* Whether the last box is still in the seeds (everything outside it
 * background): an undo may have taken it back, and its route must not
 * outlive it. */
static int box_stands(const seg_session *s)
{
    const int64_t bx1 = (int64_t)s->box[0] + s->box[2], by1 = (int64_t)s->box[1] + s->box[3];
    for (int32_t y = 0; y < s->height; y++)
        for (int32_t x = 0; x < s->width; x++)
            if ((x < s->box[0] || x >= bx1 || y < s->box[1] || y >= by1) &&
                s->labels[(int64_t)y * s->width + x] != GB_BACKGROUND)
                return 0; /* undone (a redo may bring it back) or painted over */
    return 1;
}

int seg_session_get_box(const seg_session *s, int32_t box[4])
{
    if (!s || !s->has_box || !box_stands(s))
        return 0;
    memcpy(box, s->box, sizeof s->box);
    return 1;
}

int seg_session_cut(seg_session *s, seg_cut_stats *st, seg_error *err)
{
    seg_cut_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    double t0 = seg_now();
    int64_t nfg = s->count[GB_FOREGROUND], nbg = s->count[GB_BACKGROUND];
    const int box = s->has_box && nbg && box_stands(s);
    if (box && (s->width < SEG_BOX_COARSE_MIN_SIDE || s->height < SEG_BOX_COARSE_MIN_SIDE))
        return cut_box(s, st, t0, err); /* a small photo: every cut the whole route, cold */
    /* While a box stands the network is its route's last cut (no prior,
     * the box's share of lambda, models from the route: fit_box_models),
     * so that a quick cut after a click keeps those models and changes the
     * click's pixels alone, re-solved warm, and a refined one re-runs the
     * route as `flowcut segment --box` does. A box drawn, moved or undone
     * changes the energy: the network is built afresh. */
    if (box != s->box_net || (box && memcmp(s->net_box, s->box, sizeof s->box)))
        s->rebuild = 1;
    if (!box && (!nfg || (!nbg && s->opt.graph.border < 0))) { /* a box stands in for both */
        memset(s->mask, 0, (size_t)s->npx);
        s->cut_valid = 0;
        return seg_fail(err, SEG_ERR_NEED_SEEDS, "%s",
                        !nfg ? "no foreground seed yet: click on the object or paint a foreground stroke"
                             : "no background seed yet: paint a background stroke (the border is off)");
    }
    int rc, unchanged = 0;
    mf_error e = {0};
    if (s->dirty[0] < s->dirty[2]) { /* edits since the last cut */
        s->click_cuts = !s->stroke_edit;
        if (seed_arcs(s))
            s->rebuild = 1; /* new seeds move the star's arcs */
    }
    if (!s->dyn || s->rebuild) {
        s->box_net = box;
        memcpy(s->net_box, s->box, sizeof s->box);
        if (box)
            seg_box_params(&s->opt.graph, &s->net);
        else
            s->net = s->opt.graph;
        session_keep_params(s, box, &s->net);
        rc = build_fresh(s, err);
        if (rc) {
            drop_network(s);
            return rc;
        }
        st->update_seconds = seg_now() - t0;
        st->changed_pixels = s->npx;
    } else {
        int all = 0;
        /* the prior's distances first: the re-fit reads them */
        const int32_t *span = NULL;
        session_keep_params(s, box, &s->net);
        if (s->prior && ((rc = gb_prior_set_previous(s->prior, s->net.previous, s->net.keep_x, s->net.keep_y)) ||
                         (rc = gb_prior_update(s->prior, s->labels, &span)))) {
            drop_network(s); /* the distances are part-updated: the next cut starts afresh */
            return seg_fail(err, rc == GB_ERR_NOMEM ? SEG_ERR_NOMEM : SEG_ERR_MODEL, "prior: %s", gb_strerror(rc));
        }
        double tp = seg_now();
        const int final = final_clicks(s, box, mf_dynamic_engine(s->dyn));
        if ((s->opt.refit || final) && s->models_stale && (rc = refit(s, &all, err))) {
            drop_network(s); /* the distances moved past the terminals: the next cut starts afresh */
            return rc;
        }
        double t1 = seg_now();
        st->model_seconds = t1 - tp;
        st->refitted = all;
        if ((rc = update_terminals(s, all, span, st, err))) {
            drop_network(s); /* the network is part-updated: the next cut starts afresh */
            return rc;
        }
        /* new models change every pixel's terminals: a repair would redo
         * the whole flow piecemeal, so the solve is cold in place. It keeps
         * its flow for a warm re-solve only after a quick cut (models
         * kept), the pattern of a quick answer refined by a re-fit, where
         * the next quick cut re-solves warm; keeping it costs the cold
         * solve about as much again, wasted on re-fits alone. An edit's
         * own pixels and the prior's moved distances are repaired warm. */
        double fraction = cold_fraction;
        if (!warm_pays(s))
            fraction = 0;
        else if (all)
            fraction = s->last_quick && cold_fraction > 0 ? 1e-12 : 0;
        else if (cold_fraction > 0 && cold_fraction < 1)
            fraction = warm_fraction(s);
        /* a refined cut keeps the flow the first answer did not */
        if (s->keep_pending && s->opt.refit && fraction <= 0)
            fraction = 1e-12;
        /* a final click cut keeps no flow: the next click's cut is cold as
         * well, and keeping it costs a cold solve on the CPU half as much
         * again as a cut-only one (bench_session --clicks) */
        if (final) {
            fraction = 0;
            s->keep_pending = 0;
        }
        mf_dynamic_set_cold_fraction(s->dyn, fraction);
        st->update_seconds = (tp - t0) + (seg_now() - t1);
        unchanged = s->cut_valid && !st->changed_pixels && !(s->keep_pending && s->opt.refit);
        if (fraction > 0)
            s->keep_pending = 0; /* this solve keeps its flow */
    }
    /* no capacity moved since the last cut (a refine whose models came out
     * the same, an undone edit redone): the same network, the same canonical
     * cut, and a solve would only disturb the kept flow */
    st->warm = 1;
    if (!unchanged) {
        double t2 = seg_now();
        s->cut_valid = 0;
        mf_result res;
        rc = mf_dynamic_solve(s->dyn, &res, &e);
        if (rc) {
            drop_network(s); /* the next cut starts afresh */
            return seg_fail(err, SEG_ERR_SOLVE, "solve: %s", e.message);
        }
        st->solve_seconds = seg_now() - t2;
        /* source_side holds 0 or 1: branch-free loops the compiler vectorises */
        const uint8_t *side = res.source_side;
        int64_t fg = 0;
        for (int64_t i = 0; i < s->npx; i++)
            s->mask[i] = (uint8_t)(0u - side[i]);
        for (int64_t i = 0; i < s->npx; i++)
            fg += side[i];
        s->last_flow = res.flow_value;
        s->last_fg = fg;
        snprintf(s->last_device, sizeof s->last_device, "%s", res.stats.device_name);
        s->cut_valid = 1;
        st->warm = res.stats.warm;
        if (!st->changed_arcs)
            st->changed_arcs = res.stats.changed_arcs;
        mf_result_free(&res);
    }
    s->dirty[0] = s->dirty[2] = 0;
    s->stroke_edit = 0;
    s->last_quick = !s->opt.refit;
    st->flow = s->last_flow;
    st->foreground = s->last_fg;
    st->engine = mf_dynamic_engine(s->dyn);
    snprintf(st->device, sizeof st->device, "%s", s->last_device);
    st->total_seconds = seg_now() - t0;
    return SEG_OK;
}

