/* Display level, atomic output files, JSON strings, number parsing. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int g_display_level = 2;

/* Temporary names still open, so that an interrupt can remove them. */
#define MAX_OPEN_OUTPUTS 256
static char *g_open_tmp[MAX_OPEN_OUTPUTS];
static pthread_mutex_t g_open_lock = PTHREAD_MUTEX_INITIALIZER;

static void track(char *tmp, int add)
{
    pthread_mutex_lock(&g_open_lock);
    for (int i = 0; i < MAX_OPEN_OUTPUTS; i++) {
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

void out_abort_all(void)
{
    for (int i = 0; i < MAX_OPEN_OUTPUTS; i++)
        if (g_open_tmp[i])
            unlink(g_open_tmp[i]);
}

int out_open(out_file *o, const char *path, int force, char *msg, size_t msg_size)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    if (strlen(path) + 16 >= sizeof o->path) {
        snprintf(msg, msg_size, "%s: path too long", path);
        return -1;
    }
    if (!force && stat(path, &st) == 0) {
        snprintf(msg, msg_size, "%s: already exists (use -f to overwrite)", path);
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    /* hidden name beside the target: same file system, so rename is atomic */
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
    snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmp-XXXXXX", (int)dir_len, path, path + dir_len);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        snprintf(msg, msg_size, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        snprintf(msg, msg_size, "%s: cannot create: %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        return -1;
    }
    track(o->tmp, 1);
    return 0;
}

int out_commit(out_file *o, char *msg, size_t msg_size)
{
    int bad = ferror(o->f) != 0;
    if (fflush(o->f) != 0)
        bad = 1;
    if (fclose(o->f) != 0)
        bad = 1;
    o->f = NULL;
    (void)chmod(o->tmp, 0644);
    if (bad) {
        snprintf(msg, msg_size, "%s: write failed: %s", o->path, strerror(errno));
        unlink(o->tmp);
        track(o->tmp, 0);
        return -1;
    }
    if (rename(o->tmp, o->path) != 0) {
        snprintf(msg, msg_size, "%s: cannot rename into place: %s", o->path, strerror(errno));
        unlink(o->tmp);
        track(o->tmp, 0);
        return -1;
    }
    track(o->tmp, 0);
    return 0;
}

void out_abort(out_file *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
    }
    if (o->tmp[0]) {
        unlink(o->tmp);
        track(o->tmp, 0);
        o->tmp[0] = 0;
    }
}

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) /* no name is that long: far from all */
        return (int)(la > lb ? la : lb);
    int d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            /* two letters swapped, the commonest typo, count as one edit */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *cli_nearest(const char *s, const char *const *names, size_t n)
{
    const char *best = NULL;
    int best_d = 3;
    for (size_t i = 0; i < n; i++) {
        int d = cli_edit_distance(s, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    DISPLAYLEVEL(1, "%s: %s (see `%s --help`)\n", cmd, line, cmd);
}

void cli_option_error(const char *cmd, const struct option *longopts, char **argv, int c)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    int is_long = !strncmp(arg, "--", 2);
    if (c == ':') { /* a value missing */
        if (is_long)
            cli_usage_error(cmd, "option '%s' needs a value", arg);
        else
            cli_usage_error(cmd, "option '-%c' needs a value", optopt);
        return;
    }
    if (!is_long) { /* an unknown short option, maybe inside a group like -fx */
        if (optopt > 0 && optopt < 128)
            cli_usage_error(cmd, "unknown option '-%c'", optopt);
        else
            cli_usage_error(cmd, "unknown option '%s'", arg);
        return;
    }
    /* an unknown (or ambiguous) long option: the nearest name, = value aside */
    char name[128];
    size_t len = strcspn(arg + 2, "=");
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), arg + 2);
    const char *names[128];
    size_t n = 0;
    for (const struct option *o = longopts; o->name && n < 128; o++)
        names[n++] = o->name;
    const char *near = cli_nearest(name, names, n);
    if (near)
        cli_usage_error(cmd, "unknown option '%s'; did you mean --%s?", arg, near);
    else
        cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_check_output_name(const char *cmd, const char *option, const char *path, const char *example, int png)
{
    struct stat st;
    size_t n = strlen(path);
    if ((n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
        DISPLAYLEVEL(1, "%s: %s %s: is a folder; give a file name like %s%s%s\n", cmd, option, path, path,
                     n && path[n - 1] == '/' ? "" : "/", example);
        return -1;
    }
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (png && (!dot || (slash && dot < slash) || strcasecmp(dot, ".png"))) {
        DISPLAYLEVEL(1, "%s: %s %s: outputs are PNG files; give a name ending in .png\n", cmd, option, path);
        return -1;
    }
    return 0;
}
