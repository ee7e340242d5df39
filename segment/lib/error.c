/* Error codes and messages of the segmentation library, its clock, and
 * the share of memory its caches may keep. */
#define _POSIX_C_SOURCE 200809L
#include "seg_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

size_t seg_memory_share(size_t bytes)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && bytes > (size_t)pages / 4 * (size_t)page)
        bytes = (size_t)pages / 4 * (size_t)page;
    return bytes;
}

double seg_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int seg_fail(seg_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *seg_strerror(int code)
{
    switch (code) {
    case SEG_OK: return "success";
    case SEG_ERR_NOMEM: return "out of memory";
    case SEG_ERR_INVALID: return "invalid argument";
    case SEG_ERR_IO: return "input/output error";
    case SEG_ERR_NEED_SEEDS: return "both a foreground and a background seed are needed";
    case SEG_ERR_MODEL: return "colour models or network could not be built";
    case SEG_ERR_SOLVE: return "max-flow solve failed";
    case SEG_ERR_IMAGE: return "image could not be read";
    default: return "unknown error";
    }
}
