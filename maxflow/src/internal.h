/* Helpers shared by the maxflow library's translation units. */
#ifndef FLOWCUT_MAXFLOW_INTERNAL_H
#define FLOWCUT_MAXFLOW_INTERNAL_H

#include "flowcut/maxflow.h"
#include "flowcut/maxflow_grid.h"
#include "flowcut_threads.h"

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills err (when not NULL) and returns code, so that callers can write
 * `return mf_fail(err, MF_ERR_PARSE, file, line, "...")`. */
int mf_fail(mf_error *err, int code, const char *file, int64_t line,
            const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

double mf_now(void);

/* flow is left NULL unless with_flow. */
int mf_result_alloc(mf_result *r, const mf_graph *g, int with_flow);

/* malloc, except that tests can make one call fail: after
 * mf_test_fail_allocation(n) the n-th call from then on (counting from 0)
 * returns NULL, once; n < 0 turns that off. For the failure paths of code
 * whose allocations happen on worker threads (BK's blocks). */
void *mf_malloc(size_t size);
void mf_test_fail_allocation(int64_t after);

/* One residual arc; each stored arc appears twice (forward from its tail,
 * reverse from its head) and sister links the pair. rres mirrors the
 * sister's res: searches that walk toward a terminal (global relabel, the
 * BK trees) test the arc into the vertex without a random access. */
typedef struct mf_rarc {
    int32_t head;
    int32_t res;
    int32_t rres;
    int32_t sister;
} mf_rarc;

/* Sends delta along arc r, keeping both copies of both residuals. */
static inline void mf_rarc_push(mf_rarc *arcs, int32_t r, int32_t delta)
{
    mf_rarc *a = &arcs[r], *b = &arcs[a->sister];
    a->res -= delta;
    a->rres += delta;
    b->res += delta;
    b->rres -= delta;
}

/* Residual graph: vertex v's arcs are arcs[first[v] .. first[v+1]), its
 * stored (forward) arcs first, in stored order. */
typedef struct mf_residual {
    int32_t *first;
    mf_rarc *arcs;
} mf_residual;

/* Position of stored arc a (tail u) among the residual arcs: the flow on
 * a is arc_cap[a] - arcs[position].res. */
static inline int32_t mf_residual_forward(const mf_residual *r, const mf_graph *g, int32_t u,
                                          int32_t a)
{
    return r->first[u] + (a - g->out_start[u]);
}

int mf_residual_init(mf_residual *r, const mf_graph *g);
/* The same, built on up to threads threads. */
int mf_residual_init_threads(mf_residual *r, const mf_graph *g, int threads);

/* The same without the arcs that have a terminal at either end, for
 * engines that keep terminal capacity per vertex and want only the cut
 * (mf_residual_forward does not apply to it). */
int mf_residual_init_interior(mf_residual *r, const mf_graph *g, int threads);

/* Threads for one CPU solve or set-up pass: mf_threads(opt->threads), all
 * cores for a NULL opt (parallel.c). */
int mf_cpu_threads(const mf_options *opt);

/* Canonical cut from a residual graph: source_side[v] = 0 for vertices
 * that reach a vertex of queue[0 .. count) (the sink, or what stands for
 * it) through arcs with residual capacity, 1 for the rest. Vertex stop
 * (-1: none) is never entered; source_side must hold 1 everywhere but at
 * the starting vertices, which hold 0. queue has room for n vertices. */
void mf_residual_cut(const mf_residual *r, int32_t *queue, int32_t count, int32_t stop,
                     uint8_t *source_side);
void mf_residual_free(mf_residual *r);

/* GPU side of the warm re-solve (gpu_engine.cu; gpu_stub.c without CUDA).
 * load uploads g and zeroes the flow state; update applies count capacity
 * changes (stored arc, its tail or -1 to find it on the device, its head,
 * new cap and rcap; one entry per
 * arc) to the device state and sets *deficits to 1 when a vertex other
 * than a terminal was left with negative excess, *removed to the flow the
 * new bounds cut off; solve runs from the
 * device state (g gives the terminals, sizes and flow_offset). */
int mf_gpu_dyn_load(mf_gpu_solver *s, const mf_graph *g, mf_error *err);
int mf_gpu_dyn_update(mf_gpu_solver *s, const mf_graph *g, int32_t count, const int32_t *changes,
                      int *deficits, int64_t *removed, mf_error *err);
/* mf_gpu_dyn_load where the device holds g's arcs from an earlier load of
 * the same graph: its capacities uploaded, the flow state zeroed (a whole
 * load when the sizes differ). */
int mf_gpu_dyn_load_caps(mf_gpu_solver *s, const mf_graph *g, mf_error *err);
/* Zero flow on the capacities the device holds (cold start, no upload). */
int mf_gpu_dyn_reset(mf_gpu_solver *s, const mf_graph *g, mf_error *err);
int mf_gpu_dyn_solve(mf_gpu_solver *s, const mf_graph *g, const mf_options *opt, int deficits,
                     mf_result *res, mf_error *err);

/* splitmix64: small, fast, and identical on every platform. */
static inline uint64_t mf_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static inline int32_t mf_rng_range(uint64_t *state, int32_t lo, int32_t hi)
{
    uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
    return (int32_t)(lo + (int64_t)(mf_rng_next(state) % span));
}

#ifdef __cplusplus
}
#endif
#endif
