/* CPU engine for image networks: Boykov & Kolmogorov's augmenting paths
 * ("An Experimental Comparison of Min-Cut/Max-Flow Algorithms for Energy
 * Minimization in Vision", PAMI 2004). A source tree and a sink tree grow
 * toward each other and are reused after each augmentation, which is why
 * it beats push-relabel on grids whose s-t paths are short. It has no
 * polynomial bound on general graphs, so push-relabel stays the default
 * for arbitrary DIMACS input.
 *
 *
 * This file is the search of one block (bk_run): the two trees grow,
 * augment, adopt their orphans; the speed-ups ride on the path walk and
 * stay in this translation unit so that the compiler inlines them into
 * it: spines (the last path's branches cached), roots lending to a path
 * whose root runs dry, stamped trunks, excesses left by cut-only paths.
 * bk_blocks.c plans blocks and merges them; bk_engine.c is the entry. */
#include "bk.h"
#include "tuning.h"

#include <stdlib.h>
#include <string.h>

static inline int inside(const bk_run *b, int32_t w)
{
    return (uint32_t)(w - b->lo) < (uint32_t)b->size;
}

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

/* The residual of a vertex's arc q in its tree's direction, were q's head
 * its parent: into the vertex for the source tree (the parent sends), out
 * of it for the sink tree. */
static inline int32_t along_tree(const mf_rarc *arcs, int32_t q, uint8_t side)
{
    return side == SRC_TREE ? arcs[q].rres : arcs[q].res;
}

/* spine_cut's modes: the vertices cut keep their branch to the root (a
 * junction lower down, a shorter parent, the end); their branch breaks at
 * an orphan; it breaks at the arcs the last push dried (orphans made) */
enum { CUT_KEEP, CUT_BROKEN, CUT_DRIED };
static void spine_cut(bk_run *b, uint8_t side, int32_t z, int mode);

/* An augmentation's orphans go to the front of the queue, the children a
 * failed adoption orphans to the back (the order of Kolmogorov's
 * maxflow-v3): the fresh break is mended first, near the path, before
 * older subtrees, which is faster than one FIFO. An orphan on a spine
 * cuts it there first. */
static void make_orphan_front(bk_run *b, int32_t v)
{
    if (b->v[v].queued & ON_SPINE)
        spine_cut(b, b->v[v].tree, b->v[v].dist - 1, CUT_BROKEN);
    b->v[v].parent = ORPHAN;
    b->ohead = b->ohead == 0 ? b->size - 1 : b->ohead - 1;
    b->orphans[b->ohead] = v;
    b->olen++;
}

static void make_orphan(bk_run *b, int32_t v)
{
    if (b->v[v].queued & ON_SPINE)
        spine_cut(b, b->v[v].tree, b->v[v].dist - 1, CUT_BROKEN);
    b->v[v].parent = ORPHAN;
    int32_t at = b->ohead + b->olen;
    b->orphans[at >= b->size ? at - b->size : at] = v;
    b->olen++;
}

/* Records v and its parent arc on the path buffer (the second walk, the
 * push, then runs over it without chasing parents again). The buffer has
 * room for every vertex of the run: a path's two tree branches are
 * disjoint and neither repeats a vertex. */
static inline void path_add(bk_run *b, int32_t v, int32_t arc)
{
    b->path[2 * b->plen] = v;
    b->path[2 * b->plen + 1] = arc;
    b->plen++;
}

/* Drops the spine's positions [z, len), the far end first, writing the
 * flow that each carries onto its arc; CUT_DRIED: a vertex whose arc that
 * flow ran dry becomes an orphan (in push_side's order). A vertex that
 * joined in this augmentation and now hangs below an orphan gets back the
 * stamp it had: stamped now, origin_distance would trust its distance,
 * and stamp_trunk stamps nothing below an orphan either. */
static void spine_cut(bk_run *b, uint8_t side, int32_t z, int mode)
{
    bk_spine *s = &b->spine[side - 1];
    for (int32_t i = s->len - 1; i >= z; i--) {
        int32_t v = s->vert[i];
        bk_node *x = &b->v[v];
        x->queued &= (uint8_t)~ON_SPINE;
        if (mode != CUT_KEEP && x->stamp == b->time) {
            x->stamp = s->old_stamp[i];
            x->dist = (uint16_t)s->old_dist[i];
        }
        if (!i)
            break;
        int64_t d = s->sent - s->at[i];
        if (d)
            mf_rarc_push(b->arcs, s->arc[i], side == SRC_TREE ? -(int32_t)d : (int32_t)d);
        if (mode == CUT_DRIED && s->val[i] == s->sent)
            make_orphan_front(b, v);
    }
    if (z < s->len)
        s->len = z;
}

/* Appends v (its parent arc and that arc's residual toward the terminal)
 * below the spine's last vertex; 0 when the spine is full. */
static inline int spine_add(bk_run *b, uint8_t side, int32_t v, int32_t arc, int64_t res)
{
    bk_spine *s = &b->spine[side - 1];
    if (s->len == s->cap)
        return 0;
    int32_t i = s->len++;
    s->vert[i] = v;
    s->arc[i] = arc;
    s->at[i] = s->sent;
    s->val[i] = res + s->sent;
    s->lowest[i] = !i ? INT64_MAX : s->val[i] < s->lowest[i - 1] ? s->val[i] : s->lowest[i - 1];
    s->old_stamp[i] = b->v[v].stamp;
    s->old_dist[i] = b->v[v].dist;
    b->v[v].queued |= ON_SPINE;
    b->v[v].stamp = b->time;
    b->v[v].dist = dist_cap(i + 1);
    return 1;
}

/* One side of a path with spines: walks from x up to the first vertex on
 * the side's spine (or to a root), recording the vertices walked; re-bases
 * the spine on this branch (cut below the junction, the walked vertices
 * appended from the junction down) and lowers *cap to the branch's
 * bottleneck. The path buffer keeps only the entries that did not fit on
 * the spine, those nearest x, for push_side. */
static void spine_reach(bk_run *b, int32_t x, uint8_t side, int64_t *cap)
{
    const mf_rarc *arcs = b->arcs;
    bk_spine *s = &b->spine[side - 1];
    int32_t start = b->plen, v;
    for (v = x; !(b->v[v].queued & ON_SPINE) && b->v[v].parent != TO_TERMINAL; v = b->up[v])
        path_add(b, v, b->v[v].parent);
    b->walked += b->plen - start;
    if (b->v[v].queued & ON_SPINE) {
        spine_cut(b, side, b->v[v].dist, CUT_KEEP); /* v, at depth dist - 1, stays */
    } else {
        spine_cut(b, side, 0, CUT_KEEP);
        spine_add(b, side, v, TO_TERMINAL, 0);
    }
    int32_t k = b->plen;
    for (; k > start; k--) {
        int32_t p = b->path[2 * k - 1];
        if (!spine_add(b, side, b->path[2 * k - 2], p, along_tree(arcs, p, side)))
            break;
    }
    int64_t c = s->lowest[s->len - 1] - s->sent;
    if (*cap < c)
        c = *cap;
    for (int32_t i = start; i < k; i++) {
        int32_t p = b->path[2 * i + 1];
        int64_t r = along_tree(arcs, p, side);
        if (r < c)
            c = r;
    }
    *cap = c;
    b->plen = k;
}

/* Sends `across` through the whole spine; the vertices whose arcs it dries
 * leave it as orphans, with everything below the first of them. */
static void spine_send(bk_run *b, uint8_t side, int64_t across)
{
    bk_spine *s = &b->spine[side - 1];
    s->sent += across;
    if (s->len < 2 || s->lowest[s->len - 1] != s->sent)
        return;
    int32_t lo = 1, hi = s->len - 1; /* the first position whose lowest is sent (lowest never rises) */
    while (lo < hi) {
        int32_t m = lo + (hi - lo) / 2;
        if (s->lowest[m] == s->sent)
            hi = m;
        else
            lo = m + 1;
    }
    spine_cut(b, side, lo, CUT_DRIED);
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
        spine_cut(b, SRC_TREE, 0, CUT_KEEP);
        spine_cut(b, SNK_TREE, 0, CUT_KEEP);
        b->spine_on = 0;
    }
    b->window = 0;
    b->window_length = 0;
}

/* Bottleneck of the arcs of the path source ~> x -> y ~> sink through arc
 * xy, each side's apart, the bridge xy in both (the roots' terminal
 * residuals apart: augment weighs them with what their neighbours lend);
 * the path's vertices go on the buffer, source side first (*split of them,
 * the root last), then the sink side (the root last). */
static void bottleneck(bk_run *b, int32_t x, int32_t xy, int64_t *cap_s, int32_t *split, int64_t *cap_t)
{
    const mf_rarc *arcs = b->arcs;
    int64_t cap = arcs[xy].res;
    int32_t v;
    b->plen = 0;
    for (v = x; b->v[v].parent != TO_TERMINAL; v = b->up[v]) {
        int32_t p = b->v[v].parent, into_v = arcs[p].rres;
        if (into_v < cap)
            cap = into_v;
        path_add(b, v, p);
    }
    path_add(b, v, TO_TERMINAL);
    *split = b->plen;
    *cap_s = cap;
    cap = arcs[xy].res;
    for (v = arcs[xy].head; b->v[v].parent != TO_TERMINAL; v = b->up[v]) {
        int32_t p = b->v[v].parent;
        if (arcs[p].res < cap)
            cap = arcs[p].res;
        path_add(b, v, p);
    }
    path_add(b, v, TO_TERMINAL);
    *cap_t = cap;
}

/* What v's terminal residual holds in the direction of the side tree:
 * from the source for SRC_TREE, to the sink for SNK_TREE. */
static inline int64_t side_residual(const bk_run *b, int32_t v, uint8_t side)
{
    return side == SRC_TREE ? b->tr[v] : -b->tr[v];
}

/* Up to `want` more flow for a path whose root (a terminal vertex of the
 * photo's data term) holds less than the path's arcs could carry: roots
 * of the same tree beside it that can send to it (source side) or take
 * from it (sink side) lend their terminal residual through that one arc,
 * so one walk of the path moves what would otherwise take one path per
 * root. On the networks without the prior half the paths ended at a
 * drained root, and the next path walked the same two trunks again to the
 * root's neighbour. Picks go to lend[] as (arc, amount); returns the sum. */
static int64_t gather_roots(bk_run *b, int32_t root, uint8_t side, int64_t want, int32_t *lend_arc, int64_t *lend_amt,
                            int *nlend)
{
    const mf_rarc *arcs = b->arcs;
    int64_t got = 0;
    *nlend = 0;
    if (b->first[root + 1] - b->first[root] > MAX_DEGREE_LEND)
        return 0;
    for (int32_t q = b->first[root]; q < b->first[root + 1] && got < want; q++) {
        int32_t w = arcs[q].head;
        if (!inside(b, w) || b->v[w].tree != side || b->v[w].parent != TO_TERMINAL)
            continue;
        int64_t room = along_tree(arcs, q, side); /* w -> root, root -> w */
        int64_t term = side_residual(b, w, side);
        if (room <= 0 || term <= 0)
            continue;
        for (int i = 0; i < *nlend; i++) /* parallel arcs: w lends its residual once */
            if (arcs[lend_arc[i]].head == w)
                term -= lend_amt[i];
        int64_t x = room < term ? room : term;
        if (x <= 0)
            continue;
        if (x > want - got)
            x = want - got;
        lend_arc[*nlend] = q;
        lend_amt[*nlend] = x;
        (*nlend)++;
        got += x;
    }
    return got;
}

/* Sends what the roots lent (gather_roots) across their arcs; a root left
 * without terminal residual becomes an orphan. */
static void take_lent(bk_run *b, uint8_t side, int64_t amount, const int32_t *lend_arc, const int64_t *lend_amt,
                      int nlend)
{
    mf_rarc *arcs = b->arcs;
    for (int i = 0; i < nlend && amount > 0; i++) {
        int32_t q = lend_arc[i], w = arcs[q].head;
        int64_t x = lend_amt[i] < amount ? lend_amt[i] : amount;
        amount -= x;
        if (side == SRC_TREE) {
            mf_rarc_push(arcs, q, -(int32_t)x); /* w -> root */
            b->tr[w] -= x;
        } else {
            mf_rarc_push(arcs, q, (int32_t)x); /* root -> w */
            b->tr[w] += x;
        }
        if (!b->tr[w])
            make_orphan_front(b, w);
    }
}

/* Moves `across` along one side of the path (the buffer's entries
 * [from, to), the root at to): each hop passes what its arc can carry;
 * what it cannot stays at the hop's vertex as an imbalance (an excess:
 * only the sink side is ever pushed inexactly), and that vertex, its arc
 * dry, is an orphan like any other (adopt). Returns what reaches the
 * root. `exact`: every arc can carry `across` (BK's push; the plain
 * loop is kept apart because it compiles to far fewer instructions). */
static inline __attribute__((always_inline)) int64_t push_side(bk_run *b, int32_t from, int32_t to, int64_t across,
                                                                const uint8_t side, const int exact)
{
    mf_rarc *arcs = b->arcs;
    const int32_t *path = b->path;
    int64_t a = across;
    for (int32_t i = from; i < to; i++) {
        int32_t v = path[2 * i], p = path[2 * i + 1];
        if (exact) { /* BK's push: every arc can carry `across` */
            mf_rarc_push(arcs, p, side == SRC_TREE ? -(int32_t)a : (int32_t)a);
            if (!along_tree(arcs, p, side))
                make_orphan_front(b, v);
            continue;
        }
        int64_t room = along_tree(arcs, p, side);
        int64_t m = room < a ? room : a;
        mf_rarc_push(arcs, p, side == SRC_TREE ? -(int32_t)m : (int32_t)m);
        if (m < a)
            b->tr[v] += side == SRC_TREE ? -(a - m) : a - m;
        if (room == m)
            make_orphan_front(b, v);
        a = m;
    }
    return a;
}

/* What the root of the side tree's neighbours send for it (take_lent), when
 * it hands over `used`: its own residual goes first, theirs after. Called
 * before the path's arcs move, as BK's order of orphans has it. */
static void lend_for(bk_run *b, int32_t root, uint8_t side, int64_t used, const int32_t *lend_arc,
                     const int64_t *lend_amt, int nlend)
{
    int64_t own_have = side_residual(b, root, side);
    if (nlend)
        take_lent(b, side, used - (own_have < used ? own_have : used), lend_arc, lend_amt, nlend);
}

/* The root of the side tree hands over `used` of the `arrived` that
 * reached it (its own share; lend_for sent the rest); what exceeds `used`
 * stays as an imbalance of the opposite sign, and the root, drained or
 * turned, is an orphan. */
static void settle_root(bk_run *b, int32_t root, uint8_t side, int64_t arrived, int64_t used)
{
    int64_t own_have = side_residual(b, root, side);
    int64_t change = (own_have < used ? own_have : used) + (arrived - used); /* what leaves the root's residual */
    b->tr[root] += side == SRC_TREE ? -change : change;
    if (arrived > used || !b->tr[root])
        make_orphan_front(b, root);
}

/* The path's vertices [from, to) (its side's root at to - 1) above that
 * side's orphan nearest the root still reach the terminal through valid
 * parents: stamped with this augmentation's time and their distance, the
 * adoptions that follow (origin_distance) stop there instead of walking
 * the trunk up to the root once more (each augmentation's first adoption
 * did, and those walks were as long as the augmentations' own). */
static void stamp_trunk(bk_run *b, int32_t from, int32_t to)
{
    const int32_t *path = b->path;
    for (int32_t i = to - 1; i >= from; i--) {
        bk_node *x = &b->v[path[2 * i]];
        if (x->parent == ORPHAN)
            return;
        x->stamp = b->time;
        x->dist = dist_cap(to - i);
    }
}

/* Pushes flow along the path; vertices whose link to their tree broke
 * become orphans. BK pushes the path's bottleneck. With excesses (a
 * cut-only solve; Goldberg et al.'s EIBFS keeps excesses too) the source
 * side sends all that its root and arcs can: the sink side passes on what
 * each of its arcs can carry, and what one cannot stays at that arc's
 * tail as an excess, which goes on down the sink tree once the vertex has
 * a parent again (discharge) or roots a source tree there. So the next
 * path starts near the sink side's dry arc instead of walking the same
 * long source branch again (the walks fall by about a third on photos
 * without the prior). The flow still grows by
 * the bottleneck each time, so BK's termination holds; an excess is a
 * terminal residual, the same reparametrisation to every cut as a root's,
 * so the value and the canonical cut are a maximum flow's. Only the arc
 * flows are no flow (an excess left over breaks conservation), and a
 * cut-only solve never reads them. Deficits on the source side, the
 * mirror image, churn the trees more than they save (more adoptions than
 * they spare walks), so the source side stays exact. */
static void augment(bk_run *b, int32_t x, int32_t xy)
{
    mf_rarc *arcs = b->arcs;
    int64_t cap_s, cap_t;
    int32_t split, src_root, snk_root;
    if (b->spine_on) {
        b->plen = 0;
        cap_s = cap_t = arcs[xy].res;
        spine_reach(b, x, SRC_TREE, &cap_s);
        split = b->plen;
        spine_reach(b, arcs[xy].head, SNK_TREE, &cap_t);
        b->last_length = b->plen + b->spine[0].len + b->spine[1].len;
        src_root = b->spine[0].vert[0];
        snk_root = b->spine[1].vert[0];
    } else {
        bottleneck(b, x, xy, &cap_s, &split, &cap_t);
        src_root = b->path[2 * (split - 1)];
        snk_root = b->path[2 * (b->plen - 1)];
        b->walked += b->plen;
        b->last_length = b->plen;
    }
    int32_t lend_s[MAX_DEGREE_LEND], lend_t[MAX_DEGREE_LEND];
    int64_t amt_s[MAX_DEGREE_LEND], amt_t[MAX_DEGREE_LEND];
    int ns = 0, nt = 0;
    int64_t want = b->excess ? cap_s : (cap_s < cap_t ? cap_s : cap_t);
    int64_t have = b->tr[src_root];
    if (have < want)
        have += gather_roots(b, src_root, SRC_TREE, want - have, lend_s, amt_s, &ns);
    int64_t give = have < want ? have : want;
    int64_t arrive = give < cap_t ? give : cap_t; /* what reaches the sink root */
    have = -b->tr[snk_root];
    if (have < arrive)
        have += gather_roots(b, snk_root, SNK_TREE, arrive - have, lend_t, amt_t, &nt);
    int64_t take = have < arrive ? have : arrive;
    int64_t across = b->excess ? give : take;
    lend_for(b, src_root, SRC_TREE, across, lend_s, amt_s, ns);
    lend_for(b, snk_root, SNK_TREE, take, lend_t, amt_t, nt);
    mf_rarc_push(arcs, xy, (int32_t)across);
    /* the buffer holds each side's root last, but not with spines (they
     * hold the roots and the rest of each branch: spine_send) */
    int32_t src_end = b->spine_on ? split : split - 1, snk_end = b->spine_on ? b->plen : b->plen - 1;
    push_side(b, 0, src_end, across, SRC_TREE, 1); /* the source side's arcs carry all it gives */
    if (b->spine_on)
        spine_send(b, SRC_TREE, across);
    settle_root(b, src_root, SRC_TREE, across, across);
    int64_t at_root = b->excess ? push_side(b, split, snk_end, across, SNK_TREE, 0) /* never with spines */
                                : push_side(b, split, snk_end, across, SNK_TREE, 1);
    if (b->spine_on)
        spine_send(b, SNK_TREE, at_root);
    settle_root(b, snk_root, SNK_TREE, at_root, take);
    if (!b->spine_on) { /* a spine's depths stand for the stamps */
        stamp_trunk(b, 0, split);
        stamp_trunk(b, split, b->plen);
    }
    b->flow += take;
    b->augmentations++;
}

/* A sink-tree orphan with an excess that found a parent sends the excess
 * along its new tree path as far as the arcs let it: a path without a
 * source side (only sink-tree vertices ever hold one: augment's source
 * side always carries all it sends). The flow grows by what the root
 * takes (at least 1), as in augment. */
static __attribute__((noinline)) void discharge(bk_run *b, int32_t v)
{
    const mf_rarc *arcs = b->arcs;
    int64_t a = b->tr[v], cap = a;
    int32_t u;
    b->plen = 0;
    for (u = v; b->v[u].parent != TO_TERMINAL; u = b->up[u]) {
        int32_t p = b->v[u].parent;
        if (arcs[p].res < cap)
            cap = arcs[p].res;
        path_add(b, u, p);
    }
    path_add(b, u, TO_TERMINAL);
    int32_t lend[MAX_DEGREE_LEND];
    int64_t amt[MAX_DEGREE_LEND];
    int n = 0;
    int64_t have = -b->tr[u];
    if (have < cap)
        have += gather_roots(b, u, SNK_TREE, cap - have, lend, amt, &n);
    int64_t used = have < cap ? have : cap; /* cap: what reaches the root */
    lend_for(b, u, SNK_TREE, used, lend, amt, n);
    b->tr[v] = 0;
    int64_t at_root = push_side(b, 0, b->plen - 1, a, SNK_TREE, 0);
    settle_root(b, u, SNK_TREE, at_root, used);
    b->flow += used;
    b->augmentations++;
    b->walked += b->plen;
    b->time++; /* arcs ran dry: distances verified before may not hold (a parent below v would close a loop) */
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
            discharge(b, v);
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
                    spine_cut(b, side, b->v[w].dist - 1, CUT_KEEP);
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
            augment(b, x, xy);
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
            spine_cut(b, SRC_TREE, 0, CUT_KEEP);
            spine_cut(b, SNK_TREE, 0, CUT_KEEP);
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

