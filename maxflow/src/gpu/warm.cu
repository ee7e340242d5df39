/* The warm re-solve's device side (mf_dynamic on the GPU): the graph
 * loaded once, capacity changes applied in place (flows clamped into their
 * new bounds, the difference left as excess and deficit), and the deficit
 * phase that pulls deficits back on the reversed residual graph before
 * the usual phases run (solver.cu: mf_gpu_dyn_solve). */
#include "gpu_engine.cuh"

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

/* g's capacities uploaded and the flow state zeroed, on a device that
 * holds g's arcs: the end of every cold start. */
static int upload_caps(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
{
    int rc = MF_OK;
    dev_state &d = s->d;
    cudaStream_t st = s->stream;
    const int32_t n = g->num_vertices, m = g->num_arcs;
    if (m) {
        CUDA_TRY(cudaMemcpyAsync(d.arc_cap, g->arc_cap, (size_t)m * 4, cudaMemcpyHostToDevice, st));
        CUDA_TRY(cudaMemcpyAsync(d.arc_rcap, g->arc_rcap, (size_t)m * 4, cudaMemcpyHostToDevice, st));
    }
    CUDA_TRY(cudaMemsetAsync(d.flow, 0, ((size_t)m + 1) * 4, st));
    CUDA_TRY(cudaMemsetAsync(d.excess, 0, ((size_t)n + 1) * 8, st));
    CUDA_TRY(cudaStreamSynchronize(st));
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
            CUDA_TRY(cudaMemcpyAsync(d.in_arc, g->in_arc, (size_t)m * 4, cudaMemcpyHostToDevice, st));
            CUDA_TRY(cudaMemcpyAsync(d.in_tail, g->in_tail, (size_t)m * 4, cudaMemcpyHostToDevice, st));
        }
    }
    return upload_caps(s, g, err);
fail:
    return rc;
}

/* The capacities alone uploaded and the flow state zeroed: a cold start on
 * a device that holds g's arcs already (an earlier mf_gpu_dyn_load of this
 * graph, whose arcs never change). A session's re-fit changes capacities
 * only; the heads and in-lists are three fifths of a whole upload. */
extern "C" int mf_gpu_dyn_load_caps(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
{
    int rc = MF_OK;
    if (!s)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "no GPU solver");
    if (g->num_vertices != s->d.n || g->num_arcs != s->d.m || !s->d.flow)
        return mf_gpu_dyn_load(s, g, err); /* not this graph's arcs */
    CUDA_TRY(cudaSetDevice(s->device));
    return upload_caps(s, g, err);
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

/* The deficit phase: on the reversed residual graph the terminals and
 * every vertex with a deficit absorb, so the push loop moves deficits
 * back; it ends with none left (checked) and the stamps cleared for the
 * phases that follow. */
int deficit_phase(mf_gpu_solver *s, const engine_cfg &cfg, int32_t interval, int32_t source, int32_t sink,
                  mf_stats *stats, mf_error *err)
{
    int rc = reverse_state(s, err);
    int round = 0;
    dev_state &d = s->d;
    cudaStream_t st = s->stream;
    if (rc == MF_OK)
        rc = run_phase(s, cfg, sink, source, 1, d.n, interval, &round, stats, err);
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
    CUDA_TRY(cudaMemsetAsync(d.stamp, 0xff, ((size_t)d.n + 1) * 4, st));
    return MF_OK;
fail:
    return rc;
}
