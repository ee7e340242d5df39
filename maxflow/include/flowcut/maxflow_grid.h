/* Grid networks in compact form, for the GPU engine: a 2-D grid of
 * vertices, each joined to its forward neighbours by arcs of one capacity
 * both ways and to one terminal, stored as about 20 bytes a vertex instead
 * of the CSR network's 100 and expanded into that CSR network on the
 * device (mf_gpu_solve_many_grids). A builder of image networks
 * (graphbuild's gb_build_grid) writes them; the max-flow library reads
 * only the grid, the capacity table and the hard terminals defined here,
 * never what they mean to the builder. */
#ifndef FLOWCUT_MAXFLOW_GRID_H
#define FLOWCUT_MAXFLOW_GRID_H

#include "flowcut/maxflow.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Vertices v = y * width + x, then the source (width * height) and the
 * sink (+ 1). nd forward directions a vertex: E, S (nd 2) and SE, SW
 * (nd 4) (flowcut_nlink.h's order); w[v * nd + d] is the capacity both
 * ways of the arc from v to its neighbour d where that neighbour exists.
 * term[v] > 0: the arc source -> v of that capacity; < 0: v -> sink of
 * -term[v]; all_terminals: both arcs at every vertex, zero or not.
 * row_sources[y], row_sinks[y]: the source and sink arcs of row y. The
 * CSR network it stands for: vertex v's arcs are its neighbour arcs in
 * direction order, then its sink arc; the source's arcs follow every
 * vertex's, by vertex; the sink has none. */
typedef struct mf_grid {
    int32_t width, height, nd, all_terminals;
    int32_t *w, *term;
    int32_t *row_sources, *row_sinks;
    int64_t flow_offset; /* pre-cancelled terminal capacity, added to the value */
    /* Capacities left to the device to compute, or table NULL (w holds
     * them). Then w[v * nd + d] is an index c into the table (-1 where no
     * neighbour; below table_size) and the capacity is
     * (int32_t)(table_scale * table[c] / dist + 0.5), dist 1 for E and S,
     * sqrt 2 for SE and SW (fc_nlink_weight, the builder's own arithmetic);
     * and term[v] = MF_GRID_HARD (-MF_GRID_HARD) marks a hard source
     * (sink) arc, one no minimum cut crosses: its capacity is 1 + the
     * largest sum of one vertex's neighbour capacities. */
    double *table;
    int32_t table_size;
    double table_scale;
} mf_grid;
#define MF_GRID_HARD INT32_MAX
void mf_grid_free(mf_grid *grid);

/* mf_gpu_solve_many for grid networks: each expanded on the device into
 * the network above, so the same value and the same canonical cut. */
int mf_gpu_solve_many_grids(mf_gpu_solver *s, const mf_grid *const *grids, int k, const mf_options *opt,
                            mf_result *res, mf_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
