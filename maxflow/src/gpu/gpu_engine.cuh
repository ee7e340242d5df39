/* The CUDA engine's shared internals: the device state, the solver, the
 * device helpers that the push and BFS kernels both use, and the host
 * functions one file of the engine calls in another.
 *
 * The engine: data-driven push-relabel on the forward + reverse CSR with
 * one flow value per arc (ecl-maxflow), lock-free pushes to the lowest
 * neighbour (Hong), global relabeling as a worklist BFS on the device.
 * Going past the published codes:
 *  - lane groups of 1/4/8/16/32 per vertex, picked from the average degree
 *    (an image grid's degree is about 9: a full warp would idle most lanes);
 *  - kernels run over a fixed grid and read the worklist size from device
 *    memory, so rounds are queued back to back and the host reads one
 *    counter every few rounds instead of synchronising every round;
 *  - 64-bit excess; the terminals' excess is never touched by pushes (no
 *    hot atomic), the value is summed from the sink's arcs at the end;
 *  - the canonical cut comes from the final BFS of phase 1 (vertices the
 *    BFS from the sink cannot reach), computed on the device.
 *
 * The files, by job: push.cu (push-relabel rounds and the phase loop),
 * bfs.cu (global relabeling: the BFS variants), config.cu (the launch
 * configuration from the tuning), warm.cu (the warm re-solve's device
 * side), grid.cu (grid forms expanded on the device), union.cu (many
 * networks solved as one union), solver.cu (the solver, its memory, the
 * public solves). The build compiles each file whole (no relocatable
 * device code), so a kernel is launched only from its own file: each file
 * exports host functions, never kernels. */
#ifndef FLOWCUT_GPU_ENGINE_CUH
#define FLOWCUT_GPU_ENGINE_CUH

#include "internal.h"
#include "tuning.h"

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

/* mf_gpu_solve_many: where one part's vertices and arcs sit in the union.
 * The part's source and sink are its last two vertices; its arcs come as
 * inner ones [0, os), the source's [os, ot), the sink's [ot, m). */
struct part_map {
    int32_t inner, vbase, S, T;
    int32_t os, ot, m, abase, sbase, tbase;
    int32_t ibase;
};

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
    double *sim_buf;       /* their similarity tables (mf_grid.table) */
    int64_t sim_cap;       /* its size in doubles */
    int32_t *grid_k;       /* per part, the largest n-link weight sum (seed capacity - 1) */
};

/* --------------------------------------------------------------------- */
/* Device helpers                                                            */

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

/* --------------------------------------------------------------------- */
/* Host side                                                             */

/* A CUDA call that fails sets rc (device memory or device error, with the
 * call's message) and jumps to the function's one clean-up label, fail. */
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

/* A solve's launch configuration (config.cu: make_config). */
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

/* What the launch configuration reads from a host graph: the largest
 * degree of a vertex other than the terminals, which are never active and
 * so never hubs (a photo's terminals have an arc per pixel: counting them
 * would launch an idle hub_round every round), and a sample of its arcs. */
struct graph_facts {
    int32_t max_deg;
    int64_t sampled, two_way;
};

/* A part of a union: its vertices but the terminals, its arcs (inner
 * [0, os), the source's [os, ot), the sink's [ot, m)), its inner
 * vertices' in-entries and the source's. */
struct part_shape {
    int32_t inner, os, ot, m, in_inner, in_source;
    int64_t flow_offset;
};

/* solver.cu */
/* Grows the device buffers to hold g; keeps them when they are big enough. */
int ensure_capacity(mf_gpu_solver *s, const mf_graph *g, mf_error *err);
/* A reused device buffer of at least need elements of elem bytes. */
int grow_buffer(mf_gpu_solver *s, void **buf, int64_t *cap, int64_t need, size_t elem, const char *what,
                mf_error *err);
/* Waits for the stream's work, then reads the counters back into host_counter. */
int read_counters(mf_gpu_solver *s, mf_error *err);
/* Phase 1 on the loaded graph (deficits first when asked), then the cut. */
int run_phase1(mf_gpu_solver *s, const engine_cfg &cfg, int32_t interval, int32_t source, int32_t sink,
               int deficits, cudaEvent_t ev0, mf_stats *stats, int *round_io, mf_error *err);

/* config.cu */
void add_facts(const mf_graph *g, graph_facts *f);
void make_config(mf_gpu_solver *s, int32_t n, int32_t m, const graph_facts &f, engine_cfg *cfg_out,
                 int32_t *interval_out);

/* push.cu */
/* Saturates the source's residual arcs (queued on the solver's stream). */
void saturate_source_arcs(mf_gpu_solver *s, int32_t source);
/* Push-relabel rounds toward target until a fresh BFS finds no active vertex. */
int run_phase(mf_gpu_solver *s, const engine_cfg &cfg, int32_t target, int32_t blocked, int multi, int32_t hmax,
              int32_t relabel_interval, int *round_io, mf_stats *st, mf_error *err);

/* bfs.cu */
/* BFS from target over residual arcs (multi: the deficit phase's absorbers too). */
int global_relabel(mf_gpu_solver *s, const engine_cfg &cfg, int32_t target, int32_t blocked, int multi,
                   mf_stats *st, mf_error *err);
/* bfs_coop and bfs_hops for a lane-group size, and the grid they may use. */
const void *coop_kernel(int group);
const void *hops_kernel(int group);
int coop_grid(int device, const void *fn, int blocks);
/* The canonical cut from the last BFS's heights into d.side (queued). */
void cut_from_heights(mf_gpu_solver *s, int32_t hmax);

/* warm.cu */
/* The warm re-solve's deficit phase: pushes on the reversed residual graph
 * until no vertex but the terminals has a deficit. */
int deficit_phase(mf_gpu_solver *s, const engine_cfg &cfg, int32_t interval, int32_t source, int32_t sink,
                  mf_stats *stats, mf_error *err);

/* grid.cu */
/* The shape of the CSR network a grid form stands for; -1 when not valid. */
int grid_shape(const mf_grid *g, part_shape *sh, int64_t *nlinks_out);
/* Uploads grid part i and expands it at its place p in the union. */
int upload_grid_part(mf_gpu_solver *s, const mf_grid *g, int i, const part_map &p, int32_t *prefix, int64_t *gpos,
                     int64_t *spos, mf_error *err);

#endif
