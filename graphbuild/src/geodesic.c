/* Geodesic distances from the seeds over the photo, for the priors that
 * keep sparse strokes from shrinking or leaking: the distance
 * prior on the data terms and geodesic star convexity (Gulshan et al.,
 * CVPR 2010) on the n-links.
 *
 * A step from p to a neighbour q costs |pq| * (eps + 1 - exp(-beta ||I_p - I_q||^2)):
 * about the number of colour edges a path crosses, with the n-links' beta
 * so that the metric follows each photo's contrast, and a small spatial
 * term so that flat regions still have a distance (eps 0.001, the best
 * of the values tried on the dev sets; docs/benchmarks.md).
 *
 * Distances come from raster scans, forward then backward, GEO_SCANS
 * pairs, each run as a wavefront over column blocks on threads: the same
 * distances for any number of threads. They are the lengths of real paths, so
 * they bound the exact distances from above; on textured photos the scans
 * converge slowly (millions of updates per pair at 3 Mpx), and more than
 * two pairs cost time without improving the masks.
 * Every update is a strict decrease, so a parent always has a smaller
 * distance than its child and the parents form a forest rooted at seeds.
 * A pass gives every pixel the minimum of its value before the pass and
 * its already scanned neighbours' values after it plus the step (min is
 * exact on floats, and the order of the terms does not matter): the result
 * of a pass depends on the one before it alone, which is what lets
 * prior.c update the passes of a session's edit pixel by pixel. */
#include "flowcut/graphbuild.h"
#include "gb_internal.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define GEO_EPS 0.001
#define GEO_SCANS (GB_GEO_PASSES / 2)

/* the same forward directions as the builder: E, S, SE, SW */
static const int GDX[4] = {1, 0, 1, -1}, GDY[4] = {0, 1, 1, 1};

/* A pixel's candidates from its neighbours q through steps of cost c, in
 * a fixed order: the first strictly shorter one wins, as if each had been
 * written at once. Only unseeded pixels move (the scans skip seeds): seeds
 * of the scanned kind stay at 0 and those of the other kind stay
 * unreached, so no path runs through the other region's seeds. */
static inline void relax(float *best, int64_t *from, const float *d, int64_t q, float c)
{
    float v = d[q] + c;
    if (v < *best) {
        *best = v;
        *from = q;
    }
}

/* Stores the pixel's best candidate; 1 when it moved. */
static inline int settle(float *d, int32_t *parent, int64_t p, float best, int64_t from)
{
    if (from < 0)
        return 0;
    d[p] = best;
    if (parent)
        parent[p] = (int32_t)from;
    return 1;
}

#define GEO_MAX_BLOCKS 64
#define GEO_MIN_BLOCK_WIDTH 128
/* below this many pixels a scan is a few milliseconds: one thread */
#define GEO_MIN_PARALLEL_PIXELS (1 << 20)
#define GEO_SPINS (1 << 18)

/* One scan over the photo by column blocks on threads, as a wavefront:
 * block t works on a row once block t-1 (the one before it in the scan's
 * direction) has finished that row and block t+1 the row before. Every
 * pixel then reads exactly the neighbour values a serial raster scan
 * reads, so the distances do not depend on the number of threads. */
/* A block's progress, on cache lines of its own: the next block spins on
 * it, and counters sharing a line slowed every store. */
typedef struct block_sync {
    _Alignas(128) _Atomic int32_t done; /* rows finished in this pass */
    _Atomic int32_t waiters;            /* threads asleep on done */
    pthread_mutex_t lock;
    pthread_cond_t moved;
} block_sync;

typedef struct scan_ctx {
    const float *cost; /* nd planes of w * h: plane k holds every pixel's step k */
    int64_t plane;     /* w * h */
    int32_t w, h;
    int nd;
    const uint8_t *seeds;
    float *d;
    int32_t *parent;
    int backward;
    int nblocks;
    int32_t bx[GEO_MAX_BLOCKS + 1]; /* block t: columns [bx[t], bx[t + 1]) */
    block_sync sync[GEO_MAX_BLOCKS];
    _Atomic int gate; /* 0: wait, 1: go, -1: leave (a thread did not start) */
    const float *near_fg; /* background scans: the foreground distances, or NULL */
    float *const *stages; /* NULL, or GB_GEO_PASSES - 1 arrays: each pass's distances but the last */
} scan_ctx;

typedef struct scan_worker {
    scan_ctx *c;
    int t;
    int64_t changed;
} scan_worker;

/* Waits until block b has finished `rows` rows: a spin (with a core of
 * its own, the block before is about a row ahead), then asleep, so that a
 * machine with more threads than free cores does not burn them spinning. */
static void wait_rows(scan_ctx *c, int b, int32_t rows)
{
    block_sync *bs = &c->sync[b];
    for (int i = 0; i < GEO_SPINS; i++)
        if (atomic_load_explicit(&bs->done, memory_order_acquire) >= rows)
            return;
    pthread_mutex_lock(&bs->lock);
    atomic_fetch_add(&bs->waiters, 1);
    atomic_thread_fence(memory_order_seq_cst); /* pairs with publish_rows' fence */
    while (atomic_load(&bs->done) < rows)
        pthread_cond_wait(&bs->moved, &bs->lock);
    atomic_fetch_sub(&bs->waiters, 1);
    pthread_mutex_unlock(&bs->lock);
}

/* Block b has finished `rows` rows; wakes whoever sleeps on it. The fence
 * pairs with the waiter's increment: either the waiter then sees the new
 * count or this sees the waiter, and the broadcast under the lock cannot
 * slip between the waiter's check and its sleep. */
static void publish_rows(scan_ctx *c, int b, int32_t rows)
{
    block_sync *bs = &c->sync[b];
    atomic_store_explicit(&bs->done, rows, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&bs->waiters, memory_order_relaxed) > 0) {
        pthread_mutex_lock(&bs->lock);
        pthread_cond_broadcast(&bs->moved);
        pthread_mutex_unlock(&bs->lock);
    }
}

/* The smaller of two distances (no NaN here): minss, where fminf is a
 * library call without -ffast-math. */
static inline float min_f(float a, float b) { return b < a ? b : a; }

/* The steps from the row above into columns [lo, hi) of an 8-connected
 * row, every one of which has both diagonal neighbours: no tests, and
 * with the steps in planes every load is contiguous, so the loop
 * vectorises. out: the row, up: the row above, s, se, sw: its S, SE and
 * SW steps. */
static int64_t row_from_above(float *restrict out, const float *restrict up, const float *restrict s,
                              const float *restrict se, const float *restrict sw, const uint8_t *restrict seeds,
                              int32_t lo, int32_t hi)
{
    int32_t changed = 0; /* a row's count: 32 bits keep the loop vectorised */
    for (int32_t x = lo; x < hi; x++) {
        float old = out[x], best = min_f(old, up[x] + s[x]);
        best = min_f(best, up[x - 1] + se[x - 1]);
        best = min_f(best, up[x + 1] + sw[x + 1]);
        best = seeds[x] == GB_UNMARKED ? best : old;
        changed += best < old;
        out[x] = best;
    }
    return changed;
}

/* The same from the row below, through the row's own forward steps. */
static int64_t row_from_below(float *restrict out, const float *restrict down, const float *restrict s,
                              const float *restrict se, const float *restrict sw, const uint8_t *restrict seeds,
                              int32_t lo, int32_t hi)
{
    int32_t changed = 0; /* a row's count: 32 bits keep the loop vectorised */
    for (int32_t x = lo; x < hi; x++) {
        float old = out[x], best = min_f(old, down[x] + s[x]);
        best = min_f(best, down[x + 1] + se[x]);
        best = min_f(best, down[x - 1] + sw[x]);
        best = seeds[x] == GB_UNMARKED ? best : old;
        changed += best < old;
        out[x] = best;
    }
    return changed;
}

/* Columns [lo, hi) of [x0, x1) in a w-wide row that have both diagonal
 * neighbours (8-connected; lo = hi = x0 when 4-connected): the loops
 * without tests take them, the edge loops the rest. */
static void diagonal_span(int nd, int32_t w, int32_t x0, int32_t x1, int32_t *lo, int32_t *hi)
{
    *lo = *hi = x0;
    if (nd == 4) {
        *lo = x0 > 0 ? x0 : 1;
        *hi = x1 < w ? x1 : w - 1;
        *hi = *hi > *lo ? *hi : *lo;
    }
}

/* Distances alone (no parent to record): the same minimum as the serial
 * scan, in two sweeps of the row. First the steps from the row already
 * final (above going forward, below going backward), independent of one
 * another and free of branches; then the step along the row, the only
 * chain. Min is exact on floats, so the distances are the serial scan's
 * to the bit. Returns the pixels that moved (0 when none did). */
static int64_t above_forward(const scan_ctx *c, int32_t y, int32_t x0, int32_t x1)
{
    const int32_t w = c->w;
    const int nd = c->nd;
    const float *cs = c->cost + c->plane; /* S; SE and SW only when 8-connected */
    const float *cse = nd == 4 ? cs + c->plane : NULL, *csw = nd == 4 ? cse + c->plane : NULL;
    const uint8_t *seeds = c->seeds;
    float *d = c->d;
    int64_t changed = 0, row = (int64_t)y * w;
    if (y > 0) {
        int32_t lo, hi;
        diagonal_span(nd, w, x0, x1, &lo, &hi);
        if (nd == 4)
            changed += row_from_above(d + row, d + row - w, cs + row - w, cse + row - w, csw + row - w, seeds + row,
                                      lo, hi);
        for (int32_t x = x0; x < x1; x++) {
            if (x == lo)
                x = hi;
            if (x >= x1)
                break;
            int64_t p = row + x, q = p - w;
            float old = d[p], best = min_f(old, d[q] + cs[q]);
            if (nd == 4) {
                if (x > 0)
                    best = min_f(best, d[q - 1] + cse[q - 1]);
                if (x + 1 < w)
                    best = min_f(best, d[q + 1] + csw[q + 1]);
            }
            best = seeds[p] == GB_UNMARKED ? best : old;
            changed += best < old;
            d[p] = best;
        }
    }
    return changed;
}

/* One pixel of a row chain: d[p] = min(d[p], *prev + step); *prev takes
 * the result. 1 when it moved. */
static inline int chain_step(float *d, int64_t p, float step, float *prev)
{
    float old = d[p], v = *prev + step;
    *prev = min_f(old, v);
    d[p] = *prev;
    return v < old;
}

/* The step along the row, the chain: the previous pixel's distance stays
 * in a register, and a seed's step costs infinity instead of a branch
 * (x + inf = inf, and min(old, inf) = old), so a pixel costs an add and a
 * min. da, db: one region's row, or two regions' side by side (db may be
 * NULL), whose independent chains then overlap in the core; the seeds and
 * the steps are the same for both. */
static int64_t chain_forward(const scan_ctx *c, float *da, float *db, int32_t y, int32_t x0, int32_t x1)
{
    const float *ce = c->cost; /* the E steps */
    const uint8_t *seeds = c->seeds;
    int64_t changed = 0, row = (int64_t)y * c->w;
    int32_t xs = x0 > 0 ? x0 : 1;
    if (xs >= x1)
        return 0;
    float pa = da[row + xs - 1], pb = db ? db[row + xs - 1] : 0.0f;
    for (int32_t x = xs; x < x1; x++) {
        int64_t p = row + x;
        float step = seeds[p] == GB_UNMARKED ? ce[p - 1] : INFINITY;
        changed += chain_step(da, p, step, &pa);
        if (db)
            changed += chain_step(db, p, step, &pb);
    }
    return changed;
}

static int64_t row_forward(const scan_ctx *c, int32_t y, int32_t x0, int32_t x1)
{
    return above_forward(c, y, x0, x1) + chain_forward(c, c->d, NULL, y, x0, x1);
}

static int64_t below_backward(const scan_ctx *c, int32_t y, int32_t x0, int32_t x1)
{
    const int32_t w = c->w, h = c->h;
    const int nd = c->nd;
    const float *cs = c->cost + c->plane; /* S; SE and SW only when 8-connected */
    const float *cse = nd == 4 ? cs + c->plane : NULL, *csw = nd == 4 ? cse + c->plane : NULL;
    const uint8_t *seeds = c->seeds;
    float *d = c->d;
    int64_t changed = 0, row = (int64_t)y * w;
    if (y + 1 < h) {
        int32_t lo, hi;
        diagonal_span(nd, w, x0, x1, &lo, &hi);
        if (nd == 4)
            changed += row_from_below(d + row, d + row + w, cs + row, cse + row, csw + row, seeds + row, lo, hi);
        for (int32_t x = x0; x < x1; x++) {
            if (x == lo)
                x = hi;
            if (x >= x1)
                break;
            int64_t p = row + x, q = p + w;
            float old = d[p], best = min_f(old, d[q] + cs[p]);
            if (nd == 4) {
                if (x + 1 < w)
                    best = min_f(best, d[q + 1] + cse[p]);
                if (x > 0)
                    best = min_f(best, d[q - 1] + csw[p]);
            }
            best = seeds[p] == GB_UNMARKED ? best : old;
            changed += best < old;
            d[p] = best;
        }
    }
    return changed;
}

static int64_t chain_backward(const scan_ctx *c, float *da, float *db, int32_t y, int32_t x0, int32_t x1)
{
    const int32_t w = c->w;
    const float *ce = c->cost; /* the E steps */
    const uint8_t *seeds = c->seeds;
    int64_t changed = 0, row = (int64_t)y * w;
    int32_t xs = (x1 < w ? x1 : w - 1) - 1;
    if (xs < x0)
        return 0;
    float pa = da[row + xs + 1], pb = db ? db[row + xs + 1] : 0.0f;
    for (int32_t x = xs; x >= x0; x--) {
        int64_t p = row + x;
        float step = seeds[p] == GB_UNMARKED ? ce[p] : INFINITY;
        changed += chain_step(da, p, step, &pa);
        if (db)
            changed += chain_step(db, p, step, &pb);
    }
    return changed;
}

static int64_t row_backward(const scan_ctx *c, int32_t y, int32_t x0, int32_t x1)
{
    return below_backward(c, y, x0, x1) + chain_backward(c, c->d, NULL, y, x0, x1);
}

/* Both regions' distances (no parent forest) on one thread, row by row
 * side by side: the rows of a region see exactly what its own scan would
 * (the regions share nothing but the steps and the seeds), and a pass
 * more after a region has settled changes nothing, so the distances are
 * those of two separate scans. */
static void scan_both(scan_ctx *a, scan_ctx *b)
{
    const int32_t w = a->w, h = a->h;
    for (int round = 0; round < GEO_SCANS; round++) {
        int64_t changed = 0;
        for (int32_t y = 0; y < h; y++) {
            changed += above_forward(a, y, 0, w) + above_forward(b, y, 0, w);
            changed += chain_forward(a, a->d, b->d, y, 0, w);
        }
        for (int32_t y = h - 1; y >= 0; y--) {
            changed += below_backward(a, y, 0, w) + below_backward(b, y, 0, w);
            changed += chain_backward(a, a->d, b->d, y, 0, w);
        }
        if (!changed)
            break;
    }
}

static void *scan_block(void *arg)
{
    scan_worker *sw = arg;
    scan_ctx *c = sw->c;
    const float *cost = c->cost;
    const int64_t plane = c->plane;
    const int32_t w = c->w, h = c->h, x0 = c->bx[sw->t], x1 = c->bx[sw->t + 1];
    const int nd = c->nd, t = sw->t, last = c->nblocks - 1;
    const uint8_t *seeds = c->seeds;
    float *d = c->d;
    int32_t *parent = c->parent;
    int64_t changed = 0;
    if (t > 0) {
        int g;
        while ((g = atomic_load_explicit(&c->gate, memory_order_acquire)) == 0)
            sched_yield();
        if (g < 0)
            return NULL;
    }
    for (int32_t k = 0; k < h; k++) {
        /* the block before this one in the scan's direction: this row; the one after: the row before */
        int before = c->backward ? t + 1 : t - 1, after = c->backward ? t - 1 : t + 1;
        if (before >= 0 && before <= last)
            wait_rows(c, before, k + 1);
        if (after >= 0 && after <= last)
            wait_rows(c, after, k);
        if (!parent) {
            changed += c->backward ? row_backward(c, h - 1 - k, x0, x1) : row_forward(c, k, x0, x1);
        } else if (!c->backward) {
            /* from W (E of x-1), N (S of y-1), NW (SE of x-1,y-1), NE (SW of x+1,y-1) */
            const int32_t y = k;
            for (int32_t x = x0; x < x1; x++) {
                int64_t p = (int64_t)y * w + x;
                if (seeds[p] != GB_UNMARKED)
                    continue;
                float best = d[p];
                int64_t from = -1;
                if (x > 0)
                    relax(&best, &from, d, p - 1, cost[p - 1]);
                if (y > 0)
                    relax(&best, &from, d, p - w, cost[plane + p - w]);
                if (nd == 4 && y > 0) {
                    if (x > 0)
                        relax(&best, &from, d, p - w - 1, cost[2 * plane + p - w - 1]);
                    if (x + 1 < w)
                        relax(&best, &from, d, p - w + 1, cost[3 * plane + p - w + 1]);
                }
                changed += settle(d, parent, p, best, from);
            }
        } else {
            /* from E, S, SE, SW: the pixel's own forward steps */
            const int32_t y = h - 1 - k;
            for (int32_t x = x1 - 1; x >= x0; x--) {
                int64_t p = (int64_t)y * w + x;
                if (seeds[p] != GB_UNMARKED)
                    continue;
                float best = d[p];
                int64_t from = -1;
                for (int q = 0; q < nd; q++) {
                    int32_t qx = x + GDX[q], qy = y + GDY[q];
                    if (qx >= 0 && qx < w && qy < h)
                        relax(&best, &from, d, (int64_t)qy * w + qx, cost[q * plane + p]);
                }
                changed += settle(d, parent, p, best, from);
            }
        }
        publish_rows(c, t, k + 1);
    }
    sw->changed = changed;
    return NULL;
}

/* One pass on every block; returns the number of updates. The blocks'
 * threads wait at a gate until all of them exist: if one cannot start,
 * the others leave and the pass runs serially (the same distances). */
static int64_t scan_pass(scan_ctx *c, int backward)
{
    pthread_t tid[GEO_MAX_BLOCKS];
    scan_worker ws[GEO_MAX_BLOCKS];
    int started[GEO_MAX_BLOCKS] = {0};
    c->backward = backward;
    for (int t = 0; t < c->nblocks; t++)
        atomic_store(&c->sync[t].done, 0);
    int64_t changed = 0;
    if (c->nblocks > 1) {
        atomic_store(&c->gate, 0);
        int all = 1;
        for (int t = 1; t < c->nblocks; t++) {
            ws[t] = (scan_worker){c, t, 0};
            started[t] = pthread_create(&tid[t], NULL, scan_block, &ws[t]) == 0;
            all &= started[t];
        }
        atomic_store(&c->gate, all ? 1 : -1);
        if (all) {
            ws[0] = (scan_worker){c, 0, 0};
            scan_block(&ws[0]);
        }
        for (int t = 1; t < c->nblocks; t++)
            if (started[t])
                pthread_join(tid[t], NULL);
        if (all) {
            for (int t = 0; t < c->nblocks; t++)
                changed += ws[t].changed;
            return changed;
        }
        for (int t = 0; t < c->nblocks; t++)
            atomic_store(&c->sync[t].done, 0);
    }
    int nblocks = c->nblocks;
    int32_t bx1 = c->bx[1];
    c->nblocks = 1;
    c->bx[1] = c->w;
    ws[0] = (scan_worker){c, 0, 0};
    scan_block(&ws[0]);
    c->nblocks = nblocks;
    c->bx[1] = bx1;
    return ws[0].changed;
}

unsigned gb_frame_sides(const uint8_t *seeds, int32_t width, int32_t height)
{
    unsigned sides = 0;
    if (!seeds || width < 1 || height < 1)
        return 0;
    const uint8_t *last = seeds + (int64_t)(height - 1) * width;
    for (int32_t x = 0; x < width; x++) {
        sides |= seeds[x] == GB_FOREGROUND ? GB_SIDE_TOP : 0;
        sides |= last[x] == GB_FOREGROUND ? GB_SIDE_BOTTOM : 0;
    }
    for (int32_t y = 0; y < height; y++) {
        sides |= seeds[(int64_t)y * width] == GB_FOREGROUND ? GB_SIDE_LEFT : 0;
        sides |= seeds[(int64_t)y * width + width - 1] == GB_FOREGROUND ? GB_SIDE_RIGHT : 0;
    }
    return sides;
}

int gb_on_sides(int32_t x, int32_t y, int32_t width, int32_t height, int32_t band, unsigned sides)
{
    return ((sides & GB_SIDE_TOP) && y < band) || ((sides & GB_SIDE_BOTTOM) && y >= height - band) ||
           ((sides & GB_SIDE_LEFT) && x < band) || ((sides & GB_SIDE_RIGHT) && x >= width - band);
}

/* Distances from the pixels labelled `which` (unseeded border pixels start
 * at `border` unless it is negative, except on the sides a foreground seed
 * touches and near the foreground seeds). */
static void scan_init(scan_ctx *c, uint8_t which, double border)
{
    const int32_t w = c->w, h = c->h;
    const uint8_t *seeds = c->seeds;
    const float at_border = border >= 0 ? (float)border : INFINITY;
    const float *near = c->near_fg; /* border pixels this near the foreground start nothing */
    const unsigned sides = at_border < INFINITY ? gb_frame_sides(seeds, w, h) : 0;
    for (int32_t y = 0; y < h; y++) {
        /* unseeded pixels: the border's start on the top and bottom rows,
         * and in the first and last columns (set after the loop, which
         * stays free of tests) */
        const float rest = y == 0 || y == h - 1 ? at_border : INFINITY;
        const uint8_t *sr = seeds + (int64_t)y * w;
        float *dr = c->d + (int64_t)y * w;
        for (int32_t x = 0; x < w; x++)
            dr[x] = sr[x] == which ? 0.0f : sr[x] == GB_UNMARKED ? rest : INFINITY;
        dr[0] = sr[0] == GB_UNMARKED ? at_border : dr[0];
        dr[w - 1] = sr[w - 1] == GB_UNMARKED ? at_border : dr[w - 1];
        if (at_border < INFINITY && (near || sides)) {
            /* the frame pixels of this row (all of an edge row, else its
             * two ends) that start nothing: near the foreground, or on a
             * side it touches */
            const float *nr = near ? near + (int64_t)y * w : NULL;
            const int32_t step = y == 0 || y == h - 1 || w < 2 ? 1 : w - 1;
            for (int32_t x = 0; x < w; x += step)
                if (sr[x] == GB_UNMARKED &&
                    ((nr && nr[x] <= (float)GB_BORDER_FG_GAP) || gb_on_sides(x, y, w, h, 1, sides)))
                    dr[x] = INFINITY;
        }
        if (c->parent)
            for (int32_t x = 0; x < w; x++)
                c->parent[(int64_t)y * w + x] = -1;
    }
}

/* Keeps pass k's distances when the caller wants every pass's. */
static void keep_stage(const scan_ctx *c, int k)
{
    if (c->stages && k < GB_GEO_PASSES - 1)
        memcpy(c->stages[k], c->d, sizeof(float) * (size_t)c->plane);
}

static void scan(scan_ctx *c, uint8_t which, double border)
{
    scan_init(c, which, border);
    int k = 0;
    for (int round = 0; round < GEO_SCANS; round++) {
        int64_t changed = scan_pass(c, 0);
        keep_stage(c, k++);
        changed += scan_pass(c, 1);
        keep_stage(c, k++);
        if (!changed)
            break;
    }
    /* after a pair that moved nothing, every further pass moves nothing */
    for (; k < GB_GEO_PASSES - 1; k++)
        keep_stage(c, k);
}

/* One region's distances, on its own context. */
typedef struct region_job {
    scan_ctx *c;
    uint8_t which;
    double border;
} region_job;

static void *scan_region(void *arg)
{
    region_job *j = arg;
    scan(j->c, j->which, j->border);
    return NULL;
}

/* Step costs of rows [y0, y1), into nd planes (plane k: every pixel's
 * step k; infinity where the neighbour is outside). */
typedef struct cost_job {
    const uint8_t *rgb;
    int32_t width, y0, y1, height;
    int nd;
    const double *similarity;
    const int32_t *pair_d2; /* NULL: from the colours */
    float *cost;
} cost_job;

static void *cost_rows(void *arg)
{
    const cost_job *j = arg;
    const int32_t w = j->width;
    const int64_t plane = (int64_t)w * j->height;
    for (int32_t y = j->y0; y < j->y1; y++)
        for (int k = 0; k < j->nd; k++) {
            const int64_t row = (int64_t)y * w;
            float *out = j->cost + k * plane + row;
            const double len = (GDX[k] && GDY[k]) ? M_SQRT2 : 1.0;
            /* the columns whose step k stays inside the photo */
            int32_t lo = GDX[k] < 0 ? 1 : 0, hi = GDX[k] > 0 ? w - 1 : w;
            if (y + GDY[k] >= j->height)
                lo = hi = 0;
            for (int32_t x = 0; x < lo; x++)
                out[x] = INFINITY;
            for (int32_t x = lo; x < hi; x++) {
                int64_t p = row + x;
                int32_t dist2;
                if (j->pair_d2) {
                    dist2 = j->pair_d2[p * j->nd + k];
                } else {
                    dist2 = gb_colour_dist2(j->rgb + 3 * p, j->rgb + 3 * (p + (int64_t)GDY[k] * w + GDX[k]));
                }
                out[x] = (float)(len * (GEO_EPS + 1.0 - j->similarity[dist2]));
            }
            for (int32_t x = hi > lo ? hi : lo; x < w; x++)
                out[x] = INFINITY;
        }
    return NULL;
}

int gb_geodesic(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds, int connectivity,
                double beta, double border, int threads, float *dist_fg, float *dist_bg, int32_t *parent_fg)
{
    double *similarity = gb_similarity_table(beta, threads < 0 ? -threads : threads);
    if (!similarity)
        return GB_ERR_NOMEM;
    int rc = gb_geodesic_with(rgb, width, height, seeds, connectivity, similarity, NULL, border, threads, dist_fg,
                              dist_bg, parent_fg);
    mf_free_big(similarity);
    return rc;
}

int gb_geodesic_costs(const uint8_t *rgb, int32_t width, int32_t height, int connectivity, const double *similarity,
                      const int32_t *pair_d2, int threads, float *cost)
{
    if (!rgb || !similarity || !cost || width < 1 || height < 1 || (connectivity != 4 && connectivity != 8))
        return GB_ERR_INVALID;
    const int nd = connectivity == 4 ? 2 : 4;
    int want = threads < 0 ? -threads : threads;
    int blocks = want < 1 ? 1 : want > GEO_MAX_BLOCKS ? GEO_MAX_BLOCKS : want;
    cost_job jobs[GEO_MAX_BLOCKS];
    for (int t = 0; t < blocks; t++)
        jobs[t] = (cost_job){rgb, width, (int32_t)((int64_t)height * t / blocks),
                             (int32_t)((int64_t)height * (t + 1) / blocks), height, nd, similarity, pair_d2,
                             cost};
    gb_run_threads(cost_rows, jobs, sizeof jobs[0], blocks);
    return GB_OK;
}

int gb_geodesic_with(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds, int connectivity,
                     const double *similarity, const int32_t *pair_d2, double border, int threads,
                     float *dist_fg, float *dist_bg, int32_t *parent_fg)
{
    if (!rgb || !seeds || !similarity || width < 1 || height < 1 || (connectivity != 4 && connectivity != 8))
        return GB_ERR_INVALID;
    const int nd = connectivity == 4 ? 2 : 4;
    const int64_t npx = (int64_t)width * height;
    float *cost = mf_alloc_big(sizeof(float) * (size_t)npx * (size_t)nd);
    if (!cost)
        return GB_ERR_NOMEM;
    int rc = gb_geodesic_costs(rgb, width, height, connectivity, similarity, pair_d2, threads, cost);
    if (!rc)
        rc = gb_geodesic_scan(cost, width, height, seeds, connectivity, border, threads, dist_fg, dist_bg, parent_fg,
                              NULL, NULL);
    mf_free_big(cost);
    return rc;
}

int gb_geodesic_scan(const float *cost, int32_t width, int32_t height, const uint8_t *seeds, int connectivity,
                     double border, int threads, float *dist_fg, float *dist_bg, int32_t *parent_fg,
                     float *const *stages_fg, float *const *stages_bg)
{
    if (!cost || !seeds || width < 1 || height < 1 || (connectivity != 4 && connectivity != 8))
        return GB_ERR_INVALID;
    const int nd = connectivity == 4 ? 2 : 4;
    const int64_t npx = (int64_t)width * height;
    int want = threads < 0 ? -threads : threads;
    int blocks = want < 1 ? 1 : want > GEO_MAX_BLOCKS ? GEO_MAX_BLOCKS : want;
    if (blocks > width / GEO_MIN_BLOCK_WIDTH)
        blocks = width / GEO_MIN_BLOCK_WIDTH < 1 ? 1 : width / GEO_MIN_BLOCK_WIDTH;
    if (npx < GEO_MIN_PARALLEL_PIXELS && threads > 0)
        blocks = 1;
    /* one context a region: on one column block each, the two regions'
     * scans run side by side when there are two threads */
    scan_ctx *c = aligned_alloc(_Alignof(scan_ctx), 2 * sizeof *c); /* block_sync's cache lines */
    if (!c)
        return GB_ERR_NOMEM;
    memset(c, 0, 2 * sizeof *c);
    region_job rj[2];
    int nr = 0;
    for (int r = 0; r < 2; r++) {
        float *d = r == 0 ? dist_fg : dist_bg;
        if (!d)
            continue;
        scan_ctx *cr = &c[nr];
        for (int t = 0; t < GEO_MAX_BLOCKS; t++) {
            pthread_mutex_init(&cr->sync[t].lock, NULL);
            pthread_cond_init(&cr->sync[t].moved, NULL);
        }
        cr->cost = cost;
        cr->plane = npx;
        cr->w = width;
        cr->h = height;
        cr->nd = nd;
        cr->seeds = seeds;
        cr->nblocks = blocks;
        for (int t = 0; t <= blocks; t++)
            cr->bx[t] = (int32_t)((int64_t)width * t / blocks);
        cr->d = d;
        cr->parent = r == 0 ? parent_fg : NULL;
        cr->stages = r == 0 ? stages_fg : stages_bg;
        rj[nr++] = (region_job){cr, r == 0 ? GB_FOREGROUND : GB_BACKGROUND, r == 0 ? -1.0 : border};
    }
    if (nr == 2 && border >= 0) {
        /* the background's start needs the foreground's distances first */
        scan_region(&rj[0]);
        rj[1].c->near_fg = rj[0].c->d;
        scan_region(&rj[1]);
    } else if (nr == 2 && blocks == 1 && want >= 2) {
        gb_run_threads(scan_region, rj, sizeof rj[0], 2);
    } else if (nr == 2 && blocks == 1 && !parent_fg && !stages_fg && !stages_bg) {
        scan_init(rj[0].c, rj[0].which, rj[0].border);
        scan_init(rj[1].c, rj[1].which, rj[1].border);
        scan_both(rj[0].c, rj[1].c);
    } else {
        for (int r = 0; r < nr; r++)
            scan_region(&rj[r]);
    }
    for (int r = 0; r < nr; r++)
        for (int t = 0; t < GEO_MAX_BLOCKS; t++) {
            pthread_cond_destroy(&c[r].sync[t].moved);
            pthread_mutex_destroy(&c[r].sync[t].lock);
        }
    free(c);
    return GB_OK;
}
