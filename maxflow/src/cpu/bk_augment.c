/* Boykov-Kolmogorov's augmentation (bk.h): the path through a meeting arc
 * walked to both roots, its bottleneck and the push; and the speed-ups
 * that ride on that walk, kept in this translation unit so that the
 * compiler inlines them into it: spines (the last path's branches cached),
 * roots lending to a path whose root runs dry, stamped trunks, excesses
 * left by cut-only paths and their discharge. The trees that find the
 * paths are bk_search.c's. */
#include "bk.h"

/* An augmentation's orphans go to the front of the queue, the children a
 * failed adoption orphans to the back (the order of Kolmogorov's
 * maxflow-v3): the fresh break is mended first, near the path, before
 * older subtrees, which is faster than one FIFO. An orphan on a spine
 * cuts it there first. */
static void make_orphan_front(bk_run *b, int32_t v)
{
    if (b->v[v].queued & ON_SPINE)
        mf_bk_spine_cut(b, b->v[v].tree, b->v[v].dist - 1, CUT_BROKEN);
    b->v[v].parent = ORPHAN;
    b->ohead = b->ohead == 0 ? b->size - 1 : b->ohead - 1;
    b->orphans[b->ohead] = v;
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
void mf_bk_spine_cut(bk_run *b, uint8_t side, int32_t z, int mode)
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
        mf_bk_spine_cut(b, side, b->v[v].dist, CUT_KEEP); /* v, at depth dist - 1, stays */
    } else {
        mf_bk_spine_cut(b, side, 0, CUT_KEEP);
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
    mf_bk_spine_cut(b, side, lo, CUT_DRIED);
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
void mf_bk_augment(bk_run *b, int32_t x, int32_t xy)
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
void mf_bk_discharge(bk_run *b, int32_t v)
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
