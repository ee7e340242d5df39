/* The similarity table exp(-beta * d2) that the n-link weights (build.c)
 * and the geodesic step costs (geodesic.c, prior.c) read: one file below
 * both, so that neither includes or calls the other for it. */
#include "flowcut/graphbuild.h"
#include "gb_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct similarity_job {
    double beta, *table;
    const _Atomic uint8_t *present;
    int32_t lo, hi;
} similarity_job;

static void *similarity_rows(void *arg)
{
    similarity_job *j = arg;
    for (int32_t d2 = j->lo; d2 < j->hi; d2++)
        j->table[d2] = !j->present || atomic_load_explicit(&j->present[d2], memory_order_relaxed)
                           ? exp(-j->beta * d2)
                           : 0.0;
    return NULL;
}

double *gb_similarity_table(double beta, int threads)
{
    return gb_similarity_table_for(beta, NULL, threads);
}

double *gb_similarity_table_for(double beta, const _Atomic uint8_t *present, int threads)
{
    double *table = mf_alloc_big(sizeof(double) * (GB_DIST2_MAX + 1));
    if (!table)
        return NULL;
    similarity_job jobs[16];
    int count = threads < 1 ? 1 : threads > 16 ? 16 : threads; /* 195,076 values: a few ms on one core */
    if (present && count > 4)
        count = 4; /* a photo has a few thousand of them */
    for (int t = 0; t < count; t++)
        jobs[t] = (similarity_job){beta, table, present, (int32_t)((int64_t)(GB_DIST2_MAX + 1) * t / count),
                                   (int32_t)((int64_t)(GB_DIST2_MAX + 1) * (t + 1) / count)};
    gb_run_threads(similarity_rows, jobs, sizeof jobs[0], count);
    return table;
}

/* beta as gb_build estimates it: over every pixel's forward pairs (E, S,
 * and SE, SW with 8 neighbours), in integers, so the same on any split. */
double gb_estimate_beta(const uint8_t *rgb, int32_t w, int32_t h, int connectivity)
{
    static const int DX[4] = {1, 0, 1, -1}, DY[4] = {0, 1, 1, 1};
    const int nd = connectivity == 4 ? 2 : 4;
    int64_t sum = 0, pairs = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            for (int d = 0; d < nd; d++) {
                int32_t qx = x + DX[d], qy = y + DY[d];
                if (qx < 0 || qx >= w || qy >= h)
                    continue;
                sum += gb_colour_dist2(rgb + 3 * ((int64_t)y * w + x), rgb + 3 * ((int64_t)qy * w + qx));
                pairs++;
            }
    return pairs && sum > 0 ? 1.0 / (2.0 * (double)sum / (double)pairs) : 0.0;
}
