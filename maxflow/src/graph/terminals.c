/* Terminal arcs of the augmenting-path engines (BK, IBFS): each vertex
 * keeps one signed terminal residual after pre-cancelling its capacity
 * from the source against its capacity to the sink; at the end the
 * terminal flow is shared out over the stored terminal arcs again. */
#include "cpu/cpu_engines.h"

#include <stdlib.h>
#include <string.h>

/* Stored arc a (tail u) seen as a terminal arc: *v is the vertex it joins
 * to a terminal, *from_source which terminal, *along whether the stored
 * direction runs s -> v (or v -> t). Returns the capacity from the source
 * into v (or from v to the sink), or -1 when a joins two vertices or the
 * two terminals. */
static int64_t terminal_arc(const mf_graph *g, int32_t u, int32_t a, int32_t *v,
                            int *from_source, int *along)
{
    int32_t s = g->source, t = g->sink, w = g->arc_head[a];
    int u_term = u == s || u == t, w_term = w == s || w == t;
    if (u_term == w_term)
        return -1;
    *v = u_term ? w : u;
    *from_source = u == s || w == s;
    *along = *from_source ? u == s : w == t;
    return *along ? g->arc_cap[a] : g->arc_rcap[a];
}

/* Adds stored arc a (tail u) to its vertex's capacity from the source or
 * to the sink, or to *direct when it joins source to sink. */
static inline void add_terminal_arc(const mf_graph *g, int32_t u, int32_t a, int64_t *from_s, int64_t *to_t,
                                    int64_t *direct)
{
    int32_t v, w = g->arc_head[a];
    int from_source, along;
    int64_t cap = terminal_arc(g, u, a, &v, &from_source, &along);
    if (cap >= 0)
        (from_source ? from_s : to_t)[v] += cap;
    else if (u == g->source && w == g->sink)
        *direct += g->arc_cap[a];
    else if (u == g->sink && w == g->source)
        *direct += g->arc_rcap[a];
}

/* A vertex's capacity from the source (*tr) against its capacity to the
 * sink: what both give is flow through s -> v -> t at once; *tr keeps the
 * rest, signed. */
static inline void precancel(int64_t *tr, int64_t to_t, int64_t *flow)
{
    *flow += *tr < to_t ? *tr : to_t;
    *tr -= to_t;
}

/* Vertex v's capacity from the source and to the sink, from its own out-
 * and in-arcs, by terminal_arc's rule (0 for the terminals themselves). */
static void terminal_caps(const mf_graph *g, int32_t v, int64_t *from_s, int64_t *to_t)
{
    int32_t s = g->source, t = g->sink, x;
    int from_source, along;
    *from_s = *to_t = 0;
    if (v == s || v == t)
        return;
    for (int32_t a = g->out_start[v]; a < g->out_start[v + 1]; a++) {
        int64_t cap = terminal_arc(g, v, a, &x, &from_source, &along);
        if (cap >= 0)
            *(from_source ? from_s : to_t) += cap;
    }
    for (int32_t i = g->in_start[v]; i < g->in_start[v + 1]; i++) {
        int32_t u = g->in_tail[i];
        if (u != s && u != t)
            continue; /* an interior arc, stored at u and seen there */
        *(u == s ? from_s : to_t) += terminal_arc(g, u, g->in_arc[i], &x, &from_source, &along);
    }
}

typedef struct terminal_pass {
    const mf_graph *g;
    int64_t *tr;
    _Atomic int64_t flow; /* integers: the sum is the same in any order */
} terminal_pass;

/* Terminal residuals of the vertices [lo, hi), each from its own out- and
 * in-arcs (so ranges write disjoint entries), and the share of the
 * source-sink arcs in the matching slice of the terminals' arc lists. */
static void terminal_range(void *arg, int32_t lo, int32_t hi)
{
    terminal_pass *p = arg;
    const mf_graph *g = p->g;
    int32_t s = g->source, t = g->sink, n = g->num_vertices;
    int64_t flow = 0;
    for (int32_t v = lo; v < hi; v++) {
        int64_t to_t;
        terminal_caps(g, v, &p->tr[v], &to_t);
        precancel(&p->tr[v], to_t, &flow);
    }
    /* arcs joining source and sink: flow without a vertex between */
    for (int k = 0; k < 2; k++) {
        int32_t u = k ? t : s, w = k ? s : t;
        int64_t deg = g->out_start[u + 1] - g->out_start[u];
        int32_t a0 = g->out_start[u] + (int32_t)(deg * lo / n), a1 = g->out_start[u] + (int32_t)(deg * hi / n);
        for (int32_t a = a0; a < a1; a++)
            if (g->arc_head[a] == w)
                flow += k ? g->arc_rcap[a] : g->arc_cap[a];
    }
    p->flow += flow;
}

int mf_terminal_residuals(const mf_graph *g, int64_t *tr, int64_t *flow, int threads)
{
    terminal_pass p = {.g = g, .tr = tr, .flow = 0};
    mf_parallel_for(threads, g->num_vertices, 65536, terminal_range, &p);
    *flow += p.flow;
    return MF_OK;
}

/* Flow on each stored arc: interior arcs from their residuals; terminal
 * arcs share out each vertex's terminal flow in arc order. */
int mf_terminal_flows(const mf_graph *g, const mf_residual *r, const int64_t *left_tr, int32_t *flow)
{
    int32_t n = g->num_vertices, s = g->source, t = g->sink;
    int64_t *in_from_s = calloc((size_t)n, sizeof(int64_t));
    int64_t *out_to_t = calloc((size_t)n, sizeof(int64_t));
    if (!in_from_s || !out_to_t) {
        free(in_from_s);
        free(out_to_t);
        return MF_ERR_NOMEM;
    }
    /* terminal flow per vertex: its capacity less what is left in tr */
    for (int32_t v = 0; v < n; v++) {
        terminal_caps(g, v, &in_from_s[v], &out_to_t[v]);
        int64_t left = left_tr[v];
        in_from_s[v] -= left > 0 ? left : 0;
        out_to_t[v] -= left < 0 ? -left : 0;
    }
    for (int32_t u = 0; u < n; u++) {
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t w = g->arc_head[a], v;
            int from_source, along;
            int64_t cap = terminal_arc(g, u, a, &v, &from_source, &along);
            if (cap >= 0) {
                int64_t *pool = from_source ? in_from_s : out_to_t;
                int64_t give = pool[v] < cap ? pool[v] : cap;
                pool[v] -= give;
                flow[a] = (int32_t)(along ? give : -give);
            } else if ((u == s && w == t) || (u == t && w == s)) {
                flow[a] = u == s ? g->arc_cap[a] : -g->arc_rcap[a];
            } else {
                flow[a] = g->arc_cap[a] - r->arcs[mf_residual_forward(r, g, u, a)].res;
            }
        }
    }
    free(in_from_s);
    free(out_to_t);
    return MF_OK;
}

/* Cut-only set-up in one pass over the stored arcs and one more over the
 * interior ones, on one thread: the residual graph of the arcs between
 * non-terminal vertices, laid out as mf_residual_init_interior lays it
 * (each vertex's forward copies, then its reverse copies in tail order),
 * and the terminal residuals of mf_terminal_residuals. Each stored arc
 * is read once per pass, from its tail; the in-arc index is never read. */
int mf_cut_setup(const mf_graph *g, mf_residual *r, int64_t *tr, int64_t *flow)
{
    int32_t n = g->num_vertices, s = g->source, t = g->sink;
    r->first = mf_alloc_big(sizeof(int32_t) * ((size_t)n + 1));
    r->arcs = NULL;
    int32_t *cur = mf_calloc_big(2 * (size_t)n, sizeof(int32_t)); /* out, in per vertex */
    int64_t *to_t = mf_calloc_big((size_t)n, sizeof(int64_t));
    if (!r->first || !cur || !to_t) {
        mf_residual_free(r);
        mf_free_big(cur);
        mf_free_big(to_t);
        return MF_ERR_NOMEM;
    }
    memset(tr, 0, sizeof(int64_t) * (size_t)n);
    int64_t direct = 0;
    for (int32_t u = 0; u < n; u++) {
        int u_term = u == s || u == t;
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t w = g->arc_head[a];
            if (!u_term && w != s && w != t) {
                cur[2 * (size_t)u]++;
                cur[2 * (size_t)w + 1]++;
            } else {
                add_terminal_arc(g, u, a, tr, to_t, &direct);
            }
        }
    }
    *flow += direct;
    r->first[0] = 0;
    for (int32_t v = 0; v < n; v++) {
        precancel(&tr[v], to_t[v], flow);
        int32_t out = cur[2 * (size_t)v], in = cur[2 * (size_t)v + 1];
        cur[2 * (size_t)v] = r->first[v];
        cur[2 * (size_t)v + 1] = r->first[v] + out;
        r->first[v + 1] = r->first[v] + out + in;
    }
    mf_free_big(to_t);
    r->arcs = mf_alloc_big(sizeof(mf_rarc) * ((size_t)r->first[n] + 1));
    if (!r->arcs) {
        mf_residual_free(r);
        mf_free_big(cur);
        return MF_ERR_NOMEM;
    }
    for (int32_t u = 0; u < n; u++) {
        if (u == s || u == t)
            continue;
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t w = g->arc_head[a];
            if (w == s || w == t)
                continue;
            int32_t f = cur[2 * (size_t)u]++, q = cur[2 * (size_t)w + 1]++;
            r->arcs[f] = (mf_rarc){w, g->arc_cap[a], g->arc_rcap[a], q};
            r->arcs[q] = (mf_rarc){u, g->arc_rcap[a], g->arc_cap[a], f};
        }
    }
    mf_free_big(cur);
    return MF_OK;
}
