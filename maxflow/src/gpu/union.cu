/* Many networks solved as one (mf_gpu_solve_many, _grids): the parts'
 * vertices side by side, one source and one sink for all, so that small
 * networks fill the device together; each part's value and cut are read
 * back from its own place in the union, the same as solving it alone. */
#include "gpu_engine.cuh"

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

/* One union solve's host side: the parts (parts[i] or grids[i]: one of
 * the two arrays is NULL), their shapes and places, and the union's sizes.
 * union_free releases what it holds. */
struct union_job {
    const mf_graph *const *parts;
    const mf_grid *const *grids;
    int k;
    part_shape *shapes;
    part_map *maps;
    int32_t *prefix; /* grid parts: their rows' prefix sums, on the host */
    unsigned long long *values;
    graph_facts facts;
    int64_t inner, arcs, grid_ints, prefix_ints, sims;
    int32_t n, m, S, T;
    int32_t in_inner, in_sources; /* in-entries of the inner vertices, of the sources */
};

static void union_free(union_job *u)
{
    free(u->maps);
    free(u->shapes);
    free(u->prefix);
    free(u->values);
}

/* Each part's shape, the union's sizes and the facts the launch
 * configuration reads; refuses parts that are not valid or a union too
 * large for 32-bit indices. */
static int measure_parts(union_job *u, mf_error *err)
{
    for (int i = 0; i < u->k; i++) {
        part_shape &sh = u->shapes[i];
        if (u->parts) {
            const mf_graph *g = u->parts[i];
            if (g->num_vertices < 2 || g->source != g->num_vertices - 2 || g->sink != g->num_vertices - 1)
                return mf_fail(err, MF_ERR_INVALID, NULL, 0,
                               "mf_gpu_solve_many: network %d must have its source and sink last", i);
            const int32_t P = g->num_vertices - 2;
            sh = (part_shape){P, g->out_start[P], g->out_start[P + 1], g->num_arcs, g->in_start[P],
                              g->in_start[P + 1] - g->in_start[P], g->flow_offset};
            add_facts(g, &u->facts);
        } else {
            int64_t nlinks = 0;
            if (grid_shape(u->grids[i], &sh, &nlinks))
                return mf_fail(err, MF_ERR_INVALID, NULL, 0, "mf_gpu_solve_many_grids: grid %d is not valid", i);
            const mf_grid *g = u->grids[i];
            u->grid_ints += (int64_t)sh.inner * (g->nd + 1) + 3 * (int64_t)g->height;
            u->prefix_ints += 3 * (int64_t)g->height;
            u->sims += g->table ? g->table_size : 0;
            /* add_facts' reading without the pass: at most 2 nd n-links
             * and two terminal arcs a pixel; the n-links two-way */
            const int32_t deg = 2 * g->nd + 2;
            u->facts.max_deg = deg > u->facts.max_deg ? deg : u->facts.max_deg;
            const int64_t sampled = (sh.m + 63) / 64;
            u->facts.sampled += sampled;
            u->facts.two_way += sh.m ? sampled * nlinks / sh.m : 0;
        }
        u->inner += sh.inner;
        u->arcs += sh.m;
    }
    if (u->inner + 2 > INT32_MAX - 1 || u->arcs > (INT32_MAX >> 1))
        return mf_fail(err, MF_ERR_TOO_LARGE, NULL, 0, "mf_gpu_solve_many: the networks are too large together");
    u->n = (int32_t)u->inner + 2;
    u->m = (int32_t)u->arcs;
    u->S = u->n - 2;
    u->T = u->n - 1;
    return MF_OK;
}

/* The grid parts' device buffers (their compact forms, their tables, the
 * seeds' capacities) and the host's prefix sums. */
static int reserve_grid_buffers(mf_gpu_solver *s, union_job *u, mf_error *err)
{
    int rc = grow_buffer(s, (void **)&s->grid_buf, &s->grid_cap, u->grid_ints, 4, "the grid forms", err);
    if (rc == MF_OK)
        rc = grow_buffer(s, (void **)&s->sim_buf, &s->sim_cap, u->sims, 8, "the grid forms' tables", err);
    if (rc)
        return rc;
    if (!s->grid_k) {
        CUDA_TRY(cudaSetDevice(s->device));
        CUDA_TRY(cudaMalloc(&s->grid_k, MF_GPU_MANY_MAX * sizeof(int32_t)));
    }
    u->prefix = (int32_t *)malloc((size_t)(u->prefix_ints > 0 ? u->prefix_ints : 1) * 4);
    if (!u->prefix)
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    return MF_OK;
fail:
    return rc;
}

/* The union's device state and the parts' maps, values and results. */
static int reserve_union(mf_gpu_solver *s, union_job *u, mf_result *res, mf_error *err)
{
    int rc = MF_OK;
    mf_graph shape;
    memset(&shape, 0, sizeof shape);
    shape.num_vertices = u->n;
    shape.num_arcs = u->m;
    CUDA_TRY(cudaSetDevice(s->device));
    rc = ensure_capacity(s, &shape, err);
    if (rc)
        return rc;
    if (!s->part_maps) {
        CUDA_TRY(cudaMalloc(&s->part_maps, MF_GPU_MANY_MAX * sizeof(part_map)));
        CUDA_TRY(cudaMalloc(&s->part_values, MF_GPU_MANY_MAX * sizeof(unsigned long long)));
    }
    u->maps = (part_map *)calloc((size_t)u->k, sizeof *u->maps);
    u->values = (unsigned long long *)calloc((size_t)u->k, sizeof *u->values);
    if (!u->maps || !u->values)
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    for (int i = 0; i < u->k; i++) {
        mf_graph shape_i;
        memset(&shape_i, 0, sizeof shape_i);
        shape_i.num_vertices = u->shapes[i].inner + 2;
        shape_i.num_arcs = u->shapes[i].m;
        rc = mf_result_alloc(&res[i], &shape_i, 0);
        if (rc)
            return mf_fail(err, rc, NULL, 0, "out of memory");
    }
    return MF_OK;
fail:
    return rc;
}

/* Where each part sits in the union: the parts' inner vertices in turn,
 * then one source and one sink; arcs by tail, so the inner arcs of every
 * part, then the sources' arcs, then the sinks'. */
static void lay_out_parts(union_job *u)
{
    int32_t vb = 0, ab = 0, ib = 0, sin = 0; /* sin: in-entries of the sources */
    for (int i = 0; i < u->k; i++) {
        const part_shape &sh = u->shapes[i];
        part_map &p = u->maps[i];
        p.inner = sh.inner;
        p.vbase = vb;
        p.S = u->S;
        p.T = u->T;
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
    int32_t sb = ab;
    for (int i = 0; i < u->k; i++) {
        u->maps[i].sbase = sb;
        sb += u->maps[i].ot - u->maps[i].os;
    }
    int32_t tb = sb;
    for (int i = 0; i < u->k; i++) {
        u->maps[i].tbase = tb;
        tb += u->maps[i].m - u->maps[i].ot;
    }
    u->in_inner = ib;
    u->in_sources = sin;
}

/* A CSR part copied to its place p, then renumbered there (union_fix). */
static int upload_graph_part(mf_gpu_solver *s, const mf_graph *g, const part_map &p, mf_error *err)
{
    int rc = MF_OK;
    dev_state &d = s->d;
    cudaStream_t st = s->stream;
    const int32_t seg[3][3] = {{0, p.os, p.abase}, {p.os, p.ot, p.sbase}, {p.ot, p.m, p.tbase}};
    CUDA_TRY(cudaMemcpyAsync(d.out_start + p.vbase, g->out_start, (size_t)p.inner * 4, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(d.in_start + p.vbase, g->in_start, (size_t)p.inner * 4, cudaMemcpyHostToDevice, st));
    for (int j = 0; j < 3; j++) {
        const size_t bytes = (size_t)(seg[j][1] - seg[j][0]) * 4;
        if (bytes) {
            CUDA_TRY(cudaMemcpyAsync(d.arc_head + seg[j][2], g->arc_head + seg[j][0], bytes, cudaMemcpyHostToDevice,
                                     st));
            CUDA_TRY(cudaMemcpyAsync(d.arc_cap + seg[j][2], g->arc_cap + seg[j][0], bytes, cudaMemcpyHostToDevice,
                                     st));
            CUDA_TRY(cudaMemcpyAsync(d.arc_rcap + seg[j][2], g->arc_rcap + seg[j][0], bytes, cudaMemcpyHostToDevice,
                                     st));
        }
    }
    {
        const int32_t count = p.m > p.inner ? p.m : p.inner;
        const int blocks = count / 256 + 1 < s->sm_count * 8 ? count / 256 + 1 : s->sm_count * 8;
        union_fix<<<blocks, 256, 0, st>>>(d, p);
    }
    return MF_OK;
fail:
    return rc;
}

/* Every part at its place, then the terminals' offsets, the in-lists
 * built on the device, the maps uploaded and the flow state zeroed; waits
 * for all of it. */
static int upload_union(mf_gpu_solver *s, union_job *u, mf_error *err)
{
    int rc = MF_OK;
    dev_state &d = s->d;
    cudaStream_t st = s->stream;
    int32_t terminal_starts[6]; /* the source's and sink's out_start, then in_start entries */
    d.n = u->n;
    d.m = u->m;
    int64_t gpos = 0, ppos = 0, spos = 0; /* grid parts: places in s->grid_buf, u->prefix, s->sim_buf */
    for (int i = 0; i < u->k; i++) {
        if (u->grids) {
            rc = upload_grid_part(s, u->grids[i], i, u->maps[i], u->prefix + ppos, &gpos, &spos, err);
            ppos += 3 * (int64_t)u->grids[i]->height;
        } else {
            rc = upload_graph_part(s, u->parts[i], u->maps[i], err);
        }
        if (rc)
            return rc;
    }
    /* the sources' in-entries follow every inner vertex's, the sinks' theirs */
    terminal_starts[0] = u->maps[0].sbase;
    terminal_starts[1] = u->maps[0].tbase;
    terminal_starts[2] = u->m;
    terminal_starts[3] = u->in_inner;
    terminal_starts[4] = u->in_inner + u->in_sources;
    terminal_starts[5] = u->m;
    CUDA_TRY(cudaMemcpyAsync(d.out_start + u->S, terminal_starts, 3 * 4, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(d.in_start + u->S, terminal_starts + 3, 3 * 4, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemsetAsync(d.stamp, 0, ((size_t)u->n + 1) * 4, st));
    union_in_lists<<<s->sm_count * 8, 256, 0, st>>>(d, (int32_t)u->inner, u->S, u->T);
    CUDA_TRY(cudaMemcpyAsync(s->part_maps, u->maps, (size_t)u->k * sizeof(part_map), cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemsetAsync(s->part_values, 0, (size_t)u->k * sizeof(unsigned long long), st));
    CUDA_TRY(cudaMemsetAsync(d.flow, 0, ((size_t)u->m + 1) * 4, st));
    CUDA_TRY(cudaMemsetAsync(d.excess, 0, ((size_t)u->n + 1) * 8, st));
    CUDA_TRY(cudaStreamSynchronize(st));
    return MF_OK;
fail:
    return rc;
}

/* Phase 1 on the union, then each part's value and cut read back from its
 * place; upload_seconds is the upload's time, for the stats. */
static int solve_and_read(mf_gpu_solver *s, union_job *u, mf_result *res, double upload_seconds, mf_error *err)
{
    int rc = MF_OK;
    dev_state &d = s->d;
    cudaStream_t st = s->stream;
    cudaEvent_t ev[3] = {NULL, NULL, NULL};
    engine_cfg cfg;
    int32_t interval;
    mf_stats stats;
    int round = 0;
    float ms1 = 0, ms2 = 0;
    /* the launch shape of the union: its sizes and the parts' vertices and
     * arcs (measure_parts' facts) */
    make_config(s, u->n, u->m, u->facts, &cfg, &interval);
    memset(&stats, 0, sizeof stats);
    for (int i = 0; i < 3; i++)
        CUDA_TRY(cudaEventCreate(&ev[i]));
    rc = run_phase1(s, cfg, interval, u->S, u->T, 0, ev[0], &stats, &round, err);
    if (rc)
        goto fail;
    part_values<<<u->k, 256, 0, st>>>(d, s->part_maps, s->part_values);
    CUDA_TRY(cudaEventRecord(ev[1], st));
    CUDA_TRY(cudaMemcpyAsync(u->values, s->part_values, (size_t)u->k * sizeof *u->values, cudaMemcpyDeviceToHost, st));
    for (int i = 0; i < u->k; i++)
        CUDA_TRY(cudaMemcpyAsync(res[i].source_side, d.side + u->maps[i].vbase, (size_t)u->maps[i].inner,
                                 cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaEventRecord(ev[2], st));
    CUDA_TRY(cudaStreamSynchronize(st));
    CUDA_TRY(cudaGetLastError());
    cudaEventElapsedTime(&ms1, ev[0], ev[1]);
    cudaEventElapsedTime(&ms2, ev[1], ev[2]);
    stats.phase1_seconds = stats.solve_seconds = ms1 / 1000.0;
    stats.download_seconds = ms2 / 1000.0;
    stats.upload_seconds = upload_seconds;
    stats.engine_used = MF_ENGINE_GPU;
    stats.cpu_algorithm = -1;
    snprintf(stats.device_name, sizeof stats.device_name, "%s", s->name);
    for (int i = 0; i < u->k; i++) {
        const int32_t P = u->maps[i].inner;
        res[i].source_side[P] = 1; /* the source, as a solve of the part alone gives */
        res[i].source_side[P + 1] = 0;
        res[i].flow_value = (long long)u->values[i] + u->shapes[i].flow_offset;
        res[i].stats = stats;
    }
fail:
    for (int i = 0; i < 3; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    return rc;
}

/* mf_gpu_solve_many and _grids: parts[i] or grids[i] (one of the two
 * arrays is NULL) in one union, cut-only, phase 1 alone. */
static int solve_union(mf_gpu_solver *s, const mf_graph *const *parts, const mf_grid *const *grids, int k,
                       const mf_options *opt, mf_result *res, mf_error *err)
{
    (void)opt; /* the union is solved cut-only, phase 1 alone, whatever opt asks */
    if (k < 1 || k > MF_GPU_MANY_MAX)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "mf_gpu_solve_many: %d networks (1 to %d)", k,
                       MF_GPU_MANY_MAX);
    for (int i = 0; i < k; i++)
        memset(&res[i], 0, sizeof res[i]);
    if (!s)
        return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "no GPU solver");
    union_job u;
    memset(&u, 0, sizeof u);
    u.parts = parts;
    u.grids = grids;
    u.k = k;
    u.shapes = (part_shape *)calloc((size_t)k, sizeof *u.shapes);
    if (!u.shapes)
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    int rc = measure_parts(&u, err);
    if (rc == MF_OK && grids)
        rc = reserve_grid_buffers(s, &u, err);
    const double t0 = mf_now();
    if (rc == MF_OK)
        rc = reserve_union(s, &u, res, err);
    if (rc == MF_OK) {
        lay_out_parts(&u);
        rc = upload_union(s, &u, err);
    }
    if (rc == MF_OK)
        rc = solve_and_read(s, &u, res, mf_now() - t0, err);
    union_free(&u);
    if (rc)
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
