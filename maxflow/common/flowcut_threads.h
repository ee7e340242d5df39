/* The thread count of the library's parallel work, resolved in one place
 * (maxflow/src/parallel.c) for every module: the max-flow set-up passes
 * and engines, the DIMACS reader, graphbuild's bands. Not installed: a
 * header the modules share, not part of the public API. */
#ifndef FLOWCUT_THREADS_H
#define FLOWCUT_THREADS_H

#ifdef __cplusplus
extern "C" {
#endif

/* requested when above 0; 0 (or below): every online core, at least 1.
 * The one place the library asks the system how many cores it has, so
 * that "0 threads = all cores" means the same everywhere. */
int mf_threads(int requested);

#ifdef __cplusplus
}
#endif

#endif
