/* Residual arcs grouped by tail, shared by the CPU engines. */
#include "internal.h"

#include <stdlib.h>

void mf_residual_free(mf_residual *r)
{
    mf_free_big(r->first);
    mf_free_big(r->arcs);
    r->first = NULL;
    r->arcs = NULL;
}

/* Forward arcs of the vertices [lo, hi): head and residual. */
static void fill_forward(void *ctx, int32_t lo, int32_t hi)
{
    const mf_graph *g = ((void **)ctx)[0];
    mf_residual *r = ((void **)ctx)[1];
    for (int32_t u = lo; u < hi; u++) {
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t pos = mf_residual_forward(r, g, u, a);
            r->arcs[pos].head = g->arc_head[a];
            r->arcs[pos].res = g->arc_cap[a];
        }
    }
}

/* Reverse arcs of the vertices [lo, hi), after their forward ones, and the
 * sister links both ways. Each stored arc's forward copy is written by
 * the range holding its head alone (fields fill_forward does not touch). */
static void fill_reverse(void *ctx, int32_t lo, int32_t hi)
{
    const mf_graph *g = ((void **)ctx)[0];
    mf_residual *r = ((void **)ctx)[1];
    for (int32_t v = lo; v < hi; v++) {
        int32_t base = r->first[v] + (g->out_start[v + 1] - g->out_start[v]);
        for (int32_t i = g->in_start[v]; i < g->in_start[v + 1]; i++) {
            int32_t a = g->in_arc[i];
            int32_t pos = base + (i - g->in_start[v]);
            int32_t fp = mf_residual_forward(r, g, g->in_tail[i], a);
            r->arcs[pos].head = g->in_tail[i];
            r->arcs[pos].res = g->arc_rcap[a];
            r->arcs[pos].rres = g->arc_cap[a];
            r->arcs[pos].sister = fp;
            r->arcs[fp].rres = g->arc_rcap[a];
            r->arcs[fp].sister = pos;
        }
    }
}

int mf_residual_init_threads(mf_residual *r, const mf_graph *g, int threads)
{
    int32_t n = g->num_vertices, m = g->num_arcs;
    r->first = mf_alloc_big(sizeof(int32_t) * ((size_t)n + 1));
    r->arcs = mf_alloc_big(sizeof(mf_rarc) * (2 * (size_t)m + 1));
    if (!r->first || !r->arcs) {
        mf_residual_free(r);
        return MF_ERR_NOMEM;
    }
    r->first[0] = 0;
    for (int32_t v = 0; v < n; v++)
        r->first[v + 1] = r->first[v] + (g->out_start[v + 1] - g->out_start[v]) +
                          (g->in_start[v + 1] - g->in_start[v]);
    void *ctx[2] = {(void *)g, r};
    mf_parallel_for(threads, n, 65536, fill_forward, ctx);
    mf_parallel_for(threads, n, 65536, fill_reverse, ctx);
    return MF_OK;
}

/* The interior variant: arcs with a terminal at either end are left out
 * (the engines that hold terminal capacity per vertex never walk them
 * when they want only the cut). The terminal vertices' lists are empty
 * and every other list keeps its order, so a stored arc's forward copy
 * sits at first[u] plus the kept arcs before it. */
static inline int is_terminal(const mf_graph *g, int32_t v)
{
    return v == g->source || v == g->sink;
}

/* Out-degree above which a vertex's kept positions are tabulated once
 * instead of counted at each lookup: counting costs the arcs before the
 * one looked up, so a hub of degree D costs O(D^2) (on R-MAT networks
 * that made the threaded set-up several times slower than one thread,
 * which builds the lists in tail order without lookups). */
#define COUNT_MAX_DEGREE 64

typedef struct interior_pass {
    const mf_graph *g;
    mf_residual *r;
    int32_t *kept; /* a hub's arcs: position of the forward copy (-1: a terminal's) */
    _Atomic int hubs;
} interior_pass;

static inline int is_hub(const mf_graph *g, int32_t u)
{
    return g->out_start[u + 1] - g->out_start[u] > COUNT_MAX_DEGREE;
}

/* Position of stored arc a (tail u, both ends interior) among u's kept arcs. */
static inline int32_t interior_forward(const interior_pass *c, int32_t u, int32_t a)
{
    const mf_graph *g = c->g;
    if (is_hub(g, u))
        return c->kept[a];
    int32_t pos = c->r->first[u];
    for (int32_t b = g->out_start[u]; b < a; b++)
        pos += !is_terminal(g, g->arc_head[b]);
    return pos;
}

static void index_hubs(void *ctx, int32_t lo, int32_t hi)
{
    const interior_pass *c = ctx;
    const mf_graph *g = c->g;
    for (int32_t u = lo; u < hi; u++) {
        if (is_terminal(g, u) || !is_hub(g, u))
            continue;
        int32_t pos = c->r->first[u];
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++)
            c->kept[a] = is_terminal(g, g->arc_head[a]) ? -1 : pos++;
    }
}

static void fill_interior(void *ctx, int32_t lo, int32_t hi)
{
    const interior_pass *c = ctx;
    const mf_graph *g = c->g;
    mf_residual *r = c->r;
    for (int32_t v = lo; v < hi; v++) {
        if (is_terminal(g, v))
            continue;
        int32_t pos = r->first[v];
        for (int32_t a = g->out_start[v]; a < g->out_start[v + 1]; a++) {
            int32_t w = g->arc_head[a];
            if (is_terminal(g, w))
                continue;
            r->arcs[pos].head = w;
            r->arcs[pos].res = g->arc_cap[a];
            pos++;
        }
        for (int32_t i = g->in_start[v]; i < g->in_start[v + 1]; i++) {
            int32_t u = g->in_tail[i], a = g->in_arc[i];
            if (is_terminal(g, u))
                continue;
            int32_t fp = interior_forward(c, u, a);
            r->arcs[pos].head = u;
            r->arcs[pos].res = g->arc_rcap[a];
            r->arcs[pos].rres = g->arc_cap[a];
            r->arcs[pos].sister = fp;
            r->arcs[fp].rres = g->arc_rcap[a];
            r->arcs[fp].sister = pos;
            pos++;
        }
    }
}

static void count_interior(void *ctx, int32_t lo, int32_t hi)
{
    interior_pass *c = ctx;
    const mf_graph *g = c->g;
    int hubs = 0;
    for (int32_t v = lo; v < hi; v++) {
        int32_t k = 0;
        if (!is_terminal(g, v)) {
            for (int32_t a = g->out_start[v]; a < g->out_start[v + 1]; a++)
                k += !is_terminal(g, g->arc_head[a]);
            for (int32_t i = g->in_start[v]; i < g->in_start[v + 1]; i++)
                k += !is_terminal(g, g->in_tail[i]);
            hubs |= is_hub(g, v);
        }
        c->r->first[v + 1] = k;
    }
    if (hubs)
        c->hubs = 1;
}

int mf_residual_init_interior(mf_residual *r, const mf_graph *g, int threads)
{
    int32_t n = g->num_vertices;
    r->first = mf_alloc_big(sizeof(int32_t) * ((size_t)n + 1));
    r->arcs = NULL;
    if (!r->first)
        return MF_ERR_NOMEM;
    interior_pass c = {.g = g, .r = r, .kept = NULL, .hubs = 0};
    mf_parallel_for(threads, n, 65536, count_interior, &c);
    r->first[0] = 0;
    for (int32_t v = 0; v < n; v++)
        r->first[v + 1] += r->first[v];
    r->arcs = mf_alloc_big(sizeof(mf_rarc) * ((size_t)r->first[n] + 1));
    /* indexed by stored arc, written for the hubs' arcs alone: the pages
     * of the others stay untouched */
    if (r->arcs && c.hubs)
        c.kept = mf_malloc(sizeof(int32_t) * ((size_t)g->num_arcs + 1));
    if (!r->arcs || (c.hubs && !c.kept)) {
        mf_residual_free(r);
        return MF_ERR_NOMEM;
    }
    if (c.hubs)
        mf_parallel_for(threads, n, 65536, index_hubs, &c);
    /* each vertex writes its own list and, for its in-arcs, the sister
     * fields of their forward copies, which no other vertex writes */
    mf_parallel_for(threads, n, 65536, fill_interior, &c);
    free(c.kept);
    return MF_OK;
}

int mf_residual_init(mf_residual *r, const mf_graph *g)
{
    return mf_residual_init_threads(r, g, 1);
}

void mf_residual_cut(const mf_residual *r, int32_t *queue, int32_t count, int32_t stop,
                     uint8_t *source_side)
{
    int32_t qh = 0, qt = count;
    while (qh < qt) {
        int32_t w = queue[qh++];
        for (int32_t q = r->first[w]; q < r->first[w + 1]; q++) {
            int32_t x = r->arcs[q].head;
            /* x reaches w when the arc x -> w, mirrored here, has room */
            if (r->arcs[q].rres > 0 && source_side[x] && x != stop) {
                source_side[x] = 0;
                queue[qt++] = x;
            }
        }
    }
}
