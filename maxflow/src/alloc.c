/* Large allocations backed by transparent huge pages when available. */
#define _DEFAULT_SOURCE /* madvise */
#include "internal.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *mf_alloc_big(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE) {
        size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = NULL;
        if (posix_memalign(&p, HUGE_PAGE, rounded) != 0)
            return NULL;
        (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint: failure is harmless */
        return p;
    }
#endif
    return malloc(bytes ? bytes : 1);
}
