/* Atomic, durable saves (save.h): temporary name, lock, fsync, rename,
 * folder fsync. */
#define _GNU_SOURCE /* flock, fopencookie, O_DIRECTORY */
#include "save.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>


/* Temporary names being written, so that an interrupt can remove them. */
#define MAX_OPEN_TEMPS 256
static char *g_open_tmp[MAX_OPEN_TEMPS];
static pthread_mutex_t g_open_lock = PTHREAD_MUTEX_INITIALIZER;

static void track(char *tmp, int add)
{
    pthread_mutex_lock(&g_open_lock);
    for (int i = 0; i < MAX_OPEN_TEMPS; i++) {
        if (add && !g_open_tmp[i]) {
            g_open_tmp[i] = tmp;
            break;
        }
        if (!add && g_open_tmp[i] == tmp) {
            g_open_tmp[i] = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&g_open_lock);
}

void seg_out_abort_all(void)
{
    for (int i = 0; i < MAX_OPEN_TEMPS; i++)
        if (g_open_tmp[i])
            unlink(g_open_tmp[i]);
}

#define TEMP_MARK ".tmp-"
#define TEMP_RANDOM 6
static const char temp_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

int seg_is_temp_name(const char *name)
{
    size_t n = strlen(name), tail = strlen(TEMP_MARK) + TEMP_RANDOM;
    if (name[0] != '.' || n < 2 + tail || strncmp(name + n - tail, TEMP_MARK, strlen(TEMP_MARK)))
        return 0;
    for (size_t i = n - TEMP_RANDOM; i < n; i++)
        if (!memchr(temp_chars, name[i], sizeof temp_chars - 1))
            return 0;
    return 1;
}

static void random_suffix(char out[TEMP_RANDOM + 1])
{
    static atomic_uint_fast64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = ((uint64_t)getpid() << 40) ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^
                 ((uint64_t)atomic_fetch_add(&counter, 1) * 0x9E3779B97F4A7C15ull);
    x ^= x >> 30; /* splitmix64's finalizer */
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    for (int i = 0; i < TEMP_RANDOM; i++, x /= sizeof temp_chars - 1)
        out[i] = temp_chars[x % (sizeof temp_chars - 1)];
    out[TEMP_RANDOM] = 0;
}

/* Creates path's temporary file, locked, and tracks it; returns its fd, or
 * -1 with msg filled. Mode 0666 through open() so that the umask applies,
 * as to any file a program creates (mkstemp's 0600 would not). The lock
 * marks the file as being written for seg_remove_stale_temps in another
 * process (a concurrent shard writing to the same folder): flock's lock
 * belongs to the open file and dies with the process, also under kill -9,
 * where a pid in the name could be reused by an unrelated process. */
static int temp_create(const char *path, char *tmp, size_t tmp_size, char *msg, size_t msg_size)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
    if (!path[dir_len]) {
        snprintf(msg, msg_size, "%s: cannot create: not a file name", path);
        return -1;
    }
    if (strlen(path) + 2 + strlen(TEMP_MARK) + TEMP_RANDOM >= tmp_size) {
        snprintf(msg, msg_size, "%s: cannot create: path too long", path);
        return -1;
    }
    for (int attempt = 0; attempt < 100; attempt++) {
        char suffix[TEMP_RANDOM + 1];
        random_suffix(suffix);
        snprintf(tmp, tmp_size, "%.*s.%s" TEMP_MARK "%s", (int)dir_len, path, path + dir_len, suffix);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0) {
            snprintf(msg, msg_size, "%s: cannot create: %s", path, strerror(errno));
            return -1;
        }
        /* A file system without flock leaves the file unlocked, and the
         * cleanup, which needs the lock too, leaves it alone. A cleanup
         * that locked the new file first has unlinked it: try another. */
        struct stat st;
        int locked = flock(fd, LOCK_EX) == 0;
        if (locked && fstat(fd, &st) == 0 && st.st_nlink == 0) {
            close(fd);
            continue;
        }
        track(tmp, 1);
        return fd;
    }
    snprintf(msg, msg_size, "%s: cannot create: no free temporary name", path);
    return -1;
}

static void temp_discard(int fd, char *tmp)
{
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    track(tmp, 0);
}

/* fsync of the folder holding path, so that its new name survives a power
 * loss; file systems that cannot sync a folder say EINVAL. */
static int sync_folder(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd) == 0 || errno == EINVAL || errno == EROFS ? 0 : -1;
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* The written temporary file to its final name: fsync before the rename, or
 * a power loss can leave the final name with no data (and a rerun would take
 * it for done); then the folder. The fd is closed after the rename, so the
 * lock lasts until the name is final. Returns 0, or -1 with msg filled and
 * the temporary file gone. */
static int temp_commit(int fd, char *tmp, const char *path, char *msg, size_t msg_size)
{
    if (fsync(fd) != 0) {
        snprintf(msg, msg_size, "%s: cannot write: %s", path, strerror(errno));
        temp_discard(fd, tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(msg, msg_size, "%s: cannot rename into place: %s", path, strerror(errno));
        temp_discard(fd, tmp);
        return -1;
    }
    track(tmp, 0);
    close(fd); /* the data is synced: close has nothing left to report */
    if (sync_folder(path) != 0) {
        snprintf(msg, msg_size, "%s: cannot sync its folder: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Writes size bytes to fd and syncs them; -1 with msg filled. */
static int write_all(int fd, const char *path, const void *data, size_t size, char *msg, size_t msg_size)
{
    const unsigned char *p = data;
    size_t done = 0;
    while (done < size) {
        ssize_t k = write(fd, p + done, size - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            snprintf(msg, msg_size, "%s: cannot write: %s", path, k < 0 ? strerror(errno) : "no progress");
            return -1;
        }
        done += (size_t)k;
    }
    /* synced before the rename, or a power loss can leave the final name
     * with no data (and a rerun would take it for done) */
    if (fsync(fd) != 0) {
        snprintf(msg, msg_size, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int seg_save_files(size_t n, const char *const *paths, const void *const *data, const size_t *sizes, int overwrite,
                   char *msg, size_t msg_size)
{
    enum { MAX_FILES = 8 };
    char tmp[MAX_FILES][4096]; /* tracked (for an interrupt) until renamed or removed */
    int fds[MAX_FILES];
    struct stat st;
    if (n > MAX_FILES) {
        snprintf(msg, msg_size, "%s: too many files at once", n ? paths[0] : "(none)");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!paths[i] || !*paths[i]) {
            snprintf(msg, msg_size, "(no name): cannot create: empty path");
            return -1;
        }
        if (!data[i]) { /* what a failed open_memstream leaves: never an empty file in its place */
            snprintf(msg, msg_size, "%s: cannot write: out of memory", paths[i]);
            return -1;
        }
        if (!overwrite && stat(paths[i], &st) == 0) {
            snprintf(msg, msg_size, "%s: already exists", paths[i]);
            return SEG_SAVE_EXISTS;
        }
    }
    size_t made = 0;
    int rc = 0;
    for (; made < n; made++) {
        fds[made] = temp_create(paths[made], tmp[made], sizeof tmp[made], msg, msg_size);
        if (fds[made] < 0 || write_all(fds[made], paths[made], data[made], sizes[made], msg, msg_size)) {
            if (fds[made] >= 0)
                made++;
            rc = -1;
            break;
        }
    }
    if (rc) { /* nothing renamed yet: every temporary file goes */
        for (size_t i = 0; i < made; i++)
            temp_discard(fds[i], tmp[i]);
        return -1;
    }
    size_t renamed = 0;
    for (; renamed < n; renamed++) {
        if (rename(tmp[renamed], paths[renamed]) != 0) {
            snprintf(msg, msg_size, "%s: cannot rename into place: %s", paths[renamed], strerror(errno));
            rc = -1;
            break;
        }
        track(tmp[renamed], 0);
    }
    for (size_t i = 0; i < n; i++) {
        if (i < renamed) {
            if (rc)
                unlink(paths[i]);
            close(fds[i]); /* closed after the rename: the lock lasts until the name is final */
        } else {
            temp_discard(fds[i], tmp[i]);
        }
    }
    if (rc)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (sync_folder(paths[i]) != 0) {
            snprintf(msg, msg_size, "%s: cannot sync its folder: %s", paths[i], strerror(errno));
            return -1;
        }
    }
    return 0;
}

int seg_save_file(const char *path, const void *data, size_t size, int overwrite, char *msg, size_t msg_size)
{
    return seg_save_files(1, &path, &data, &size, overwrite, msg, msg_size);
}

/* The stream's writes, through write() so that their errno is kept for
 * the message (stdio's error flag has none). */
static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
    seg_out *o = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t k = write(o->fd, buf + done, size - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (!o->error)
                o->error = k < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)k;
    }
    return (ssize_t)done;
}

int seg_out_open(seg_out *o, const char *path, int overwrite, char *msg, size_t msg_size)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (strlen(path) >= sizeof o->path) {
        snprintf(msg, msg_size, "%s: cannot create: path too long", path);
        return -1;
    }
    if (!overwrite && stat(path, &st) == 0) {
        snprintf(msg, msg_size, "%s: already exists", path);
        return SEG_SAVE_EXISTS;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    o->fd = temp_create(path, o->tmp, sizeof o->tmp, msg, msg_size);
    if (o->fd < 0)
        return -1;
    cookie_io_functions_t io = {.write = out_write}; /* no close: the fd stays for the commit */
    o->f = fopencookie(o, "wb", io);
    if (!o->f) {
        snprintf(msg, msg_size, "%s: cannot create: %s", path, strerror(errno));
        temp_discard(o->fd, o->tmp);
        o->fd = -1;
        o->tmp[0] = 0;
        return -1;
    }
    return 0;
}

int seg_out_commit(seg_out *o, char *msg, size_t msg_size)
{
    int bad = fflush(o->f) != 0 || ferror(o->f) || o->error;
    fclose(o->f);
    o->f = NULL;
    if (bad) {
        snprintf(msg, msg_size, "%s: cannot write: %s", o->path, strerror(o->error ? o->error : EIO));
        temp_discard(o->fd, o->tmp);
    }
    int rc = bad ? -1 : temp_commit(o->fd, o->tmp, o->path, msg, msg_size);
    o->fd = -1;
    o->tmp[0] = 0;
    return rc;
}

void seg_out_abort(seg_out *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
    }
    if (o->tmp[0]) {
        temp_discard(o->fd, o->tmp);
        o->fd = -1;
        o->tmp[0] = 0;
    }
}

static int ends_with(const char *s, size_t n, const char *ext)
{
    size_t m = strlen(ext);
    return n >= m && !memcmp(s + n - m, ext, m);
}

size_t seg_remove_stale_temps(const char *dir, const char *ext, const struct timespec *before)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    size_t removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *name = e->d_name;
        if (!seg_is_temp_name(name) ||
            (ext && !ends_with(name + 1, strlen(name) - 1 - strlen(TEMP_MARK) - TEMP_RANDOM, ext)))
            continue;
        int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            continue;
        struct stat st, now_st;
        int old = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                  (st.st_mtim.tv_sec < before->tv_sec ||
                   (st.st_mtim.tv_sec == before->tv_sec && st.st_mtim.tv_nsec < before->tv_nsec));
        /* unlinked while the lock is held: a writer that gets it next sees
         * no link left and takes another name (temp_create) */
        if (old && flock(fd, LOCK_EX | LOCK_NB) == 0 && fstatat(dfd, name, &now_st, AT_SYMLINK_NOFOLLOW) == 0 &&
            now_st.st_ino == st.st_ino && now_st.st_dev == st.st_dev && unlinkat(dfd, name, 0) == 0)
            removed++;
        close(fd);
    }
    closedir(d);
    return removed;
}

int seg_make_parent_dirs(const char *path)
{
    char buf[4096];
    if (strlen(path) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", path);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = 0;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
}
