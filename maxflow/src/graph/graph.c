/* CSR flow network: construction from arc lists, reverse CSR, results. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int mf_fail(mf_error *err, int code, const char *file, int64_t line,
            const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->line = line;
        snprintf(err->file, sizeof err->file, "%s", file ? file : "");
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

double mf_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int mf_arclist_init(mf_arclist *list, int32_t num_vertices, int32_t reserve)
{
    memset(list, 0, sizeof *list);
    if (num_vertices < 0 || reserve < 0)
        return MF_ERR_INVALID;
    list->num_vertices = num_vertices;
    list->source = list->sink = -1;
    if (reserve < 16)
        reserve = 16;
    list->tail = malloc(sizeof(int32_t) * (size_t)reserve);
    list->head = malloc(sizeof(int32_t) * (size_t)reserve);
    list->cap = malloc(sizeof(int32_t) * (size_t)reserve);
    if (!list->tail || !list->head || !list->cap) {
        mf_arclist_free(list);
        return MF_ERR_NOMEM;
    }
    list->capacity = reserve;
    return MF_OK;
}

int mf_arclist_add(mf_arclist *list, int32_t tail, int32_t head, int32_t cap)
{
    if (list->num_arcs == list->capacity) {
        int64_t grown = (int64_t)list->capacity * 2;
        if (grown > INT32_MAX)
            grown = INT32_MAX;
        if (grown <= list->capacity)
            return MF_ERR_TOO_LARGE;
        int32_t *t = realloc(list->tail, sizeof(int32_t) * (size_t)grown);
        if (!t)
            return MF_ERR_NOMEM;
        list->tail = t;
        t = realloc(list->head, sizeof(int32_t) * (size_t)grown);
        if (!t)
            return MF_ERR_NOMEM;
        list->head = t;
        t = realloc(list->cap, sizeof(int32_t) * (size_t)grown);
        if (!t)
            return MF_ERR_NOMEM;
        list->cap = t;
        list->capacity = (int32_t)grown;
    }
    list->tail[list->num_arcs] = tail;
    list->head[list->num_arcs] = head;
    list->cap[list->num_arcs] = cap;
    list->num_arcs++;
    return MF_OK;
}

void mf_arclist_free(mf_arclist *list)
{
    free(list->tail);
    free(list->head);
    free(list->cap);
    memset(list, 0, sizeof *list);
}

int mf_graph_alloc(mf_graph *g, int32_t n, int32_t m)
{
    memset(g, 0, sizeof *g);
    if (n < 2 || m < 0)
        return MF_ERR_INVALID;
    if (m > (INT32_MAX >> 1))
        return MF_ERR_TOO_LARGE; /* input_map packs a direction bit */
    g->num_vertices = n;
    g->num_arcs = m;
    g->source = 0;
    g->sink = n - 1;
    size_t mm = m ? (size_t)m : 1;
    g->out_start = mf_calloc_big((size_t)n + 1, sizeof(int32_t));
    g->in_start = mf_calloc_big((size_t)n + 1, sizeof(int32_t));
    g->arc_head = mf_alloc_big(mm * sizeof(int32_t));
    g->arc_cap = mf_alloc_big(mm * sizeof(int32_t));
    g->arc_rcap = mf_alloc_big(mm * sizeof(int32_t));
    g->in_arc = mf_alloc_big(mm * sizeof(int32_t));
    g->in_tail = mf_alloc_big(mm * sizeof(int32_t));
    if (!g->out_start || !g->in_start || !g->arc_head || !g->arc_cap ||
        !g->arc_rcap || !g->in_arc || !g->in_tail) {
        mf_graph_free(g);
        return MF_ERR_NOMEM;
    }
    return MF_OK;
}

int mf_graph_copy(const mf_graph *src, mf_graph *dst)
{
    int rc = mf_graph_alloc(dst, src->num_vertices, src->num_arcs);
    if (rc)
        return rc;
    size_t n1 = (size_t)src->num_vertices + 1, m = (size_t)src->num_arcs;
    dst->source = src->source;
    dst->sink = src->sink;
    dst->flow_offset = src->flow_offset;
    memcpy(dst->out_start, src->out_start, n1 * sizeof(int32_t));
    memcpy(dst->in_start, src->in_start, n1 * sizeof(int32_t));
    if (m) {
        memcpy(dst->arc_head, src->arc_head, m * sizeof(int32_t));
        memcpy(dst->arc_cap, src->arc_cap, m * sizeof(int32_t));
        memcpy(dst->arc_rcap, src->arc_rcap, m * sizeof(int32_t));
        memcpy(dst->in_arc, src->in_arc, m * sizeof(int32_t));
        memcpy(dst->in_tail, src->in_tail, m * sizeof(int32_t));
    }
    if (src->input_map) {
        size_t k = src->num_input_arcs ? (size_t)src->num_input_arcs : 1;
        dst->input_map = malloc(k * sizeof(int32_t));
        if (!dst->input_map) {
            mf_graph_free(dst);
            return MF_ERR_NOMEM;
        }
        memcpy(dst->input_map, src->input_map, (size_t)src->num_input_arcs * sizeof(int32_t));
        dst->num_input_arcs = src->num_input_arcs;
    }
    return MF_OK;
}

void mf_graph_free(mf_graph *g)
{
    mf_free_big(g->out_start);
    mf_free_big(g->arc_head);
    mf_free_big(g->arc_cap);
    mf_free_big(g->arc_rcap);
    mf_free_big(g->in_start);
    mf_free_big(g->in_arc);
    mf_free_big(g->in_tail);
    mf_free_big(g->input_map);
    memset(g, 0, sizeof *g);
}

void mf_grid_free(mf_grid *grid)
{
    mf_free_big(grid->w);
    mf_free_big(grid->term);
    mf_free_big(grid->row_sources);
    mf_free_big(grid->row_sinks);
    mf_free_big(grid->table);
    memset(grid, 0, sizeof *grid);
}

#define MF_CHECK_PARTS 64
/* below this many arcs the passes run on the caller's thread */
#define PARALLEL_ARCS (1 << 20)

/* Counting sorts on threads without a race and in one pass's order: each
 * part owns a range of keys and scans the whole sequence for them, so
 * every key's items keep their order (the scans are sequential reads; the
 * scattered writes, which were the time, are shared out). keys[k] is the
 * key at position k, item k is seq[k] (k when seq is NULL). */
#define KEY_PARTS 64

typedef struct key_pass {
    const int32_t *keys, *seq;
    int32_t count;
    int32_t *slots;  /* out NULL: slots[key + 1]++; else out[slots[key]++] = item */
    int32_t *out;
    int32_t bound[KEY_PARTS + 1];
} key_pass;

/* A part's keys: counted (out NULL) or their items scattered. */
static void pass_keys(void *ctx, int32_t lo, int32_t hi)
{
    key_pass *kp = ctx;
    for (int32_t part = lo; part < hi; part++) {
        const int32_t first = kp->bound[part], last = kp->bound[part + 1];
        for (int32_t k = 0; k < kp->count; k++) {
            const int32_t key = kp->keys[k];
            if (key < first || key >= last)
                continue;
            if (kp->out)
                kp->out[kp->slots[key]++] = kp->seq ? kp->seq[k] : k;
            else
                kp->slots[key + 1]++;
        }
    }
}

static int key_parts(int threads, int32_t count)
{
    int parts = threads < KEY_PARTS ? threads : KEY_PARTS;
    return count < PARALLEL_ARCS || parts < 1 ? 1 : parts; /* small inputs: one pass */
}

/* start[key + 1] = items of each key below it (prefix sums, start[0] = 0)
 * over n keys; parts split the keys evenly. */
static void count_by_key(int threads, const int32_t *keys, int32_t count, int32_t n, int32_t *start)
{
    key_pass kp = {keys, NULL, count, start, NULL, {0}};
    const int parts = key_parts(threads, count);
    memset(start, 0, sizeof(int32_t) * ((size_t)n + 1));
    for (int p = 0; p <= parts; p++)
        kp.bound[p] = (int32_t)((int64_t)n * p / parts);
    mf_parallel_for(parts, parts, 1, pass_keys, &kp);
    for (int32_t v = 0; v < n; v++)
        start[v + 1] += start[v];
}

/* out[...] = the items grouped by key in sequence order; cursor: each
 * key's first slot (start[0 .. n - 1], consumed); parts split the items
 * evenly by their keys' offsets. */
static void scatter_by_key(int threads, const int32_t *keys, const int32_t *seq, int32_t count, int32_t n,
                           const int32_t *start, int32_t *cursor, int32_t *out)
{
    key_pass kp = {keys, seq, count, cursor, out, {0}};
    const int parts = key_parts(threads, count);
    kp.bound[0] = 0;
    for (int p = 1; p < parts; p++) { /* the first key whose items start at or past p / parts */
        const int64_t want = (int64_t)count * p / parts;
        int32_t lo = kp.bound[p - 1], hi = n;
        while (lo < hi) {
            const int32_t mid = lo + (hi - lo) / 2;
            if (start[mid] < want)
                lo = mid + 1;
            else
                hi = mid;
        }
        kp.bound[p] = lo;
    }
    kp.bound[parts] = n;
    mf_parallel_for(parts, parts, 1, pass_keys, &kp);
}

typedef struct gather {
    const int32_t *from, *index;
    int32_t *to;
} gather;

static void gather_range(void *ctx, int32_t lo, int32_t hi)
{
    const gather *ga = ctx;
    for (int32_t k = lo; k < hi; k++)
        ga->to[k] = ga->from[ga->index[k]];
}

/* The arc checks of a range: the first bad arc and what is wrong with it. */
typedef struct arc_check {
    const mf_graph *g;
    int64_t first_bad[MF_CHECK_PARTS];
    int what[MF_CHECK_PARTS]; /* 1 head out of range, 2 capacity out of range */
    int32_t parts;
} arc_check;

static void check_arcs(void *ctx, int32_t lo, int32_t hi)
{
    arc_check *ac = ctx;
    const mf_graph *g = ac->g;
    const int32_t n = g->num_vertices, m = g->num_arcs;
    for (int32_t part = lo; part < hi; part++) {
        ac->first_bad[part] = -1;
        const int32_t a0 = (int32_t)((int64_t)m * part / ac->parts), a1 = (int32_t)((int64_t)m * (part + 1) / ac->parts);
        for (int32_t a = a0; a < a1; a++) {
            const int32_t v = g->arc_head[a];
            const int what = v < 0 || v >= n ? 1
                             : g->arc_cap[a] < 0 || g->arc_rcap[a] < 0 ||
                                     (int64_t)g->arc_cap[a] + g->arc_rcap[a] > INT32_MAX
                                 ? 2
                                 : 0;
            if (what) {
                ac->first_bad[part] = a;
                ac->what[part] = what;
                break;
            }
        }
    }
}

/* Each arc's tail, from the offsets, by tail ranges. */
typedef struct tails_pass {
    const mf_graph *g;
    int32_t *tail;
} tails_pass;

static void arc_tails(void *ctx, int32_t lo, int32_t hi)
{
    const tails_pass *tp = ctx;
    for (int32_t u = lo; u < hi; u++)
        for (int32_t a = tp->g->out_start[u]; a < tp->g->out_start[u + 1]; a++)
            tp->tail[a] = u;
}

/* mf_graph_finish on at most `threads` threads (0: every core). */
static int finish_on(mf_graph *g, int threads_asked, mf_error *err)
{
    int32_t n = g->num_vertices, m = g->num_arcs;
    if (g->source < 0 || g->source >= n || g->sink < 0 || g->sink >= n ||
        g->source == g->sink)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0,
                       "source and sink must be two distinct vertices");
    if (g->out_start[0] != 0 || g->out_start[n] != m)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "inconsistent CSR offsets");
    const int threads = m < PARALLEL_ARCS ? 1 : mf_threads(threads_asked); /* small graphs: no threads started */
    /* the checks of one pass in arc order: the first bad arc decides */
    arc_check ac = {g, {0}, {0}, m < PARALLEL_ARCS ? 1 : MF_CHECK_PARTS};
    mf_parallel_for(threads, ac.parts, 1, check_arcs, &ac);
    for (int32_t part = 0; part < ac.parts; part++)
        if (ac.first_bad[part] >= 0)
            return mf_fail(err, MF_ERR_INVALID, NULL, 0,
                           ac.what[part] == 1 ? "arc head out of range" : "arc capacity out of range");
    for (int32_t u = 0; u < n; u++)
        if (g->out_start[u + 1] < g->out_start[u])
            return mf_fail(err, MF_ERR_INVALID, NULL, 0, "inconsistent CSR offsets");
    /* the in-lists: arcs grouped by head in arc order, as one pass over
     * the tails in order lists them */
    int32_t *cursor = malloc(sizeof(int32_t) * ((size_t)n + 1));
    int32_t *tail = mf_alloc_big(sizeof(int32_t) * (m ? (size_t)m : 1));
    if (!cursor || !tail) {
        free(cursor);
        mf_free_big(tail);
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    }
    count_by_key(threads, g->arc_head, m, n, g->in_start);
    memcpy(cursor, g->in_start, sizeof(int32_t) * (size_t)n);
    scatter_by_key(threads, g->arc_head, NULL, m, n, g->in_start, cursor, g->in_arc);
    tails_pass tp = {g, tail};
    mf_parallel_for(threads, n, 4096, arc_tails, &tp);
    gather ga = {tail, g->in_arc, g->in_tail};
    mf_parallel_for(threads, m, 1 << 16, gather_range, &ga);
    free(cursor);
    mf_free_big(tail);
    return MF_OK;
}

int mf_graph_finish(mf_graph *g, mf_error *err)
{
    return finish_on(g, 0, err);
}

int32_t mf_arc_tail(const mf_graph *g, int32_t a)
{
    int32_t lo = 0, hi = g->num_vertices; /* out_start[lo] <= a < out_start[hi] */
    while (hi - lo > 1) {
        int32_t mid = lo + (hi - lo) / 2;
        if (g->out_start[mid] <= a)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Pairs each arc u->v (u < v) of the tails u in [lo, hi) with an unpaired
 * v->u. Pairs are formed in order among equal heads, so parallel arcs pair
 * 1:1. Only u's own arcs compete for an arc v->u (its head is u), so
 * ranges of tails run on threads without a race and pair as one pass in
 * order does (the binary searches are a large part of the build). */
typedef struct pairing {
    const mf_arclist *list;
    const int32_t *by_tail, *tstart, *heads;
    int32_t *partner;
} pairing;

static void pair_tails(void *ctx, int32_t first, int32_t last)
{
    const pairing *pc = ctx;
    const int32_t *by_tail = pc->by_tail, *tstart = pc->tstart, *heads = pc->heads;
    int32_t *partner = pc->partner;
    for (int32_t u = first; u < last; u++) {
        for (int32_t k = tstart[u]; k < tstart[u + 1]; k++) {
            int32_t i = by_tail[k], v = heads[k];
            if (v <= u)
                continue;
            int32_t lo = tstart[v], hi = tstart[v + 1];
            while (lo < hi) { /* first arc of v with head >= u */
                int32_t mid = lo + (hi - lo) / 2;
                if (heads[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < tstart[v + 1] && heads[lo] == u; lo++) {
                int32_t j = by_tail[lo];
                if (partner[j] < 0 && (int64_t)pc->list->cap[i] + pc->list->cap[j] <= INT32_MAX) {
                    partner[j] = i;
                    partner[i] = j;
                    break;
                }
            }
        }
    }
}

/* The stored arcs of tails in ranges: their counts, then the CSR arrays
 * from each tail's first slot (each arc and its partner belong to the
 * pair's smaller tail, so ranges write disjoint entries). */
typedef struct fill_pass {
    const mf_arclist *list;
    const int32_t *by_tail, *tstart, *partner;
    int32_t *stored; /* count_stored: stored[u + 1]; fill_arcs: u's first slot at stored[u] */
    mf_graph *g;
} fill_pass;

static void count_stored(void *ctx, int32_t lo, int32_t hi)
{
    const fill_pass *fp = ctx;
    for (int32_t u = lo; u < hi; u++) {
        int32_t c = 0;
        for (int32_t k = fp->tstart[u]; k < fp->tstart[u + 1]; k++) {
            const int32_t i = fp->by_tail[k], v = fp->list->head[i];
            c += v != u && !(fp->partner[i] >= 0 && u > v);
        }
        fp->stored[u + 1] = c;
    }
}

static void fill_arcs(void *ctx, int32_t lo, int32_t hi)
{
    const fill_pass *fp = ctx;
    const mf_arclist *list = fp->list;
    mf_graph *g = fp->g;
    for (int32_t u = lo; u < hi; u++) {
        int32_t a = fp->stored[u];
        g->out_start[u] = a;
        for (int32_t k = fp->tstart[u]; k < fp->tstart[u + 1]; k++) {
            const int32_t i = fp->by_tail[k], v = list->head[i], j = fp->partner[i];
            if (v == u) {
                g->input_map[i] = -1;
                continue;
            }
            if (j >= 0 && u > v)
                continue;
            g->arc_head[a] = v;
            g->arc_cap[a] = list->cap[i];
            g->arc_rcap[a] = j >= 0 ? list->cap[j] : 0;
            g->input_map[i] = 2 * a;
            if (j >= 0)
                g->input_map[j] = 2 * a + 1;
            a++;
        }
    }
}

int mf_graph_from_arcs(const mf_arclist *list, const mf_build_options *opt,
                       mf_graph *g, mf_error *err)
{
    int merge = opt ? opt->merge_antiparallel : 1;
    int32_t n = list->num_vertices, m_in = list->num_arcs;
    int32_t *by_tail = NULL, *tstart = NULL, *partner = NULL, *stored = NULL;
    int rc = MF_OK;
    memset(g, 0, sizeof *g);
    if (n < 2)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "a network needs two vertices");
    if (list->source < 0 || list->source >= n || list->sink < 0 ||
        list->sink >= n || list->source == list->sink)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0,
                       "source and sink must be two distinct vertices");
    size_t mm = m_in ? (size_t)m_in : 1;
    by_tail = mf_alloc_big(mm * sizeof(int32_t));
    tstart = mf_calloc_big((size_t)n + 1, sizeof(int32_t));
    partner = mf_alloc_big(mm * sizeof(int32_t));
    if (!by_tail || !tstart || !partner) {
        rc = mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    for (int32_t i = 0; i < m_in; i++) {
        int32_t u = list->tail[i], v = list->head[i];
        if (u < 0 || u >= n || v < 0 || v >= n || list->cap[i] < 0) {
            rc = mf_fail(err, MF_ERR_INVALID, NULL, 0, "arc %d is invalid", i + 1);
            goto done;
        }
        partner[i] = -1;
    }
    /* small graphs: no threads started */
    const int threads = m_in < PARALLEL_ARCS ? 1 : mf_threads(opt ? opt->threads : 0);
    count_by_key(threads, list->tail, m_in, n, tstart);
    {
        /* arc ids grouped by tail; to merge, also by head within a tail
         * (ties in id order) so that partners can be found by binary
         * search: two stable counting sorts, by head and then by tail
         * (a heap sort per tail is far slower on R-MAT graphs, whose hubs
         * have about 10^5 arcs each) */
        int32_t *cursor = mf_alloc_big(sizeof(int32_t) * ((size_t)n + 1));
        int32_t *by_head = merge ? mf_alloc_big(mm * sizeof(int32_t)) : NULL;
        int32_t *tails = merge ? mf_alloc_big(mm * sizeof(int32_t)) : NULL;
        if (!cursor || (merge && (!by_head || !tails))) {
            mf_free_big(cursor);
            mf_free_big(by_head);
            mf_free_big(tails);
            rc = mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
            goto done;
        }
        if (merge) {
            count_by_key(threads, list->head, m_in, n, cursor);
            scatter_by_key(threads, list->head, NULL, m_in, n, cursor, cursor, by_head);
            gather ga = {list->tail, by_head, tails}; /* the tails in by_head's order */
            mf_parallel_for(threads, m_in, 1 << 16, gather_range, &ga);
        }
        memcpy(cursor, tstart, sizeof(int32_t) * (size_t)n);
        if (merge)
            scatter_by_key(threads, tails, by_head, m_in, n, tstart, cursor, by_tail);
        else
            scatter_by_key(threads, list->tail, NULL, m_in, n, tstart, cursor, by_tail);
        mf_free_big(cursor);
        mf_free_big(by_head);
        mf_free_big(tails);
    }
    if (merge) {
        /* the heads in by_tail's order: the searches below probe one array */
        int32_t *heads = mf_alloc_big(mm * sizeof(int32_t));
        if (!heads) {
            rc = mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
            goto done;
        }
        gather ga = {list->head, by_tail, heads};
        mf_parallel_for(threads, m_in, 1 << 16, gather_range, &ga);
        pairing pc = {list, by_tail, tstart, heads, partner};
        mf_parallel_for(threads, n, 4096, pair_tails, &pc);
        mf_free_big(heads);
    }
    /* Count stored arcs: self-loops dropped; of a pair, the arc with the
     * smaller tail is stored. stored[u + 1]: u's, then the prefix sums. */
    stored = mf_alloc_big(sizeof(int32_t) * ((size_t)n + 1));
    if (!stored) {
        rc = mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    fill_pass fp = {list, by_tail, tstart, partner, stored, NULL};
    mf_parallel_for(threads, n, 4096, count_stored, &fp);
    stored[0] = 0;
    int64_t m = 0;
    for (int32_t u = 0; u < n; u++) {
        m += stored[u + 1];
        stored[u + 1] = m > INT32_MAX ? INT32_MAX : (int32_t)m;
    }
    if (m > (INT32_MAX >> 1)) {
        rc = mf_fail(err, MF_ERR_TOO_LARGE, NULL, 0, "too many arcs");
        goto done;
    }
    rc = mf_graph_alloc(g, n, (int32_t)m);
    if (rc) {
        mf_fail(err, rc, NULL, 0, "%s", mf_strerror(rc));
        goto done;
    }
    g->source = list->source;
    g->sink = list->sink;
    g->num_input_arcs = m_in;
    g->input_map = mf_alloc_big(mm * sizeof(int32_t));
    if (!g->input_map) {
        rc = mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
        goto done;
    }
    fp.g = g;
    mf_parallel_for(threads, n, 4096, fill_arcs, &fp);
    g->out_start[n] = (int32_t)m;
    rc = finish_on(g, opt ? opt->threads : 0, err);
done:
    mf_free_big(by_tail);
    mf_free_big(tstart);
    mf_free_big(partner);
    mf_free_big(stored);
    if (rc)
        mf_graph_free(g);
    return rc;
}

int32_t mf_input_arc_flow(const mf_graph *g, const int32_t *flow, int32_t i)
{
    if (!g->input_map || i < 0 || i >= g->num_input_arcs || g->input_map[i] < 0)
        return 0;
    int32_t a = g->input_map[i] >> 1;
    int32_t f = flow[a];
    if (g->input_map[i] & 1)
        return f < 0 ? -f : 0;
    return f > 0 ? f : 0;
}

void mf_options_default(mf_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->engine = MF_ENGINE_AUTO;
    opt->phase2 = 0;
}

int mf_result_alloc(mf_result *r, const mf_graph *g, int with_flow)
{
    memset(r, 0, sizeof *r);
    r->flow = with_flow ? mf_alloc_big(sizeof(int32_t) * (size_t)g->num_arcs) : NULL;
    r->source_side = mf_calloc_big((size_t)g->num_vertices, 1);
    r->num_arcs = g->num_arcs;
    r->num_vertices = g->num_vertices;
    if ((with_flow && !r->flow) || !r->source_side) {
        mf_result_free(r);
        return MF_ERR_NOMEM;
    }
    return MF_OK;
}

void mf_result_free(mf_result *r)
{
    mf_free_big(r->flow);
    mf_free_big(r->source_side);
    memset(r, 0, sizeof *r);
}
