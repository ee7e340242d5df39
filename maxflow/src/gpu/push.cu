/* Push-relabel on the device: the rounds (a lane group per active vertex,
 * pushes to the lowest neighbour, lock-free), the rounds of small
 * worklists in one block, the hubs' block-wide steps, and the phase loop
 * that alternates rounds with global relabels (bfs.cu). */
#include "gpu_engine.cuh"

/* Discharges each active vertex of the worklist for up to `cycles` push or
 * relabel steps (one step when its degree exceeds 2G). Each lane caches the
 * residual capacity and height of up to two neighbours, so that pushes to
 * several neighbours in one visit cost no rescans: with one push a visit,
 * excess on a grid would move a single arc per round.
 * Why it stays a valid preflow under races: e and every cached residual are
 * lower bounds (only v lowers its excess or the residuals out of v), and
 * cached heights are lower bounds (heights only grow between BFSs).
 * Kept as one function: it is one warp-synchronous loop whose every lane
 * must reach the shuffles and appends together, with its state (the
 * cached residuals and heights, the pushed-to vertices) in registers;
 * pieces would have to pass all of it by reference. */
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

/* One push-relabel round over the whole grid: each lane group discharges a vertex of the worklist. */
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

void saturate_source_arcs(mf_gpu_solver *s, int32_t source)
{
    saturate_source<<<s->sm_count * 4, 256, 0, s->stream>>>(s->d, source);
}

/* Runs push-relabel rounds toward target. A phase ends only when a fresh
 * BFS finds no active vertex that can reach the target, so the result does
 * not rest on labels that lock-free rounds may leave stale. On return the
 * heights are exact BFS distances (hmax where unreachable). */
int run_phase(mf_gpu_solver *s, const engine_cfg &cfg, int32_t target, int32_t blocked, int multi, int32_t hmax,
              int32_t relabel_interval, int *round_io, mf_stats *st, mf_error *err)
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
