/* Boykov-Kolmogorov on several threads: bottom-up merging (Liu & Sun,
 * "Parallel Graph-cuts by Adaptive Bottom-up Merging", CVPR 2010). The
 * vertices are cut into contiguous blocks (row bands of an image network),
 * each block runs BK on its own arcs alone, then neighbouring blocks merge
 * pairwise and run again on their union, keeping their trees and
 * re-activating the vertices with arcs across the seam, until one block is
 * the whole graph. Every block's flow is a flow of the whole graph (the
 * arcs across seams carry none yet), so the last run ends at a maximum
 * flow and the canonical cut is the same for any number of threads.
 * Blocks touch disjoint vertices and arcs, so they need no locks.
 *
 * This file plans the blocks and runs the merge tree on a task pool; the
 * search itself is bk_search.c. */
#include "bk.h"
#include "tuning.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Arcs of non-terminal vertices below v, in the residual graph. */
static int64_t walked_below(const mf_graph *g, const mf_residual *r, int32_t v)
{
    int64_t w = r->first[v];
    if (g->source < v)
        w -= r->first[g->source + 1] - r->first[g->source];
    if (g->sink < v)
        w -= r->first[g->sink + 1] - r->first[g->sink];
    return w;
}

/* One pass over a range of blocks' arcs: each block's border vertices,
 * and the arcs that stay inside or cross (terminal arcs aside). */
typedef struct border_scan {
    const mf_graph *g;
    const mf_residual *r;
    const int32_t *bound;
    bk_border *border;
    int64_t *crossing, *interior; /* per block */
} border_scan;

static void scan_borders(void *arg, int32_t first_block, int32_t end_block)
{
    border_scan *c = arg;
    const mf_residual *r = c->r;
    int32_t s = c->g->source, t = c->g->sink;
    for (int32_t i = first_block; i < end_block; i++) {
        int32_t lo = c->bound[i], hi = c->bound[i + 1], count = 0;
        int64_t crossing = 0, interior = 0;
        /* not mf_alloc_big: pages that stay unwritten cost nothing here
         * (one slot more: a block may be empty, and malloc(0) may be NULL) */
        int32_t *list = mf_malloc(sizeof(int32_t) * ((size_t)(hi - lo) + 1));
        c->border[i] = (bk_border){list, 0};
        c->crossing[i] = c->interior[i] = 0;
        if (!list)
            continue; /* the caller sees the NULL list */
        for (int32_t u = lo; u < hi; u++) {
            if (u == s || u == t)
                continue;
            int32_t out = 0;
            for (int32_t q = r->first[u]; q < r->first[u + 1]; q++) {
                int32_t w = r->arcs[q].head;
                if (w == s || w == t)
                    continue;
                interior++;
                out += w < lo || w >= hi;
            }
            crossing += out;
            if (out)
                list[count++] = u;
        }
        c->border[i] = (bk_border){list, count};
        c->crossing[i] = crossing;
        c->interior[i] = interior;
    }
}

static void free_borders(bk_border *border, int k)
{
    for (int i = 0; i < k; i++) {
        free(border[i].v);
        border[i] = (bk_border){NULL, 0};
    }
}

/* The blocks a graph of n vertices gets on `threads` threads before its
 * arcs are looked at: blocks_per_thread a thread, at most MAX_BLOCKS,
 * none of fewer than min_block vertices (mf_bk_tuning; 1: the graph is
 * one block). */
int mf_bk_block_count(int32_t n, int threads)
{
    const mf_bk_tuning *tune = mf_bk_tuning_get();
    int per = tune->blocks_per_thread > 0 ? tune->blocks_per_thread : 1;
    int64_t min_block = tune->min_block > 0 ? tune->min_block : 1;
    if (threads < 2)
        return 1;
    int64_t k = (int64_t)threads * per;
    if (k > MAX_BLOCKS)
        k = MAX_BLOCKS;
    if (k * min_block > n)
        k = n / min_block;
    return k < 2 ? 1 : (int)k;
}

static double max_crossing(void)
{
    return mf_bk_tuning_get()->max_crossing;
}

/* Whether the arcs of every 64th vertex cross k equal vertex ranges more
 * often than plan_blocks allows: such a graph (R-MAT, a DIMACS file in
 * random order; not a grid in row order) will be one block, known before
 * the set-up, which then takes the one-thread passes. Those stream the
 * arcs by tail; the threaded ones look up every vertex's in-arcs, which
 * on such a graph are scattered (the threaded set-up then takes longer
 * than the one-thread one). Deterministic, so the plan is too. */
int mf_bk_crosses_blocks(const mf_graph *g, int k)
{
    int32_t n = g->num_vertices, s = g->source, t = g->sink;
    int64_t cross = 0, inner = 0;
    for (int32_t u = 0; u < n; u += 64) {
        if (u == s || u == t)
            continue;
        int64_t bu = (int64_t)u * k / n;
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t w = g->arc_head[a];
            if (w == s || w == t)
                continue;
            inner++;
            cross += (int64_t)w * k / n != bu;
        }
    }
    return cross > max_crossing() * (double)inner;
}

/* Block boundaries: up to k (block_count's) contiguous vertex ranges
 * with about as many arcs each, and each block's border vertices
 * (scanned on `threads`); 1 block when the graph is small or its arcs
 * cross the blocks too often for merging to pay. */
static int plan_blocks(const mf_graph *g, const mf_residual *r, int k, int threads, int32_t *bound,
                       bk_border *border)
{
    int32_t n = g->num_vertices;
    if (k < 2) {
        bound[0] = 0;
        bound[1] = n;
        return 1;
    }
    /* equal shares of the arcs BK walks: the terminal vertices' arcs (a
     * photo's source holds one per pixel) are never walked. Each bound is
     * the first vertex with its share below it, found by bisection (the
     * count below v only grows with v). */
    int64_t m = walked_below(g, r, n);
    bound[0] = 0;
    for (int i = 1; i < k; i++) {
        int64_t want = m * i / k;
        int32_t lo = bound[i - 1], hi = n;
        while (lo < hi) {
            int32_t mid = lo + (hi - lo) / 2;
            if (walked_below(g, r, mid) >= want)
                hi = mid;
            else
                lo = mid + 1;
        }
        bound[i] = lo;
    }
    bound[k] = n;
    int64_t crossing[MAX_BLOCKS], interior[MAX_BLOCKS];
    border_scan c = {g, r, bound, border, crossing, interior};
    mf_parallel_for(threads, k, 1, scan_borders, &c);
    int64_t cross = 0, inner = 0;
    int nomem = 0;
    for (int i = 0; i < k; i++) {
        cross += crossing[i];
        inner += interior[i];
        nomem |= !border[i].v;
    }
    if (nomem || cross > max_crossing() * (double)inner) {
        /* out of memory for the lists: one block needs none */
        free_borders(border, k);
        bound[1] = n;
        return 1;
    }
    return k;
}

/* The merge tree as tasks: blocks are leaves, each merge waits for its two
 * halves. A pool of threads takes whatever task is ready, so a merge starts
 * as soon as its own halves are done rather than when the slowest block of
 * a level is (block times differ by an order of magnitude on photos: the
 * flow each band must route depends on its content), and there can be more blocks
 * than threads to spread that work. */
typedef struct bk_task {
    bk_job job;
    int32_t lo, hi, mid;
    int leaf_lo, leaf_hi; /* the leaf blocks it covers, [leaf_lo, leaf_hi) */
    int32_t time;   /* above every stamp its halves left */
    int parent;     /* the merge that waits for it, -1 at the root */
    int pending;    /* halves not yet finished */
    double below;   /* the longest chain of tasks it waited for, seconds */
} bk_task;


typedef struct bk_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bk_task *tasks;
    mf_residual *r;
    bk_node *v;
    int32_t *up;
    int64_t *tr;
    const bk_border *border; /* per leaf */
    int *ready, nready; /* a stack: a merge just made ready runs next */
    int left;           /* tasks not finished */
    int nomem;
    int64_t flow, augmentations, walked;
    bk_times times;
} bk_pool;

static void *pool_worker(void *arg)
{
    bk_pool *p = arg;
    pthread_mutex_lock(&p->lock);
    while (p->left > 0) {
        if (!p->nready) {
            pthread_cond_wait(&p->wake, &p->lock);
            continue;
        }
        int i = p->ready[--p->nready];
        bk_task *t = &p->tasks[i];
        int skip = p->nomem; /* after a failure the rest only count down */
        pthread_mutex_unlock(&p->lock);
        double t0 = mf_now();
        if (!skip) {
            mf_bk_job_init(&t->job, p->r, p->v, p->up, p->tr, t->lo, t->hi, t->mid, t->time, 0);
            t->job.leaves = p->border + t->leaf_lo;
            t->job.nleaves = t->leaf_hi - t->leaf_lo;
            mf_bk_job_run(&t->job);
        }
        double took = mf_now() - t0, chain = t->below + took;
        pthread_mutex_lock(&p->lock);
        p->times.work += took;
        if (took > p->times.longest)
            p->times.longest = took;
        p->nomem |= t->job.nomem;
        p->flow += t->job.run.flow;
        p->augmentations += t->job.run.augmentations;
        p->walked += t->job.run.walked;
        p->left--;
        if (t->parent < 0) {
            p->times.critical = chain; /* the root waited for every chain */
        } else {
            bk_task *up = &p->tasks[t->parent];
            if (chain > up->below)
                up->below = chain;
            if (t->job.run.time + 1 > up->time)
                up->time = t->job.run.time + 1;
            if (--up->pending == 0)
                p->ready[p->nready++] = t->parent;
        }
        pthread_cond_broadcast(&p->wake);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* The merges over leaves [lo, hi): each range splits at its middle (the
 * larger half first), so that the top merge's seam lies near the middle
 * of the graph and the next ones near its quarters whatever the count.
 * Pairing neighbours level by level, an odd one out moving up, does so
 * only for powers of two: with other counts it merges a large share of
 * the image into the rest last, a serial merge as long as the whole
 * solve on one thread.
 * Returns the task that covers the range. */
static int merge_tree(bk_task *tasks, int lo, int hi, int *count)
{
    if (hi - lo == 1)
        return lo;
    int half = lo + (hi - lo + 1) / 2;
    int a = merge_tree(tasks, lo, half, count), b = merge_tree(tasks, half, hi, count);
    int m = (*count)++;
    tasks[m] = (bk_task){.lo = tasks[a].lo, .hi = tasks[b].hi, .mid = tasks[b].lo, .leaf_lo = lo, .leaf_hi = hi,
                         .parent = -1, .pending = 2};
    tasks[a].parent = tasks[b].parent = m;
    return m;
}

/* excess: the paths of a graph solved as one block leave excesses (mf_bk);
 * blocks and merges never do */
int mf_bk_solve_blocks(const mf_graph *g, mf_residual *r, bk_node *v, int32_t *up, int64_t *tr, int threads,
                       int blocks, int excess, int64_t *flow, int64_t *augmentations, int64_t *walked,
                       int *blocks_used, bk_times *times)
{
    int32_t bound[MAX_BLOCKS + 1];
    bk_border border[MAX_BLOCKS] = {{0}};
    int k = plan_blocks(g, r, blocks, threads, bound, border);
    *blocks_used = k;
    if (k == 1) {
        bk_job job;
        mf_bk_job_init(&job, r, v, up, tr, 0, g->num_vertices, -1, 0, excess);
        double t0 = mf_now();
        mf_bk_job_run(&job);
        times->work = times->critical = times->longest = mf_now() - t0;
        *flow += job.run.flow;
        *augmentations += job.run.augmentations;
        *walked += job.run.walked;
        return job.nomem ? MF_ERR_NOMEM : MF_OK;
    }
    bk_task tasks[2 * MAX_BLOCKS];
    int ready[2 * MAX_BLOCKS];
    memset(tasks, 0, sizeof tasks);
    /* leaves, then the merges: a balanced tree over the leaves */
    for (int i = 0; i < k; i++)
        tasks[i] = (bk_task){.lo = bound[i], .hi = bound[i + 1], .mid = -1, .leaf_lo = i, .leaf_hi = i + 1,
                             .parent = -1};
    int count = k;
    merge_tree(tasks, 0, k, &count);
    bk_pool p = {.tasks = tasks, .r = r, .v = v, .up = up, .tr = tr, .border = border, .ready = ready,
                 .left = count};
    for (int i = 0; i < k; i++)
        ready[p.nready++] = k - 1 - i; /* the first blocks first */
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.wake, NULL);
    int nt = threads < k ? threads : k;
    pthread_t tid[MAX_BLOCKS];
    int started = 0;
    for (int i = 1; i < nt; i++)
        if (pthread_create(&tid[started], NULL, pool_worker, &p) == 0)
            started++;
    pool_worker(&p); /* this thread works too; alone if none could start */
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&p.lock);
    pthread_cond_destroy(&p.wake);
    free_borders(border, k);
    *flow += p.flow;
    *augmentations += p.augmentations;
    *walked += p.walked;
    *times = p.times;
    return p.nomem ? MF_ERR_NOMEM : MF_OK;
}
