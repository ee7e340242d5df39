/* Large arrays: page-aligned and mapped in one call, or on transparent
 * huge pages from 2 MiB (see mf_alloc_big in maxflow.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "internal.h"

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

void *mf_alloc_big(size_t bytes)
{
    if (bytes < POPULATE_MIN)
        return malloc(bytes ? bytes : 1);
    size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : SMALL_PAGE;
    if (bytes > SIZE_MAX - align)
        return NULL;
    size_t rounded = (bytes + align - 1) & ~(align - 1);
    void *p = NULL;
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
