/* Display level, the clock, JSON strings, number parsing, usage errors. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int g_display_level = 2;

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The escape of one byte inside a JSON string, into out (up to 6 bytes
 * and a NUL); its length. The one rule for every JSON flowcut writes. */
static size_t json_escape_byte(unsigned char c, char out[7])
{
    if (c == '"' || c == '\\')
        return (size_t)snprintf(out, 7, "\\%c", c);
    if (c == '\n')
        return (size_t)snprintf(out, 7, "\\n");
    if (c == '\t')
        return (size_t)snprintf(out, 7, "\\t");
    if (c < 0x20)
        return (size_t)snprintf(out, 7, "\\u%04x", c);
    out[0] = (char)c;
    out[1] = 0;
    return 1;
}

size_t cli_json_escape(char *dst, size_t size, const char *src)
{
    size_t k = 0;
    if (!size)
        return 0;
    for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
        char e[7];
        size_t n = json_escape_byte(*p, e);
        if (k + n >= size)
            break;
        memcpy(dst + k, e, n);
        k += n;
    }
    dst[k] = 0;
    return k;
}

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char e[7];
        fwrite(e, 1, json_escape_byte(*p, e), f);
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

/* path with its folder resolved (./a, d/../a), into out; 0 when the folder
 * does not resolve. */
static int resolved(const char *path, char out[PATH_MAX])
{
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%s", path);
    if (!realpath(dirname(dir), real)) /* dirname: "." for a bare name, "/" for /a */
        return 0;
    return snprintf(out, PATH_MAX, "%s/%s", real, slash ? slash + 1 : path) < PATH_MAX;
}

/* Whether two paths name one file: the same text, the same existing file
 * (a link), or the same name in the same folder (./a and a, not yet
 * written). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    char ra[PATH_MAX], rb[PATH_MAX];
    if (!strcmp(a, b))
        return 1;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    return resolved(a, ra) && resolved(b, rb) && !strcmp(ra, rb);
}

int cli_check_distinct(const char *cmd, const char *const *outs, const char *const *out_opts, int nout,
                       const char *const *ins, int nin)
{
    for (int i = 0; i < nout; i++) {
        if (!outs[i])
            continue;
        for (int j = i + 1; j < nout; j++)
            if (outs[j] && same_file(outs[i], outs[j])) {
                DISPLAYLEVEL(1, "%s: %s and %s both name %s; give each output its own file\n", cmd, out_opts[i],
                             out_opts[j], outs[i]);
                return -1;
            }
        for (int j = 0; j < nin; j++)
            if (ins[j] && same_file(outs[i], ins[j])) {
                DISPLAYLEVEL(1, "%s: %s %s is also an input; write the output to another file\n", cmd, out_opts[i],
                             outs[i]);
                return -1;
            }
    }
    return 0;
}

/* Appends word to buf, single-quoted where a shell would split or expand it. */
int cli_shell_word(char *buf, size_t size, const char *word)
{
    const size_t k0 = strlen(buf);
    size_t need = k0 + 1 + strlen(word) + 1; /* the space, the word, the NUL */
    const int plain = *word && !word[strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,=:+@%")];
    if (!plain) { /* '...', each ' within as '\'' */
        need += 2;
        for (const char *c = word; *c; c++)
            need += *c == '\'' ? 3 : 0;
    }
    if (need > size)
        return -1; /* the buffer stays as it was */
    char *o = buf + k0;
    *o++ = ' ';
    if (plain) {
        memcpy(o, word, strlen(word) + 1);
        return 0;
    }
    *o++ = '\'';
    for (const char *c = word; *c; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *c;
        }
    }
    *o++ = '\'';
    *o = 0;
    return 0;
}
