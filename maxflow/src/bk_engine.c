/* CPU engine for image networks: Boykov & Kolmogorov's augmenting paths
 * ("An Experimental Comparison of Min-Cut/Max-Flow Algorithms for Energy
 * Minimization in Vision", PAMI 2004). A source tree and a sink tree grow
 * toward each other and are reused after each augmentation, which is why
 * it beats push-relabel on grids whose s-t paths are short. It has no
 * polynomial bound on general graphs, so push-relabel stays the default
 * for arbitrary DIMACS input.
 *
 * The terminals are not tree nodes: each vertex keeps one signed terminal
 * residual (positive: from the source, negative: to the sink) after
 * pre-cancelling its two terminal capacities. The result is a valid flow
 * (conservation holds), mapped back onto the stored arcs at the end. */
#include "cpu_engines.h"

#include <stdlib.h>
#include <string.h>

enum { FREE = 0, SRC_TREE = 1, SNK_TREE = 2, TERMINAL_VERTEX = 3 };
/* bk_node.parent values besides an arc position */
#define NO_PARENT (-1)
#define TO_TERMINAL (-2)
#define ORPHAN (-3)
#define FAR_AWAY INT32_MAX

/* A vertex's search state in one struct: growth touches all of it for
 * each neighbour, so one cache line beats five arrays. */
typedef struct bk_node {
    int64_t tr;       /* terminal residual: > 0 from source, < 0 to sink */
    int32_t parent;   /* position, in the vertex's arcs, of the arc to its parent */
    int32_t stamp, dist; /* distance-to-terminal cache, valid at stamp */
    uint8_t tree, queued;
} bk_node;

typedef struct bk {
    int32_t n;
    mf_residual r;
    bk_node *v;
    int32_t *queue;   /* active vertices, ring of n slots */
    int32_t qhead, qlen;
    int32_t *orphans; /* FIFO, each vertex at most once */
    int32_t ohead, olen;
    int32_t time;
    int64_t flow;
    int64_t augmentations;
} bk;

static void bk_free(bk *b)
{
    mf_residual_free(&b->r);
    free(b->v);
    free(b->queue);
    free(b->orphans);
}

static void push_active(bk *b, int32_t v)
{
    if (b->v[v].queued)
        return;
    b->v[v].queued = 1;
    b->queue[(b->qhead + b->qlen) % b->n] = v;
    b->qlen++;
}

static int32_t pop_active(bk *b)
{
    while (b->qlen) {
        int32_t v = b->queue[b->qhead];
        b->qhead = (b->qhead + 1) % b->n;
        b->qlen--;
        b->v[v].queued = 0;
        if (b->v[v].tree == SRC_TREE || b->v[v].tree == SNK_TREE)
            return v;
    }
    return -1;
}

static void make_orphan(bk *b, int32_t v)
{
    b->v[v].parent = ORPHAN;
    b->orphans[(b->ohead + b->olen) % b->n] = v;
    b->olen++;
}

/* Bottleneck of the path source ~> x -> y ~> sink through arc xy. */
static int64_t bottleneck(const bk *b, int32_t x, int32_t xy)
{
    const mf_rarc *arcs = b->r.arcs;
    int64_t cap = arcs[xy].res;
    int32_t v;
    for (v = x; b->v[v].parent != TO_TERMINAL; v = arcs[b->v[v].parent].head) {
        int32_t into_v = arcs[b->v[v].parent].rres;
        if (into_v < cap)
            cap = into_v;
    }
    if (b->v[v].tr < cap)
        cap = b->v[v].tr;
    for (v = arcs[xy].head; b->v[v].parent != TO_TERMINAL; v = arcs[b->v[v].parent].head) {
        if (arcs[b->v[v].parent].res < cap)
            cap = arcs[b->v[v].parent].res;
    }
    if (-b->v[v].tr < cap)
        cap = -b->v[v].tr;
    return cap;
}

/* Pushes delta along the path; vertices whose link to their tree broke
 * become orphans. */
static void augment(bk *b, int32_t x, int32_t xy)
{
    mf_rarc *arcs = b->r.arcs;
    int64_t delta = bottleneck(b, x, xy);
    mf_rarc_push(arcs, xy, (int32_t)delta);
    for (int32_t v = x;;) {
        if (b->v[v].parent == TO_TERMINAL) {
            b->v[v].tr -= delta;
            if (!b->v[v].tr)
                make_orphan(b, v);
            break;
        }
        mf_rarc *up = &arcs[b->v[v].parent];
        mf_rarc_push(arcs, b->v[v].parent, -(int32_t)delta);
        int32_t next = up->head;
        if (!up->rres)
            make_orphan(b, v);
        v = next;
    }
    for (int32_t v = arcs[xy].head;;) {
        if (b->v[v].parent == TO_TERMINAL) {
            b->v[v].tr += delta;
            if (!b->v[v].tr)
                make_orphan(b, v);
            break;
        }
        mf_rarc *down = &arcs[b->v[v].parent];
        mf_rarc_push(arcs, b->v[v].parent, (int32_t)delta);
        int32_t next = down->head;
        if (!down->res)
            make_orphan(b, v);
        v = next;
    }
    b->flow += delta;
    b->augmentations++;
}

/* Distance from v to its tree's terminal through valid parents, or
 * FAR_AWAY when the chain ends at an orphan. Caches along the way. */
static int32_t origin_distance(bk *b, int32_t v)
{
    int32_t d = 0, u = v;
    for (;;) {
        if (b->v[u].stamp == b->time) {
            d += b->v[u].dist;
            break;
        }
        int32_t p = b->v[u].parent;
        d++;
        if (p == TO_TERMINAL) {
            b->v[u].stamp = b->time;
            b->v[u].dist = 1;
            break;
        }
        if (p == ORPHAN || p == NO_PARENT)
            return FAR_AWAY;
        u = b->r.arcs[p].head;
    }
    /* stamp the chain so later searches stop early */
    int32_t total = d;
    for (u = v; b->v[u].stamp != b->time; u = b->r.arcs[b->v[u].parent].head) {
        b->v[u].stamp = b->time;
        b->v[u].dist = d--;
    }
    return total;
}

/* Finds v a new parent in its tree, or frees it and orphans its children. */
static void adopt(bk *b, int32_t v)
{
    mf_rarc *arcs = b->r.arcs;
    uint8_t side = b->v[v].tree;
    int32_t best = NO_PARENT, best_d = FAR_AWAY;
    for (int32_t q = b->r.first[v]; q < b->r.first[v + 1]; q++) {
        int32_t w = arcs[q].head;
        if (b->v[w].tree != side)
            continue;
        /* the tree's residual direction: w -> v for source, v -> w for sink */
        int32_t res = side == SRC_TREE ? arcs[q].rres : arcs[q].res;
        if (res <= 0)
            continue;
        int32_t d = origin_distance(b, w);
        if (d < best_d) {
            best_d = d;
            best = q;
        }
    }
    if (best != NO_PARENT) {
        b->v[v].parent = best;
        b->v[v].stamp = b->time;
        b->v[v].dist = best_d + 1;
        return;
    }
    b->v[v].tree = FREE;
    b->v[v].parent = NO_PARENT;
    for (int32_t q = b->r.first[v]; q < b->r.first[v + 1]; q++) {
        int32_t w = arcs[q].head;
        if (b->v[w].tree != side)
            continue;
        int32_t res = side == SRC_TREE ? arcs[q].rres : arcs[q].res;
        if (res > 0)
            push_active(b, w); /* w may grow into v again */
        int32_t p = b->v[w].parent;
        if (p >= 0 && arcs[p].head == v)
            make_orphan(b, w);
    }
}

static void adopt_orphans(bk *b)
{
    while (b->olen) {
        int32_t v = b->orphans[b->ohead];
        b->ohead = (b->ohead + 1) % b->n;
        b->olen--;
        adopt(b, v);
    }
}

/* Grows v's tree by one layer of neighbours; returns the arc (position in
 * the arcs of the source-tree end x) of a path found, or -1. */
static int32_t grow(bk *b, int32_t v, int32_t *x)
{
    mf_rarc *arcs = b->r.arcs;
    uint8_t side = b->v[v].tree;
    for (int32_t q = b->r.first[v]; q < b->r.first[v + 1]; q++) {
        int32_t w = arcs[q].head;
        int32_t res = side == SRC_TREE ? arcs[q].res : arcs[q].rres;
        if (res <= 0)
            continue;
        uint8_t tw = b->v[w].tree;
        if (tw == FREE) {
            b->v[w].tree = side;
            b->v[w].parent = arcs[q].sister;
            b->v[w].stamp = b->v[v].stamp;
            b->v[w].dist = b->v[v].dist + 1;
            push_active(b, w);
        } else if (tw == side) {
            /* shorten w's route when v is known to be nearer its terminal */
            if (b->v[w].stamp <= b->v[v].stamp && b->v[w].dist > b->v[v].dist &&
                b->v[w].parent != TO_TERMINAL) {
                b->v[w].parent = arcs[q].sister;
                b->v[w].stamp = b->v[v].stamp;
                b->v[w].dist = b->v[v].dist + 1;
            }
        } else if (tw != TERMINAL_VERTEX) {
            if (side == SRC_TREE) {
                *x = v;
                return q;
            }
            *x = w;
            return arcs[q].sister;
        }
    }
    return -1;
}

static int bk_init(bk *b, const mf_graph *g)
{
    int32_t n = g->num_vertices;
    memset(b, 0, sizeof *b);
    b->n = n;
    b->v = mf_alloc_big(sizeof(bk_node) * (size_t)n);
    if (b->v)
        memset(b->v, 0, sizeof(bk_node) * (size_t)n);
    b->queue = malloc(sizeof(int32_t) * (size_t)n);
    b->orphans = malloc(sizeof(int32_t) * (size_t)n);
    if (mf_residual_init(&b->r, g) != MF_OK || !b->v || !b->queue || !b->orphans)
        return MF_ERR_NOMEM;
    /* terminal residuals, pre-cancelled, staged in the queue's memory */
    int64_t *tr = malloc(sizeof(int64_t) * (size_t)n);
    if (!tr || mf_terminal_residuals(g, tr, &b->flow) != MF_OK) {
        free(tr);
        return MF_ERR_NOMEM;
    }
    for (int32_t v = 0; v < n; v++)
        b->v[v].tr = tr[v];
    free(tr);
    for (int32_t v = 0; v < n; v++) {
        b->v[v].parent = NO_PARENT;
        if (v == g->source || v == g->sink) {
            b->v[v].tree = TERMINAL_VERTEX;
        } else if (b->v[v].tr) {
            b->v[v].tree = b->v[v].tr > 0 ? SRC_TREE : SNK_TREE;
            b->v[v].parent = TO_TERMINAL;
            b->v[v].dist = 1;
            push_active(b, v);
        }
    }
    return MF_OK;
}

static int write_flows(bk *b, const mf_graph *g, int32_t *flow)
{
    int64_t *left = malloc(sizeof(int64_t) * (size_t)b->n);
    if (!left)
        return MF_ERR_NOMEM;
    for (int32_t v = 0; v < b->n; v++)
        left[v] = b->v[v].tr;
    int rc = mf_terminal_flows(g, &b->r, left, flow);
    free(left);
    return rc;
}

int mf_bk(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    bk b;
    memset(res, 0, sizeof *res);
    double t0 = mf_now();
    int rc = bk_init(&b, g);
    if (rc == MF_OK)
        rc = mf_result_alloc(res, g, !opt->cut_only);
    if (rc) {
        bk_free(&b);
        return mf_fail(err, rc, NULL, 0, "CPU engine (BK): %s", mf_strerror(rc));
    }
    int32_t v, x;
    while ((v = pop_active(&b)) >= 0) {
        int32_t xy;
        /* v stays active while its layer still leads to paths */
        while (b.v[v].tree != FREE && (xy = grow(&b, v, &x)) >= 0) {
            b.time++;
            augment(&b, x, xy);
            adopt_orphans(&b);
        }
    }
    rc = res->flow ? write_flows(&b, g, res->flow) : MF_OK;
    /* the cut: vertices that still reach the sink, starting from those with
     * sink capacity left (terminal arcs live in tr, not in the arcs) */
    int32_t count = 0;
    memset(res->source_side, 1, (size_t)b.n);
    res->source_side[g->sink] = 0;
    for (int32_t u = 0; u < b.n; u++)
        if (b.v[u].tree != TERMINAL_VERTEX && b.v[u].tr < 0) {
            res->source_side[u] = 0;
            b.queue[count++] = u;
        }
    mf_residual_cut(&b.r, b.queue, count, g->source, res->source_side);
    double t1 = mf_now();
    res->flow_value = b.flow + g->flow_offset;
    res->stats.phase1_seconds = res->stats.solve_seconds = t1 - t0;
    res->stats.pushes = b.augmentations;
    res->stats.engine_used = MF_ENGINE_CPU;
    snprintf(res->stats.device_name, sizeof res->stats.device_name, "CPU");
    bk_free(&b);
    if (rc) {
        mf_result_free(res);
        return mf_fail(err, rc, NULL, 0, "CPU engine (BK): %s", mf_strerror(rc));
    }
    return MF_OK;
}
