/* The library's threads: how many (mf_threads, mf_cpu_threads: the one
 * place that resolves "0 = every core") and a parallel for over vertex
 * ranges on pthreads, for the O(n + m) set-up passes of the reader and the
 * CPU engines, which are a serial stretch of a solve otherwise. The graph
 * layer (graph.c, residual.c, dimacs.c) and the engines both call down
 * into this file; it calls nothing above it. */
#include "internal.h"

#include <pthread.h>
#include <unistd.h>

#define MAX_PARTS 64

typedef struct part {
    void (*fn)(void *, int32_t, int32_t);
    void *ctx;
    int32_t lo, hi;
} part;

static void *part_main(void *arg)
{
    part *p = arg;
    p->fn(p->ctx, p->lo, p->hi);
    return NULL;
}

void mf_parallel_for(int threads, int32_t n, int32_t grain, void (*fn)(void *ctx, int32_t lo, int32_t hi),
                     void *ctx)
{
    int k = threads < MAX_PARTS ? threads : MAX_PARTS;
    if (grain < 1)
        grain = 1;
    if ((int64_t)k * grain > n)
        k = (int)(n / grain);
    if (k <= 1) {
        fn(ctx, 0, n);
        return;
    }
    part parts[MAX_PARTS];
    pthread_t tid[MAX_PARTS];
    int started[MAX_PARTS] = {0};
    for (int i = 0; i < k; i++) {
        parts[i] = (part){fn, ctx, (int32_t)((int64_t)n * i / k), (int32_t)((int64_t)n * (i + 1) / k)};
        if (i)
            started[i] = pthread_create(&tid[i], NULL, part_main, &parts[i]) == 0;
    }
    part_main(&parts[0]);
    for (int i = 1; i < k; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            part_main(&parts[i]); /* no thread to be had: here */
    }
}

int mf_threads(int requested)
{
    if (requested > 0)
        return requested;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int mf_cpu_threads(const mf_options *opt)
{
    return mf_threads(opt ? opt->threads : 0);
}
