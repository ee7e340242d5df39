/* Large arrays: page-aligned and mapped in one call, or on transparent
 * huge pages from 2 MiB (see mf_alloc_big in maxflow.h), and an optional
 * cache of released ones for long-running callers. */
#define _DEFAULT_SOURCE /* madvise */
#define _GNU_SOURCE     /* malloc_usable_size */
#include "internal.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define SMALL_PAGE ((size_t)4 << 10)
/* below this a block is a few pages: the faults cost less than a call */
#define POPULATE_MIN ((size_t)64 << 10)
/* Linux 5.14; older kernels answer EINVAL and the pages fault as usual */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The cache of released blocks. Why: a batch frees a photo's arrays and
 * allocates the next photo's moments later, but glibc hands out fresh
 * pages (aligned blocks of varying sizes fragment its heap, which keeps
 * growing over a batch), and the kernel zeroes every fresh page: a
 * sizeable part of a CPU batch's time. Blocks are kept in
 * release order and the oldest go first when the limit is reached. */
#define CACHE_SLOTS 256
typedef struct {
    void *p;
    size_t size; /* usable bytes */
} cached_block;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cached_block cache[CACHE_SLOTS];
static int cache_count;
static size_t cache_bytes;
static _Atomic size_t cache_limit; /* read without the lock to skip it when 0 */

static size_t align_for(size_t bytes) { return bytes >= HUGE_PAGE ? HUGE_PAGE : SMALL_PAGE; }

static void cache_drop(int i) /* cache_lock held; the caller frees */
{
    cache_bytes -= cache[i].size;
    memmove(cache + i, cache + i + 1, sizeof cache[0] * (size_t)(cache_count - i - 1));
    cache_count--;
}

/* The smallest cached block that holds bytes with the alignment its size
 * calls for and is at most 8 times as large (the photos of one batch
 * differ in size); NULL when none. */
static void *cache_take(size_t bytes)
{
    const size_t align = align_for(bytes);
    void *p = NULL;
    pthread_mutex_lock(&cache_lock);
    int best = -1;
    for (int i = 0; i < cache_count; i++) {
        const cached_block *c = &cache[i];
        if (c->size < bytes || c->size / 8 > bytes || ((uintptr_t)c->p & (align - 1)))
            continue;
        if (best < 0 || c->size < cache[best].size)
            best = i;
    }
    if (best >= 0) {
        p = cache[best].p;
        cache_drop(best);
    }
    pthread_mutex_unlock(&cache_lock);
    return p;
}

void mf_alloc_cache_limit(size_t bytes)
{
    void *drop[CACHE_SLOTS];
    int n = 0;
    pthread_mutex_lock(&cache_lock);
    cache_limit = bytes;
    while (cache_count > 0 && cache_bytes > cache_limit) {
        drop[n++] = cache[0].p;
        cache_drop(0);
    }
    pthread_mutex_unlock(&cache_lock);
    for (int i = 0; i < n; i++)
        free(drop[i]);
}

void mf_free_big(void *p)
{
    if (!p)
        return;
    const size_t size = malloc_usable_size(p);
    /* only page-aligned blocks from mf_alloc_big are worth keeping */
    if (size < POPULATE_MIN || ((uintptr_t)p & (SMALL_PAGE - 1))) {
        free(p);
        return;
    }
    void *drop[CACHE_SLOTS + 1];
    int n = 0;
    pthread_mutex_lock(&cache_lock);
    if (size > cache_limit) {
        drop[n++] = p;
    } else {
        while (cache_count > 0 && (cache_count == CACHE_SLOTS || cache_bytes + size > cache_limit)) {
            drop[n++] = cache[0].p;
            cache_drop(0);
        }
        cache[cache_count++] = (cached_block){p, size};
        cache_bytes += size;
    }
    pthread_mutex_unlock(&cache_lock);
    for (int i = 0; i < n; i++)
        free(drop[i]);
}

void *mf_alloc_big(size_t bytes)
{
    if (bytes < POPULATE_MIN)
        return malloc(bytes ? bytes : 1);
    const size_t align = align_for(bytes);
    if (bytes > SIZE_MAX - align)
        return NULL;
    size_t rounded = (bytes + align - 1) & ~(align - 1);
    void *p = atomic_load_explicit(&cache_limit, memory_order_relaxed) ? cache_take(rounded) : NULL;
    if (p)
        return p;
    if (posix_memalign(&p, align, rounded) != 0)
        return NULL;
    /* hints: failure is harmless. Huge pages fault once per 2 MiB, and the
     * threads that fill a big array first touch it in parallel; small
     * pages are mapped here in one call instead of faulting one by one */
    if (align == SMALL_PAGE)
        (void)madvise(p, rounded, MADV_POPULATE_WRITE);
#ifdef MADV_HUGEPAGE
    else
        (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

void *mf_calloc_big(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = mf_alloc_big(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

/* The allocation countdown of mf_test_fail_allocation (< 0: none). */
static _Atomic int64_t fail_countdown = -1;

void mf_test_fail_allocation(int64_t after)
{
    atomic_store(&fail_countdown, after);
}

void *mf_malloc(size_t size)
{
    if (atomic_load_explicit(&fail_countdown, memory_order_relaxed) >= 0 && atomic_fetch_sub(&fail_countdown, 1) == 0)
        return NULL;
    return malloc(size);
}
