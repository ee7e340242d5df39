/* DIMACS max-flow reader (strict, line-accurate errors; large files mapped
 * and parsed on every core) and writer. */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include "cpu_engines.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* What the lines so far declared. */
typedef struct parse_state {
    int have_problem;
    int64_t n, m, arcs, source, sink, last_line;
} parse_state;

/* Parses lines from c->p to the end or, with stop_at_arcs, up to the first
 * arc line (c->p then at its start, c->line the lines before it). */
static int parse_lines(cursor *cur, parse_state *st, mf_arclist *out, int stop_at_arcs)
{
    cursor c = *cur;
    mf_error *err = c.err;
    int have_problem = st->have_problem;
    int64_t n = st->n, m = st->m, arcs = st->arcs;
    int64_t source = st->source, sink = st->sink;
    int64_t last_line = st->last_line;
    int rc = MF_OK;
    while (c.p < c.end) {
        const char *line_start = c.p;
        skip_blanks(&c);
        if (stop_at_arcs && c.p < c.end && *c.p == 'a') {
            c.p = line_start;
            break;
        }
        c.line++;
        last_line = c.line;
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
fail:
    st->have_problem = have_problem;
    st->n = n;
    st->m = m;
    st->arcs = arcs;
    st->source = source;
    st->sink = sink;
    st->last_line = last_line;
    *cur = c;
    return rc;
}

/* The checks at the end of the input; sets the terminals. */
static int finish(const cursor *c, const parse_state *st, mf_arclist *out)
{
    if (!st->have_problem)
        return mf_fail(c->err, MF_ERR_PARSE, c->name, st->last_line ? st->last_line : 1,
                       "missing problem line 'p max NODES ARCS'");
    if (st->source < 0)
        return mf_fail(c->err, MF_ERR_PARSE, c->name, st->last_line, "missing source line 'n ID s'");
    if (st->sink < 0)
        return mf_fail(c->err, MF_ERR_PARSE, c->name, st->last_line, "missing sink line 'n ID t'");
    if (st->arcs != st->m)
        return mf_fail(c->err, MF_ERR_PARSE, c->name, st->last_line,
                       "fewer arcs (%lld) than the problem line declares (%lld)", (long long)st->arcs,
                       (long long)st->m);
    out->source = (int32_t)st->source;
    out->sink = (int32_t)st->sink;
    return MF_OK;
}

static int parse_serial(const char *text, size_t length, const char *name, mf_arclist *out, mf_error *err)
{
    cursor c = {text, text + length, name, 0, err};
    parse_state st = {0, 0, 0, 0, -1, -1, 0};
    memset(out, 0, sizeof *out);
    int rc = parse_lines(&c, &st, out, 0);
    if (!rc)
        rc = finish(&c, &st, out);
    if (rc)
        mf_arclist_free(out);
    return rc;
}

/* Large inputs: the lines before the first arc line serially, then the
 * arc lines in chunks on every core, counted and then parsed straight
 * into the list. A chunk accepts only the plain form (comments, blank
 * lines, "a U V CAP" with unsigned decimal fields in range); anything else
 * there, a count that differs from the problem line, or a missing
 * terminal sends the whole input to the serial parser, which reports it
 * exactly (file, line) as before. The list is the serial parser's. */
#define PARALLEL_PARSE_BYTES (16 << 20)
#define CHUNKS_PER_THREAD 4

typedef struct arc_chunk {
    const char *begin, *end; /* whole lines */
    int64_t arcs, at;        /* its arc lines; the first one's index */
    int bad;
} arc_chunk;

typedef struct chunk_job {
    arc_chunk *chunks;
    mf_arclist *out;
    int64_t n;
    int parse; /* 0: count the arc lines, 1: parse them */
} chunk_job;

/* One unsigned field: blanks, up to 10 digits; 0 when absent or longer. */
static inline int plain_field(const char **pp, const char *end, int64_t *out)
{
    const char *p = *pp;
    while (p < end && is_blank(*p))
        p++;
    const char *start = p;
    int64_t v = 0;
    while (p < end && *p >= '0' && *p <= '9' && p - start < 11)
        v = v * 10 + (*p++ - '0');
    if (p == start || p - start > 10 || (p < end && !is_blank(*p) && *p != '\n'))
        return 0;
    *out = v;
    *pp = p;
    return 1;
}

static void chunk_lines(void *ctx, int32_t lo, int32_t hi)
{
    chunk_job *job = ctx;
    for (int32_t k = lo; k < hi; k++) {
        arc_chunk *ch = &job->chunks[k];
        int64_t at = ch->at, arcs = 0;
        for (const char *p = ch->begin, *end = ch->end; p < end && !ch->bad;) {
            while (p < end && is_blank(*p))
                p++;
            const char *eol = memchr(p, '\n', (size_t)(end - p));
            eol = eol ? eol : end;
            const char *next = eol < end ? eol + 1 : end;
            if (p == eol || *p == 'c') {
                p = next;
                continue;
            }
            if (*p != 'a') {
                ch->bad = 1;
                break;
            }
            if (job->parse) {
                int64_t u, v, cap;
                p++;
                if (p == eol || !is_blank(*p) || !plain_field(&p, eol, &u) || !plain_field(&p, eol, &v) ||
                    !plain_field(&p, eol, &cap) || u < 1 || u > job->n || v < 1 || v > job->n || cap > INT32_MAX) {
                    ch->bad = 1;
                    break;
                }
                while (p < eol && is_blank(*p))
                    p++;
                if (p != eol) {
                    ch->bad = 1;
                    break;
                }
                job->out->tail[at] = (int32_t)(u - 1);
                job->out->head[at] = (int32_t)(v - 1);
                job->out->cap[at] = (int32_t)cap;
                at++;
            }
            arcs++;
            p = next;
        }
        ch->arcs = arcs;
    }
}

/* 1 when the input was parsed in parallel, 0 when the serial parser must
 * (it then starts over), negative on an error of the lines before the arcs
 * or of memory (reported). */
static int parse_parallel(const char *text, size_t length, const char *name, int threads, mf_arclist *out,
                          mf_error *err)
{
    cursor c = {text, text + length, name, 0, err};
    parse_state st = {0, 0, 0, 0, -1, -1, 0};
    memset(out, 0, sizeof *out);
    int rc = parse_lines(&c, &st, out, 1);
    if (rc) { /* before any arc line: the serial parser stops there too */
        mf_arclist_free(out);
        return rc;
    }
    const int count = threads * CHUNKS_PER_THREAD;
    arc_chunk *chunks = NULL;
    if (!st.have_problem || st.source < 0 || st.sink < 0 || st.m < 1 ||
        !(chunks = calloc((size_t)count, sizeof *chunks))) {
        mf_arclist_free(out); /* the problem line's arrays */
        return 0;
    }
    const char *p = c.p;
    for (int k = 0; k < count; k++) { /* split at line ends */
        chunks[k].begin = p;
        const char *cut = k + 1 < count ? c.p + (size_t)(c.end - c.p) * (size_t)(k + 1) / (size_t)count : c.end;
        if (cut < p)
            cut = p;
        const char *eol = cut < c.end ? memchr(cut, '\n', (size_t)(c.end - cut)) : NULL;
        p = eol ? eol + 1 : c.end;
        chunks[k].end = p;
    }
    chunk_job job = {chunks, out, st.n, 0};
    mf_parallel_for(threads, count, 1, chunk_lines, &job);
    int64_t total = 0;
    int ok = 1;
    for (int k = 0; k < count; k++) {
        ok &= !chunks[k].bad;
        chunks[k].at = total;
        total += chunks[k].arcs;
    }
    if (ok && total == st.m) {
        int32_t *t = realloc(out->tail, sizeof(int32_t) * (size_t)total);
        out->tail = t ? t : out->tail;
        int32_t *h = t ? realloc(out->head, sizeof(int32_t) * (size_t)total) : NULL;
        out->head = h ? h : out->head;
        int32_t *k2 = h ? realloc(out->cap, sizeof(int32_t) * (size_t)total) : NULL;
        out->cap = k2 ? k2 : out->cap;
        if (!k2) {
            free(chunks);
            mf_arclist_free(out);
            return mf_fail(err, MF_ERR_NOMEM, name, 0, "out of memory");
        }
        out->capacity = (int32_t)total;
        job.parse = 1;
        mf_parallel_for(threads, count, 1, chunk_lines, &job);
        for (int k = 0; k < count; k++)
            ok &= !chunks[k].bad;
    }
    free(chunks);
    if (!ok || total != st.m) {
        mf_arclist_free(out);
        return 0;
    }
    out->num_arcs = (int32_t)total;
    out->source = (int32_t)st.source;
    out->sink = (int32_t)st.sink;
    return 1;
}

int mf_parse_dimacs(const char *text, size_t length, const char *name, mf_arclist *out, mf_error *err)
{
    name = name ? name : "<input>";
    const int threads = mf_cpu_threads(NULL);
    if (length >= PARALLEL_PARSE_BYTES && threads > 1) {
        int rc = parse_parallel(text, length, name, threads, out, err);
        if (rc != 0)
            return rc > 0 ? MF_OK : rc;
    }
    return parse_serial(text, length, name, out, err);
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

/* A regular file mapped read-only (no copy: reading 350 MB into a fresh
 * buffer took longer than parsing it, 1.1 s against 0.9 s on the 2-core
 * VM); NULL where it cannot be (standard input, pipes, empty files). */
static const char *map_file(const char *path, size_t *len)
{
    if (strcmp(path, "-") == 0)
        return NULL;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
        int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
        flags |= MAP_POPULATE;
#endif
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
    }
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    *len = (size_t)st.st_size;
    return p;
}

int mf_read_dimacs(const char *path, mf_arclist *out, mf_error *err)
{
    char *buf;
    size_t len;
    const char *name;
    memset(out, 0, sizeof *out);
    const char *mapped = map_file(path, &len);
    if (mapped) {
        int rc = mf_parse_dimacs(mapped, len, path, out, err);
        munmap((void *)mapped, len);
        return rc;
    }
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
