/* Timing helpers shared by the benchmarks: a monotonic clock and the
 * median of the repeats (sorts v in place). */
#ifndef FLOWCUT_BENCH_UTIL_H
#define FLOWCUT_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double bench_median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, bench_cmp_double);
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

#endif
