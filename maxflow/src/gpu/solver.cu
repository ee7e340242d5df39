/* The CUDA engine's solver: the device, its memory (buffers grown to the
 * largest graph seen and kept), the counters read back, phase 1 and the
 * public solve on one graph (mf_gpu_solve, and the warm re-solve's
 * mf_gpu_dyn_solve). The kernels live with their jobs (gpu_engine.cuh
 * lists the files). */
#include "gpu_engine.cuh"

/* The net flow into the sink, from the sink's arcs, into *d.value. */
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
int ensure_capacity(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
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

/* Queues work on the stream, then reads the 8 counters back. */
int read_counters(mf_gpu_solver *s, mf_error *err)
{
    int rc = MF_OK;
    CUDA_TRY(cudaMemcpyAsync(s->host_counter, s->d.counters, 12 * sizeof(int32_t), cudaMemcpyDeviceToHost,
                             s->stream));
    CUDA_TRY(cudaStreamSynchronize(s->stream));
    return MF_OK;
fail:
    return rc;
}

/* Phase 1 on the loaded graph (after the deficits' reverse phase when
 * asked), then the canonical cut into d.side. Queued on the solver's
 * stream, ev[0] recorded before it. */
int run_phase1(mf_gpu_solver *s, const engine_cfg &cfg, int32_t interval, int32_t source, int32_t sink,
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
    saturate_source_arcs(s, source);
    if (deficits) {
        rc = deficit_phase(s, cfg, interval, source, sink, stats, err);
        if (rc)
            return rc;
    }
    rc = run_phase(s, cfg, sink, source, 0, n, interval, &round, stats, err);
    if (rc)
        return rc;
    /* the phase's last BFS from the sink left exact distances: its
     * unreached set is the canonical cut */
    cut_from_heights(s, n);
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

/* A reused device buffer of at least need elements: replaced when too
 * small; a failure reports device memory, so callers can fall back. */
int grow_buffer(mf_gpu_solver *s, void **buf, int64_t *cap, int64_t need, size_t elem, const char *what,
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
