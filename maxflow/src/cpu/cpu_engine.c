/* CPU engine: highest-label push-relabel with global relabeling and the
 * gap heuristic, after Cherkassky & Goldberg's hi_pr. Phase 1 pushes
 * toward the sink and yields the value and cut; phase 2 runs the same
 * loop toward the source to return leftover excess, making a valid flow. */
#include "cpu_engines.h"

#include <stdlib.h>
#include <string.h>


#define NIL (-1)
#define ALPHA 6
#define BETA 12

void mf_pr_free(mf_pr *e)
{
    mf_residual_free(&e->resid);
    free(e->excess);
    free(e->label);
    free(e->current);
    free(e->anext);
    free(e->inext);
    free(e->iprev);
    free(e->active_head);
    free(e->inactive_head);
    free(e->queue);
}

int mf_pr_init(mf_pr *e, const mf_graph *g)
{
    int32_t n = g->num_vertices;
    memset(e, 0, sizeof *e);
    e->n = n;
    e->excess = calloc((size_t)n, sizeof(int64_t));
    e->label = malloc(sizeof(int32_t) * (size_t)n);
    e->current = malloc(sizeof(int32_t) * (size_t)n);
    e->anext = malloc(sizeof(int32_t) * (size_t)n);
    e->inext = malloc(sizeof(int32_t) * (size_t)n);
    e->iprev = malloc(sizeof(int32_t) * (size_t)n);
    e->active_head = malloc(sizeof(int32_t) * ((size_t)n + 1));
    e->inactive_head = malloc(sizeof(int32_t) * ((size_t)n + 1));
    e->queue = malloc(sizeof(int32_t) * (size_t)n);
    if (mf_residual_init(&e->resid, g) != MF_OK || !e->excess || !e->label ||
        !e->current || !e->anext || !e->inext || !e->iprev ||
        !e->active_head || !e->inactive_head || !e->queue)
        return MF_ERR_NOMEM;
    for (int32_t d = 0; d <= n; d++)
        e->active_head[d] = e->inactive_head[d] = NIL;
    e->first = e->resid.first;
    e->arcs = e->resid.arcs;
    e->threshold = 2 * ((int64_t)ALPHA * n + g->num_arcs);
    return MF_OK;
}

void mf_pr_saturate(mf_pr *e, int32_t s)
{
    for (int32_t r = e->first[s]; r < e->first[s + 1]; r++) {
        mf_rarc *arc = &e->arcs[r];
        if (arc->res > 0 && arc->head != s) {
            e->excess[arc->head] += arc->res;
            e->excess[s] -= arc->res;
            mf_rarc_push(e->arcs, r, arc->res);
        }
    }
}

void mf_pr_reverse(mf_pr *e)
{
    const int64_t total = e->first[e->n];
    for (int64_t r = 0; r < total; r++) {
        int32_t x = e->arcs[r].res;
        e->arcs[r].res = e->arcs[r].rres;
        e->arcs[r].rres = x;
    }
    for (int32_t v = 0; v < e->n; v++)
        e->excess[v] = -e->excess[v];
}

static inline void active_add(mf_pr *e, int32_t v, int32_t d)
{
    e->anext[v] = e->active_head[d];
    e->active_head[d] = v;
    if (d > e->amax)
        e->amax = d;
    if (d > e->dmax)
        e->dmax = d;
}

static inline void inactive_add(mf_pr *e, int32_t v, int32_t d)
{
    int32_t h = e->inactive_head[d];
    e->inext[v] = h;
    e->iprev[v] = NIL;
    if (h != NIL)
        e->iprev[h] = v;
    e->inactive_head[d] = v;
    if (d > e->dmax)
        e->dmax = d;
}

static inline void inactive_remove(mf_pr *e, int32_t v, int32_t d)
{
    if (e->iprev[v] != NIL)
        e->inext[e->iprev[v]] = e->inext[v];
    else
        e->inactive_head[d] = e->inext[v];
    if (e->inext[v] != NIL)
        e->iprev[e->inext[v]] = e->iprev[v];
}

/* Exact distances to the target in the residual graph (backward BFS);
 * vertices that cannot reach it get label n and leave the game. */
static void global_relabel(mf_pr *e)
{
    int32_t n = e->n;
    e->global_relabels++;
    e->work = 0;
    for (int32_t v = 0; v < n; v++)
        e->label[v] = n;
    for (int32_t d = 0; d <= e->dmax && d <= n; d++)
        e->active_head[d] = e->inactive_head[d] = NIL;
    e->amax = e->dmax = 0;
    int32_t qh = 0, qt = 0, seeds = 1;
    e->label[e->target] = 0;
    e->queue[qt++] = e->target;
    if (e->multi) { /* the other terminal and every deficit absorb too */
        e->label[e->blocked] = 0;
        e->queue[qt++] = e->blocked;
        seeds = 2;
        for (int32_t v = 0; v < n; v++)
            if (e->excess[v] < 0 && v != e->target && v != e->blocked) {
                e->label[v] = 0;
                e->queue[qt++] = v;
            }
    }
    while (qh < qt) {
        int32_t w = e->queue[qh++];
        int32_t dn = e->label[w] + 1;
        for (int32_t r = e->first[w]; r < e->first[w + 1]; r++) {
            int32_t x = e->arcs[r].head;
            if (e->arcs[r].rres > 0 && e->label[x] == n &&
                x != e->blocked) {
                e->label[x] = dn;
                e->queue[qt++] = x;
            }
        }
    }
    for (int32_t i = seeds; i < qt; i++) {
        int32_t v = e->queue[i];
        e->current[v] = e->first[v];
        if (e->excess[v] > 0)
            active_add(e, v, e->label[v]);
        else
            inactive_add(e, v, e->label[v]);
    }
}

/* All vertices above an emptied label can no longer reach the target. */
static void gap(mf_pr *e, int32_t empty)
{
    int32_t n = e->n;
    for (int32_t d = empty + 1; d <= e->dmax; d++) {
        for (int32_t v = e->inactive_head[d]; v != NIL; v = e->inext[v])
            e->label[v] = n;
        for (int32_t v = e->active_head[d]; v != NIL; v = e->anext[v])
            e->label[v] = n;
        e->inactive_head[d] = e->active_head[d] = NIL;
    }
    e->dmax = empty - 1;
    if (e->amax > e->dmax)
        e->amax = e->dmax;
}

/* Pushes v's excess along admissible arcs, relabeling until it is empty
 * or leaves the game. */
static void discharge(mf_pr *e, int32_t v)
{
    int32_t n = e->n;
    const int32_t end = e->first[v + 1];
    for (;;) {
        int32_t dv = e->label[v];
        int32_t r = e->current[v];
        for (; r < end; r++) {
            mf_rarc *arc = &e->arcs[r];
            if (arc->res <= 0)
                continue;
            int32_t w = arc->head;
            if (e->label[w] != dv - 1)
                continue;
            int64_t delta = e->excess[v] < arc->res ? e->excess[v] : arc->res;
            mf_rarc_push(e->arcs, r, (int32_t)delta);
            e->pushes++;
            /* w turns active when its excess crosses zero (in the deficit
             * phase an absorber starts below zero) */
            if (e->excess[w] <= 0 && e->excess[w] + delta > 0 && w != e->target &&
                w != e->blocked) {
                inactive_remove(e, w, dv - 1);
                active_add(e, w, dv - 1);
            }
            e->excess[w] += delta;
            e->excess[v] -= delta;
            if (e->excess[v] == 0)
                break;
        }
        if (r < end) { /* emptied: keep the current arc, park v */
            e->current[v] = r;
            inactive_add(e, v, dv);
            return;
        }
        /* relabel */
        e->relabels++;
        /* label 0 also holds the terminals, which are in no list */
        if (dv > 0 && e->active_head[dv] == NIL && e->inactive_head[dv] == NIL) {
            gap(e, dv);
            e->label[v] = n;
            return;
        }
        int32_t best = n, best_arc = e->first[v];
        for (int32_t q = e->first[v]; q < end; q++) {
            if (e->arcs[q].res > 0 && e->label[e->arcs[q].head] < best) {
                best = e->label[e->arcs[q].head];
                best_arc = q;
            }
        }
        e->work += BETA + (end - e->first[v]);
        best++;
        if (best >= n) {
            e->label[v] = n;
            return;
        }
        e->label[v] = best;
        e->current[v] = best_arc;
        if (best > e->dmax)
            e->dmax = best;
    }
}

void mf_pr_run_phase(mf_pr *e, int32_t target, int32_t blocked, int multi)
{
    const int64_t update_threshold = e->threshold;
    e->target = target;
    e->blocked = blocked;
    e->multi = multi;
    global_relabel(e);
    while (e->amax >= 0) {
        int32_t d = e->amax;
        int32_t v = e->active_head[d];
        if (v == NIL) {
            e->amax--;
            continue;
        }
        e->active_head[d] = e->anext[v];
        discharge(e, v);
        if (e->work > update_threshold)
            global_relabel(e);
    }
}

int mf_push_relabel(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    mf_pr e;
    int rc;
    memset(res, 0, sizeof *res);
    double t0 = mf_now();
    rc = mf_pr_init(&e, g);
    if (rc == MF_OK)
        rc = mf_result_alloc(res, g, !opt->cut_only);
    if (rc) {
        mf_pr_free(&e);
        return mf_fail(err, rc, NULL, 0, "CPU engine: %s", mf_strerror(rc));
    }
    int32_t n = g->num_vertices, s = g->source, t = g->sink;
    const double setup = mf_now() - t0;

    /* Phase 1: saturate every residual arc out of the source. */
    mf_pr_saturate(&e, s);
    mf_pr_run_phase(&e, t, s, 0);
    double t1 = mf_now();
    res->flow_value = e.excess[t] + g->flow_offset;

    if (opt->phase2) {
        mf_pr_run_phase(&e, s, t, 0);
        for (int32_t v = 0; v < n; v++) {
            if (v != s && v != t && e.excess[v] != 0) {
                mf_pr_free(&e);
                mf_result_free(res);
                return mf_fail(err, MF_ERR_INTERNAL, NULL, 0,
                               "CPU engine: excess left at vertex %d after phase 2", v + 1);
            }
        }
    }
    double t2 = mf_now();
    if (res->flow)
        for (int32_t u = 0; u < n; u++)
            for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++)
                res->flow[a] = g->arc_cap[a] - e.arcs[mf_residual_forward(&e.resid, g, u, a)].res;
    memset(res->source_side, 1, (size_t)n);
    res->source_side[t] = 0;
    e.queue[0] = t;
    mf_residual_cut(&e.resid, e.queue, 1, -1, res->source_side);
    res->stats.phase1_seconds = t1 - t0;
    res->stats.phase2_seconds = t2 - t1;
    res->stats.solve_seconds = t2 - t0;
    res->stats.setup_seconds = setup;
    res->stats.pushes = e.pushes;
    res->stats.relabels = e.relabels;
    res->stats.global_relabels = e.global_relabels;
    res->stats.engine_used = MF_ENGINE_CPU;
    res->stats.cpu_algorithm = MF_CPU_PUSH_RELABEL;
    snprintf(res->stats.device_name, sizeof res->stats.device_name, "CPU");
    mf_pr_free(&e);
    return MF_OK;
}
