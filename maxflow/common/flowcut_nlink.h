/* The n-link arithmetic of an image network, written once for the host and
 * the device: graphbuild (graphbuild/src/build.c) builds the CSR network
 * with it, and the GPU engine (maxflow/src/gpu/grid.cu) expands a grid
 * form (mf_grid) into the same network on the device with it.
 *
 * The rule: both must give the same int32 capacities to the bit.
 * mf_gpu_solve_many_grids promises the value and the canonical cut of the
 * CSR network the host would have built; one weight off by one can move
 * the cut. So every operation is rounded on its own, in the written order:
 * on the device through the round-to-nearest intrinsics, because nvcc
 * contracts a * b + c into a fused multiply-add by default; on the host
 * through plain C11, which the build compiles in ISO mode (-std=c11:
 * -ffp-contract=off). Change the arithmetic here and both change together.
 *
 * A pixel stores the arcs to its forward neighbours, each arc carrying both
 * directions; nd = 2 (4-connectivity) uses the first two, nd = 4
 * (8-connectivity) all four. Weights sit at w[p * nd + d], p = y * W + x. */
#ifndef FLOWCUT_NLINK_H
#define FLOWCUT_NLINK_H

#include "flowcut_hd.h"

#include <stdint.h>

/* The forward neighbours' offsets in order E, S, SE, SW, as initialisers
 * for tables (`static const int FDX[4] = FC_NLINK_DX;`). */
#define FC_NLINK_DX {1, 0, 1, -1}
#define FC_NLINK_DY {0, 1, 1, 1}

/* The same offsets as functions, for code without a table. */
FLOWCUT_HD static inline int fc_nlink_dx(int d) { return d == 1 ? 0 : d == 3 ? -1 : 1; }
FLOWCUT_HD static inline int fc_nlink_dy(int d) { return d == 0 ? 0 : 1; }

/* The length of direction d: 1 for E and S, sqrt 2 (M_SQRT2) for SE, SW. */
FLOWCUT_HD static inline double fc_nlink_dist(int d) { return d >= 2 ? 1.41421356237309504880 : 1.0; }

/* The capacity of the pair in direction d whose squared colour distance is
 * c: (int32_t)(wscale * sim[c] / dist + 0.5), sim[c] = exp(-beta c) (the
 * similarity table); 0 where there is no neighbour (c < 0). */
FLOWCUT_HD static inline int32_t fc_nlink_weight(double wscale, const double *sim, int32_t c, int d)
{
    if (c < 0)
        return 0;
    const double dist = fc_nlink_dist(d);
#ifdef __CUDA_ARCH__
    return __double2int_rz(__dadd_rn(__ddiv_rn(__dmul_rn(wscale, sim[c]), dist), 0.5));
#else
    return (int32_t)(wscale * sim[c] / dist + 0.5);
#endif
}

/* The sum of the weights of every n-link of pixel (x, y) of a grid W
 * pixels wide: its forward ones, stored at it, and the backward ones,
 * stored at the neighbours that have it as forward neighbour d. A seed's
 * capacity is one more than the largest such sum (no cut through a seed
 * can be cheaper than one around it). */
FLOWCUT_HD static inline int32_t fc_nlink_weight_sum(const int32_t *w, int32_t W, int nd, int32_t x, int32_t y)
{
    const int64_t p = (int64_t)y * W + x;
    int32_t sum = 0;
    for (int d = 0; d < nd; d++) {
        sum += w[p * nd + d];
        const int32_t bx = x - fc_nlink_dx(d), by = y - fc_nlink_dy(d);
        if (bx >= 0 && bx < W && by >= 0)
            sum += w[(p - (int64_t)fc_nlink_dy(d) * W - fc_nlink_dx(d)) * nd + d];
    }
    return sum;
}

#endif
