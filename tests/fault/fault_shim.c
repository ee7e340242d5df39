/* LD_PRELOAD fault injection for the fault tests (test code, never linked
 * into flowcut). Every fault is off unless its variable is set:
 *   FAULT_WRITE_LIMIT=N   write() to regular files fails with ENOSPC once N
 *                         bytes in all have been written (the write that
 *                         crosses N writes what fits, as a full disk does)
 *   FAULT_FSYNC_FAIL=1    fsync()/fdatasync() of regular files fail with ENOSPC
 *   FAULT_MALLOC_NTH=N    the N-th allocation (malloc, calloc, realloc,
 *                         posix_memalign, aligned_alloc) fails, counted from
 *                         main: the global constructors before it (the CUDA
 *                         runtime's registrations) are not flowcut's to
 *                         recover; FAULT_MALLOC_STICKY=1: every one from the
 *                         N-th on
 *   FAULT_MALLOC_ABOVE=B  every allocation of more than B bytes fails
 *   FAULT_MALLOC_COUNT=1  prints "fault_shim: N allocations" on stderr at exit
 * stdio writes through glibc's internal write, which no preload sees: the
 * write faults reach code that calls write() itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static long long g_write_limit = -1, g_malloc_nth = -1, g_malloc_above = -1;
static int g_fsync_fail, g_sticky, g_report, g_ready;
static atomic_llong g_written, g_allocs;

static long long env_ll(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? strtoll(v, NULL, 10) : -1;
}

__attribute__((constructor)) static void init(void)
{
    g_write_limit = env_ll("FAULT_WRITE_LIMIT");
    g_fsync_fail = env_ll("FAULT_FSYNC_FAIL") > 0;
    g_malloc_nth = env_ll("FAULT_MALLOC_NTH");
    g_sticky = env_ll("FAULT_MALLOC_STICKY") > 0;
    g_malloc_above = env_ll("FAULT_MALLOC_ABOVE");
    g_report = env_ll("FAULT_MALLOC_COUNT") > 0;
}

/* Arms the allocation faults as main starts: glibc calls the constructors
 * from inside __libc_start_main, before main. */
typedef int (*main_fn)(int, char **, char **);
static main_fn g_main;

static int armed_main(int argc, char **argv, char **envp)
{
    g_ready = 1;
    return g_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
    typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
    start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    g_main = main;
    return real(armed_main, argc, argv, init, fini, rtld_fini, stack_end);
}

__attribute__((destructor)) static void report(void)
{
    if (g_report) {
        char line[64];
        int n = snprintf(line, sizeof line, "fault_shim: %lld allocations\n", (long long)atomic_load(&g_allocs));
        ssize_t w = write(STDERR_FILENO, line, (size_t)n);
        (void)w;
    }
}

/* 1 when this allocation is to fail */
static int alloc_fails(size_t size)
{
    if (!g_ready)
        return 0;
    long long k = atomic_fetch_add(&g_allocs, 1) + 1;
    if (g_malloc_above >= 0 && (long long)size > g_malloc_above)
        return 1;
    return g_malloc_nth > 0 && (k == g_malloc_nth || (g_sticky && k > g_malloc_nth));
}

void *malloc(size_t size)
{
    if (alloc_fails(size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    if (alloc_fails(size && n > SIZE_MAX / size ? SIZE_MAX : n * size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    if (alloc_fails(size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (alloc_fails(size))
        return ENOMEM;
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
    if (alloc_fails(size)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_memalign(align, size);
}

static int regular(int fd)
{
    struct stat st;
    return fd > STDERR_FILENO && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

ssize_t write(int fd, const void *buf, size_t count)
{
    static ssize_t (*real_write)(int, const void *, size_t);
    if (!real_write)
        real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (g_write_limit >= 0 && count > 0 && regular(fd)) {
        long long before = atomic_fetch_add(&g_written, (long long)count);
        if (before >= g_write_limit) {
            errno = ENOSPC;
            return -1;
        }
        if (before + (long long)count > g_write_limit)
            count = (size_t)(g_write_limit - before);
    }
    return real_write(fd, buf, count);
}

int fsync(int fd)
{
    static int (*real_fsync)(int);
    if (!real_fsync)
        real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (g_fsync_fail && regular(fd)) {
        errno = ENOSPC;
        return -1;
    }
    return real_fsync(fd);
}

int fdatasync(int fd)
{
    static int (*real_fdatasync)(int);
    if (!real_fdatasync)
        real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    if (g_fsync_fail && regular(fd)) {
        errno = ENOSPC;
        return -1;
    }
    return real_fdatasync(fd);
}
