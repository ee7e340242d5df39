/* CPU engine: incremental breadth-first search (IBFS; Goldberg, Hed,
 * Kaplan, Tarjan & Werneck, "Maximum Flows by Incremental Breadth-First
 * Search", ESA 2011). Like Boykov-Kolmogorov it grows a source tree and a
 * sink tree and reuses them after each augmentation, but the trees are
 * breadth-first: every vertex carries its distance to its terminal, a
 * tree grows one whole level per pass (the smaller frontier first), and
 * an orphan is re-attached at its own distance or relabelled to the
 * lowest neighbour's distance plus one. Short paths stay short, which is
 * what BK loses on large photos, and the labels bound the work.
 *
 * Orphans are processed in increasing distance, so that a parent one
 * level up is already settled. A vertex leaves its tree only when no
 * vertex of the tree at an already scanned level has residual capacity
 * into it; so every tree vertex with residual capacity to a free vertex
 * sits on the tree's unscanned level, and an empty frontier proves that
 * the tree is closed: the flow is maximum. The canonical cut's search
 * re-checks this (an augmenting path left over would be an internal
 * error).
 *
 * Terminals as in BK: one signed terminal residual per vertex. */
#include "cpu_engines.h"

#include <stdlib.h>
#include <string.h>

enum { FREE = 0, S_TREE = 1, T_TREE = 2, TERMINAL_VERTEX = 3 };
#define NONE (-1)
#define TO_TERMINAL (-2)

typedef struct ib_node {
    int64_t tr;      /* terminal residual: > 0 from source, < 0 to sink */
    int32_t label;   /* distance to the tree's terminal (>= 1) */
    int32_t parent;  /* position of the arc to the parent, TO_TERMINAL or NONE */
    int32_t current; /* adoption resumes here: earlier arcs held no parent at this label */
    int32_t next;    /* orphan bucket link */
    int32_t up;      /* the parent vertex (head of the parent arc): children are found
                      * without reading their parent arcs */
    uint8_t tree, orphan;
} ib_node;

typedef struct ib_list {
    int32_t *v;
    int32_t len, cap;
} ib_list;

typedef struct ib {
    int32_t n;
    mf_residual r;
    ib_node *v;
    ib_list cur[3], nxt[3]; /* per tree (S_TREE, T_TREE): the frontier and the level after it */
    ib_list rescan[3];      /* tree vertices below the frontier with room toward a freed vertex */
    int32_t level[3];       /* label of the vertices on cur */
    int scanning;           /* the tree whose frontier is being scanned, or 0 */
    int32_t *bucket;        /* orphans by label */
    int32_t omin, omax;
    int64_t flow, augmentations, relabels;
    int nomem;
} ib;

static int list_push(ib *b, ib_list *l, int32_t v)
{
    if (l->len == l->cap) {
        int32_t cap = l->cap ? 2 * l->cap : 1024;
        int32_t *p = realloc(l->v, sizeof(int32_t) * (size_t)cap);
        if (!p) {
            b->nomem = 1;
            return -1;
        }
        l->v = p;
        l->cap = cap;
    }
    l->v[l->len++] = v;
    return 0;
}

/* Residual capacity, in the tree's direction, of arc q at v: into v from
 * its head for the source tree, out of v to its head for the sink tree. */
static inline int32_t toward(const mf_rarc *a, int tree)
{
    return tree == S_TREE ? a->rres : a->res;
}

/* Residual capacity of arc q at v in the direction a tree grows: out of v
 * for the source tree, into v for the sink tree. */
static inline int32_t away(const mf_rarc *a, int tree)
{
    return tree == S_TREE ? a->res : a->rres;
}

/* Highest label a vertex of tree t may take: the tree's unscanned level. */
static inline int32_t max_label(const ib *b, int t)
{
    return b->scanning == t ? b->level[t] + 1 : b->level[t];
}

/* Lists v, now at label L of tree t, for a scan: on the frontier list of
 * that level while it is still to be scanned, else on the rescan list (its
 * labels are not exact distances, so a relabelled vertex may land below
 * the frontier, perhaps interrupted in the middle of its own scan). */
static void enlist(ib *b, int t, int32_t v, int32_t L)
{
    if (L == b->level[t])
        list_push(b, &b->cur[t], v);
    else if (b->scanning == t && L == b->level[t] + 1)
        list_push(b, &b->nxt[t], v);
    else
        list_push(b, &b->rescan[t], v);
}

static void make_orphan(ib *b, int32_t v)
{
    ib_node *x = &b->v[v];
    int32_t L = x->label;
    x->orphan = 1;
    x->parent = NONE;
    x->next = b->bucket[L];
    b->bucket[L] = v;
    if (L < b->omin)
        b->omin = L;
    if (L > b->omax)
        b->omax = L;
}

/* Orphans every child of v (the tree vertices whose parent arc leads to v). */
static void orphan_children(ib *b, int32_t v, int t)
{
    const mf_rarc *arcs = b->r.arcs;
    for (int32_t q = b->r.first[v]; q < b->r.first[v + 1]; q++) {
        int32_t w = arcs[q].head;
        ib_node *x = &b->v[w];
        if (x->tree == t && !x->orphan && x->parent >= 0 && x->up == v)
            make_orphan(b, w);
    }
}

/* v leaves tree t: tree vertices that have residual capacity into it (the
 * source tree) or out of it (the sink tree) go on the rescan lists, which
 * keeps every tree vertex with room toward a free vertex listed. */
static void release(ib *b, int32_t v)
{
    const mf_rarc *arcs = b->r.arcs;
    ib_node *x = &b->v[v];
    x->tree = FREE;
    x->parent = NONE;
    for (int32_t q = b->r.first[v]; q < b->r.first[v + 1]; q++) {
        int32_t w = arcs[q].head;
        int tw = b->v[w].tree;
        if ((tw == S_TREE && arcs[q].rres > 0) || (tw == T_TREE && arcs[q].res > 0))
            list_push(b, &b->rescan[tw], w);
    }
}

/* Re-attaches orphan v: at its label through the current arc, else (its
 * children orphaned first, so that none becomes its parent) relabelled to
 * the lowest settled neighbour plus one up to the tree's unscanned level,
 * else freed. */
static void adopt(ib *b, int32_t v)
{
    const mf_rarc *arcs = b->r.arcs;
    ib_node *x = &b->v[v];
    int t = x->tree;
    int32_t d = x->label, end = b->r.first[v + 1];
    x->orphan = 0;
    if (t == S_TREE ? x->tr > 0 : x->tr < 0) { /* still joined to its terminal */
        x->parent = TO_TERMINAL;
        if (d != 1) {
            orphan_children(b, v, t);
            x->label = 1;
            enlist(b, t, v, 1);
        }
        return;
    }
    for (int32_t q = x->current; q < end; q++) {
        const ib_node *u = &b->v[arcs[q].head];
        if (u->tree == t && u->label == d - 1 && !u->orphan && toward(&arcs[q], t) > 0) {
            x->parent = x->current = q;
            x->up = arcs[q].head;
            return;
        }
    }
    /* one pass: v's children become orphans (its label changes or it
     * leaves the tree), the lowest other settled neighbour its parent */
    b->relabels++;
    int32_t best = NONE, best_label = INT32_MAX;
    for (int32_t q = b->r.first[v]; q < end; q++) {
        int32_t w = arcs[q].head;
        ib_node *u = &b->v[w];
        if (u->tree != t || u->orphan)
            continue;
        if (u->parent >= 0 && u->up == v)
            make_orphan(b, w);
        else if (u->label < best_label && toward(&arcs[q], t) > 0) {
            best_label = u->label;
            best = q;
        }
    }
    if (best != NONE && best_label + 1 <= max_label(b, t)) {
        x->label = best_label + 1;
        x->parent = x->current = best;
        x->up = arcs[best].head;
        enlist(b, t, v, x->label);
    } else {
        release(b, v);
    }
}

static void adopt_orphans(ib *b)
{
    while (b->omin <= b->omax) {
        int32_t v = b->bucket[b->omin];
        if (v == NONE) {
            b->omin++;
            continue;
        }
        b->bucket[b->omin] = b->v[v].next;
        adopt(b, v);
    }
    b->omin = INT32_MAX;
    b->omax = -1;
}

/* Pushes the bottleneck along source ~> x -> y ~> sink (arc xy at x);
 * vertices whose link to their tree saturates become orphans. */
static void augment(ib *b, int32_t x, int32_t xy)
{
    mf_rarc *arcs = b->r.arcs;
    int64_t cap = arcs[xy].res;
    int32_t v;
    for (v = x; b->v[v].parent != TO_TERMINAL; v = arcs[b->v[v].parent].head)
        if (arcs[b->v[v].parent].rres < cap)
            cap = arcs[b->v[v].parent].rres;
    if (b->v[v].tr < cap)
        cap = b->v[v].tr;
    for (v = arcs[xy].head; b->v[v].parent != TO_TERMINAL; v = arcs[b->v[v].parent].head)
        if (arcs[b->v[v].parent].res < cap)
            cap = arcs[b->v[v].parent].res;
    if (-b->v[v].tr < cap)
        cap = -b->v[v].tr;
    int32_t delta = (int32_t)cap;
    mf_rarc_push(arcs, xy, delta);
    for (v = x;;) {
        int32_t p = b->v[v].parent;
        if (p == TO_TERMINAL) {
            if (!(b->v[v].tr -= delta))
                make_orphan(b, v);
            break;
        }
        mf_rarc_push(arcs, p, -delta);
        int32_t next = arcs[p].head;
        if (!arcs[p].rres)
            make_orphan(b, v);
        v = next;
    }
    for (v = arcs[xy].head;;) {
        int32_t p = b->v[v].parent;
        if (p == TO_TERMINAL) {
            if (!(b->v[v].tr += delta))
                make_orphan(b, v);
            break;
        }
        mf_rarc_push(arcs, p, delta);
        int32_t next = arcs[p].head;
        if (!arcs[p].res)
            make_orphan(b, v);
        v = next;
    }
    b->flow += delta;
    b->augmentations++;
}

/* Scans the arcs of v (tree t, label L) in the tree's growing direction:
 * free neighbours join at L + 1 and are listed for their own scan,
 * neighbours in the other tree close augmenting paths. Stops when v leaves
 * its place (it is listed again wherever it went). */
static void scan(ib *b, int32_t v, int t)
{
    mf_rarc *arcs = b->r.arcs;
    int other = t == S_TREE ? T_TREE : S_TREE;
    ib_node *x = &b->v[v];
    int32_t L = x->label;
    for (int32_t q = b->r.first[v]; q < b->r.first[v + 1]; q++) {
        if (away(&arcs[q], t) <= 0)
            continue;
        int32_t w = arcs[q].head;
        ib_node *y = &b->v[w];
        if (y->tree == FREE) {
            y->tree = (uint8_t)t;
            y->label = L + 1;
            y->parent = y->current = arcs[q].sister;
            y->up = v;
            y->orphan = 0;
            enlist(b, t, w, L + 1);
        } else if (y->tree == other) {
            if (t == S_TREE)
                augment(b, v, q);
            else
                augment(b, w, arcs[q].sister);
            adopt_orphans(b);
            if (x->tree != t || x->orphan || x->label != L)
                return;
            q--; /* the arc may still have room */
        }
    }
}

/* One pass of tree t: first the vertices below the frontier that gained a
 * free or other-tree neighbour, then the frontier, whose free neighbours
 * make the next level. */
static void grow(ib *b, int t)
{
    int32_t D = b->level[t];
    b->scanning = t;
    b->nxt[t].len = 0;
    for (int32_t i = 0; i < b->rescan[t].len; i++) {
        int32_t v = b->rescan[t].v[i];
        ib_node *x = &b->v[v];
        if (x->tree == t && !x->orphan && x->label < D) /* else gone, or on the frontier */
            scan(b, v, t);
    }
    b->rescan[t].len = 0;
    for (int32_t i = 0; i < b->cur[t].len; i++) {
        int32_t v = b->cur[t].v[i];
        ib_node *x = &b->v[v];
        if (x->tree == t && !x->orphan && x->label == D) /* else moved since it was listed */
            scan(b, v, t);
    }
    /* the next level becomes the frontier */
    ib_list tmp = b->cur[t];
    b->cur[t] = b->nxt[t];
    b->nxt[t] = tmp;
    b->nxt[t].len = 0;
    b->level[t] = D + 1;
    b->scanning = 0;
}

static void ib_free(ib *b)
{
    mf_residual_free(&b->r);
    mf_free_big(b->v);
    free(b->bucket);
    for (int t = 0; t < 3; t++) {
        free(b->cur[t].v);
        free(b->nxt[t].v);
        free(b->rescan[t].v);
    }
}

static int ib_init(ib *b, const mf_graph *g, int cut_only)
{
    int32_t n = g->num_vertices;
    memset(b, 0, sizeof *b);
    b->n = n;
    b->omin = INT32_MAX;
    b->omax = -1;
    b->v = mf_alloc_big(sizeof(ib_node) * (size_t)n);
    b->bucket = malloc(sizeof(int32_t) * ((size_t)n + 2));
    int64_t *tr = malloc(sizeof(int64_t) * (size_t)n);
    if (!b->v || !b->bucket || !tr ||
        (cut_only ? mf_cut_setup(g, &b->r, tr, &b->flow)
                  : mf_residual_init(&b->r, g) || mf_terminal_residuals(g, tr, &b->flow, 1)) != MF_OK) {
        free(tr);
        return MF_ERR_NOMEM;
    }
    memset(b->v, 0, sizeof(ib_node) * (size_t)n);
    for (int32_t i = 0; i < n + 2; i++)
        b->bucket[i] = NONE;
    b->level[S_TREE] = b->level[T_TREE] = 1;
    for (int32_t v = 0; v < n; v++) {
        ib_node *x = &b->v[v];
        x->tr = tr[v];
        x->parent = NONE;
        x->current = b->r.first[v];
        if (v == g->source || v == g->sink) {
            x->tree = TERMINAL_VERTEX;
        } else if (x->tr) {
            x->tree = x->tr > 0 ? S_TREE : T_TREE;
            x->parent = TO_TERMINAL;
            x->label = 1;
            list_push(b, &b->cur[x->tree], v);
        }
    }
    free(tr);
    return b->nomem ? MF_ERR_NOMEM : MF_OK;
}

int mf_ibfs(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    ib b;
    memset(res, 0, sizeof *res);
    double t0 = mf_now();
    int rc = ib_init(&b, g, opt->cut_only);
    if (rc == MF_OK)
        rc = mf_result_alloc(res, g, !opt->cut_only);
    const double setup = mf_now() - t0;
    if (rc) {
        ib_free(&b);
        return mf_fail(err, rc, NULL, 0, "CPU engine (IBFS): %s", mf_strerror(rc));
    }
    for (;;) {
        int32_t work_s = b.cur[S_TREE].len + b.rescan[S_TREE].len;
        int32_t work_t = b.cur[T_TREE].len + b.rescan[T_TREE].len;
        if (!work_s || !work_t || b.nomem)
            break; /* a tree that cannot grow is closed: the flow is maximum */
        grow(&b, work_s <= work_t ? S_TREE : T_TREE);
    }
    rc = b.nomem ? MF_ERR_NOMEM : MF_OK;
    if (rc == MF_OK && res->flow) {
        int64_t *left = malloc(sizeof(int64_t) * (size_t)b.n);
        if (!left)
            rc = MF_ERR_NOMEM;
        for (int32_t v = 0; left && v < b.n; v++)
            left[v] = b.v[v].tr;
        if (left)
            rc = mf_terminal_flows(g, &b.r, left, res->flow);
        free(left);
    }
    /* the cut: vertices that still reach the sink; none may have source
     * capacity left (that would be an augmenting path) */
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)b.n);
    if (rc == MF_OK && !queue)
        rc = MF_ERR_NOMEM;
    if (rc == MF_OK) {
        int32_t count = 0;
        memset(res->source_side, 1, (size_t)b.n);
        res->source_side[g->sink] = 0;
        for (int32_t u = 0; u < b.n; u++)
            if (b.v[u].tree != TERMINAL_VERTEX && b.v[u].tr < 0) {
                res->source_side[u] = 0;
                queue[count++] = u;
            }
        mf_residual_cut(&b.r, queue, count, g->source, res->source_side);
        for (int32_t u = 0; u < b.n; u++)
            if (!res->source_side[u] && b.v[u].tr > 0 && b.v[u].tree != TERMINAL_VERTEX)
                rc = MF_ERR_INTERNAL;
    }
    free(queue);
    double t1 = mf_now();
    res->flow_value = b.flow + g->flow_offset;
    res->stats.phase1_seconds = res->stats.solve_seconds = t1 - t0;
    res->stats.setup_seconds = setup;
    res->stats.pushes = b.augmentations;
    res->stats.relabels = b.relabels;
    res->stats.engine_used = MF_ENGINE_CPU;
    res->stats.cpu_algorithm = MF_CPU_IBFS;
    snprintf(res->stats.device_name, sizeof res->stats.device_name, "CPU");
    ib_free(&b);
    if (rc) {
        mf_result_free(res);
        return mf_fail(err, rc, NULL, 0, "CPU engine (IBFS): %s",
                       rc == MF_ERR_INTERNAL ? "an augmenting path is left" : mf_strerror(rc));
    }
    return MF_OK;
}
