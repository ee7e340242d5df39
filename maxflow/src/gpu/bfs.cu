/* Global relabeling on the device: a BFS from the target over residual
 * arcs gives every vertex its exact distance. Five ways to run a level,
 * for five shapes of frontier: the target's own level over the whole grid
 * (a terminal of an image network has millions of arcs), a level per
 * launch (wide frontiers), every level in one cooperative launch, super-
 * levels of several levels per grid barrier (narrow frontiers, many
 * levels), and all levels in one block (small frontiers); the deficit
 * phase's absorbers add their own first level. */
#include "gpu_engine.cuh"

#include <cooperative_groups.h>

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
 * by grid-wide barriers: deep networks (genrmf) need thousands of levels
 * per BFS, and a launch per level would make the BFS most of the solve. The frontier
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

/* The canonical cut from the last BFS from the sink: the vertices it did not reach. */
__global__ void __launch_bounds__(256) cut_side(dev_state d, int32_t hmax)
{
    for (int32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < d.n; v += gridDim.x * blockDim.x)
        d.side[v] = d.height[v] >= hmax ? 1 : 0;
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
const void *coop_kernel(int group)
{
    return group == 1    ? (const void *)bfs_coop<1>
           : group == 4  ? (const void *)bfs_coop<4>
           : group == 8  ? (const void *)bfs_coop<8>
           : group == 16 ? (const void *)bfs_coop<16>
                         : (const void *)bfs_coop<32>;
}

/* bfs_hops for a lane-group size. */
const void *hops_kernel(int group)
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
int coop_grid(int device, const void *fn, int blocks)
{
    int coop = 0, sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess || !coop ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
        return 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 256, 0) != cudaSuccess || per_sm < 1)
        return 0;
    return sms * per_sm < blocks ? sms * per_sm : blocks;
}

/* BFS from target over residual arcs. Small frontiers run level after
 * level in one block; large ones one level per launch, in batches, with
 * the host reading the frontier size once a batch. */
int global_relabel(mf_gpu_solver *s, const engine_cfg &cfg, int32_t target, int32_t blocked, int multi,
                   mf_stats *st, mf_error *err)
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

void cut_from_heights(mf_gpu_solver *s, int32_t hmax)
{
    cut_side<<<s->sm_count * 4, 256, 0, s->stream>>>(s->d, hmax);
}
