/* Warm re-solve after capacity changes: the persistent solver object.
 * The CPU state is the push-relabel engine's residual graph and excess;
 * the GPU state stays on the device (gpu_engine.cu). Both repair the
 * preflow the same way (see maxflow.h). */
#include "cpu/cpu_engines.h"

#include <stdlib.h>
#include <string.h>

#define CHANGE_FIELDS 5 /* arc, tail, head, cap, rcap */

/* Warm re-solves that changed at least this fraction of the vertices'
 * arcs route the new flow by paths (warm_by_paths) unless the caller says
 * otherwise (mf_dynamic_set_paths_fraction); fewer changes are repaired
 * locally by push-relabel. On update batches of DIMACS networks paths win
 * from a few percent of the vertices (bench_dynamic: a 1 Mpx grid's 5-10%
 * increases re-solve in half the time of the local repair). */
#define PATHS_CHANGED_FRACTION 0.02

struct mf_dynamic {
    mf_graph g;            /* current capacities */
    mf_options opt;
    int engine;            /* MF_ENGINE_CPU or MF_ENGINE_GPU */
    int fell_back;         /* auto chose the GPU, which could not hold g */
    int solved;            /* a maximum preflow of g exists in the state */
    int loaded;            /* GPU: the device holds g at zero flow */
    int on_device;         /* GPU: the device holds g's arcs (a load succeeded) */
    double cold_fraction;
    double paths_fraction; /* mf_dynamic_set_paths_fraction */
    int64_t last_value;    /* engine value of the last solve (flow_offset excluded) */
    /* pending changes, in order */
    int32_t *pending;      /* CHANGE_FIELDS per change */
    int64_t npending, pending_cap;
    int64_t nbatch;        /* entries in batch */
    int32_t *last;         /* per arc: index of its latest pending change, or -1 */
    int32_t *batch;        /* the batch, one entry per arc (GPU upload) */
    mf_pr pr;              /* CPU state */
    int pr_ready;
    mf_gpu_solver *gpu;
};

void mf_dynamic_destroy(mf_dynamic *d)
{
    if (!d)
        return;
    if (d->pr_ready)
        mf_pr_free(&d->pr);
    mf_gpu_solver_destroy(d->gpu);
    mf_graph_free(&d->g);
    free(d->pending);
    free(d->last);
    free(d->batch);
    free(d);
}

/* A solver without its graph yet: the options and the tuning defaults. */
static mf_dynamic *dynamic_alloc(const mf_options *opt)
{
    mf_dynamic *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if (opt)
        d->opt = *opt;
    else
        mf_options_default(&d->opt);
    d->cold_fraction = 0.5;
    d->paths_fraction = PATHS_CHANGED_FRACTION;
    return d;
}

/* The rest of a solver whose d->g is in place: the change index and the
 * engine (the device loaded with the graph). Destroys d on failure. */
static int dynamic_start(mf_dynamic *d, mf_dynamic **out, mf_error *err)
{
    int rc;
    d->last = malloc(sizeof(int32_t) * ((size_t)d->g.num_arcs + 1));
    if (!d->last) {
        mf_dynamic_destroy(d);
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    }
    for (int32_t a = 0; a < d->g.num_arcs; a++)
        d->last[a] = -1;
    d->engine = MF_ENGINE_CPU;
    mf_engine engine;
    rc = mf_engine_pick(&d->opt, &engine, NULL, err);
    if (rc == MF_OK && engine == MF_ENGINE_GPU) {
        rc = mf_gpu_solver_create(d->opt.device, &d->gpu, err);
        if (rc == MF_OK)
            rc = mf_gpu_dyn_load(d->gpu, &d->g, err);
        if (rc == MF_OK) {
            d->engine = MF_ENGINE_GPU;
            d->loaded = d->on_device = 1;
        } else if (mf_engine_falls_back(&d->opt, rc)) {
            mf_gpu_solver_destroy(d->gpu); /* too large for the device: the CPU */
            d->gpu = NULL;
            d->fell_back = 1;
            rc = MF_OK;
        }
    }
    if (rc) {
        mf_dynamic_destroy(d);
        return rc;
    }
    *out = d;
    return MF_OK;
}

static int dynamic_graph_ok(const mf_graph *g)
{
    return g && g->num_vertices >= 2 && g->source != g->sink;
}

int mf_dynamic_create(const mf_graph *g, const mf_options *opt, mf_dynamic **out, mf_error *err)
{
    *out = NULL;
    if (!dynamic_graph_ok(g))
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "dynamic solver: invalid graph");
    mf_dynamic *d = dynamic_alloc(opt);
    if (!d || mf_graph_copy(g, &d->g)) {
        mf_dynamic_destroy(d);
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    }
    return dynamic_start(d, out, err);
}

int mf_dynamic_adopt(mf_graph *g, const mf_options *opt, mf_dynamic **out, mf_error *err)
{
    *out = NULL;
    if (!g)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "dynamic solver: invalid graph");
    const int ok = dynamic_graph_ok(g);
    mf_dynamic *d = ok ? dynamic_alloc(opt) : NULL;
    if (!d) {
        mf_graph_free(g);
        return ok ? mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory")
                  : mf_fail(err, MF_ERR_INVALID, NULL, 0, "dynamic solver: invalid graph");
    }
    d->g = *g; /* the arrays move: no copy of the largest part of the state */
    memset(g, 0, sizeof *g);
    return dynamic_start(d, out, err);
}

int mf_dynamic_set_arc(mf_dynamic *d, int32_t a, int32_t cap, int32_t rcap, mf_error *err)
{
    if (a < 0 || a >= d->g.num_arcs)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "arc %d does not exist (%d arcs)", a + 1,
                       d->g.num_arcs);
    if (cap < 0 || rcap < 0 || (int64_t)cap + rcap > INT32_MAX)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0,
                       "capacities %d and %d of arc %d: each must be >= 0 and their sum at most %d",
                       cap, rcap, a + 1, INT32_MAX);
    if (d->npending == d->pending_cap) {
        int64_t cap2 = d->pending_cap ? 2 * d->pending_cap : 1024;
        if (cap2 > (INT32_MAX / CHANGE_FIELDS))
            return mf_fail(err, MF_ERR_TOO_LARGE, NULL, 0, "too many pending changes");
        int32_t *p = realloc(d->pending, sizeof(int32_t) * CHANGE_FIELDS * (size_t)cap2);
        if (!p)
            return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
        d->pending = p;
        d->pending_cap = cap2;
    }
    int32_t *c = d->pending + CHANGE_FIELDS * d->npending;
    c[0] = a;
    c[1] = -1; /* tail: found when the batch is applied */
    c[2] = d->g.arc_head[a];
    c[3] = cap;
    c[4] = rcap;
    d->last[a] = (int32_t)d->npending++;
    return MF_OK;
}

int mf_dynamic_set_input_arc(mf_dynamic *d, int32_t i, int32_t cap, mf_error *err)
{
    const mf_graph *g = &d->g;
    if (!g->input_map || i < 0 || i >= g->num_input_arcs)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "input arc %d does not exist (%d arcs)", i + 1,
                       g->input_map ? g->num_input_arcs : 0);
    if (g->input_map[i] < 0)
        return MF_OK; /* a self-loop: it was dropped and carries nothing */
    int32_t a = g->input_map[i] >> 1;
    /* the latest value of the other direction, pending changes included */
    int32_t c = g->arc_cap[a], rc = g->arc_rcap[a];
    if (d->last[a] >= 0) {
        c = d->pending[CHANGE_FIELDS * (int64_t)d->last[a] + 3];
        rc = d->pending[CHANGE_FIELDS * (int64_t)d->last[a] + 4];
    }
    int against = g->input_map[i] & 1;
    return against ? mf_dynamic_set_arc(d, a, c, cap, err) : mf_dynamic_set_arc(d, a, cap, rc, err);
}

void mf_dynamic_add_offset(mf_dynamic *d, int64_t delta) { d->g.flow_offset += delta; }

void mf_dynamic_set_cold_fraction(mf_dynamic *d, double fraction) { d->cold_fraction = fraction; }

const mf_graph *mf_dynamic_graph(const mf_dynamic *d) { return &d->g; }

int mf_dynamic_engine(const mf_dynamic *d) { return d->engine; }

/* Keeps the latest change of every arc (in arc order of first appearance)
 * in d->batch and writes the new capacities into d->g. Returns the count. */
static int64_t collect_batch(mf_dynamic *d, int *oom)
{
    *oom = 0;
    d->nbatch = 0; /* the last solve's batch is spent */
    if (!d->npending)
        return 0;
    free(d->batch);
    d->batch = malloc(sizeof(int32_t) * CHANGE_FIELDS * (size_t)d->npending);
    if (!d->batch) {
        *oom = 1;
        return 0;
    }
    for (int64_t k = 0; k < d->npending; k++)
        d->last[d->pending[CHANGE_FIELDS * k]] = (int32_t)k;
    int64_t count = 0;
    for (int64_t k = 0; k < d->npending; k++) {
        const int32_t *c = d->pending + CHANGE_FIELDS * k;
        if (d->last[c[0]] != k)
            continue; /* a later change of the same arc wins */
        int32_t *b = d->batch + CHANGE_FIELDS * count++;
        memcpy(b, c, sizeof(int32_t) * CHANGE_FIELDS);
        /* tails are found where a warm repair needs them: the GPU finds
         * them itself (2.4 M binary searches cost the host about a second
         * at 16 Mpx), the CPU once the solve is known to be warm
         * (mf_dynamic_solve), not for a cold one */
        b[1] = -1;
    }
    for (int64_t k = 0; k < d->npending; k++)
        d->last[d->pending[CHANGE_FIELDS * k]] = -1;
    d->npending = 0;
    d->nbatch = count;
    return count;
}

/* The pending changes written straight into the graph, in order (a later
 * change of an arc overwrites an earlier one, as in collect_batch), for a
 * solve that is cold whatever the batch: it needs the capacities alone,
 * not the batch's copy and de-duplication, which for a re-fit's change of
 * every terminal arc cost the host about a tenth of a second at 12 Mpx.
 * Returns the number of arcs changed. */
static int64_t apply_pending(mf_dynamic *d)
{
    int64_t arcs = 0;
    for (int64_t k = 0; k < d->npending; k++) {
        const int32_t *c = d->pending + CHANGE_FIELDS * k;
        d->g.arc_cap[c[0]] = c[3];
        d->g.arc_rcap[c[0]] = c[4];
        if (d->last[c[0]] == k) { /* the arc's last change (mf_dynamic_set_arc) */
            d->last[c[0]] = -1;
            arcs++;
        }
    }
    if (d->npending)
        d->loaded = 0; /* the device holds the old capacities */
    d->npending = 0;
    d->nbatch = 0; /* the last solve's batch is spent */
    return arcs;
}

mf_graph *mf_dynamic_edit_cold(mf_dynamic *d)
{
    apply_pending(d);
    d->solved = 0; /* no state of these capacities: the next solve is cold */
    d->loaded = 0; /* and the device's capacities go up again */
    return &d->g;
}

void mf_dynamic_set_paths_fraction(mf_dynamic *d, double fraction)
{
    d->paths_fraction = fraction;
}

/* A batch that cuts off more than half of the flow undoes most of the
 * previous solve: repairing it costs more than solving afresh (on genrmf
 * networks whose decreased arcs leave the source, the repair can take
 * orders of magnitude longer than a cold solve; a stroke edit of a photo
 * cuts off a few percent). */
#define COLD_REMOVED_FRACTION 0.5

static int too_much_removed(const mf_dynamic *d, int64_t removed)
{
    return d->cold_fraction < 2.0 && removed > 0 && (double)removed > COLD_REMOVED_FRACTION * (double)(d->last_value > 0 ? d->last_value : 0);
}

/* Applies one change to the CPU residual graph: the flow is clamped into
 * the new bounds and what no longer fits stays as excess at one end and
 * deficit at the other. */
static int64_t cpu_apply(mf_dynamic *d, const int32_t *c)
{
    mf_pr *e = &d->pr;
    const mf_graph *g = &d->g;
    int32_t a = c[0], u = c[1], v = c[2], cap = c[3], rcap = c[4];
    int32_t pos = mf_residual_forward(&e->resid, g, u, a);
    int32_t q = e->arcs[pos].sister;
    int32_t f = g->arc_cap[a] - e->arcs[pos].res; /* g still has the old cap */
    int32_t f2 = f > cap ? cap : f < -rcap ? -rcap : f;
    e->excess[u] += (int64_t)f - f2;
    e->excess[v] -= (int64_t)f - f2;
    e->arcs[pos].res = cap - f2;
    e->arcs[pos].rres = rcap + f2;
    e->arcs[q].res = rcap + f2;
    e->arcs[q].rres = cap - f2;
    return f > f2 ? (int64_t)f - f2 : (int64_t)f2 - f;
}

/* An arc's tail without a binary search where the vertices before the
 * source have about equal out-degrees (a pixel network, whose terminal
 * arcs are the bulk of an edit's changes): the source's own arcs, and the
 * others from a proportional guess walked a few vertices; otherwise the
 * binary search. */
static int32_t arc_tail(const mf_graph *g, int32_t a)
{
    const int32_t s = g->source, before = g->out_start[s];
    if (a >= before && a < g->out_start[s + 1])
        return s;
    if (a < before && s > 0 && g->out_start[0] == 0) {
        int32_t u = (int32_t)((int64_t)a * s / before);
        for (int step = 0; step < 8; step++) {
            if (g->out_start[u] > a)
                u--;
            else if (g->out_start[u + 1] <= a)
                u++;
            else
                return u;
        }
    }
    return mf_arc_tail(g, a);
}

/* The push-relabel state at zero flow on g's capacities, in the arrays it
 * already has: a cold solve that keeps its flow for warm re-solves need
 * not allocate (and have the kernel clear) the residual network again. */
static void cpu_reset(mf_dynamic *d)
{
    mf_pr *e = &d->pr;
    const mf_graph *g = &d->g;
    for (int32_t u = 0; u < g->num_vertices; u++) {
        e->excess[u] = 0;
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            mf_rarc *f = &e->arcs[mf_residual_forward(&e->resid, g, u, a)], *r = &e->arcs[f->sister];
            f->res = r->rres = g->arc_cap[a];
            f->rres = r->res = g->arc_rcap[a];
        }
    }
}

/* Loads the flows of a finished solve into a fresh push-relabel state. */
static void cpu_load_flows(mf_dynamic *d, const int32_t *flow)
{
    mf_pr *e = &d->pr;
    const mf_graph *g = &d->g;
    for (int32_t u = 0; u < g->num_vertices; u++)
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t pos = mf_residual_forward(&e->resid, g, u, a);
            if (flow[a]) {
                mf_rarc_push(e->arcs, pos, flow[a]);
                e->excess[u] -= flow[a];
                e->excess[g->arc_head[a]] += flow[a];
            }
        }
}

/* Writes the value, cut and (unless cut_only) flows of the CPU state. */
static int cpu_result(mf_dynamic *d, int64_t value, mf_result *res)
{
    mf_pr *e = &d->pr;
    const mf_graph *g = &d->g;
    int rc = mf_result_alloc(res, g, !d->opt.cut_only);
    if (rc)
        return rc;
    res->flow_value = value;
    if (res->flow)
        for (int32_t u = 0; u < g->num_vertices; u++)
            for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++)
                res->flow[a] = g->arc_cap[a] - e->arcs[mf_residual_forward(&e->resid, g, u, a)].res;
    memset(res->source_side, 1, (size_t)g->num_vertices);
    res->source_side[g->sink] = 0;
    e->queue[0] = g->sink;
    mf_residual_cut(&e->resid, e->queue, 1, -1, res->source_side);
    return MF_OK;
}

int mf_dynamic_arc_flow(const mf_dynamic *d, int32_t a, int32_t *flow)
{
    *flow = 0;
    if (!d || a < 0 || a >= d->g.num_arcs || d->engine != MF_ENGINE_CPU)
        return MF_ERR_INVALID;
    if (!d->solved || !d->pr_ready)
        return MF_OK; /* nothing solved yet: no flow */
    const mf_pr *e = &d->pr;
    int32_t u = arc_tail(&d->g, a);
    *flow = d->g.arc_cap[a] - e->arcs[mf_residual_forward(&e->resid, &d->g, u, a)].res;
    return MF_OK;
}

/* A warm re-solve by augmenting paths: BK (or the CPU engine auto picks)
 * solves the residual network of the current preflow, each inner vertex's
 * excess offered back through its source arc, and its flow is added to the
 * state. The preflow stays a maximum one and its residual the same, so
 * the canonical cut is the cold solve's. Where many terminal arcs changed
 * (a photo's re-fitted models or prior), routing the new flow by paths
 * beats push-relabel's repair, which spreads it by local pushes.
 * Needs a valid preflow (no deficit) and a source arc for every vertex
 * with excess; returns 1 (not done, state untouched) otherwise. */
/* Whether arc a (tail u) is the source arc through which its head's excess
 * is offered (src_arc[v]: v's first source arc, for inner vertices with
 * excess when the solve starts; -1 for the others). */
static int offers_excess(const mf_graph *g, const int32_t *src_arc, int32_t u, int32_t a)
{
    return u == g->source && src_arc[g->arc_head[a]] == a;
}

static int warm_by_paths(mf_dynamic *d, mf_result *res, mf_error *err)
{
    mf_pr *e = &d->pr;
    mf_graph *g = &d->g;
    const int32_t s = g->source, t = g->sink, n = g->num_vertices;
    int32_t *src_arc = malloc(sizeof(int32_t) * (size_t)n);
    mf_graph r = *g;
    r.arc_cap = malloc(sizeof(int32_t) * (size_t)g->num_arcs);
    r.arc_rcap = malloc(sizeof(int32_t) * (size_t)g->num_arcs);
    r.input_map = NULL;
    r.flow_offset = 0;
    int usable = src_arc && r.arc_cap && r.arc_rcap;
    if (usable) {
        for (int32_t v = 0; v < n; v++)
            src_arc[v] = -1;
        for (int32_t a = g->out_start[s]; a < g->out_start[s + 1]; a++)
            src_arc[g->arc_head[a]] = a;
        for (int32_t v = 0; v < n && usable; v++) {
            if (v == s || v == t || e->excess[v] == 0)
                src_arc[v] = -1; /* nothing to offer */
            else
                usable = e->excess[v] > 0 && src_arc[v] >= 0;
        }
    }
    for (int32_t u = 0; u < n && usable; u++)
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            const mf_rarc *ra = &e->arcs[mf_residual_forward(&e->resid, g, u, a)];
            int64_t extra = offers_excess(g, src_arc, u, a) ? e->excess[g->arc_head[a]] : 0;
            if ((int64_t)ra->res + extra + ra->rres > INT32_MAX) {
                usable = 0; /* an excess too large to offer on its arc */
                break;
            }
            r.arc_cap[a] = ra->res + (int32_t)extra;
            r.arc_rcap[a] = ra->rres;
        }
    if (!usable) {
        free(src_arc);
        free(r.arc_cap);
        free(r.arc_rcap);
        return 1;
    }
    mf_options o = d->opt;
    o.cut_only = 0;
    mf_result more;
    int rc = mf_solve_cpu(&r, &o, &more, err);
    if (rc) {
        free(src_arc);
        free(r.arc_cap);
        free(r.arc_rcap);
        return rc;
    }
    for (int32_t u = 0; u < n; u++)
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t f = more.flow[a];
            if (!f)
                continue;
            int32_t pos = mf_residual_forward(&e->resid, g, u, a), v = g->arc_head[a];
            if (f > e->arcs[pos].res && offers_excess(g, src_arc, u, a))
                f = e->arcs[pos].res; /* the rest came from v's excess: v keeps less */
            mf_rarc_push(e->arcs, pos, f);
            e->excess[u] -= f;
            e->excess[v] += f;
        }
    res->stats = more.stats;
    mf_result_free(&more);
    free(src_arc);
    free(r.arc_cap);
    free(r.arc_rcap);
    rc = cpu_result(d, e->excess[t] + g->flow_offset, res);
    if (rc)
        return mf_fail(err, rc, NULL, 0, "out of memory");
    return MF_OK;
}


static int cpu_solve(mf_dynamic *d, int64_t nbatch, int *cold_io, mf_result *res, mf_error *err)
{
    int cold = *cold_io;
    mf_graph *g = &d->g;
    const int32_t s = g->source, t = g->sink;
    int rc;
    double t0 = mf_now();
    int64_t deficits = 0, removed = 0;
    if (!cold) {
        for (int64_t k = 0; k < nbatch; k++) {
            const int32_t *c = d->batch + CHANGE_FIELDS * k;
            removed += cpu_apply(d, c);
            g->arc_cap[c[0]] = c[3];
            g->arc_rcap[c[0]] = c[4];
        }
        nbatch = 0; /* applied */
        cold = *cold_io = too_much_removed(d, removed);
        for (int64_t k = 0; k < d->nbatch && !cold; k++)
            for (int j = 1; j <= 2; j++) {
                int32_t v = d->batch[CHANGE_FIELDS * k + j];
                deficits += v != s && v != t && d->pr.excess[v] < 0;
            }
    }
    if (cold) {
        for (int64_t k = 0; k < nbatch; k++) {
            const int32_t *c = d->batch + CHANGE_FIELDS * k;
            g->arc_cap[c[0]] = c[3];
            g->arc_rcap[c[0]] = c[4];
        }
        if (d->cold_fraction <= 0 && d->opt.cut_only) {
            /* every solve cold (mf_dynamic_set_cold_fraction 0): no state to
             * keep for a warm one, so the engine's cut-only solve alone,
             * as fast as a fresh one and without the network's rebuild */
            if (d->pr_ready)
                mf_pr_free(&d->pr);
            d->pr_ready = 0;
            return mf_solve_cpu(g, &d->opt, res, err);
        }
        if (d->pr_ready) {
            cpu_reset(d);
        } else {
            rc = mf_pr_init(&d->pr, g);
            if (rc) {
                mf_pr_free(&d->pr);
                return mf_fail(err, rc, NULL, 0, "CPU engine: %s", mf_strerror(rc));
            }
            d->pr_ready = 1;
        }
        mf_cpu_algorithm alg = d->opt.cpu_algorithm;
        if (alg == MF_CPU_AUTO) {
            alg = mf_cpu_auto(g); /* the same rule as mf_solve_cpu */
        }
        if (alg == MF_CPU_BK || alg == MF_CPU_IBFS) {
            /* BK's or IBFS's maximum flow is the result; its flows seed the
             * state of the warm re-solves to come */
            mf_options o = d->opt;
            o.cut_only = 0;
            o.cpu_algorithm = alg;
            rc = mf_solve_cpu(g, &o, res, err);
            if (rc)
                return rc;
            cpu_load_flows(d, res->flow);
            if (d->opt.cut_only) {
                free(res->flow);
                res->flow = NULL;
            }
            return MF_OK;
        }
    }
    mf_pr *e = &d->pr;
    /* (phase 2's flow decomposition stays with push-relabel) */
    if (!cold && !deficits && !d->opt.phase2 &&
        (double)d->nbatch >= d->paths_fraction * (double)g->num_vertices) {
        double tp = mf_now();
        rc = warm_by_paths(d, res, err);
        if (rc <= 0) {
            if (rc == 0) {
                res->stats.solve_seconds = mf_now() - tp;
                snprintf(res->stats.device_name, sizeof res->stats.device_name, "CPU");
            }
            return rc;
        }
    }
    e->pushes = e->relabels = e->global_relabels = 0;
    /* grown source arcs: their new room goes out at once, as in a cold start */
    mf_pr_saturate(e, s);
    if (deficits) {
        mf_pr_reverse(e);
        mf_pr_run_phase(e, t, s, 1);
        mf_pr_reverse(e);
        for (int32_t v = 0; v < e->n; v++)
            if (v != s && v != t && e->excess[v] < 0)
                return mf_fail(err, MF_ERR_INTERNAL, NULL, 0,
                               "warm re-solve: deficit left at vertex %d", v + 1);
    }
    mf_pr_run_phase(e, t, s, 0);
    double t1 = mf_now();
    int64_t value = e->excess[t] + g->flow_offset;
    if (d->opt.phase2) {
        mf_pr_run_phase(e, s, t, 0);
        for (int32_t v = 0; v < e->n; v++)
            if (v != s && v != t && e->excess[v] != 0)
                return mf_fail(err, MF_ERR_INTERNAL, NULL, 0,
                               "CPU engine: excess left at vertex %d after phase 2", v + 1);
    }
    double t2 = mf_now();
    rc = cpu_result(d, value, res);
    if (rc)
        return mf_fail(err, rc, NULL, 0, "out of memory");
    res->stats.phase1_seconds = t1 - t0;
    res->stats.phase2_seconds = t2 - t1;
    res->stats.solve_seconds = t2 - t0;
    res->stats.pushes = e->pushes;
    res->stats.relabels = e->relabels;
    res->stats.global_relabels = e->global_relabels;
    res->stats.deficits = deficits;
    res->stats.cpu_algorithm = MF_CPU_PUSH_RELABEL; /* the warm repair */
    snprintf(res->stats.device_name, sizeof res->stats.device_name, "CPU");
    return MF_OK;
}

static int gpu_solve(mf_dynamic *d, int64_t nbatch, int *cold, mf_result *res, mf_error *err)
{
    mf_graph *g = &d->g;
    int rc = MF_OK, deficits = 0;
    double t0 = mf_now();
    if (*cold) {
        for (int64_t k = 0; k < nbatch; k++) {
            const int32_t *c = d->batch + CHANGE_FIELDS * k;
            g->arc_cap[c[0]] = c[3];
            g->arc_rcap[c[0]] = c[4];
        }
        if (!d->loaded || nbatch) {
            /* the arcs never change: only their capacities go up again */
            rc = d->on_device ? mf_gpu_dyn_load_caps(d->gpu, g, err) : mf_gpu_dyn_load(d->gpu, g, err);
            d->on_device = rc == MF_OK;
        }
        d->loaded = 0;
    } else if (nbatch) {
        int64_t removed = 0;
        rc = mf_gpu_dyn_update(d->gpu, g, (int32_t)nbatch, d->batch, &deficits, &removed, err);
        for (int64_t k = 0; k < nbatch; k++) {
            const int32_t *c = d->batch + CHANGE_FIELDS * k;
            g->arc_cap[c[0]] = c[3];
            g->arc_rcap[c[0]] = c[4];
        }
        if (rc == MF_OK && too_much_removed(d, removed)) {
            rc = mf_gpu_dyn_reset(d->gpu, g, err);
            deficits = 0;
            *cold = 1;
        }
    }
    double t1 = mf_now();
    if (rc == MF_OK)
        rc = mf_gpu_dyn_solve(d->gpu, g, &d->opt, deficits, res, err);
    if (rc == MF_OK) {
        res->stats.upload_seconds += t1 - t0;
        res->stats.deficits = deficits;
    }
    return rc;
}

int mf_dynamic_solve(mf_dynamic *d, mf_result *res, mf_error *err)
{
    memset(res, 0, sizeof *res);
    int oom = 0;
    /* cold whatever changed: no state kept to start from, or changes that
     * are all solved cold (mf_dynamic_set_cold_fraction 0; with none
     * pending the solve stays a warm no-op) */
    const int always_cold = !d->solved || (d->engine == MF_ENGINE_CPU && !d->pr_ready) ||
                            (!(d->cold_fraction > 0) && d->npending > 0);
    int64_t changes = 0, nbatch = 0;
    if (always_cold) {
        changes = apply_pending(d); /* nothing left for the solves below to apply */
    } else {
        changes = nbatch = collect_batch(d, &oom);
        if (oom)
            return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    }
    int cold = always_cold || (double)nbatch > d->cold_fraction * (double)d->g.num_arcs;
    d->solved = 0; /* until this solve succeeds */
    if (d->engine == MF_ENGINE_CPU && !cold) /* a warm repair needs the tails (the GPU finds its own) */
        for (int64_t k = 0; k < nbatch; k++)
            d->batch[CHANGE_FIELDS * k + 1] = arc_tail(&d->g, d->batch[CHANGE_FIELDS * k]);
    int rc = d->engine == MF_ENGINE_GPU ? gpu_solve(d, nbatch, &cold, res, err)
                                        : cpu_solve(d, nbatch, &cold, res, err);
    if (rc) {
        mf_result_free(res);
        return rc;
    }
    d->solved = 1;
    d->last_value = res->flow_value - d->g.flow_offset;
    res->stats.warm = !cold;
    res->stats.changed_arcs = changes;
    res->stats.engine_used = d->engine;
    res->stats.fell_back = d->fell_back;
    return MF_OK;
}
