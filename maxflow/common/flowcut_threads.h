/* The thread count of the library's parallel work, resolved in one place
 * (maxflow/src/parallel.c) for every module: the max-flow set-up passes
 * and engines, the DIMACS reader, graphbuild's bands, a session's
 * preview; and the parallel for over ranges they share. Not installed: a
 * header the modules share, not part of the public API. */
#ifndef FLOWCUT_THREADS_H
#define FLOWCUT_THREADS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* requested when above 0; 0 (or below): every online core, at least 1.
 * The one place the library asks the system how many cores it has, so
 * that "0 threads = all cores" means the same everywhere. */
int mf_threads(int requested);

/* Calls fn(ctx, lo, hi) on up to threads threads over ranges of [0, n)
 * of at least grain items (maxflow/src/parallel.c); returns when all are
 * done. Where a thread cannot be started its range runs on the caller's. */
void mf_parallel_for(int threads, int32_t n, int32_t grain, void (*fn)(void *ctx, int32_t lo, int32_t hi),
                     void *ctx);

#ifdef __cplusplus
}
#endif

#endif
