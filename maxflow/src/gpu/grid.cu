/* Grid forms (mf_grid) expanded on the device into the CSR network that
 * graphbuild would have built on the host (gb_grid_to_graph), to the bit:
 * the capacities from the table indices and the hard terminals' capacity
 * with the arithmetic of flowcut_nlink.h, which graphbuild compiles too,
 * then the arcs laid out as graphbuild lays them out. */
#include "gpu_engine.cuh"
#include "flowcut_nlink.h"

/* One grid part (mf_grid) on the device: its weights and terminal
 * capacities, and per row the arcs before it (exclusive prefix sums: the
 * pixels' out-arcs, their in-arcs, the source arcs). */
struct grid_part {
    const int32_t *__restrict__ w, *__restrict__ term;
    const int32_t *__restrict__ row_out, *__restrict__ row_in, *__restrict__ row_src;
    const int32_t *__restrict__ kmax; /* hard terminals (MF_GRID_HARD): *kmax + 1; NULL: none */
    int32_t width, height, nd, all_terminals;
};

/* A grid part's capacities from its table indices, in place:
 * fc_nlink_weight, graphbuild's arithmetic to the bit (flowcut_nlink.h). */
__global__ void __launch_bounds__(256) grid_weights(int32_t *__restrict__ w, int64_t pairs, int nd,
                                                    const double *__restrict__ sim, int32_t sim_size, double wscale)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < pairs; i += (int64_t)gridDim.x * blockDim.x) {
        const int32_t c = w[i];
        w[i] = c >= sim_size ? 0 : fc_nlink_weight(wscale, sim, c, (int)(i % nd));
    }
}

/* The largest n-link weight sum of one pixel (fc_nlink_weight_sum, as
 * graphbuild's pass_kmax) into *kmax (zeroed before): the hard terminals'
 * capacity is one more. */
__global__ void __launch_bounds__(256) grid_kmax(const int32_t *__restrict__ w, int32_t W, int32_t H, int nd,
                                                 int32_t *kmax)
{
    int32_t best = 0;
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < (int64_t)W * H;
         p += (int64_t)gridDim.x * blockDim.x) {
        const int32_t sum = fc_nlink_weight_sum(w, W, nd, (int32_t)(p % W), (int32_t)(p / W));
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
    const int fdx[4] = FC_NLINK_DX, fdy[4] = FC_NLINK_DY; /* E, S, SE, SW: graphbuild's order */
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
                if (g.kmax && (t == MF_GRID_HARD || t == -MF_GRID_HARD))
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

/* The shape of the CSR network a grid form stands for (gb_grid_to_graph's
 * layout); -1 when it is not a valid grid or too large. */
int grid_shape(const mf_grid *g, part_shape *sh, int64_t *nlinks_out)
{
    if (!g || !g->w || !g->term || !g->row_sources || !g->row_sinks || g->width < 1 || g->height < 1 ||
        (g->nd != 2 && g->nd != 4) || (g->table && (g->table_size < 1 || !(g->table_scale >= 0))))
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

/* Grid part i of a union at its place p: its rows' prefix sums (into
 * prefix, 3 x height ints on the host), its weights or distances, capacities
 * and prefix sums uploaded at *gpos of s->grid_buf, its similarity table
 * at *spos of s->sim_buf (both advanced), the weights and the seeds'
 * capacity computed on the device when the grid left them to the solver,
 * then the expansion. Queued on the solver's stream. */
int upload_grid_part(mf_gpu_solver *s, const mf_grid *g, int i, const part_map &p, int32_t *prefix, int64_t *gpos,
                     int64_t *spos, mf_error *err)
{
    int rc = MF_OK;
    cudaStream_t st = s->stream;
    const int32_t H = g->height, W = g->width;
    const int64_t npx = (int64_t)W * H;
    const int32_t full = g->nd == 4 ? 4 * W - 3 : 2 * W - 1;
    int32_t *row_out = prefix, *row_in = row_out + H, *row_src = row_in + H;
    int32_t out = 0, in = 0, src = 0;
    for (int32_t y = 0; y < H; y++) { /* the pixels' arcs before row y */
        row_out[y] = out;
        row_in[y] = in;
        row_src[y] = src;
        out += (y < H - 1 ? full : W - 1) + g->row_sinks[y];
        in += (y > 0 ? full : W - 1) + g->row_sources[y];
        src += g->row_sources[y];
    }
    int32_t *dw = s->grid_buf + *gpos, *dterm = dw + npx * g->nd, *drows = dterm + npx;
    CUDA_TRY(cudaMemcpyAsync(dw, g->w, (size_t)npx * g->nd * 4, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(dterm, g->term, (size_t)npx * 4, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(drows, row_out, (size_t)H * 3 * 4, cudaMemcpyHostToDevice, st));
    *gpos += npx * (g->nd + 1) + 3 * (int64_t)H;
    {
        const int32_t *kmax = NULL;
        if (g->table) { /* the capacities and the hard terminals', on the device */
            double *dsim = s->sim_buf + *spos;
            CUDA_TRY(cudaMemcpyAsync(dsim, g->table, (size_t)g->table_size * 8, cudaMemcpyHostToDevice, st));
            *spos += g->table_size;
            CUDA_TRY(cudaMemsetAsync(s->grid_k + i, 0, sizeof(int32_t), st));
            const int64_t pairs = npx * g->nd;
            const int wb = pairs / 256 + 1 < s->sm_count * 8 ? (int)(pairs / 256 + 1) : s->sm_count * 8;
            grid_weights<<<wb, 256, 0, st>>>(dw, pairs, g->nd, dsim, g->table_size, g->table_scale);
            const int kb = npx / 256 + 1 < s->sm_count * 8 ? (int)(npx / 256 + 1) : s->sm_count * 8;
            grid_kmax<<<kb, 256, 0, st>>>(dw, W, H, g->nd, s->grid_k + i);
            kmax = s->grid_k + i;
        }
        const grid_part gp = {dw, dterm, drows, drows + H, drows + 2 * H, kmax, W, H, g->nd, g->all_terminals};
        const int blocks = H < s->sm_count * 8 ? H : s->sm_count * 8;
        grid_expand<<<blocks, 256, 0, st>>>(s->d, p, gp);
    }
    return MF_OK;
fail:
    return rc;
}
