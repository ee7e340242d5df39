/* DIMACS max-flow reader (strict, line-accurate errors, >100 MB/s) and writer. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *p, *end;
    const char *name;
    int64_t line;
    mf_error *err;
} cursor;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static void skip_blanks(cursor *c)
{
    while (c->p < c->end && is_blank(*c->p))
        c->p++;
}

static int at_eol(const cursor *c) { return c->p >= c->end || *c->p == '\n'; }

/* Reads one decimal integer field (optional sign). Returns 1 and sets *out,
 * or 0 with the error filled in. */
static int field_int(cursor *c, const char *what, int64_t *out)
{
    skip_blanks(c);
    if (at_eol(c)) {
        mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "missing field: %s", what);
        return 0;
    }
    int neg = 0;
    if (*c->p == '-' || *c->p == '+') {
        neg = *c->p == '-';
        c->p++;
    }
    const char *start = c->p;
    uint64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (v > (uint64_t)INT64_MAX / 10) {
            mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "%s: number too large", what);
            return 0;
        }
        v = v * 10 + (uint64_t)(*c->p - '0');
        c->p++;
    }
    if (c->p == start || (c->p < c->end && !is_blank(*c->p) && *c->p != '\n')) {
        mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "%s: not a number", what);
        return 0;
    }
    if (v > (uint64_t)INT64_MAX) {
        mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "%s: number too large", what);
        return 0;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 1;
}

/* Reads a word (non-blank run) into buf. */
static int field_word(cursor *c, const char *what, char *buf, size_t size)
{
    skip_blanks(c);
    if (at_eol(c)) {
        mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "missing field: %s", what);
        return 0;
    }
    size_t k = 0;
    while (c->p < c->end && !is_blank(*c->p) && *c->p != '\n') {
        if (k + 1 < size)
            buf[k++] = *c->p;
        c->p++;
    }
    buf[k] = 0;
    return 1;
}

static int end_of_line(cursor *c)
{
    skip_blanks(c);
    if (!at_eol(c)) {
        mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "unexpected extra field");
        return 0;
    }
    return 1;
}

int mf_parse_dimacs(const char *text, size_t length, const char *name,
                    mf_arclist *out, mf_error *err)
{
    cursor c = {text, text + length, name ? name : "<input>", 0, err};
    int have_problem = 0;
    int64_t n = 0, m = 0, arcs = 0;
    int64_t source = -1, sink = -1;
    int64_t last_line = 0;
    int rc;
    memset(out, 0, sizeof *out);
    while (c.p < c.end) {
        c.line++;
        last_line = c.line;
        skip_blanks(&c);
        char kind = at_eol(&c) ? '\n' : *c.p;
        if (kind != '\n')
            c.p++;
        switch (kind) {
        case '\n':
            break;
        case 'c':
            while (c.p < c.end && *c.p != '\n')
                c.p++;
            break;
        case 'p': {
            char word[16];
            if (have_problem) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "duplicate problem line");
                goto fail;
            }
            if (c.p < c.end && !is_blank(*c.p)) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "unknown line type");
                goto fail;
            }
            if (!field_word(&c, "problem type", word, sizeof word) ||
                strcmp(word, "max") != 0) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line,
                             "problem line must be 'p max NODES ARCS'");
                goto fail;
            }
            if (!field_int(&c, "node count", &n) || !field_int(&c, "arc count", &m) ||
                !end_of_line(&c)) {
                rc = MF_ERR_PARSE;
                goto fail;
            }
            if (n < 2 || n > INT32_MAX - 1) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line,
                             "node count %lld out of range 2..%d", (long long)n, INT32_MAX - 1);
                goto fail;
            }
            if (m < 0 || m > (INT32_MAX >> 1)) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line,
                             "arc count %lld out of range 0..%d", (long long)m, INT32_MAX >> 1);
                goto fail;
            }
            have_problem = 1;
            rc = mf_arclist_init(out, (int32_t)n, (int32_t)(m < (1 << 26) ? m : (1 << 26)));
            if (rc) {
                mf_fail(err, rc, c.name, c.line, "out of memory");
                goto fail;
            }
            break;
        }
        case 'n': {
            int64_t id;
            char word[16];
            if (!have_problem) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "node line before the problem line");
                goto fail;
            }
            if (!field_int(&c, "node id", &id) || !field_word(&c, "node kind", word, sizeof word) ||
                !end_of_line(&c)) {
                rc = MF_ERR_PARSE;
                goto fail;
            }
            if (id < 1 || id > n) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "node id %lld out of range 1..%lld",
                             (long long)id, (long long)n);
                goto fail;
            }
            if (strcmp(word, "s") == 0) {
                if (source >= 0) {
                    rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "duplicate source line");
                    goto fail;
                }
                source = id - 1;
            } else if (strcmp(word, "t") == 0) {
                if (sink >= 0) {
                    rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "duplicate sink line");
                    goto fail;
                }
                sink = id - 1;
            } else {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line,
                             "node kind '%s' is neither s nor t", word);
                goto fail;
            }
            if (source >= 0 && source == sink) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "source and sink are the same node");
                goto fail;
            }
            break;
        }
        case 'a': {
            int64_t u, v, cap;
            if (!have_problem) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "arc line before the problem line");
                goto fail;
            }
            if (!field_int(&c, "arc tail", &u) || !field_int(&c, "arc head", &v) ||
                !field_int(&c, "arc capacity", &cap) || !end_of_line(&c)) {
                rc = MF_ERR_PARSE;
                goto fail;
            }
            if (u < 1 || u > n || v < 1 || v > n) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "arc end %lld out of range 1..%lld",
                             (long long)(u < 1 || u > n ? u : v), (long long)n);
                goto fail;
            }
            if (cap < 0) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "negative capacity %lld", (long long)cap);
                goto fail;
            }
            if (cap > INT32_MAX) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "capacity %lld exceeds %d",
                             (long long)cap, INT32_MAX);
                goto fail;
            }
            if (arcs == m) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line,
                             "more arcs than the problem line declares (%lld)", (long long)m);
                goto fail;
            }
            rc = mf_arclist_add(out, (int32_t)(u - 1), (int32_t)(v - 1), (int32_t)cap);
            if (rc) {
                mf_fail(err, rc, c.name, c.line, "%s", mf_strerror(rc));
                goto fail;
            }
            arcs++;
            break;
        }
        default:
            rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "unknown line type '%c'", kind);
            goto fail;
        }
        /* every branch leaves c.p at the end of its line */
        if (c.p < c.end && *c.p == '\n')
            c.p++;
    }
    if (!have_problem) {
        rc = mf_fail(err, MF_ERR_PARSE, c.name, last_line ? last_line : 1, "missing problem line 'p max NODES ARCS'");
        goto fail;
    }
    if (source < 0) {
        rc = mf_fail(err, MF_ERR_PARSE, c.name, last_line, "missing source line 'n ID s'");
        goto fail;
    }
    if (sink < 0) {
        rc = mf_fail(err, MF_ERR_PARSE, c.name, last_line, "missing sink line 'n ID t'");
        goto fail;
    }
    if (arcs != m) {
        rc = mf_fail(err, MF_ERR_PARSE, c.name, last_line,
                     "fewer arcs (%lld) than the problem line declares (%lld)",
                     (long long)arcs, (long long)m);
        goto fail;
    }
    out->source = (int32_t)source;
    out->sink = (int32_t)sink;
    return MF_OK;
fail:
    mf_arclist_free(out);
    return rc;
}

/* Reads a whole file ("-": standard input) into *buf. */
static int read_all(const char *path, char **buf_out, size_t *len_out, const char **name_out, mf_error *err)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = MF_OK;
    *buf_out = NULL;
    *len_out = 0;
    *name_out = name;
    if (!f)
        return mf_fail(err, MF_ERR_IO, name, 0, "cannot open: %s", strerror(errno));
    for (;;) {
        if (cap - len < (1u << 20)) {
            size_t grown = cap ? cap * 2 : (4u << 20);
            char *t = realloc(buf, grown);
            if (!t) {
                rc = mf_fail(err, MF_ERR_NOMEM, name, 0, "out of memory");
                goto done;
            }
            buf = t;
            cap = grown;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                rc = mf_fail(err, MF_ERR_IO, name, 0, "read error: %s", strerror(errno));
                goto done;
            }
            break;
        }
    }
done:
    if (!is_stdin)
        fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    *buf_out = buf;
    *len_out = len;
    return MF_OK;
}

int mf_read_dimacs(const char *path, mf_arclist *out, mf_error *err)
{
    char *buf;
    size_t len;
    const char *name;
    memset(out, 0, sizeof *out);
    int rc = read_all(path, &buf, &len, &name, err);
    if (rc)
        return rc;
    rc = mf_parse_dimacs(buf, len, name, out, err);
    free(buf);
    return rc;
}

void mf_updates_free(mf_updates *u)
{
    free(u->batch_start);
    free(u->arc);
    free(u->cap);
    memset(u, 0, sizeof *u);
}

/* Appends to a growable int32/int64 array pair; 0 or MF_ERR_NOMEM. */
static int grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return MF_OK;
    int64_t c = *cap ? *cap * 2 : 256;
    while (c < need)
        c *= 2;
    void *t = realloc(*p, (size_t)c * elem);
    if (!t)
        return MF_ERR_NOMEM;
    *p = t;
    *cap = c;
    return MF_OK;
}

int mf_parse_updates(const char *text, size_t length, const char *name, int32_t num_arcs, mf_updates *out,
                     mf_error *err)
{
    cursor c = {text, text + length, name ? name : "<input>", 0, err};
    int64_t batch_cap = 0, change_cap = 0, cap2 = 0;
    int rc = MF_OK;
    memset(out, 0, sizeof *out);
    if (grow((void **)&out->batch_start, &batch_cap, 1, sizeof(int64_t)))
        goto nomem;
    out->batch_start[0] = 0;
    while (c.p < c.end) {
        c.line++;
        skip_blanks(&c);
        char kind = at_eol(&c) ? '\n' : *c.p;
        if (kind != '\n')
            c.p++;
        if (kind != '\n' && kind != 'c' && c.p < c.end && !is_blank(*c.p) && *c.p != '\n') {
            rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "unknown line type");
            goto fail;
        }
        switch (kind) {
        case '\n':
            break;
        case 'c':
            while (c.p < c.end && *c.p != '\n')
                c.p++;
            break;
        case 'b':
            if (!end_of_line(&c)) {
                rc = MF_ERR_PARSE;
                goto fail;
            }
            if (grow((void **)&out->batch_start, &batch_cap, (int64_t)out->num_batches + 2, sizeof(int64_t)))
                goto nomem;
            out->num_batches++;
            out->batch_start[out->num_batches] = out->count;
            break;
        case 'u': {
            int64_t k, cap;
            if (!out->num_batches) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "update line before the first batch line 'b'");
                goto fail;
            }
            if (!field_int(&c, "arc number", &k) || !field_int(&c, "capacity", &cap) || !end_of_line(&c)) {
                rc = MF_ERR_PARSE;
                goto fail;
            }
            if (k < 1 || k > num_arcs) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "arc number %lld out of range 1..%d",
                             (long long)k, num_arcs);
                goto fail;
            }
            if (cap < 0 || cap > INT32_MAX) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "capacity %lld outside 0..%d", (long long)cap,
                             INT32_MAX);
                goto fail;
            }
            if (grow((void **)&out->arc, &change_cap, out->count + 1, sizeof(int32_t)) ||
                grow((void **)&out->cap, &cap2, out->count + 1, sizeof(int32_t)))
                goto nomem;
            out->arc[out->count] = (int32_t)(k - 1);
            out->cap[out->count] = (int32_t)cap;
            out->count++;
            out->batch_start[out->num_batches] = out->count;
            break;
        }
        default:
            rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "unknown line type '%c'", kind);
            goto fail;
        }
        if (c.p < c.end && *c.p == '\n')
            c.p++;
    }
    return MF_OK;
nomem:
    rc = mf_fail(err, MF_ERR_NOMEM, c.name, c.line, "out of memory");
fail:
    mf_updates_free(out);
    return rc;
}

int mf_read_updates(const char *path, int32_t num_arcs, mf_updates *out, mf_error *err)
{
    char *buf;
    size_t len;
    const char *name;
    memset(out, 0, sizeof *out);
    int rc = read_all(path, &buf, &len, &name, err);
    if (rc)
        return rc;
    rc = mf_parse_updates(buf, len, name, num_arcs, out, err);
    free(buf);
    return rc;
}

/* Integer formatting without printf: the writer produces hundreds of MB. */
static char *put_int(char *p, int64_t v)
{
    char tmp[24];
    int k = 0;
    uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    if (v < 0)
        *p++ = '-';
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (k)
        *p++ = tmp[--k];
    return p;
}

int mf_write_dimacs(FILE *f, const mf_arclist *list, const char *comment)
{
    enum { CHUNK = 1 << 20 };
    char *buf = malloc(CHUNK + 128);
    char *p;
    if (!buf)
        return MF_ERR_NOMEM;
    if (comment) {
        const char *s = comment;
        while (*s) {
            const char *e = strchr(s, '\n');
            size_t l = e ? (size_t)(e - s) : strlen(s);
            if (fprintf(f, "c %.*s\n", (int)l, s) < 0)
                goto io;
            s += l + (e ? 1 : 0);
        }
    }
    if (fprintf(f, "p max %d %d\nn %d s\nn %d t\n", list->num_vertices, list->num_arcs,
                list->source + 1, list->sink + 1) < 0)
        goto io;
    p = buf;
    for (int32_t i = 0; i < list->num_arcs; i++) {
        *p++ = 'a';
        *p++ = ' ';
        p = put_int(p, (int64_t)list->tail[i] + 1);
        *p++ = ' ';
        p = put_int(p, (int64_t)list->head[i] + 1);
        *p++ = ' ';
        p = put_int(p, list->cap[i]);
        *p++ = '\n';
        if (p - buf >= CHUNK) {
            if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
                goto io;
            p = buf;
        }
    }
    if (p > buf && fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf))
        goto io;
    free(buf);
    return ferror(f) ? MF_ERR_IO : MF_OK;
io:
    free(buf);
    return MF_ERR_IO;
}
