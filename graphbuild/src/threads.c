/* The threads of graphbuild's passes: how many (gb_threads, through the
 * library-wide mf_threads) and how they run (gb_run_threads). Apart from
 * build.c and geodesic.c so that both call down to it and neither calls
 * the other's helpers. */
#include "flowcut/graphbuild.h"
#include "gb_internal.h"
#include "flowcut_threads.h"

#include <pthread.h>

void gb_run_threads(void *(*fn)(void *), void *items, size_t size, int count)
{
    pthread_t tid[GB_RUN_MAX];
    int started[GB_RUN_MAX];
    char *item = items;
    for (int t = 0; t < count; t++)
        started[t] = t > 0 && pthread_create(&tid[t], NULL, fn, item + (size_t)t * size) == 0;
    for (int t = 0; t < count; t++)
        if (!started[t])
            fn(item + (size_t)t * size);
    for (int t = 1; t < count; t++)
        if (started[t])
            pthread_join(tid[t], NULL);
}

int gb_threads(const gb_params *p)
{
    return mf_threads(p->threads);
}
