/* GPU engine: data-driven push-relabel on the forward + reverse CSR with one
 * flow value per arc (ecl-maxflow), lock-free pushes to the lowest
 * neighbour (Hong), global relabeling as a worklist BFS on the device.
 *
 * Going past the published codes:
 *  - lane groups of 1/4/8/16/32 per vertex, picked from the average degree
 *    (image grids have degree ~9: a full warp would idle 23 lanes);
 *  - kernels run over a fixed grid and read the worklist size from device
 *    memory, so rounds are queued back to back and the host reads one
 *    counter every few rounds instead of synchronising every round;
 *  - 64-bit excess; the terminals' excess is never touched by pushes (no
 *    hot atomic), the value is summed from the sink's arcs at the end;
 *  - the canonical cut comes from the final BFS of phase 1 (vertices the
 *    BFS from the sink cannot reach), computed on the device. */
#include "internal.h"
#include "tuning.h"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

#define HEIGHT_INF 0x3fffffff

/* --------------------------------------------------------------------- */
/* Device data of one solve: graph arrays, state, worklists, counters.   */
struct dev_state {
    int32_t n, m;
    int32_t *out_start, *arc_head, *arc_cap, *arc_rcap;
    int32_t *in_start, *in_arc, *in_tail;
    int32_t *flow;
    unsigned long long *excess; /* int64 in two's complement */
    int32_t *height;
    int32_t *stamp;
    int32_t *wl[2];
    int32_t *counters; /* [0..2] worklist sizes (rotating), [4..5] uint64 visits since the last BFS, [6] next BFS level
                        * after bfs_small, [7] deficit flag, [8..9] hub list sizes (by round parity), [10]
                        * rounds push_small ran, [12] bfs_hops' super-levels in this solve */
    int32_t *hubs[2];  /* active vertices of degree above hub_deg, deferred to hub_round (by round parity) */
    int32_t hub_deg;   /* 0: no vertex is a hub */
    int32_t bfs_direct; /* bfs_hops: frontiers below this size label by atomicMin without a load first */
    unsigned long long *value;
    uint8_t *side;
};

struct part_map;

struct mf_gpu_solver {
    int device;
    int sm_count;
    char name[128];
    cudaStream_t stream;
    dev_state d;
    int32_t n_cap, m_cap; /* allocated sizes */
    int32_t *changes;     /* device copy of a batch of changes */
    int64_t changes_cap;
    int32_t *host_counter; /* pinned copy of dev_state.counters */
    part_map *part_maps;   /* mf_gpu_solve_many: where each part sits in the union */
    unsigned long long *part_values;
    int32_t *grid_buf;     /* mf_gpu_solve_many_grids: the parts' compact forms */
    int64_t grid_cap;      /* its size in int32 */
    double *sim_buf;       /* their similarity tables (mf_grid.sim) */
    int64_t sim_cap;       /* its size in doubles */
    int32_t *grid_k;       /* per part, the largest n-link weight sum (seed capacity - 1) */
};

/* --------------------------------------------------------------------- */
/* Kernels                                                               */

/* Residual capacity from v along combined index k (out arcs, then in). */
struct nbr {
    int32_t w, arc, res, dir;
};

__device__ __forceinline__ nbr neighbour(const dev_state &d, int32_t v, int32_t out0, int32_t dout,
                                         int32_t in0, int32_t k)
{
    nbr r;
    if (k < dout) {
        int32_t a = out0 + k;
        r.arc = a;
        r.w = d.arc_head[a];
        r.res = d.arc_cap[a] - d.flow[a];
        r.dir = 1;
    } else {
        int32_t i = in0 + (k - dout);
        int32_t a = d.in_arc[i];
        r.arc = a;
        r.w = d.in_tail[i];
        r.res = d.arc_rcap[a] + d.flow[a];
        r.dir = -1;
    }
    return r;
}

template <int G>
__device__ __forceinline__ unsigned group_mask()
{
    if (G == 32)
        return 0xffffffffu;
    unsigned lane = threadIdx.x & 31;
    return ((1u << (G & 31)) - 1) << (lane & ~(G - 1));
}

template <int G>
__device__ __forceinline__ unsigned long long group_min(unsigned long long x, unsigned mask)
{
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) {
        unsigned long long y = __shfl_xor_sync(mask, x, off, G);
        x = y < x ? y : x;
    }
    return x;
}

template <int G, typename T>
__device__ __forceinline__ T group_bcast(T x, unsigned mask)
{
    if (G == 1)
        return x;
    return __shfl_sync(mask, x, 0, G);
}

/* Appends x to list when want, with one atomic per warp instead of one per
 * element: on a grid with half a million active pixels, per-element
 * atomics on a single counter serialise the whole round. All 32 lanes of
 * the warp must call it together. */
__device__ __forceinline__ void warp_append(int32_t *__restrict__ list, int32_t *count, int32_t x,
                                            bool want)
{
    const unsigned ballot = __ballot_sync(0xffffffffu, want);
    if (!ballot)
        return;
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(ballot) - 1;
    int32_t base = 0;
    if (lane == leader)
        base = atomicAdd(count, __popc(ballot));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (want)
        list[base + __popc(ballot & ((1u << lane) - 1))] = x;
}

/* warp_append for up to three values a lane (x < 0: none), still one
 * atomic per warp: a visit's pushes and its own re-listing go out
 * together. All 32 lanes of the warp must call it together. */
__device__ __forceinline__ void warp_append3(int32_t *__restrict__ list, int32_t *count, int32_t x0, int32_t x1,
                                             int32_t x2)
{
    const unsigned b0 = __ballot_sync(0xffffffffu, x0 >= 0), b1 = __ballot_sync(0xffffffffu, x1 >= 0),
                   b2 = __ballot_sync(0xffffffffu, x2 >= 0);
    const int n0 = __popc(b0), n1 = __popc(b1), total = n0 + n1 + __popc(b2);
    if (!total)
        return;
    const int lane = threadIdx.x & 31;
    const unsigned below = (1u << lane) - 1;
    int32_t base = 0;
    if (lane == 0)
        base = atomicAdd(count, total);
    base = __shfl_sync(0xffffffffu, base, 0);
    if (x0 >= 0)
        list[base + __popc(b0 & below)] = x0;
    if (x1 >= 0)
        list[base + n0 + __popc(b1 & below)] = x1;
    if (x2 >= 0)
        list[base + n0 + n1 + __popc(b2 & below)] = x2;
}

/* Claims x for the next worklist unless it is already on it. */
__device__ __forceinline__ bool claim(const dev_state &d, int32_t x, int32_t round_tag)
{
    return atomicExch(&d.stamp[x], round_tag) != round_tag;
}

/* Discharges each active vertex of the worklist for up to `cycles` push or
 * relabel steps (one step when its degree exceeds 2G). Each lane caches the
 * residual capacity and height of up to two neighbours, so that pushes to
 * several neighbours in one visit cost no rescans: on grids one push per
 * round moved excess a single arc per ~1 ms round.
 * Why it stays a valid preflow under races: e and every cached residual are
 * lower bounds (only v lowers its excess or the residuals out of v), and
 * cached heights are lower bounds (heights only grow between BFSs). */
template <int G>
__device__ __forceinline__ void push_round_body(const dev_state &d, int parity, int round, int32_t hmax,
                                                int32_t target, int32_t blocked, int cycles, int32_t size,
                                                int32_t first, int32_t groups)
{
    const int32_t *__restrict__ wl = d.wl[parity];
    int32_t *__restrict__ wl_next = d.wl[parity ^ 1];
    int32_t *next_count = &d.counters[(round + 1) % 3];
    const unsigned mask = group_mask<G>();
    const int lane = threadIdx.x & (G - 1);
    /* warp-uniform loop: every lane reaches the appends */
    for (int32_t base = first; base < size; base += groups) {
        const int32_t idx = base + (int32_t)((threadIdx.x & 31) / G);
        int32_t v = -1, h = 0, out0 = 0, dout = 0, in0 = 0, deg = 0;
        long long e = 0;
        if (idx < size) {
            v = wl[idx];
            /* the arc ranges load beside the excess and height, and the
             * neighbours below before live is known: a round is a chain of
             * dependent loads, one link fewer */
            out0 = d.out_start[v];
            dout = d.out_start[v + 1] - out0;
            in0 = d.in_start[v];
            deg = dout + (d.in_start[v + 1] - in0);
            if (lane == 0) {
                e = (long long)d.excess[v];
                h = d.height[v];
            }
            e = group_bcast<G>(e, mask);
            h = group_bcast<G>(h, mask);
        }
        bool live = v >= 0 && e > 0 && h < hmax;
        const int32_t h_start = h;
        int32_t cres[2] = {0, 0}, chgt[2] = {0, 0};
        /* a hub's scan would hold its warp for deg / G steps while the
         * others idle: hub_round gives it a block of its own after this */
        const bool hub = live && d.hub_deg > 0 && deg > d.hub_deg;
        warp_append(d.hubs[round & 1], &d.counters[8 + (round & 1)], v, hub && lane == 0);
        if (hub)
            live = false;
        const bool cached = deg <= 2 * G;
        if (v >= 0 && cached) {
#pragma unroll
            for (int j = 0; j < 2; j++) {
                const int32_t k = lane + j * G;
                if (k < deg) {
                    nbr r = neighbour(d, v, out0, dout, in0, k);
                    cres[j] = r.res > 0 ? r.res : 0;
                    chgt[j] = r.res > 0 ? d.height[r.w] : 0;
                }
            }
        }
        bool active = live;
        /* the vertices this lane pushed to (a lane owns neighbours lane and
         * lane + G, or one push when uncached), claimed after the cycles:
         * an atomic's round trip per cycle held every group of the warp */
        int32_t pushed[2] = {-1, -1};
        for (int c = 0; c < cycles; c++) {
            if (!__any_sync(0xffffffffu, active))
                break;
            unsigned long long best = ~0ull;
            if (active) {
                if (cached) {
#pragma unroll
                    for (int j = 0; j < 2; j++)
                        if (cres[j] > 0) {
                            unsigned long long key = ((unsigned long long)(uint32_t)chgt[j] << 32) |
                                                     (uint32_t)(lane + j * G);
                            best = key < best ? key : best;
                        }
                } else {
                    for (int32_t k = lane; k < deg; k += G) {
                        nbr r = neighbour(d, v, out0, dout, in0, k);
                        if (r.res > 0) {
                            unsigned long long key =
                                ((unsigned long long)(uint32_t)d.height[r.w] << 32) | (uint32_t)k;
                            best = key < best ? key : best;
                        }
                    }
                }
                if (G > 1)
                    best = group_min<G>(best, mask);
                if (best == ~0ull) { /* no residual arc left: v is cut off */
                    h = hmax;
                    active = false;
                } else {
                    const int32_t hw = (int32_t)(best >> 32);
                    const int32_t k = (int32_t)(best & 0xffffffffu);
                    if (h > hw) {
                        const int owner = k & (G - 1);
                        long long delta = 0;
                        if (lane == owner) {
                            nbr r = neighbour(d, v, out0, dout, in0, k);
                            const int j = k / G;
                            const int32_t res = cached ? (j ? cres[1] : cres[0]) : r.res;
                            delta = e < (long long)res ? e : (long long)res;
                            if (cached) {
                                if (j)
                                    cres[1] -= (int32_t)delta;
                                else
                                    cres[0] -= (int32_t)delta;
                            }
                            atomicAdd(&d.flow[r.arc], r.dir * (int32_t)delta);
                            atomicAdd(&d.excess[v], (unsigned long long)(-delta));
                            if (r.w != target && r.w != blocked) {
                                atomicAdd(&d.excess[r.w], (unsigned long long)delta);
                                if (cached && j)
                                    pushed[1] = r.w;
                                else
                                    pushed[0] = r.w;
                            }
                        }
                        if (G > 1)
                            delta = __shfl_sync(mask, delta, owner, G);
                        e -= delta;
                        if (e == 0)
                            active = false;
                    } else {
                        h = hw + 1 < hmax ? hw + 1 : hmax;
                        if (h >= hmax)
                            active = false;
                    }
                }
                if (!cached)
                    active = false;
            }
        }
        int32_t keep = -1;
        if (live && lane == 0) {
            if (h != h_start)
                d.height[v] = h;
            if (e > 0 && h < hmax && claim(d, v, round + 1))
                keep = v;
        }
        const int32_t p0 = pushed[0] >= 0 && claim(d, pushed[0], round + 1) ? pushed[0] : -1;
        const int32_t p1 = pushed[1] >= 0 && claim(d, pushed[1], round + 1) ? pushed[1] : -1;
        warp_append3(wl_next, next_count, p0, p1, keep);
    }
}

/* A round's bookkeeping, by one thread before the round's pushes: the
 * counters that round - 1 is done with are reset, the visits counted. */
__device__ __forceinline__ void begin_round(const dev_state &d, int round, int32_t size)
{
    d.counters[(round + 2) % 3] = 0; /* read last in round - 1 */
    d.counters[8 + ((round + 1) & 1)] = 0; /* hub_round of round - 1 is done with it */
    *(unsigned long long *)(d.counters + 4) += (unsigned long long)size; /* visits since the BFS */
}

template <int G>
__global__ void __launch_bounds__(256)
    push_relabel_round(dev_state d, int parity, int round, int32_t hmax, int32_t target,
                       int32_t blocked, int cycles)
{
    const int32_t size = d.counters[round % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0)
        begin_round(d, round, size);
    push_round_body<G>(d, parity, round, hmax, target, blocked, cycles, size,
                       ((blockIdx.x * blockDim.x + threadIdx.x) & ~31) / G, (gridDim.x * blockDim.x) / G);
}

/* Rounds in one block while the worklist has at most `limit` vertices, up
 * to max_rounds and until work_limit visits since the BFS: a round then
 * costs a __syncthreads, not a launch of the whole grid whose blocks find
 * nothing to do, and the other SMs stay free for the other streams' solves
 * (the tail of a photo's solve is hundreds of rounds of a few hundred
 * vertices). Graphs with hubs do not come here (hub_round is a launch of
 * its own). counters[10] receives the number of rounds run. */
template <int G>
__global__ void __launch_bounds__(1024)
    push_small(dev_state d, int round, int32_t hmax, int32_t target, int32_t blocked, int cycles,
               int32_t limit, int32_t max_rounds, unsigned long long work_limit)
{
    __shared__ int32_t size_s;
    int32_t r = 0;
    for (; r < max_rounds; r++) {
        const int rr = round + r;
        if (threadIdx.x == 0) {
            int32_t size = *(volatile int32_t *)&d.counters[rr % 3];
            const unsigned long long visits = *(volatile unsigned long long *)(d.counters + 4);
            if (size == 0 || size > limit || visits >= work_limit)
                size = -1;
            else
                begin_round(d, rr, size);
            size_s = size;
        }
        __syncthreads();
        const int32_t size = size_s;
        if (size < 0)
            break;
        push_round_body<G>(d, rr & 1, rr, hmax, target, blocked, cycles, size, (threadIdx.x & ~31) / G,
                           blockDim.x / G);
        __threadfence_block();
        __syncthreads(); /* the round's appends and count are complete */
    }
    if (threadIdx.x == 0)
        d.counters[10] = r;
}

/* One push or relabel step for each hub deferred by this round's
 * push_relabel_round, a block per hub: the block finds the lowest
 * residual neighbour (height, then index, as the group search does), its
 * first thread pushes or relabels and queues v and the pushed-to vertex
 * for the next round. Runs after the round, so no other thread moves v. */
__global__ void __launch_bounds__(1024)
    hub_round(dev_state d, int round, int32_t hmax, int32_t target, int32_t blocked)
{
    __shared__ unsigned long long warp_best[32];
    const int par = round & 1;
    const int32_t count = d.counters[8 + par];
    int32_t *__restrict__ wl_next = d.wl[par ^ 1];
    int32_t *next_count = &d.counters[(round + 1) % 3];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int32_t i = blockIdx.x; i < count; i += gridDim.x) {
        const int32_t v = d.hubs[par][i];
        const int32_t out0 = d.out_start[v], dout = d.out_start[v + 1] - out0, in0 = d.in_start[v];
        const int32_t deg = dout + (d.in_start[v + 1] - in0);
        unsigned long long best = ~0ull;
        for (int32_t k = threadIdx.x; k < deg; k += blockDim.x) {
            nbr r = neighbour(d, v, out0, dout, in0, k);
            if (r.res > 0) {
                unsigned long long key = ((unsigned long long)(uint32_t)d.height[r.w] << 32) | (uint32_t)k;
                best = key < best ? key : best;
            }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            unsigned long long y = __shfl_xor_sync(0xffffffffu, best, off);
            best = y < best ? y : best;
        }
        if (lane == 0)
            warp_best[warp] = best;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < (int)(blockDim.x >> 5); w++)
                best = warp_best[w] < best ? warp_best[w] : best;
            long long e = (long long)d.excess[v];
            const int32_t h0 = d.height[v];
            int32_t h = h0;
            if (best == ~0ull) {
                h = hmax; /* no residual arc left: v is cut off */
            } else {
                const int32_t hw = (int32_t)(best >> 32);
                const int32_t k = (int32_t)(best & 0xffffffffu);
                if (h > hw) {
                    nbr r = neighbour(d, v, out0, dout, in0, k);
                    const long long delta = e < (long long)r.res ? e : (long long)r.res;
                    atomicAdd(&d.flow[r.arc], r.dir * (int32_t)delta);
                    atomicAdd(&d.excess[v], (unsigned long long)(-delta));
                    e -= delta;
                    if (r.w != target && r.w != blocked) {
                        atomicAdd(&d.excess[r.w], (unsigned long long)delta);
                        if (claim(d, r.w, round + 1))
                            wl_next[atomicAdd(next_count, 1)] = r.w;
                    }
                } else {
                    h = hw + 1 < hmax ? hw + 1 : hmax;
                }
            }
            if (h != h0)
                d.height[v] = h;
            if (e > 0 && h < hmax && claim(d, v, round + 1))
                wl_next[atomicAdd(next_count, 1)] = v;
        }
        __syncthreads(); /* warp_best is reused by the next hub */
    }
}

/* Saturates every residual arc out of the source. */
__global__ void __launch_bounds__(256) saturate_source(dev_state d, int32_t s)
{
    const int32_t out0 = d.out_start[s], dout = d.out_start[s + 1] - out0;
    const int32_t in0 = d.in_start[s], din = d.in_start[s + 1] - in0;
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < dout + din;
         k += gridDim.x * blockDim.x) {
        nbr r = neighbour(d, s, out0, dout, in0, k);
        if (r.res <= 0 || r.w == s)
            continue;
        atomicAdd(&d.flow[r.arc], r.dir * r.res);
        atomicAdd(&d.excess[r.w], (unsigned long long)(long long)r.res);
    }
}

/* Starts a BFS: every height infinite but the target's. */
__global__ void __launch_bounds__(256) bfs_init(dev_state d, int32_t target)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < d.n; v += gridDim.x * blockDim.x)
        d.height[v] = v == target ? 0 : HEIGHT_INF;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        d.counters[0] = 0;
        d.counters[1] = 0;
        d.counters[2] = 0;
    }
}

/* BFS level 1: the target's neighbours, over the whole grid. A terminal of
 * an image network has millions of arcs; expanding it with one lane group
 * like any other frontier vertex made it the slowest step of the solve. */
__global__ void __launch_bounds__(256) bfs_expand_target(dev_state d, int32_t target, int32_t blocked)
{
    const int32_t out0 = d.out_start[target], dout = d.out_start[target + 1] - out0;
    const int32_t in0 = d.in_start[target], deg = dout + (d.in_start[target + 1] - in0);
    const int32_t stride = gridDim.x * blockDim.x;
    for (int32_t base = (blockIdx.x * blockDim.x + threadIdx.x) & ~31; base < deg; base += stride) {
        const int32_t k = base + (threadIdx.x & 31);
        int32_t x = -1;
        if (k < deg) {
            int32_t res;
            if (k < dout) {
                const int32_t a = out0 + k;
                x = d.arc_head[a];
                res = d.arc_rcap[a] + d.flow[a]; /* x -> target against the arc */
            } else {
                const int32_t a = d.in_arc[in0 + (k - dout)];
                x = d.in_tail[in0 + (k - dout)];
                res = d.arc_cap[a] - d.flow[a];
            }
            if (!(res > 0 && x != blocked && x != target &&
                  atomicCAS(&d.height[x], HEIGHT_INF, 1) == HEIGHT_INF))
                x = -1;
        }
        warp_append(d.wl[1], &d.counters[1], x, x >= 0);
    }
}

/* One BFS level backward over residual arcs: x gets level+1 when x -> w
 * has residual capacity and x was unvisited. Groups of G lanes take the
 * frontier vertices first, first + groups, ... */
template <int G, bool COHERENT = false>
__device__ __forceinline__ void bfs_expand_level(const dev_state &d, int level, int32_t blocked, int32_t size,
                                                 int32_t first, int32_t groups)
{
    const int32_t *__restrict__ frontier = d.wl[level & 1];
    int32_t *__restrict__ next = d.wl[(level & 1) ^ 1];
    int32_t *next_count = &d.counters[(level + 1) % 3];
    const int lane = threadIdx.x & (G - 1);
    for (int32_t base = first; base < size; base += groups) {
        const int32_t idx = base + (int32_t)((threadIdx.x & 31) / G);
        int32_t w = -1, out0 = 0, dout = 0, in0 = 0, deg = 0;
        if (idx < size) {
            w = COHERENT ? __ldcg(&frontier[idx]) : frontier[idx];
            out0 = d.out_start[w];
            dout = d.out_start[w + 1] - out0;
            in0 = d.in_start[w];
            deg = dout + (d.in_start[w + 1] - in0);
        }
        /* uniform trip count across the warp so that appends stay converged */
        const int32_t trips = __reduce_max_sync(0xffffffffu, (deg + G - 1) / G);
        for (int32_t t = 0; t < trips; t++) {
            const int32_t k = lane + t * G;
            int32_t x = -1;
            if (k < deg) {
                int32_t res;
                if (k < dout) {
                    int32_t a = out0 + k;
                    x = d.arc_head[a];
                    res = d.arc_rcap[a] + d.flow[a]; /* x -> w against arc w -> x */
                } else {
                    int32_t i = in0 + (k - dout);
                    int32_t a = d.in_arc[i];
                    x = d.in_tail[i];
                    res = d.arc_cap[a] - d.flow[a]; /* x -> w along arc x -> w */
                }
                if (!(res > 0 && x != blocked && d.height[x] == HEIGHT_INF &&
                      atomicCAS(&d.height[x], HEIGHT_INF, level + 1) == HEIGHT_INF))
                    x = -1;
            }
            warp_append(next, next_count, x, x >= 0);
        }
    }
}

/* One BFS level over the whole grid (large frontiers). */
template <int G>
__global__ void __launch_bounds__(256) bfs_level(dev_state d, int level, int32_t blocked)
{
    const int32_t size = d.counters[level % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0)
        d.counters[(level + 2) % 3] = 0;
    bfs_expand_level<G>(d, level, blocked, size, ((blockIdx.x * blockDim.x + threadIdx.x) & ~31) / G,
                        (gridDim.x * blockDim.x) / G);
}

/* Every remaining BFS level in one cooperative launch, levels separated
 * by grid-wide barriers: genrmf-wide 128 needs about 3,000 levels per BFS
 * and one launch per level made its 159 BFSs 2.4 of 3.4 s. The frontier
 * written by other blocks is read through L2 (__ldcg): L1 is not coherent
 * within a kernel. Heights read stale can only look unvisited, and the
 * atomicCAS settles those. counters[6] receives the first level not run. */
template <int G>
__global__ void __launch_bounds__(256) bfs_coop(dev_state d, int level, int32_t blocked)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const int32_t first = ((blockIdx.x * blockDim.x + threadIdx.x) & ~31) / G;
    const int32_t groups = (gridDim.x * blockDim.x) / G;
    for (;;) {
        const int32_t size = __ldcg(&d.counters[level % 3]);
        if (size == 0)
            break;
        if (blockIdx.x == 0 && threadIdx.x == 0)
            d.counters[(level + 2) % 3] = 0; /* read at level - 1, before the last barrier */
        bfs_expand_level<G, true>(d, level, blocked, size, first, groups);
        grid.sync(); /* the level's appends and count are complete */
        level++;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        d.counters[6] = level;
}

/* The remaining BFS in super-levels (mf_gpu_tuning.bfs_hops; by default
 * 16 up to 8 M vertices): each block takes its share of the frontier and
 * expands it on its own for up to `hops` levels, its next vertices in
 * shared memory, levels separated by __syncthreads instead of grid
 * barriers; what is left at the end goes to the next super-level's
 * frontier. Blocks race, so a vertex may first be
 * reached by a longer route: labels only fall (atomicMin), and every fall
 * is expanded again (locally, or from the next frontier), so at the end,
 * when a super-level leaves an empty frontier, every height is the exact
 * residual distance, as after the level-synchronous BFS. The next frontier
 * holds a vertex once per super-level: stamp carries a negative tag per
 * super-level (claim's round tags are positive), counters[12] counts them
 * across calls. counters[6] receives the levels plus super-levels run.
 * Below d.bfs_direct frontier vertices a neighbour is labelled by the
 * atomicMin alone, without reading its height first (make_config says
 * where that pays). */
#define HOPS_QUEUE 2048
template <int G>
__global__ void __launch_bounds__(256) bfs_hops(dev_state d, int level, int32_t blocked, int hops)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    __shared__ int32_t q[2][HOPS_QUEUE];
    __shared__ int32_t qn[2];
    const int lane = threadIdx.x & (G - 1);
    const int group = threadIdx.x / G, ngroups = blockDim.x / G;
    const int32_t tag0 = __ldcg(&d.counters[12]);
    int super = 0;
    for (;;) {
        const int32_t size = __ldcg(&d.counters[level % 3]);
        if (size == 0)
            break;
        const int32_t *frontier = d.wl[level & 1];
        int32_t *next = d.wl[(level & 1) ^ 1];
        int32_t *next_count = &d.counters[(level + 1) % 3];
        const int32_t tag = -2 - (tag0 + super);
        const bool direct = size < d.bfs_direct;
        if (blockIdx.x == 0 && threadIdx.x == 0)
            d.counters[(level + 2) % 3] = 0; /* read at the last super-level, before the barrier */
        const int32_t chunk = (size + gridDim.x - 1) / gridDim.x;
        const int32_t lo = blockIdx.x * chunk, hi = min(size, lo + chunk);
        for (int32_t piece = lo; piece < hi; piece += HOPS_QUEUE) {
            const int32_t count = min(HOPS_QUEUE, hi - piece);
            for (int32_t i = threadIdx.x; i < count; i += blockDim.x)
                q[0][i] = __ldcg(&frontier[piece + i]);
            if (threadIdx.x == 0) {
                qn[0] = count;
                qn[1] = 0;
            }
            __syncthreads();
            int cur = 0;
            for (int h = 0; h < hops; h++) {
                const int32_t len = min(qn[cur], HOPS_QUEUE);
                if (len == 0)
                    break;
                const int nxt = cur ^ 1;
                for (int32_t i = group; i < len; i += ngroups) {
                    const int32_t w = q[cur][i];
                    const int32_t lab = __ldcg(&d.height[w]) + 1;
                    const int32_t out0 = d.out_start[w], dout = d.out_start[w + 1] - out0;
                    const int32_t in0 = d.in_start[w], deg = dout + (d.in_start[w + 1] - in0);
                    for (int32_t k = lane; k < deg; k += G) {
                        int32_t x, res;
                        if (k < dout) {
                            const int32_t a = out0 + k;
                            x = d.arc_head[a];
                            res = d.arc_rcap[a] + d.flow[a]; /* x -> w against arc w -> x */
                        } else {
                            const int32_t j = in0 + (k - dout);
                            const int32_t a = d.in_arc[j];
                            x = d.in_tail[j];
                            res = d.arc_cap[a] - d.flow[a]; /* x -> w along arc x -> w */
                        }
                        if (res > 0 && x != blocked && (direct || __ldcg(&d.height[x]) > lab) &&
                            atomicMin(&d.height[x], lab) > lab) {
                            const int32_t slot = atomicAdd(&qn[nxt], 1);
                            if (slot < HOPS_QUEUE)
                                q[nxt][slot] = x;
                            else if (atomicExch(&d.stamp[x], tag) != tag)
                                next[atomicAdd(next_count, 1)] = x;
                        }
                    }
                }
                __syncthreads(); /* the level's appends are complete */
                if (threadIdx.x == 0)
                    qn[cur] = 0;
                cur = nxt;
                __syncthreads();
            }
            /* what the hops left: to the next frontier */
            const int32_t left = min(qn[cur], HOPS_QUEUE);
            for (int32_t i = threadIdx.x; i < left; i += blockDim.x) {
                const int32_t x = q[cur][i];
                if (atomicExch(&d.stamp[x], tag) != tag)
                    next[atomicAdd(next_count, 1)] = x;
            }
            __syncthreads();
        }
        __threadfence();
        grid.sync(); /* the next frontier and its count are complete */
        level++;
        super++;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        d.counters[6] = level;
        d.counters[12] = tag0 + super + 1;
    }
}

/* BFS levels in one block while the frontier has at most `limit` vertices:
 * a level then costs a __syncthreads, not a kernel launch (genrmf networks
 * have thousands of levels of a few hundred vertices). counters[6]
 * receives the first level not run. */
template <int G>
__global__ void __launch_bounds__(1024) bfs_small(dev_state d, int level, int32_t blocked, int32_t limit)
{
    __shared__ int32_t size_s;
    for (;;) {
        if (threadIdx.x == 0) {
            size_s = *(volatile int32_t *)&d.counters[level % 3];
            d.counters[(level + 2) % 3] = 0;
        }
        __syncthreads();
        const int32_t size = size_s;
        if (size == 0 || size > limit)
            break;
        bfs_expand_level<G>(d, level, blocked, size, (threadIdx.x & ~31) / G, blockDim.x / G);
        __threadfence_block();
        __syncthreads(); /* the level's appends and count are complete */
        level++;
    }
    if (threadIdx.x == 0)
        d.counters[6] = level;
}

/* After a BFS: unreached heights to hmax; active vertices into a fresh
 * worklist tagged for the coming round. */
__global__ void __launch_bounds__(256)
    rebuild_worklist(dev_state d, int parity, int round, int32_t hmax, int32_t s, int32_t t)
{
    int32_t *count = &d.counters[round % 3];
    const int32_t stride = gridDim.x * blockDim.x;
    for (int32_t base = (blockIdx.x * blockDim.x + threadIdx.x) & ~31; base < d.n; base += stride) {
        const int32_t v = base + (threadIdx.x & 31);
        bool active = false;
        if (v < d.n) {
            int32_t h = d.height[v];
            if (h >= hmax) {
                h = hmax;
                d.height[v] = hmax;
            }
            active = v != s && v != t && h < hmax && (long long)d.excess[v] > 0;
            if (active)
                d.stamp[v] = round;
        }
        warp_append(d.wl[parity], count, v, active);
    }
}

/* Net flow into the sink, and the cut side from the final BFS heights. */
__global__ void __launch_bounds__(256) sink_value(dev_state d, int32_t t)
{
    const int32_t out0 = d.out_start[t], dout = d.out_start[t + 1] - out0;
    const int32_t in0 = d.in_start[t], din = d.in_start[t + 1] - in0;
    long long local = 0;
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < dout + din;
         k += gridDim.x * blockDim.x)
        local += k < dout ? -(long long)d.flow[out0 + k] : (long long)d.flow[d.in_arc[in0 + k - dout]];
    if (local)
        atomicAdd(d.value, (unsigned long long)local);
}

__global__ void __launch_bounds__(256) cut_side(dev_state d, int32_t hmax)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < d.n; v += gridDim.x * blockDim.x)
        d.side[v] = d.height[v] >= hmax ? 1 : 0;
}

/* mf_gpu_solve_many: where one part's vertices and arcs sit in the union.
 * The part's source and sink are its last two vertices; its arcs come as
 * inner ones [0, os), the source's [os, ot), the sink's [ot, m). */
struct part_map {
    int32_t inner, vbase, S, T;
    int32_t os, ot, m, abase, sbase, tbase;
    int32_t ibase;
};

__device__ __forceinline__ int32_t map_vertex(const part_map &p, int32_t v)
{
    return v < p.inner ? v + p.vbase : v == p.inner ? p.S : p.T;
}

__device__ __forceinline__ int32_t map_arc(const part_map &p, int32_t a)
{
    return a < p.os ? a + p.abase : a < p.ot ? a - p.os + p.sbase : a - p.ot + p.tbase;
}

/* Renumbers one part's offsets and heads, already copied to their union
 * places. */
__global__ void __launch_bounds__(256) union_fix(dev_state d, part_map p)
{
    const int32_t count = p.m > p.inner ? p.m : p.inner;
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        if (k < p.inner) {
            d.out_start[p.vbase + k] += p.abase;
            d.in_start[p.vbase + k] += p.ibase;
        }
        if (k < p.m) {
            const int32_t a = map_arc(p, k);
            d.arc_head[a] = map_vertex(p, d.arc_head[a]);
        }
    }
}

/* One grid part (mf_grid) on the device: its weights and terminal
 * capacities, and per row the arcs before it (exclusive prefix sums: the
 * pixels' out-arcs, their in-arcs, the source arcs). */
struct grid_part {
    const int32_t *__restrict__ w, *__restrict__ term;
    const int32_t *__restrict__ row_out, *__restrict__ row_in, *__restrict__ row_src;
    const int32_t *__restrict__ kmax; /* seeds marked (MF_GRID_SEED): their K is *kmax + 1; NULL: none */
    int32_t width, height, nd, all_terminals;
};

/* A grid part's weights from its squared colour distances, in place, with
 * graphbuild's arithmetic to the bit: (int)(wscale * sim[c] / dist + 0.5),
 * each operation rounded on its own (no contraction into fused ones). */
__global__ void __launch_bounds__(256) grid_weights(int32_t *__restrict__ w, int64_t pairs, int nd,
                                                    const double *__restrict__ sim, int32_t sim_size, double wscale)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < pairs; i += (int64_t)gridDim.x * blockDim.x) {
        const int32_t c = w[i];
        const int d = (int)(i % nd);
        const double dist = d >= 2 ? 1.41421356237309504880 : 1.0; /* M_SQRT2 for SE, SW */
        w[i] = c < 0 || c >= sim_size ? 0 : __double2int_rz(__dadd_rn(__ddiv_rn(__dmul_rn(wscale, sim[c]), dist), 0.5));
    }
}

/* The largest sum of the weights of one pixel's n-links (its forward
 * ones, stored at it, and the backward ones, stored at its neighbours),
 * as graphbuild's pass_kmax, into *kmax (zeroed before). */
__global__ void __launch_bounds__(256) grid_kmax(const int32_t *__restrict__ w, int32_t W, int32_t H, int nd,
                                                 int32_t *kmax)
{
    const int fdx[4] = {1, 0, 1, -1}, fdy[4] = {0, 1, 1, 1};
    int32_t best = 0;
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < (int64_t)W * H;
         p += (int64_t)gridDim.x * blockDim.x) {
        const int32_t x = (int32_t)(p % W), y = (int32_t)(p / W);
        int32_t sum = 0;
        for (int d = 0; d < nd; d++) {
            sum += w[p * nd + d];
            const int32_t bx = x - fdx[d], by = y - fdy[d];
            if (bx >= 0 && bx < W && by >= 0)
                sum += w[(p - (int64_t)fdy[d] * W - fdx[d]) * nd + d];
        }
        best = sum > best ? sum : best;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const int32_t o = __shfl_down_sync(0xffffffffu, best, off);
        best = o > best ? o : best;
    }
    if ((threadIdx.x & 31) == 0 && best > 0)
        atomicMax(kmax, best);
}

/* Exclusive scan of v over a 256-thread block, carry added; *total gets
 * the block's sum. All threads call it. */
__device__ __forceinline__ long long block_exclusive_scan(long long v, long long carry, long long *total,
                                                          long long *warp_sums)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long inc = v;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const long long y = __shfl_up_sync(0xffffffffu, inc, off);
        if (lane >= off)
            inc += y;
    }
    if (lane == 31)
        warp_sums[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        long long ws = lane < 8 ? warp_sums[lane] : 0;
#pragma unroll
        for (int off = 1; off < 8; off <<= 1) {
            const long long y = __shfl_up_sync(0xffffffffu, ws, off);
            if (lane >= off)
                ws += y;
        }
        if (lane < 8)
            warp_sums[lane] = ws;
    }
    __syncthreads();
    const long long ex = inc - v + (warp > 0 ? warp_sums[warp - 1] : 0) + carry;
    *total = warp_sums[7];
    __syncthreads(); /* warp_sums is reused by the next call */
    return ex;
}

/* Expands one grid part into its place in the union, as graphbuild lays
 * its CSR out (gb_grid_to_graph): a block per row scans the pixels' arc
 * counts along the row; heads come out in union numbering, so the part
 * needs no union_fix. */
__global__ void __launch_bounds__(256) grid_expand(dev_state d, part_map p, grid_part g)
{
    __shared__ long long warp_sums[8];
    const int fdx[4] = {1, 0, 1, -1}, fdy[4] = {0, 1, 1, 1}; /* E, S, SE, SW: graphbuild's order */
    const int32_t W = g.width, H = g.height;
    for (int32_t y = blockIdx.x; y < H; y += gridDim.x) {
        long long carry_arcs = 0, carry_src = 0; /* packed: out-arcs, in-arcs << 32 */
        for (int32_t x0 = 0; x0 < W; x0 += 256) {
            const int32_t x = x0 + (int32_t)threadIdx.x;
            const bool live = x < W;
            const int64_t pi = (int64_t)y * W + x;
            int nout = 0, nin = 0, t = 0;
            bool snk = false, src = false;
            if (live) {
                for (int k = 0; k < g.nd; k++) {
                    const int32_t fx = x + fdx[k], fy = y + fdy[k], bx = x - fdx[k], by = y - fdy[k];
                    nout += fx >= 0 && fx < W && fy < H;
                    nin += bx >= 0 && bx < W && by >= 0;
                }
                t = g.term[pi];
                if (g.kmax && (t == MF_GRID_SEED || t == -MF_GRID_SEED))
                    t = t > 0 ? *g.kmax + 1 : -(*g.kmax + 1);
                snk = g.all_terminals || t < 0;
                src = g.all_terminals || t > 0;
                nout += snk;
                nin += src;
            }
            long long total_arcs, total_src;
            const long long ex_arcs = block_exclusive_scan((long long)nout | ((long long)nin << 32), carry_arcs,
                                                           &total_arcs, warp_sums);
            const long long ex_src = block_exclusive_scan(src ? 1 : 0, carry_src, &total_src, warp_sums);
            carry_arcs += total_arcs;
            carry_src += total_src;
            if (!live)
                continue;
            const int32_t v = p.vbase + (int32_t)pi;
            int32_t a = p.abase + g.row_out[y] + (int32_t)(ex_arcs & 0xffffffffll);
            d.out_start[v] = a;
            d.in_start[v] = p.ibase + g.row_in[y] + (int32_t)(ex_arcs >> 32);
            for (int k = 0; k < g.nd; k++) {
                const int32_t fx = x + fdx[k], fy = y + fdy[k];
                if (fx >= 0 && fx < W && fy < H) {
                    const int32_t c = g.w[pi * g.nd + k];
                    d.arc_head[a] = v + fdy[k] * W + fdx[k];
                    d.arc_cap[a] = c;
                    d.arc_rcap[a] = c;
                    a++;
                }
            }
            if (snk) {
                d.arc_head[a] = p.T;
                d.arc_cap[a] = t < 0 ? -t : 0;
                d.arc_rcap[a] = 0;
            }
            if (src) {
                const int32_t sa = p.sbase + g.row_src[y] + (int32_t)ex_src;
                d.arc_head[sa] = v;
                d.arc_cap[sa] = t > 0 ? t : 0;
                d.arc_rcap[sa] = 0;
            }
        }
    }
}

/* The union's in-lists from its out-arcs and in_start, instead of
 * uploading them (two of the five arrays of an arc): a thread per inner
 * vertex, one per terminal arc (a terminal has millions). d.stamp, zeroed,
 * counts each vertex's filled entries; the order within a list is the
 * atomics' (the cut is canonical whatever the order). */
__global__ void __launch_bounds__(256) union_in_lists(dev_state d, int32_t inner, int32_t S, int32_t T)
{
    const int32_t a0 = d.out_start[S], tstart = d.out_start[T];
    const int32_t count = inner + (d.m - a0);
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        int32_t lo, hi, u;
        if (k < inner) {
            u = k;
            lo = d.out_start[u];
            hi = d.out_start[u + 1];
        } else {
            lo = a0 + (k - inner);
            hi = lo + 1;
            u = lo < tstart ? S : T;
        }
        for (int32_t a = lo; a < hi; a++) {
            const int32_t h = d.arc_head[a];
            const int32_t i = d.in_start[h] + atomicAdd(&d.stamp[h], 1);
            d.in_arc[i] = a;
            d.in_tail[i] = u;
        }
    }
}

/* Each part's net flow into the sink: block b scans part b's inner and
 * source arcs for those into the sink and subtracts the sink's own. */
__global__ void __launch_bounds__(256)
    part_values(dev_state d, const part_map *__restrict__ maps, unsigned long long *__restrict__ values)
{
    const part_map p = maps[blockIdx.x];
    const int32_t lo[2] = {p.abase, p.sbase}, hi[2] = {p.abase + p.os, p.sbase + p.ot - p.os};
    long long local = 0;
    for (int j = 0; j < 2; j++)
        for (int32_t a = lo[j] + threadIdx.x; a < hi[j]; a += blockDim.x)
            if (d.arc_head[a] == p.T)
                local += d.flow[a];
    for (int32_t a = p.tbase + threadIdx.x; a < p.tbase + p.m - p.ot; a += blockDim.x)
        local -= d.flow[a];
    if (local)
        atomicAdd(&values[blockIdx.x], (unsigned long long)local);
}

/* Warm re-solve: applies capacity changes (arc, tail, head, cap, rcap),
 * clamping each flow into its new bounds; what no longer fits stays as
 * excess at one end and deficit at the other. One entry per arc. */
__global__ void __launch_bounds__(256) apply_changes(dev_state d, int32_t *__restrict__ chg, int32_t count)
{
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
        const int32_t a = chg[5 * k], v = chg[5 * k + 2];
        int32_t u = chg[5 * k + 1];
        if (u < 0) { /* the tail by binary search on out_start: on the host, a cache miss per step */
            int32_t lo = 0, hi = d.n - 1;
            while (lo < hi) {
                const int32_t mid = lo + (hi - lo + 1) / 2;
                if (d.out_start[mid] <= a)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            u = lo;
            chg[5 * k + 1] = u; /* for find_deficits */
        }
        const int32_t cap = chg[5 * k + 3], rcap = chg[5 * k + 4];
        const int32_t f = d.flow[a];
        const int32_t f2 = f > cap ? cap : f < -rcap ? -rcap : f;
        d.arc_cap[a] = cap;
        d.arc_rcap[a] = rcap;
        if (f2 != f) {
            atomicAdd(d.value, (unsigned long long)(f > f2 ? (long long)f - f2 : (long long)f2 - f));
            d.flow[a] = f2;
            atomicAdd(&d.excess[u], (unsigned long long)(long long)(f - f2));
            atomicAdd(&d.excess[v], (unsigned long long)(-(long long)(f - f2)));
        }
    }
}

/* Flags (counters[7] = 1) a changed arc's end, not a terminal, left with a
 * deficit. */
__global__ void __launch_bounds__(256) find_deficits(dev_state d, const int32_t *__restrict__ chg, int32_t count,
                                                     int32_t s, int32_t t)
{
    for (int32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < 2 * count; k += gridDim.x * blockDim.x) {
        const int32_t v = chg[5 * (k >> 1) + 1 + (k & 1)];
        if (v != s && v != t && (long long)d.excess[v] < 0)
            d.counters[7] = 1;
    }
}

/* Flags (counters[7] = 1) any vertex but the terminals with a deficit. */
__global__ void __launch_bounds__(256) any_deficit(dev_state d, int32_t s, int32_t t)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < d.n; v += gridDim.x * blockDim.x)
        if (v != s && v != t && (long long)d.excess[v] < 0)
            d.counters[7] = 1;
}

/* With cap and rcap swapped by the host, negated flows and excesses make
 * the residual graph reversed: deficits become excesses. */
__global__ void __launch_bounds__(256) negate_state(dev_state d)
{
    const int32_t stride = gridDim.x * blockDim.x;
    for (int32_t a = blockIdx.x * blockDim.x + threadIdx.x; a < d.m; a += stride)
        d.flow[a] = -d.flow[a];
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < d.n; v += stride)
        d.excess[v] = (unsigned long long)(-(long long)d.excess[v]);
}

/* Multi-target BFS start (deficit phase): the second terminal and every
 * vertex with negative excess absorb, at height 0. */
__global__ void __launch_bounds__(256) bfs_seed_absorbers(dev_state d, int32_t target, int32_t other)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < d.n; v += gridDim.x * blockDim.x)
        if (v == other || (v != target && (long long)d.excess[v] < 0))
            d.height[v] = 0;
}

/* BFS level 1 from the absorbers (a thread each: they are few). */
__global__ void __launch_bounds__(256) bfs_expand_absorbers(dev_state d, int32_t target, int32_t other)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < d.n; v += gridDim.x * blockDim.x) {
        if (v == target || v == other || (long long)d.excess[v] >= 0)
            continue;
        const int32_t out0 = d.out_start[v], dout = d.out_start[v + 1] - out0;
        const int32_t in0 = d.in_start[v], deg = dout + (d.in_start[v + 1] - in0);
        for (int32_t k = 0; k < deg; k++) {
            int32_t x, res;
            if (k < dout) {
                const int32_t a = out0 + k;
                x = d.arc_head[a];
                res = d.arc_rcap[a] + d.flow[a];
            } else {
                const int32_t a = d.in_arc[in0 + (k - dout)];
                x = d.in_tail[in0 + (k - dout)];
                res = d.arc_cap[a] - d.flow[a];
            }
            if (res > 0 && d.height[x] == HEIGHT_INF && atomicCAS(&d.height[x], HEIGHT_INF, 1) == HEIGHT_INF)
                d.wl[1][atomicAdd(&d.counters[1], 1)] = x;
        }
    }
}

/* --------------------------------------------------------------------- */
/* Host side                                                             */

#define CUDA_TRY(call)                                                                      \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            rc = mf_fail(err, e_ == cudaErrorMemoryAllocation ? MF_ERR_DEVICE_MEMORY         \
                                                               : MF_ERR_DEVICE,             \
                         NULL, 0, "CUDA: %s (%s:%d)", cudaGetErrorString(e_), __FILE__,     \
                         __LINE__);                                                         \
            goto fail;                                                                      \
        }                                                                                   \
    } while (0)

extern "C" int mf_gpu_compiled(void) { return 1; }

extern "C" int mf_gpu_available(int *device_count)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        if (device_count)
            *device_count = 0;
        return MF_ERR_NO_DEVICE;
    }
    if (device_count)
        *device_count = count;
    return MF_OK;
}

static void free_buffers(dev_state *d)
{
    cudaFree(d->out_start);
    cudaFree(d->arc_head);
    cudaFree(d->arc_cap);
    cudaFree(d->arc_rcap);
    cudaFree(d->in_start);
    cudaFree(d->in_arc);
    cudaFree(d->in_tail);
    cudaFree(d->flow);
    cudaFree(d->excess);
    cudaFree(d->height);
    cudaFree(d->stamp);
    cudaFree(d->wl[0]);
    cudaFree(d->wl[1]);
    cudaFree(d->counters);
    cudaFree(d->hubs[0]);
    cudaFree(d->hubs[1]);
    cudaFree(d->value);
    cudaFree(d->side);
    memset(d, 0, sizeof *d);
}

extern "C" size_t mf_gpu_memory_needed(const mf_graph *g)
{
    size_t n = (size_t)g->num_vertices + 1, m = (size_t)g->num_arcs + 1;
    /* per arc: head, cap, rcap, in_arc, in_tail, flow; per vertex: two
     * offsets, excess, height, stamp, two worklists, two hub lists, side */
    return m * 6 * sizeof(int32_t) + n * (2 * 4 + 8 + 4 + 4 + 2 * 4 + 2 * 4 + 1) + (1u << 20);
}

extern "C" int mf_gpu_solver_create(int device, mf_gpu_solver **out, mf_error *err)
{
    int rc = MF_OK, count = 0;
    mf_gpu_solver *s = NULL;
    cudaDeviceProp prop;
    *out = NULL;
    if (mf_gpu_available(&count) != MF_OK)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "no CUDA device is available");
    if (device < 0 || device >= count)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "CUDA device %d does not exist (%d found)",
                       device, count);
    s = (mf_gpu_solver *)calloc(1, sizeof *s);
    if (!s)
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    s->device = device;
    CUDA_TRY(cudaSetDevice(device));
    CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    s->sm_count = prop.multiProcessorCount;
    snprintf(s->name, sizeof s->name, "%s", prop.name);
    CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    CUDA_TRY(cudaMallocHost((void **)&s->host_counter, 16 * sizeof(int32_t)));
    *out = s;
    return MF_OK;
fail:
    mf_gpu_solver_destroy(s);
    return rc;
}

extern "C" int mf_gpu_set_wait(int device, mf_gpu_wait mode, mf_error *err)
{
    static const unsigned flags[] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin, cudaDeviceScheduleYield,
                                     cudaDeviceScheduleBlockingSync};
    int rc = MF_OK, count = 0;
    if ((int)mode < 0 || (int)mode > 3)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "unknown GPU wait mode %d", (int)mode);
    if (mf_gpu_available(&count) != MF_OK)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "no CUDA device is available");
    if (device < 0 || device >= count)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "CUDA device %d does not exist (%d found)", device, count);
    CUDA_TRY(cudaSetDevice(device));
    CUDA_TRY(cudaSetDeviceFlags(flags[mode]));
    return MF_OK;
fail:
    return rc;
}

extern "C" void mf_gpu_solver_destroy(mf_gpu_solver *s)
{
    if (!s)
        return;
    cudaSetDevice(s->device);
    free_buffers(&s->d);
    cudaFree(s->changes);
    cudaFree(s->part_maps);
    cudaFree(s->part_values);
    cudaFree(s->grid_buf);
    cudaFree(s->sim_buf);
    cudaFree(s->grid_k);
    if (s->host_counter)
        cudaFreeHost(s->host_counter);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

extern "C" int mf_gpu_memory_free(mf_gpu_solver *s, size_t *free_bytes)
{
    size_t total = 0;
    *free_bytes = 0;
    if (cudaSetDevice(s->device) != cudaSuccess || cudaMemGetInfo(free_bytes, &total) != cudaSuccess)
        return MF_ERR_DEVICE;
    return MF_OK;
}

/* Grows the device buffers to hold g; keeps them when they are big enough. */
static int ensure_capacity(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
{
    int rc = MF_OK;
    int32_t n = g->num_vertices, m = g->num_arcs;
    dev_state *d = &s->d;
    if (n <= s->n_cap && m <= s->m_cap && d->flow)
        return MF_OK;
    size_t free_bytes = 0, total = 0;
    free_buffers(d);
    s->n_cap = s->m_cap = 0;
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
    if (mf_gpu_memory_needed(g) > free_bytes)
        return mf_fail(err, MF_ERR_DEVICE_MEMORY, NULL, 0,
                       "the graph needs %.1f GiB of device memory, %.1f GiB are free",
                       mf_gpu_memory_needed(g) / 1073741824.0, free_bytes / 1073741824.0);
    {
        size_t nn = (size_t)n + 1, mm = (size_t)m + 1;
        CUDA_TRY(cudaMalloc(&d->out_start, nn * 4));
        CUDA_TRY(cudaMalloc(&d->in_start, nn * 4));
        CUDA_TRY(cudaMalloc(&d->arc_head, mm * 4));
        CUDA_TRY(cudaMalloc(&d->arc_cap, mm * 4));
        CUDA_TRY(cudaMalloc(&d->arc_rcap, mm * 4));
        CUDA_TRY(cudaMalloc(&d->in_arc, mm * 4));
        CUDA_TRY(cudaMalloc(&d->in_tail, mm * 4));
        CUDA_TRY(cudaMalloc(&d->flow, mm * 4));
        CUDA_TRY(cudaMalloc(&d->excess, nn * 8));
        CUDA_TRY(cudaMalloc(&d->height, nn * 4));
        CUDA_TRY(cudaMalloc(&d->stamp, nn * 4));
        CUDA_TRY(cudaMalloc(&d->wl[0], nn * 4));
        CUDA_TRY(cudaMalloc(&d->wl[1], nn * 4));
        CUDA_TRY(cudaMalloc(&d->counters, 16 * 4));
        CUDA_TRY(cudaMalloc(&d->hubs[0], nn * 4));
        CUDA_TRY(cudaMalloc(&d->hubs[1], nn * 4));
        CUDA_TRY(cudaMalloc(&d->value, 8));
        CUDA_TRY(cudaMalloc(&d->side, nn));
    }
    s->n_cap = n;
    s->m_cap = m;
    return MF_OK;
fail:
    free_buffers(d);
    return rc;
}


struct engine_cfg {
    int group;
    int blocks;
    int batch;  /* rounds queued between host checks */
    int cycles; /* push/relabel steps per vertex visit */
    double work_limit; /* vertex visits between global relabels */
    int32_t small_bfs; /* frontiers up to this size run in one block */
    int hub_blocks;    /* hub_round's grid, when the graph has hubs */
    int coop_blocks;   /* bfs_coop's grid (0: one launch per level instead) */
    int hops;          /* bfs_hops' levels per super-level (0: bfs_coop instead) */
    int hops_blocks;   /* bfs_hops' grid */
    int32_t small_push; /* worklists up to this size run their rounds in one block (push_small) */
};

static void launch_round(const engine_cfg &cfg, dim3 grid, cudaStream_t st, const dev_state &d, int parity,
                         int round, int32_t hmax, int32_t target, int32_t blocked)
{
    const int c = cfg.cycles;
    switch (cfg.group) {
    case 1: push_relabel_round<1><<<grid, 256, 0, st>>>(d, parity, round, hmax, target, blocked, c); break;
    case 4: push_relabel_round<4><<<grid, 256, 0, st>>>(d, parity, round, hmax, target, blocked, c); break;
    case 8: push_relabel_round<8><<<grid, 256, 0, st>>>(d, parity, round, hmax, target, blocked, c); break;
    case 16: push_relabel_round<16><<<grid, 256, 0, st>>>(d, parity, round, hmax, target, blocked, c); break;
    default: push_relabel_round<32><<<grid, 256, 0, st>>>(d, parity, round, hmax, target, blocked, c); break;
    }
    if (d.hub_deg > 0)
        hub_round<<<cfg.hub_blocks, 1024, 0, st>>>(d, round, hmax, target, blocked);
}

static void launch_push_small(const engine_cfg &cfg, cudaStream_t st, const dev_state &d, int round, int32_t hmax,
                              int32_t target, int32_t blocked, int32_t max_rounds, unsigned long long work_limit)
{
    const int c = cfg.cycles;
    const int32_t lim = cfg.small_push;
    switch (cfg.group) {
    case 1: push_small<1><<<1, 1024, 0, st>>>(d, round, hmax, target, blocked, c, lim, max_rounds, work_limit); break;
    case 4: push_small<4><<<1, 1024, 0, st>>>(d, round, hmax, target, blocked, c, lim, max_rounds, work_limit); break;
    case 8: push_small<8><<<1, 1024, 0, st>>>(d, round, hmax, target, blocked, c, lim, max_rounds, work_limit); break;
    case 16: push_small<16><<<1, 1024, 0, st>>>(d, round, hmax, target, blocked, c, lim, max_rounds, work_limit); break;
    default: push_small<32><<<1, 1024, 0, st>>>(d, round, hmax, target, blocked, c, lim, max_rounds, work_limit); break;
    }
}

static void launch_level(int group, dim3 grid, cudaStream_t st, const dev_state &d, int level, int32_t blocked)
{
    switch (group) {
    case 1: bfs_level<1><<<grid, 256, 0, st>>>(d, level, blocked); break;
    case 4: bfs_level<4><<<grid, 256, 0, st>>>(d, level, blocked); break;
    case 8: bfs_level<8><<<grid, 256, 0, st>>>(d, level, blocked); break;
    case 16: bfs_level<16><<<grid, 256, 0, st>>>(d, level, blocked); break;
    default: bfs_level<32><<<grid, 256, 0, st>>>(d, level, blocked); break;
    }
}

static void launch_small(int group, cudaStream_t st, const dev_state &d, int level, int32_t blocked, int32_t limit)
{
    switch (group) {
    case 1: bfs_small<1><<<1, 1024, 0, st>>>(d, level, blocked, limit); break;
    case 4: bfs_small<4><<<1, 1024, 0, st>>>(d, level, blocked, limit); break;
    case 8: bfs_small<8><<<1, 1024, 0, st>>>(d, level, blocked, limit); break;
    case 16: bfs_small<16><<<1, 1024, 0, st>>>(d, level, blocked, limit); break;
    default: bfs_small<32><<<1, 1024, 0, st>>>(d, level, blocked, limit); break;
    }
}

/* bfs_coop for a lane-group size. */
static const void *coop_kernel(int group)
{
    return group == 1    ? (const void *)bfs_coop<1>
           : group == 4  ? (const void *)bfs_coop<4>
           : group == 8  ? (const void *)bfs_coop<8>
           : group == 16 ? (const void *)bfs_coop<16>
                         : (const void *)bfs_coop<32>;
}

/* bfs_hops for a lane-group size. */
static const void *hops_kernel(int group)
{
    return group == 1    ? (const void *)bfs_hops<1>
           : group == 4  ? (const void *)bfs_hops<4>
           : group == 8  ? (const void *)bfs_hops<8>
           : group == 16 ? (const void *)bfs_hops<16>
                         : (const void *)bfs_hops<32>;
}

/* The remaining BFS in super-levels of up to `hops` levels. */
static cudaError_t launch_hops(int group, int blocks, cudaStream_t st, dev_state d, int level, int32_t blocked,
                               int hops)
{
    void *args[] = {&d, &level, &blocked, &hops};
    return cudaLaunchCooperativeKernel(hops_kernel(group), dim3(blocks), dim3(256), args, 0, st);
}

/* The remaining BFS levels in one cooperative launch. */
static cudaError_t launch_coop(int group, int blocks, cudaStream_t st, dev_state d, int level, int32_t blocked)
{
    void *args[] = {&d, &level, &blocked};
    const void *fn = coop_kernel(group);
    return cudaLaunchCooperativeKernel(fn, dim3(blocks), dim3(256), args, 0, st);
}

/* The grid of the cooperative kernel fn (bfs_coop, bfs_hops) on this
 * device: co-resident blocks only (bfs_hops' queues take shared memory),
 * at most `blocks`; 0 when the device cannot launch it cooperatively. */
static int coop_grid(int device, const void *fn, int blocks)
{
    int coop = 0, sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess || !coop ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
        return 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 256, 0) != cudaSuccess || per_sm < 1)
        return 0;
    return sms * per_sm < blocks ? sms * per_sm : blocks;
}

/* Queues work on the stream, then reads the 8 counters back. */
static int read_counters(mf_gpu_solver *s, mf_error *err)
{
    int rc = MF_OK;
    CUDA_TRY(cudaMemcpyAsync(s->host_counter, s->d.counters, 12 * sizeof(int32_t), cudaMemcpyDeviceToHost,
                             s->stream));
    CUDA_TRY(cudaStreamSynchronize(s->stream));
    return MF_OK;
fail:
    return rc;
}

/* BFS from target over residual arcs. Small frontiers run level after
 * level in one block; large ones one level per launch, in batches, with
 * the host reading the frontier size once a batch. */
static int global_relabel(mf_gpu_solver *s, const engine_cfg &cfg, int32_t target, int32_t blocked,
                          int multi, mf_stats *st, mf_error *err)
{
    int rc = MF_OK;
    const double t0 = mf_now();
    dev_state &d = s->d;
    dim3 grid(cfg.blocks);
    bfs_init<<<grid, 256, 0, s->stream>>>(d, target);
    if (multi)
        bfs_seed_absorbers<<<grid, 256, 0, s->stream>>>(d, target, blocked);
    bfs_expand_target<<<grid, 256, 0, s->stream>>>(d, target, blocked);
    if (multi) {
        bfs_expand_target<<<grid, 256, 0, s->stream>>>(d, blocked, target);
        bfs_expand_absorbers<<<grid, 256, 0, s->stream>>>(d, target, blocked);
    }
    int level = 1; /* level l reads wl[l & 1] of size counters[l % 3] */
    for (;;) {
        if (cfg.small_bfs > 0) {
            launch_small(cfg.group, s->stream, d, level, blocked, cfg.small_bfs);
            rc = read_counters(s, err);
            if (rc)
                return rc;
            level = s->host_counter[6];
            if (s->host_counter[level % 3] == 0)
                break;
        }
        if (cfg.hops > 0 && cfg.hops_blocks > 0) {
            CUDA_TRY(launch_hops(cfg.group, cfg.hops_blocks, s->stream, d, level, blocked, cfg.hops));
            rc = read_counters(s, err);
            if (rc)
                return rc;
            level = s->host_counter[6];
            break; /* it ran until the frontier was empty */
        }
        if (cfg.coop_blocks > 0) {
            CUDA_TRY(launch_coop(cfg.group, cfg.coop_blocks, s->stream, d, level, blocked));
            rc = read_counters(s, err);
            if (rc)
                return rc;
            level = s->host_counter[6];
            break; /* it ran until the frontier was empty */
        }
        for (int b = 0; b < cfg.batch; b++, level++)
            launch_level(cfg.group, grid, s->stream, d, level, blocked);
        rc = read_counters(s, err);
        if (rc)
            return rc;
        if (s->host_counter[level % 3] == 0)
            break;
    }
    CUDA_TRY(cudaGetLastError());
    st->bfs_levels += level;
    st->relabel_seconds += mf_now() - t0;
    return MF_OK;
fail:
    return rc;
}

/* Runs push-relabel rounds toward target. A phase ends only when a fresh
 * BFS finds no active vertex that can reach the target, so the result does
 * not rest on labels that lock-free rounds may leave stale. On return the
 * heights are exact BFS distances (hmax where unreachable). */
static int run_phase(mf_gpu_solver *s, const engine_cfg &cfg, int32_t target, int32_t blocked,
                     int multi, int32_t hmax, int32_t relabel_interval, int *round_io, mf_stats *st,
                     mf_error *err)
{
    int rc = MF_OK;
    dev_state &d = s->d;
    dim3 grid(cfg.blocks);
    int round = *round_io;
    for (;;) {
        rc = global_relabel(s, cfg, target, blocked, multi, st, err);
        if (rc)
            return rc;
        st->global_relabels++;
        CUDA_TRY(cudaMemsetAsync(d.counters, 0, 6 * sizeof(int32_t), s->stream));
        CUDA_TRY(cudaMemsetAsync(d.counters + 8, 0, 2 * sizeof(int32_t), s->stream));
        rebuild_worklist<<<grid, 256, 0, s->stream>>>(d, round & 1, round, hmax, blocked, target);
        rc = read_counters(s, err);
        if (rc)
            return rc;
        if (s->host_counter[round % 3] == 0)
            break;
        int since = 0;
        unsigned long long visits = 0;
        while (since < relabel_interval) {
            int32_t ran = 0;
            if (d.hub_deg == 0 && s->host_counter[round % 3] <= cfg.small_push) {
                launch_push_small(cfg, s->stream, d, round, hmax, target, blocked, relabel_interval - since,
                                  cfg.work_limit > 0 ? (unsigned long long)cfg.work_limit : ~0ull);
                rc = read_counters(s, err);
                if (rc)
                    return rc;
                ran = s->host_counter[10];
                round += ran;
                since += ran;
            }
            if (!ran) { /* a larger worklist (or, defensively, none ran): whole-grid rounds */
                for (int b = 0; b < cfg.batch; b++, round++, since++)
                    launch_round(cfg, grid, s->stream, d, round & 1, round, hmax, target, blocked);
                rc = read_counters(s, err);
                if (rc)
                    return rc;
            }
            memcpy(&visits, s->host_counter + 4, 8);
            if (s->host_counter[round % 3] == 0)
                break;
            /* labels go stale as excess gets trapped: relabel after about
             * work_limit visits (hi_pr's work-based trigger), not only after
             * a fixed number of rounds */
            if (cfg.work_limit > 0 && (double)visits >= cfg.work_limit)
                break;
        }
        st->visits += (int64_t)visits;
        CUDA_TRY(cudaGetLastError());
    }
    st->rounds += round - *round_io;
    *round_io = round;
    return MF_OK;
fail:
    return rc;
}

/* Uploads g and zeroes the flow state (cold start). */
extern "C" int mf_gpu_dyn_load(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
{
    int rc = MF_OK;
    if (!s)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "no GPU solver");
    const int32_t n = g->num_vertices, m = g->num_arcs;
    CUDA_TRY(cudaSetDevice(s->device));
    rc = ensure_capacity(s, g, err);
    if (rc)
        return rc;
    {
        dev_state &d = s->d;
        d.n = n;
        d.m = m;
        cudaStream_t st = s->stream;
        CUDA_TRY(cudaMemcpyAsync(d.out_start, g->out_start, ((size_t)n + 1) * 4, cudaMemcpyHostToDevice, st));
        CUDA_TRY(cudaMemcpyAsync(d.in_start, g->in_start, ((size_t)n + 1) * 4, cudaMemcpyHostToDevice, st));
        if (m) {
            CUDA_TRY(cudaMemcpyAsync(d.arc_head, g->arc_head, (size_t)m * 4, cudaMemcpyHostToDevice, st));
            CUDA_TRY(cudaMemcpyAsync(d.arc_cap, g->arc_cap, (size_t)m * 4, cudaMemcpyHostToDevice, st));
            CUDA_TRY(cudaMemcpyAsync(d.arc_rcap, g->arc_rcap, (size_t)m * 4, cudaMemcpyHostToDevice, st));
            CUDA_TRY(cudaMemcpyAsync(d.in_arc, g->in_arc, (size_t)m * 4, cudaMemcpyHostToDevice, st));
            CUDA_TRY(cudaMemcpyAsync(d.in_tail, g->in_tail, (size_t)m * 4, cudaMemcpyHostToDevice, st));
        }
        CUDA_TRY(cudaMemsetAsync(d.flow, 0, ((size_t)m + 1) * 4, st));
        CUDA_TRY(cudaMemsetAsync(d.excess, 0, ((size_t)n + 1) * 8, st));
        CUDA_TRY(cudaStreamSynchronize(st));
    }
    return MF_OK;
fail:
    return rc;
}

/* Applies a batch of changes on the device; *deficits = 1 when an end of
 * a changed arc was left with negative excess. */
extern "C" int mf_gpu_dyn_update(mf_gpu_solver *s, const mf_graph *g, int32_t count, const int32_t *changes,
                                 int *deficits, int64_t *removed, mf_error *err)
{
    int rc = MF_OK;
    *deficits = 0;
    *removed = 0;
    if (count <= 0)
        return MF_OK;
    CUDA_TRY(cudaSetDevice(s->device));
    if (count > s->changes_cap) {
        cudaFree(s->changes);
        s->changes = NULL;
        s->changes_cap = 0;
        CUDA_TRY(cudaMalloc(&s->changes, (size_t)count * 5 * sizeof(int32_t)));
        s->changes_cap = count;
    }
    {
        cudaStream_t st = s->stream;
        const int blocks = (int)((count + 255) / 256 < s->sm_count * 8 ? (count + 255) / 256 : s->sm_count * 8);
        CUDA_TRY(cudaMemcpyAsync(s->changes, changes, (size_t)count * 5 * sizeof(int32_t), cudaMemcpyHostToDevice,
                                 st));
        unsigned long long moved = 0;
        CUDA_TRY(cudaMemsetAsync(s->d.counters + 7, 0, 4, st));
        CUDA_TRY(cudaMemsetAsync(s->d.value, 0, 8, st));
        apply_changes<<<blocks, 256, 0, st>>>(s->d, s->changes, count);
        find_deficits<<<blocks, 256, 0, st>>>(s->d, s->changes, count, g->source, g->sink);
        CUDA_TRY(cudaMemcpyAsync(s->host_counter + 7, s->d.counters + 7, 4, cudaMemcpyDeviceToHost, st));
        CUDA_TRY(cudaMemcpyAsync(&moved, s->d.value, 8, cudaMemcpyDeviceToHost, st));
        CUDA_TRY(cudaStreamSynchronize(st));
        CUDA_TRY(cudaGetLastError());
        *deficits = s->host_counter[7] != 0;
        *removed = (int64_t)moved;
    }
    return MF_OK;
fail:
    return rc;
}

/* Zero flow on the device's current capacities: a cold start without
 * another upload. */
extern "C" int mf_gpu_dyn_reset(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
{
    int rc = MF_OK;
    CUDA_TRY(cudaSetDevice(s->device));
    CUDA_TRY(cudaMemsetAsync(s->d.flow, 0, ((size_t)g->num_arcs + 1) * 4, s->stream));
    CUDA_TRY(cudaMemsetAsync(s->d.excess, 0, ((size_t)g->num_vertices + 1) * 8, s->stream));
    return MF_OK;
fail:
    return rc;
}

/* Swaps cap and rcap and negates the state: the residual graph reversed. */
static int reverse_state(mf_gpu_solver *s, mf_error *err)
{
    int rc = MF_OK;
    int32_t *x = s->d.arc_cap;
    s->d.arc_cap = s->d.arc_rcap;
    s->d.arc_rcap = x;
    negate_state<<<s->sm_count * 8, 256, 0, s->stream>>>(s->d);
    CUDA_TRY(cudaGetLastError());
    return MF_OK;
fail:
    return rc;
}

/* What the launch configuration reads from a host graph: the largest
 * degree of a vertex other than the terminals, which are never active and
 * so never hubs (a photo's terminals have a million arcs, its pixels 10:
 * counting them launched an idle hub_round every round, 3-8% of a photo's
 * solve), and a sample of its arcs. */
struct graph_facts {
    int32_t max_deg;
    int64_t sampled, two_way;
};

static void add_facts(const mf_graph *g, graph_facts *f)
{
    for (int32_t v = 0; v < g->num_vertices; v++) {
        int32_t deg = g->out_start[v + 1] - g->out_start[v] + g->in_start[v + 1] - g->in_start[v];
        if (v != g->source && v != g->sink)
            f->max_deg = deg > f->max_deg ? deg : f->max_deg;
    }
    for (int32_t a = 0; a < g->num_arcs; a += 64) {
        f->sampled++;
        f->two_way += g->arc_rcap[a] > 0;
    }
}

/* The launch configuration of a solve of n vertices and m arcs, from the
 * tuning in force (mf_gpu_tuning, whose defaults say why each value);
 * sets the device state's hub degree. */
static void make_config(mf_gpu_solver *s, int32_t n, int32_t m, const graph_facts &f, engine_cfg *cfg_out,
                        int32_t *interval_out)
{
    const mf_gpu_tuning *tune = mf_gpu_tuning_get();
    engine_cfg cfg;
    dev_state &d = s->d;
    double avg_degree = 2.0 * m / (double)n;
    cfg.group = tune->group ? tune->group : avg_degree <= 3 ? 4 : avg_degree <= 12 ? 8 : avg_degree <= 24 ? 16 : 32;
    if (cfg.group != 1 && cfg.group != 4 && cfg.group != 8 && cfg.group != 16)
        cfg.group = 32;
    cfg.blocks = s->sm_count * tune->blocks_per_sm;
    cfg.batch = tune->batch;
    cfg.cycles = tune->cycles;
    cfg.small_bfs = tune->small_bfs * (1024 / cfg.group);
    cfg.small_push = tune->small_push * (1024 / cfg.group);
    /* hubs: vertices whose scan would take a group more than 32 steps;
     * none on grids, which then launch nothing more */
    {
        int32_t hub_deg = tune->hub_degree < 0 ? 32 * cfg.group : tune->hub_degree;
        d.hub_deg = hub_deg > 0 && f.max_deg > hub_deg ? hub_deg : 0;
        cfg.hub_blocks = s->sm_count * 2;
    }
    /* the BFS in super-levels of 16 levels (bfs_hops) up to 8 M vertices,
     * bfs_coop's level by level beyond (0). A level costs a chain of
     * dependent loads either way, so fewer grid barriers shorten the BFS
     * only where frontiers are narrow; wide fronts were slower */
    cfg.hops = tune->bfs_hops >= 0 ? tune->bfs_hops : n <= (8 << 20) ? 16 : 0;
    /* bfs_hops labels by atomicMin alone (no load of the height first)
     * while a frontier has fewer than 16,384 vertices, on graphs of low
     * degree without hubs: one memory round trip fewer a level, where
     * levels wait on latency; wide frontiers (unions of photos' networks)
     * and dense graphs (a DAG's thousands of arcs into each vertex) queue
     * on the atomics instead */
    d.bfs_direct = tune->bfs_direct >= 0 ? tune->bfs_direct : cfg.group <= 8 && d.hub_deg == 0 ? 16384 : 0;
    cfg.hops_blocks = cfg.hops > 0 ? coop_grid(s->device, hops_kernel(cfg.group), s->sm_count * tune->coop_per_sm) : 0;
    cfg.coop_blocks = tune->coop ? coop_grid(s->device, coop_kernel(cfg.group), s->sm_count * tune->coop_per_sm) : 0;
    {
        /* relabel after n visits where most arcs carry capacity both
         * ways (grids, genrmf, photos), after 2n on one-way networks
         * (Washington RLG, dense DAGs); every 64th arc is sampled */
        const double per_n = f.sampled && 2 * f.two_way >= f.sampled ? 1.0 : 2.0;
        cfg.work_limit = (tune->work > 0 ? tune->work : per_n) * (double)n;
    }
    if (cfg.cycles < 1)
        cfg.cycles = 1;
    if (cfg.batch < 1)
        cfg.batch = 1;
    int32_t interval = tune->interval;
    if (interval <= 0) { /* ECL-MaxFlow's max(100, V^2 / (1000 E)), at most 10^6 */
        double ecl = (double)n * (double)n / (1000.0 * (m ? m : 1));
        interval = ecl < 100 ? 100 : ecl > 1e6 ? 1000000 : (int32_t)ecl;
    }
    *cfg_out = cfg;
    *interval_out = interval;
}

/* Phase 1 on the loaded graph (after the deficits' reverse phase when
 * asked), then the canonical cut into d.side. Queued on the solver's
 * stream, ev[0] recorded before it. */
static int run_phase1(mf_gpu_solver *s, const engine_cfg &cfg, int32_t interval, int32_t source, int32_t sink,
                      int deficits, cudaEvent_t ev0, mf_stats *stats, int *round_io, mf_error *err)
{
    int rc = MF_OK;
    dev_state &d = s->d;
    cudaStream_t st = s->stream;
    const int32_t n = d.n;
    int round = 0;
    CUDA_TRY(cudaMemsetAsync(d.stamp, 0xff, ((size_t)n + 1) * 4, st));
    CUDA_TRY(cudaMemsetAsync(d.counters, 0, 16 * 4, st));
    CUDA_TRY(cudaMemsetAsync(d.value, 0, 8, st));
    CUDA_TRY(cudaEventRecord(ev0, st));
    saturate_source<<<s->sm_count * 4, 256, 0, st>>>(d, source);
    if (deficits) {
        rc = reverse_state(s, err);
        if (rc == MF_OK)
            rc = run_phase(s, cfg, sink, source, 1, n, interval, &round, stats, err);
        if (rc == MF_OK)
            rc = reverse_state(s, err);
        if (rc)
            return rc;
        CUDA_TRY(cudaMemsetAsync(d.counters + 7, 0, 4, st));
        any_deficit<<<s->sm_count * 8, 256, 0, st>>>(d, source, sink);
        rc = read_counters(s, err);
        if (rc)
            return rc;
        if (s->host_counter[7])
            return mf_fail(err, MF_ERR_INTERNAL, NULL, 0, "GPU warm re-solve: a deficit was left");
        CUDA_TRY(cudaMemsetAsync(d.stamp, 0xff, ((size_t)n + 1) * 4, st));
        round = 0;
    }
    rc = run_phase(s, cfg, sink, source, 0, n, interval, &round, stats, err);
    if (rc)
        return rc;
    /* the phase's last BFS from the sink left exact distances: its
     * unreached set is the canonical cut */
    cut_side<<<s->sm_count * 4, 256, 0, st>>>(d, n);
    *round_io = round;
    return MF_OK;
fail:
    return rc;
}

/* Solves from the device state: with deficits, first the deficit phase on
 * the reversed residual graph (the terminals and stranded excess absorb),
 * then the source's arcs saturated and the usual phases. */
extern "C" int mf_gpu_dyn_solve(mf_gpu_solver *s, const mf_graph *g, const mf_options *opt, int deficits,
                                mf_result *res, mf_error *err)
{
    int rc = MF_OK;
    mf_options defaults;
    cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL};
    if (!opt) {
        mf_options_default(&defaults);
        opt = &defaults;
    }
    memset(res, 0, sizeof *res);
    if (!s)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "no GPU solver");
    const int32_t n = g->num_vertices, m = g->num_arcs;
    CUDA_TRY(cudaSetDevice(s->device));
    rc = mf_result_alloc(res, g, !opt->cut_only);
    if (rc)
        return mf_fail(err, rc, NULL, 0, "out of memory");
    {
        dev_state &d = s->d;
        cudaStream_t st = s->stream;
        engine_cfg cfg;
        int32_t interval;
        graph_facts facts = {0, 0, 0};
        add_facts(g, &facts);
        make_config(s, n, m, facts, &cfg, &interval);

        for (int i = 0; i < 4; i++)
            CUDA_TRY(cudaEventCreate(&ev[i]));
        int round = 0;
        rc = run_phase1(s, cfg, interval, g->source, g->sink, deficits, ev[0], &res->stats, &round, err);
        if (rc)
            goto fail;
        sink_value<<<s->sm_count * 4, 256, 0, st>>>(d, g->sink);
        CUDA_TRY(cudaEventRecord(ev[1], st));
        if (opt->phase2) {
            rc = run_phase(s, cfg, g->source, g->sink, 0, n, interval, &round, &res->stats, err);
            if (rc)
                goto fail;
        }
        CUDA_TRY(cudaEventRecord(ev[2], st));
        unsigned long long value = 0;
        CUDA_TRY(cudaMemcpyAsync(&value, d.value, 8, cudaMemcpyDeviceToHost, st));
        CUDA_TRY(cudaMemcpyAsync(res->source_side, d.side, (size_t)n, cudaMemcpyDeviceToHost, st));
        if (m && res->flow)
            CUDA_TRY(cudaMemcpyAsync(res->flow, d.flow, (size_t)m * 4, cudaMemcpyDeviceToHost, st));
        CUDA_TRY(cudaEventRecord(ev[3], st));
        CUDA_TRY(cudaStreamSynchronize(st));
        CUDA_TRY(cudaGetLastError());
        float ms1 = 0, ms2 = 0, ms3 = 0;
        cudaEventElapsedTime(&ms1, ev[0], ev[1]);
        cudaEventElapsedTime(&ms2, ev[1], ev[2]);
        cudaEventElapsedTime(&ms3, ev[2], ev[3]);
        res->flow_value = (long long)value + g->flow_offset;
        res->stats.phase1_seconds = ms1 / 1000.0;
        res->stats.phase2_seconds = ms2 / 1000.0;
        res->stats.solve_seconds = (ms1 + ms2) / 1000.0;
        res->stats.download_seconds = ms3 / 1000.0;
        res->stats.engine_used = MF_ENGINE_GPU;
        res->stats.cpu_algorithm = -1;
        snprintf(res->stats.device_name, sizeof res->stats.device_name, "%s", s->name);
        if (opt->phase2) {
            /* every vertex but the terminals must have returned its excess */
            long long *ex = (long long *)malloc(sizeof(long long) * (size_t)n);
            if (!ex) {
                rc = mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
                goto fail;
            }
            CUDA_TRY(cudaMemcpy(ex, d.excess, (size_t)n * 8, cudaMemcpyDeviceToHost));
            for (int32_t v = 0; v < n; v++)
                if (v != g->source && v != g->sink && ex[v] != 0) {
                    free(ex);
                    rc = mf_fail(err, MF_ERR_INTERNAL, NULL, 0,
                                 "GPU engine: excess left at vertex %d after phase 2", v + 1);
                    goto fail;
                }
            free(ex);
        }
    }
    for (int i = 0; i < 4; i++)
        cudaEventDestroy(ev[i]);
    return MF_OK;
fail:
    for (int i = 0; i < 4; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    mf_result_free(res);
    return rc;
}

extern "C" int mf_gpu_solve(mf_gpu_solver *s, const mf_graph *g, const mf_options *opt,
                            mf_result *res, mf_error *err)
{
    memset(res, 0, sizeof *res);
    double t0 = mf_now();
    int rc = mf_gpu_dyn_load(s, g, err);
    if (rc)
        return rc;
    double t1 = mf_now();
    rc = mf_gpu_dyn_solve(s, g, opt, 0, res, err);
    if (rc == MF_OK)
        res->stats.upload_seconds = t1 - t0;
    return rc;
}

/* A part of a union: its vertices but the terminals, its arcs (inner
 * [0, os), the source's [os, ot), the sink's [ot, m)), its inner
 * vertices' in-entries and the source's. */
struct part_shape {
    int32_t inner, os, ot, m, in_inner, in_source;
    int64_t flow_offset;
};

/* The shape of the CSR network a grid form stands for (gb_grid_to_graph's
 * layout); -1 when it is not a valid grid or too large. */
/* A reused device buffer of at least need elements: replaced when too
 * small; a failure reports device memory, so callers can fall back. */
static int grow_buffer(mf_gpu_solver *s, void **buf, int64_t *cap, int64_t need, size_t elem, const char *what,
                       mf_error *err)
{
    int rc = MF_OK;
    if (need <= *cap)
        return MF_OK;
    CUDA_TRY(cudaSetDevice(s->device));
    cudaFree(*buf);
    *buf = NULL;
    *cap = 0;
    if (cudaMalloc(buf, (size_t)need * elem) != cudaSuccess) {
        cudaGetLastError();
        *buf = NULL;
        return mf_fail(err, MF_ERR_DEVICE_MEMORY, NULL, 0, "%s need %.1f MiB of device memory", what,
                       need * (double)elem / 1048576.0);
    }
    *cap = need;
    return MF_OK;
fail:
    return rc;
}

static int grid_shape(const mf_grid *g, part_shape *sh, int64_t *nlinks_out)
{
    if (!g || !g->w || !g->term || !g->row_sources || !g->row_sinks || g->width < 1 || g->height < 1 ||
        (g->nd != 2 && g->nd != 4) || (g->sim && (g->sim_size < 1 || !(g->wscale >= 0))))
        return -1;
    const int64_t W = g->width, H = g->height, npx = W * H;
    if (npx + 2 > INT32_MAX / 2 || npx * (g->nd + 2) > (INT32_MAX >> 1))
        return -1;
    /* n-links of a row with a row below: E, S (and SE, SW) */
    const int64_t full = g->nd == 4 ? 4 * W - 3 : 2 * W - 1;
    const int64_t nlinks = (H - 1) * full + (W - 1);
    int64_t sources = 0, sinks = 0;
    for (int64_t y = 0; y < H; y++) {
        sources += g->row_sources[y];
        sinks += g->row_sinks[y];
    }
    if (sources > npx || sinks > npx || sources < 0 || sinks < 0)
        return -1;
    sh->inner = (int32_t)npx;
    sh->os = (int32_t)(nlinks + sinks);
    sh->ot = (int32_t)(nlinks + sinks + sources);
    sh->m = sh->ot;
    sh->in_inner = (int32_t)(nlinks + sources);
    sh->in_source = 0;
    sh->flow_offset = g->flow_offset;
    *nlinks_out = nlinks;
    return 0;
}

/* mf_gpu_solve_many and _grids: parts[i] or grids[i] (one of the two
 * arrays is NULL) in one union. */
static int solve_union(mf_gpu_solver *s, const mf_graph *const *parts, const mf_grid *const *grids, int k,
                       const mf_options *opt, mf_result *res, mf_error *err)
{
    int rc = MF_OK;
    mf_options o;
    cudaEvent_t ev[3] = {NULL, NULL, NULL};
    part_map *maps = NULL;
    part_shape *shapes = NULL;
    int32_t *prefix = NULL; /* grid parts: their rows' prefix sums, on the host */
    unsigned long long *values = NULL;
    graph_facts facts = {0, 0, 0};
    int32_t terminal_starts[6]; /* the source's and sink's out_start, then in_start entries */
    if (opt)
        o = *opt;
    else
        mf_options_default(&o);
    o.cut_only = 1;
    o.phase2 = 0;
    if (k < 1 || k > MF_GPU_MANY_MAX)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "mf_gpu_solve_many: %d networks (1 to %d)", k,
                       MF_GPU_MANY_MAX);
    for (int i = 0; i < k; i++)
        memset(&res[i], 0, sizeof res[i]);
    if (!s)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "no GPU solver");
    shapes = (part_shape *)calloc((size_t)k, sizeof *shapes);
    if (!shapes)
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    {
    int64_t inner = 0, arcs = 0, grid_ints = 0, prefix_ints = 0, sims = 0;
    for (int i = 0; i < k; i++) {
        part_shape &sh = shapes[i];
        if (parts) {
            const mf_graph *g = parts[i];
            if (g->num_vertices < 2 || g->source != g->num_vertices - 2 || g->sink != g->num_vertices - 1) {
                rc = mf_fail(err, MF_ERR_INVALID, NULL, 0,
                             "mf_gpu_solve_many: network %d must have its source and sink last", i);
                goto fail;
            }
            const int32_t P = g->num_vertices - 2;
            sh = (part_shape){P, g->out_start[P], g->out_start[P + 1], g->num_arcs, g->in_start[P],
                              g->in_start[P + 1] - g->in_start[P], g->flow_offset};
            add_facts(g, &facts);
        } else {
            int64_t nlinks = 0;
            if (grid_shape(grids[i], &sh, &nlinks)) {
                rc = mf_fail(err, MF_ERR_INVALID, NULL, 0, "mf_gpu_solve_many_grids: grid %d is not valid", i);
                goto fail;
            }
            const mf_grid *g = grids[i];
            grid_ints += (int64_t)sh.inner * (g->nd + 1) + 3 * (int64_t)g->height;
            prefix_ints += 3 * (int64_t)g->height;
            sims += g->sim ? g->sim_size : 0;
            /* add_facts' reading without the pass: at most 2 nd n-links
             * and two terminal arcs a pixel; the n-links two-way */
            const int32_t deg = 2 * g->nd + 2;
            facts.max_deg = deg > facts.max_deg ? deg : facts.max_deg;
            const int64_t sampled = (sh.m + 63) / 64;
            facts.sampled += sampled;
            facts.two_way += sh.m ? sampled * nlinks / sh.m : 0;
        }
        inner += sh.inner;
        arcs += sh.m;
    }
    if (inner + 2 > INT32_MAX - 1 || arcs > (INT32_MAX >> 1)) {
        rc = mf_fail(err, MF_ERR_TOO_LARGE, NULL, 0, "mf_gpu_solve_many: the networks are too large together");
        goto fail;
    }
    if (grids) {
        rc = grow_buffer(s, (void **)&s->grid_buf, &s->grid_cap, grid_ints, 4, "the grid forms", err);
        if (rc)
            goto fail;
        rc = grow_buffer(s, (void **)&s->sim_buf, &s->sim_cap, sims, 8, "the grid forms' tables", err);
        if (rc)
            goto fail;
        if (!s->grid_k) {
            CUDA_TRY(cudaSetDevice(s->device));
            CUDA_TRY(cudaMalloc(&s->grid_k, MF_GPU_MANY_MAX * sizeof(int32_t)));
        }
        prefix = (int32_t *)malloc((size_t)(prefix_ints > 0 ? prefix_ints : 1) * 4);
        if (!prefix) {
            rc = mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
            goto fail;
        }
    }
        const double t0 = mf_now();
        const int32_t n = (int32_t)inner + 2, m = (int32_t)arcs, S = n - 2, T = n - 1;
        mf_graph shape;
        memset(&shape, 0, sizeof shape);
        shape.num_vertices = n;
        shape.num_arcs = m;
        CUDA_TRY(cudaSetDevice(s->device));
        rc = ensure_capacity(s, &shape, err);
        if (rc)
            goto fail;
        if (!s->part_maps) {
            CUDA_TRY(cudaMalloc(&s->part_maps, MF_GPU_MANY_MAX * sizeof(part_map)));
            CUDA_TRY(cudaMalloc(&s->part_values, MF_GPU_MANY_MAX * sizeof(unsigned long long)));
        }
        maps = (part_map *)calloc((size_t)k, sizeof *maps);
        values = (unsigned long long *)calloc((size_t)k, sizeof *values);
        if (!maps || !values) {
            rc = mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
            goto fail;
        }
        for (int i = 0; i < k; i++) {
            mf_graph shape_i;
            memset(&shape_i, 0, sizeof shape_i);
            shape_i.num_vertices = shapes[i].inner + 2;
            shape_i.num_arcs = shapes[i].m;
            rc = mf_result_alloc(&res[i], &shape_i, 0);
            if (rc) {
                rc = mf_fail(err, rc, NULL, 0, "out of memory");
                goto fail;
            }
        }
        /* the union: the parts' inner vertices in turn, then one source and
         * one sink; arcs by tail, so the inner arcs of every part, then the
         * sources' arcs, then the sinks' */
        int32_t vb = 0, ab = 0, ib = 0, sb = 0, tb = 0, sin = 0; /* sin: in-entries of the sources */
        for (int i = 0; i < k; i++) {
            const part_shape &sh = shapes[i];
            part_map &p = maps[i];
            p.inner = sh.inner;
            p.vbase = vb;
            p.S = S;
            p.T = T;
            p.m = sh.m;
            p.os = sh.os;
            p.ot = sh.ot;
            p.abase = ab;
            p.ibase = ib;
            vb += sh.inner;
            ab += p.os;
            ib += sh.in_inner;
            sin += sh.in_source;
        }
        sb = ab;
        for (int i = 0; i < k; i++) {
            maps[i].sbase = sb;
            sb += maps[i].ot - maps[i].os;
        }
        tb = sb;
        for (int i = 0; i < k; i++) {
            maps[i].tbase = tb;
            tb += maps[i].m - maps[i].ot;
        }
        dev_state &d = s->d;
        cudaStream_t st = s->stream;
        d.n = n;
        d.m = m;
        int64_t gpos = 0, ppos = 0, spos = 0; /* grid parts: places in s->grid_buf, prefix, s->sim_buf */
        for (int i = 0; i < k; i++) {
            const part_map &p = maps[i];
            if (grids) {
                const mf_grid *g = grids[i];
                const int32_t H = g->height, W = g->width;
                const int64_t npx = (int64_t)W * H;
                const int32_t full = g->nd == 4 ? 4 * W - 3 : 2 * W - 1;
                int32_t *row_out = prefix + ppos, *row_in = row_out + H, *row_src = row_in + H;
                int32_t out = 0, in = 0, src = 0;
                for (int32_t y = 0; y < H; y++) { /* the pixels' arcs before row y */
                    row_out[y] = out;
                    row_in[y] = in;
                    row_src[y] = src;
                    out += (y < H - 1 ? full : W - 1) + g->row_sinks[y];
                    in += (y > 0 ? full : W - 1) + g->row_sources[y];
                    src += g->row_sources[y];
                }
                int32_t *dw = s->grid_buf + gpos, *dterm = dw + npx * g->nd, *drows = dterm + npx;
                CUDA_TRY(cudaMemcpyAsync(dw, g->w, (size_t)npx * g->nd * 4, cudaMemcpyHostToDevice, st));
                CUDA_TRY(cudaMemcpyAsync(dterm, g->term, (size_t)npx * 4, cudaMemcpyHostToDevice, st));
                CUDA_TRY(cudaMemcpyAsync(drows, row_out, (size_t)H * 3 * 4, cudaMemcpyHostToDevice, st));
                gpos += npx * (g->nd + 1) + 3 * (int64_t)H;
                ppos += 3 * (int64_t)H;
                const int32_t *kmax = NULL;
                if (g->sim) { /* the weights and the seeds' capacity, on the device */
                    double *dsim = s->sim_buf + spos;
                    CUDA_TRY(cudaMemcpyAsync(dsim, g->sim, (size_t)g->sim_size * 8, cudaMemcpyHostToDevice, st));
                    spos += g->sim_size;
                    CUDA_TRY(cudaMemsetAsync(s->grid_k + i, 0, sizeof(int32_t), st));
                    const int64_t pairs = npx * g->nd;
                    const int wb = pairs / 256 + 1 < s->sm_count * 8 ? (int)(pairs / 256 + 1) : s->sm_count * 8;
                    grid_weights<<<wb, 256, 0, st>>>(dw, pairs, g->nd, dsim, g->sim_size, g->wscale);
                    const int kb = npx / 256 + 1 < s->sm_count * 8 ? (int)(npx / 256 + 1) : s->sm_count * 8;
                    grid_kmax<<<kb, 256, 0, st>>>(dw, W, H, g->nd, s->grid_k + i);
                    kmax = s->grid_k + i;
                }
                const grid_part gp = {dw, dterm, drows, drows + H, drows + 2 * H, kmax, W, H, g->nd, g->all_terminals};
                const int blocks = H < s->sm_count * 8 ? H : s->sm_count * 8;
                grid_expand<<<blocks, 256, 0, st>>>(d, p, gp);
                continue;
            }
            const mf_graph *g = parts[i];
            const int32_t seg[3][3] = {{0, p.os, p.abase}, {p.os, p.ot, p.sbase}, {p.ot, p.m, p.tbase}};
            CUDA_TRY(cudaMemcpyAsync(d.out_start + p.vbase, g->out_start, (size_t)p.inner * 4,
                                     cudaMemcpyHostToDevice, st));
            CUDA_TRY(cudaMemcpyAsync(d.in_start + p.vbase, g->in_start, (size_t)p.inner * 4,
                                     cudaMemcpyHostToDevice, st));
            for (int j = 0; j < 3; j++) {
                const size_t bytes = (size_t)(seg[j][1] - seg[j][0]) * 4;
                if (bytes) {
                    CUDA_TRY(cudaMemcpyAsync(d.arc_head + seg[j][2], g->arc_head + seg[j][0], bytes,
                                             cudaMemcpyHostToDevice, st));
                    CUDA_TRY(cudaMemcpyAsync(d.arc_cap + seg[j][2], g->arc_cap + seg[j][0], bytes,
                                             cudaMemcpyHostToDevice, st));
                    CUDA_TRY(cudaMemcpyAsync(d.arc_rcap + seg[j][2], g->arc_rcap + seg[j][0], bytes,
                                             cudaMemcpyHostToDevice, st));
                }
            }
            const int32_t count = p.m > p.inner ? p.m : p.inner;
            const int blocks = count / 256 + 1 < s->sm_count * 8 ? count / 256 + 1 : s->sm_count * 8;
            union_fix<<<blocks, 256, 0, st>>>(d, p);
        }
        /* the sources' in-entries follow every inner vertex's, the sinks' theirs */
        terminal_starts[0] = maps[0].sbase;
        terminal_starts[1] = maps[0].tbase;
        terminal_starts[2] = m;
        terminal_starts[3] = ib;
        terminal_starts[4] = ib + sin;
        terminal_starts[5] = m;
        CUDA_TRY(cudaMemcpyAsync(d.out_start + S, terminal_starts, 3 * 4, cudaMemcpyHostToDevice, st));
        CUDA_TRY(cudaMemcpyAsync(d.in_start + S, terminal_starts + 3, 3 * 4, cudaMemcpyHostToDevice, st));
        CUDA_TRY(cudaMemsetAsync(d.stamp, 0, ((size_t)n + 1) * 4, st));
        union_in_lists<<<s->sm_count * 8, 256, 0, st>>>(d, (int32_t)inner, S, T);
        CUDA_TRY(cudaMemcpyAsync(s->part_maps, maps, (size_t)k * sizeof(part_map), cudaMemcpyHostToDevice, st));
        CUDA_TRY(cudaMemsetAsync(s->part_values, 0, (size_t)k * sizeof(unsigned long long), st));
        CUDA_TRY(cudaMemsetAsync(d.flow, 0, ((size_t)m + 1) * 4, st));
        CUDA_TRY(cudaMemsetAsync(d.excess, 0, ((size_t)n + 1) * 8, st));
        CUDA_TRY(cudaStreamSynchronize(st));
        const double t1 = mf_now();

        /* the launch shape of the union: its sizes and the parts' vertices
         * and arcs (facts, above) */
        engine_cfg cfg;
        int32_t interval;
        make_config(s, n, m, facts, &cfg, &interval);
        for (int i = 0; i < 3; i++)
            CUDA_TRY(cudaEventCreate(&ev[i]));
        mf_stats stats;
        memset(&stats, 0, sizeof stats);
        int round = 0;
        rc = run_phase1(s, cfg, interval, S, T, 0, ev[0], &stats, &round, err);
        if (rc)
            goto fail;
        part_values<<<k, 256, 0, st>>>(d, s->part_maps, s->part_values);
        CUDA_TRY(cudaEventRecord(ev[1], st));
        CUDA_TRY(cudaMemcpyAsync(values, s->part_values, (size_t)k * sizeof *values, cudaMemcpyDeviceToHost, st));
        for (int i = 0; i < k; i++) {
            const part_map &p = maps[i];
            CUDA_TRY(cudaMemcpyAsync(res[i].source_side, d.side + p.vbase, (size_t)p.inner, cudaMemcpyDeviceToHost,
                                     st));
        }
        CUDA_TRY(cudaEventRecord(ev[2], st));
        CUDA_TRY(cudaStreamSynchronize(st));
        CUDA_TRY(cudaGetLastError());
        float ms1 = 0, ms2 = 0;
        cudaEventElapsedTime(&ms1, ev[0], ev[1]);
        cudaEventElapsedTime(&ms2, ev[1], ev[2]);
        stats.phase1_seconds = stats.solve_seconds = ms1 / 1000.0;
        stats.download_seconds = ms2 / 1000.0;
        stats.upload_seconds = t1 - t0;
        stats.engine_used = MF_ENGINE_GPU;
        stats.cpu_algorithm = -1;
        snprintf(stats.device_name, sizeof stats.device_name, "%s", s->name);
        for (int i = 0; i < k; i++) {
            const int32_t P = maps[i].inner;
            res[i].source_side[P] = 1; /* the source, as a solve of the part alone gives */
            res[i].source_side[P + 1] = 0;
            res[i].flow_value = (long long)values[i] + shapes[i].flow_offset;
            res[i].stats = stats;
        }
    }
    for (int i = 0; i < 3; i++)
        cudaEventDestroy(ev[i]);
    free(maps);
    free(shapes);
    free(prefix);
    free(values);
    return MF_OK;
fail:
    for (int i = 0; i < 3; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    free(maps);
    free(shapes);
    free(prefix);
    free(values);
    for (int i = 0; i < k; i++)
        mf_result_free(&res[i]);
    return rc;
}

extern "C" int mf_gpu_solve_many(mf_gpu_solver *s, const mf_graph *const *parts, int k, const mf_options *opt,
                                 mf_result *res, mf_error *err)
{
    return solve_union(s, parts, NULL, k, opt, res, err);
}

extern "C" int mf_gpu_solve_many_grids(mf_gpu_solver *s, const mf_grid *const *grids, int k, const mf_options *opt,
                                       mf_result *res, mf_error *err)
{
    return solve_union(s, NULL, grids, k, opt, res, err);
}
