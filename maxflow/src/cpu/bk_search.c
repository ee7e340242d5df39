/* CPU engine for image networks: Boykov & Kolmogorov's augmenting paths
 * ("An Experimental Comparison of Min-Cut/Max-Flow Algorithms for Energy
 * Minimization in Vision", PAMI 2004). A source tree and a sink tree grow
 * toward each other and are reused after each augmentation, which is why
 * it beats push-relabel on grids whose s-t paths are short. It has no
 * polynomial bound on general graphs, so push-relabel stays the default
 * for arbitrary DIMACS input.
 *
 *
 * This file is the search of one block (bk_run): the two trees grow from
 * the active vertices, meet, and adopt their orphans after each
 * augmentation; a run's set-up and buffers are here too. The augmentation
 * and the speed-ups that ride on its path walk (spines, roots lending,
 * stamped trunks, excesses) are bk_augment.c's: it is one call per path
 * (too large to be inlined into the loop, wherever it lives), and the
 * loop below keeps growth and adoption inlined. bk_blocks.c plans blocks
 * and merges them; bk_engine.c is the entry. */
#include "bk.h"
#include "tuning.h"

#include <stdlib.h>
#include <string.h>

static void push_active(bk_run *b, int32_t v)
{
    if (b->v[v].queued & 1)
        return;
    b->v[v].queued |= 1;
    int32_t at = b->qhead + b->qlen;
    b->queue[at >= b->size ? at - b->size : at] = v;
    b->qlen++;
}

static int32_t pop_active(bk_run *b)
{
    while (b->qlen) {
        int32_t v = b->queue[b->qhead];
        b->qhead = b->qhead + 1 == b->size ? 0 : b->qhead + 1;
        b->qlen--;
        b->v[v].queued &= (uint8_t)~1u;
        if (b->v[v].tree == SRC_TREE || b->v[v].tree == SNK_TREE)
            return v;
    }
    return -1;
}

static void make_orphan(bk_run *b, int32_t v)
{
    if (b->v[v].queued & ON_SPINE)
        mf_bk_spine_cut(b, b->v[v].tree, b->v[v].dist - 1, CUT_BROKEN);
    b->v[v].parent = ORPHAN;
    int32_t at = b->ohead + b->olen;
    b->orphans[at >= b->size ? at - b->size : at] = v;
    b->olen++;
}

#define SPINE_WINDOW 256    /* paths between decisions */

/* Spines pay where paths are long and come in hot spots; on short paths
 * (photos' networks: 17-113 vertices a path on average) the appends and
 * cuts cost what the walks they save did. So a run decides every
 * SPINE_WINDOW paths from their mean length against spine_length
 * (mf_bk_tuning), with hysteresis (off again below half). */
static void spine_switch(bk_run *b, int32_t length)
{
    b->window_length += length;
    if (++b->window < SPINE_WINDOW)
        return;
    int64_t mean = b->window_length / b->window;
    if (!b->spine_on && mean >= b->spine_length) {
        b->spine_on = 1;
    } else if (b->spine_on && 2 * mean < b->spine_length) {
        mf_bk_spine_cut(b, SRC_TREE, 0, CUT_KEEP);
        mf_bk_spine_cut(b, SNK_TREE, 0, CUT_KEEP);
        b->spine_on = 0;
    }
    b->window = 0;
    b->window_length = 0;
}

/* Distance from v to its tree's terminal through valid parents, or
 * FAR_AWAY when the chain ends at an orphan or reaches limit steps (the
 * adoption's best so far: a longer chain cannot win, so the rest of it
 * need not be walked). Caches along the way. */
static int32_t origin_distance(bk_run *b, int32_t v, int32_t limit)
{
    int32_t d = 0, u = v;
    for (;;) {
        if (d >= limit)
            return FAR_AWAY;
        if (b->v[u].stamp == b->time || (b->v[u].queued & ON_SPINE)) { /* a spine's dist is its depth + 1 */
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
        u = b->up[u];
    }
    /* stamp the chain so later searches stop early */
    int32_t total = d;
    for (u = v; b->v[u].stamp != b->time && !(b->v[u].queued & ON_SPINE); u = b->up[u]) {
        b->v[u].stamp = b->time;
        b->v[u].dist = dist_cap(d--);
    }
    return total;
}

/* Finds v a new parent in its tree, or frees it and orphans its children. */
static void adopt(bk_run *b, int32_t v)
{
    mf_rarc *arcs = b->arcs;
    uint8_t side = b->v[v].tree;
    int32_t best = NO_PARENT, best_d = FAR_AWAY;
    for (int32_t q = b->first[v]; q < b->first[v + 1]; q++) {
        int32_t w = arcs[q].head;
        if (!inside(b, w) || b->v[w].tree != side) /* no read of another block's node */
            continue;
        /* the tree's residual direction: w -> v for source, v -> w for sink */
        int32_t res = along_tree(arcs, q, side);
        if (res <= 0)
            continue;
        int32_t d = origin_distance(b, w, best_d);
        if (d < best_d) {
            best_d = d;
            best = q;
            if (d == 1) /* a root: no neighbour can be nearer */
                break;
        }
    }
    if (best != NO_PARENT) {
        b->v[v].parent = best;
        b->up[v] = arcs[best].head;
        b->v[v].stamp = b->time;
        b->v[v].dist = dist_cap(best_d + 1);
        if (b->excess && b->tr[v] && !(b->v[v].queued & 2)) { /* discharged once the trees are whole again */
            b->v[v].queued |= 2;
            b->pending[b->npending++] = v;
        }
        return;
    }
    b->v[v].tree = FREE;
    b->v[v].parent = NO_PARENT;
    for (int32_t q = b->first[v]; q < b->first[v + 1]; q++) {
        int32_t w = arcs[q].head;
        if (!inside(b, w)) /* no read of another block's node */
            continue;
        uint8_t tw = b->v[w].tree;
        if (tw == side) {
            int32_t res = along_tree(arcs, q, side);
            if (res > 0)
                push_active(b, w); /* w may grow into v again */
            if (b->v[w].parent >= 0 && b->up[w] == v)
                make_orphan(b, w);
        } else if (b->excess && tw == SRC_TREE + SNK_TREE - side) {
            /* the other tree takes v in: the sink tree must hold every
             * vertex that reaches the sink (the cut), and a root drained
             * by its own first path (the imbalances') may leave a free
             * vertex beside a sink-tree one that scanned long before */
            int32_t res = side == SRC_TREE ? arcs[q].res : arcs[q].rres;
            if (res > 0)
                push_active(b, w);
        }
    }
    if (b->excess && b->tr[v]) { /* an imbalance nothing of its tree takes: a root of the other */
        b->v[v].tree = b->tr[v] > 0 ? SRC_TREE : SNK_TREE;
        b->v[v].parent = TO_TERMINAL;
        b->v[v].stamp = b->time;
        b->v[v].dist = 1;
        push_active(b, v);
    }
}

static void adopt_orphans(bk_run *b)
{
    for (;;) {
        while (b->olen) {
            int32_t v = b->orphans[b->ohead];
            b->ohead = b->ohead + 1 == b->size ? 0 : b->ohead + 1;
            b->olen--;
            adopt(b, v);
        }
        if (!b->npending)
            return;
        /* every tree path ends at a root now: walk one (unless the vertex
         * has since rooted a source tree or lost its parent again) */
        int32_t v = b->pending[--b->npending];
        b->v[v].queued &= (uint8_t)~2u;
        if (b->tr[v] > 0 && b->v[v].tree == SNK_TREE && b->v[v].parent >= 0)
            mf_bk_discharge(b, v);
    }
}

/* Grows v's tree by one layer of neighbours; returns the arc (position in
 * the arcs of the source-tree end x) of a path found, or -1. */
static inline __attribute__((always_inline)) int32_t grow_side(bk_run *b, int32_t v, int32_t *x,
                                                                int32_t *from, const uint8_t side)
{
    mf_rarc *arcs = b->arcs;
    for (int32_t q = *from; q < b->first[v + 1]; q++) {
        int32_t w = arcs[q].head;
        int32_t res = side == SRC_TREE ? arcs[q].res : arcs[q].rres;
        if (res <= 0 || !inside(b, w))
            continue;
        uint8_t tw = b->v[w].tree;
        if (tw == FREE) {
            b->v[w].tree = side;
            b->v[w].parent = arcs[q].sister;
            b->up[w] = v;
            b->v[w].stamp = b->v[v].stamp;
            b->v[w].dist = dist_cap(b->v[v].dist + 1);
            push_active(b, w);
        } else if (tw == side) {
            /* shorten w's route when v is known to be nearer its terminal */
            if (b->v[w].stamp <= b->v[v].stamp && b->v[w].dist > b->v[v].dist &&
                b->v[w].parent != TO_TERMINAL) {
                if (b->v[w].queued & ON_SPINE)
                    mf_bk_spine_cut(b, side, b->v[w].dist - 1, CUT_KEEP);
                b->v[w].parent = arcs[q].sister;
                b->up[w] = v;
                b->v[w].stamp = b->v[v].stamp;
                b->v[w].dist = dist_cap(b->v[v].dist + 1);
            }
        } else if (tw != TERMINAL_VERTEX) {
            *from = q;
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

static int32_t grow(bk_run *b, int32_t v, int32_t *x, int32_t *from)
{
    return b->v[v].tree == SRC_TREE ? grow_side(b, v, x, from, SRC_TREE) : grow_side(b, v, x, from, SNK_TREE);
}

static void run_search(bk_run *b)
{
    int32_t v, x;
    while ((v = pop_active(b)) >= 0) {
        int32_t xy, from = b->first[v];
        /* v stays active while its layer still leads to paths. Each growth
         * resumes at the arc of the last path: an augmentation changes no
         * other arc of v but its parent's, and a neighbour that an adoption
         * frees re-activates v (adopt), which then scans again from the
         * start, which saves the rescans of arcs known to lead nowhere. */
        while (b->v[v].tree != FREE && (xy = grow(b, v, &x, &from)) >= 0) {
            b->time++;
            mf_bk_augment(b, x, xy);
            adopt_orphans(b);
            if (b->spines)
                spine_switch(b, b->last_length);
        }
    }
}

/* A block's first run: every vertex with terminal capacity left roots a
 * tree and is active. */
static void seed_trees(bk_run *b)
{
    for (int32_t v = b->lo; v < b->lo + b->size; v++) {
        bk_node *x = &b->v[v];
        if (x->tree == TERMINAL_VERTEX || !b->tr[v])
            continue;
        x->tree = b->tr[v] > 0 ? SRC_TREE : SNK_TREE;
        x->parent = TO_TERMINAL;
        x->stamp = 0;
        x->dist = 1;
        push_active(b, v);
    }
}

/* A merged block keeps its halves' trees; the tree vertices with an arc
 * across the seam at mid are the only ones that may grow or meet the
 * other tree, so they are the active ones. They are found among the
 * border vertices of the merged leaves, in vertex order: a scan of the
 * whole block would cost more than the last merges' searches, which find
 * few paths. */
static void activate_seam(bk_run *b, int32_t mid, const bk_border *leaves, int nleaves)
{
    for (int j = 0; j < nleaves; j++)
        for (int32_t i = 0; i < leaves[j].count; i++) {
            int32_t v = leaves[j].v[i];
            if (b->v[v].tree != SRC_TREE && b->v[v].tree != SNK_TREE)
                continue;
            for (int32_t q = b->first[v]; q < b->first[v + 1]; q++) {
                int32_t w = b->arcs[q].head;
                if (inside(b, w) && (v < mid) != (w < mid)) {
                    push_active(b, v);
                    break;
                }
            }
        }
}

void *mf_bk_job_run(void *arg)
{
    bk_job *j = arg;
    bk_run *b = &j->run;
    b->queue = mf_malloc(sizeof(int32_t) * (size_t)b->size);
    b->orphans = mf_malloc(sizeof(int32_t) * (size_t)b->size);
    /* (vertex, arc) for every vertex: only what paths reach is touched */
    b->path = mf_malloc(sizeof(int32_t) * 2 * (size_t)b->size);
    /* each vertex at most once (bk_node.queued bit 1); excesses only */
    b->pending = b->excess ? mf_malloc(sizeof(int32_t) * (size_t)b->size) : NULL;
    int spines_ok = 1;
    for (int k = 0; k < 2 && b->spines; k++) {
        bk_spine *s = &b->spine[k];
        s->cap = b->size < SPINE_MAX ? b->size : SPINE_MAX;
        s->vert = mf_malloc(sizeof(int32_t) * 4 * (size_t)s->cap);
        s->val = mf_malloc(sizeof(int64_t) * 3 * (size_t)s->cap);
        if (!s->vert || !s->val)
            spines_ok = 0;
        s->arc = s->vert ? s->vert + s->cap : NULL;
        s->old_stamp = s->vert ? s->vert + 2 * s->cap : NULL;
        s->old_dist = s->vert ? s->vert + 3 * s->cap : NULL;
        s->at = s->val ? s->val + s->cap : NULL;
        s->lowest = s->val ? s->val + 2 * s->cap : NULL;
    }
    if (!b->queue || !b->orphans || !b->path || (b->excess && !b->pending) || !spines_ok) {
        j->nomem = 1;
    } else {
        if (j->mid < 0)
            seed_trees(b);
        else
            activate_seam(b, j->mid, j->leaves, j->nleaves);
        run_search(b);
        if (b->spine_on) { /* the arcs show all the flow again */
            mf_bk_spine_cut(b, SRC_TREE, 0, CUT_KEEP);
            mf_bk_spine_cut(b, SNK_TREE, 0, CUT_KEEP);
        }
    }
    for (int k = 0; k < 2; k++) {
        free(b->spine[k].vert);
        free(b->spine[k].val);
        b->spine[k] = (bk_spine){0};
    }
    free(b->queue);
    free(b->orphans);
    free(b->path);
    free(b->pending);
    b->queue = b->orphans = b->path = b->pending = NULL;
    return NULL;
}

void mf_bk_job_init(bk_job *j, mf_residual *r, bk_node *v, int32_t *up, int64_t *tr, int32_t lo, int32_t hi,
                    int32_t mid, int32_t time, int excess)
{
    memset(j, 0, sizeof *j);
    j->run.first = r->first;
    j->run.arcs = r->arcs;
    j->run.v = v;
    j->run.up = up;
    j->run.tr = tr;
    j->run.lo = lo;
    j->run.size = hi - lo;
    j->run.time = time; /* above every stamp of the levels before */
    j->run.excess = excess;
    j->run.spines = !excess;
    j->run.spine_length = mf_bk_tuning_get()->spine_length;
    j->run.spine_on = j->run.spines && j->run.spine_length <= 0; /* 0: from the first path */
    j->mid = mid;
}
