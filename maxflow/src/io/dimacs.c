/* DIMACS max-flow reader (strict, line-accurate errors; large files mapped
 * and parsed on every core, other inputs parsed as a stream) and writer.
 * The lines and fields under it are lines.c's; update scripts are
 * updates.c's.
 *
 * Inputs a user or a client controls must not cost more than their lines
 * allow: the problem line's sizes are checked against the caller's limits
 * before anything is allocated, the arc list grows with the arc lines read
 * (never past the declared count), and a stream is read a block at a time.
 * Binary data (a NUL byte anywhere, a first line that is no line of the
 * format) is refused where it is met, not read on. */
#define _GNU_SOURCE /* MAP_POPULATE */
#include "internal.h"
#include "lines.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the lines so far declared, and what the caller allows. */
typedef struct parse_state {
    int have_problem;
    int seen_line; /* a line other than comments and blank ones */
    int64_t n, m, arcs, source, sink, last_line;
    int64_t max_vertices, max_arcs;
    /* the most arc lines the rest of the input can hold (-1: unknown, a
     * stream): what the problem line's list reserves at most */
    int64_t arc_room;
} parse_state;

static void state_init(parse_state *st, const mf_dimacs_limits *lim, int64_t arc_room)
{
    mf_dimacs_limits d;
    mf_dimacs_limits_default(&d);
    memset(st, 0, sizeof *st);
    st->source = st->sink = -1;
    st->max_vertices = lim && lim->max_vertices > 0 ? lim->max_vertices : d.max_vertices;
    st->max_arcs = lim && lim->max_arcs > 0 ? lim->max_arcs : d.max_arcs;
    st->arc_room = arc_room;
}

/* A stream's list starts at this many arcs and doubles up to the declared
 * count: memory follows the arc lines read, not the problem line. */
#define STREAM_RESERVE (1 << 16)

/* Appends an arc; the list grows by doubling but never past m arcs (the
 * caller has checked that this arc is within m). */
static int add_arc(mf_arclist *l, int64_t m, int32_t u, int32_t v, int32_t cap)
{
    if (l->num_arcs == l->capacity) {
        int64_t grown = 2 * (int64_t)l->capacity;
        if (grown > m)
            grown = m;
        int32_t *t = realloc(l->tail, sizeof(int32_t) * (size_t)grown);
        if (!t)
            return MF_ERR_NOMEM;
        l->tail = t;
        t = realloc(l->head, sizeof(int32_t) * (size_t)grown);
        if (!t)
            return MF_ERR_NOMEM;
        l->head = t;
        t = realloc(l->cap, sizeof(int32_t) * (size_t)grown);
        if (!t)
            return MF_ERR_NOMEM;
        l->cap = t;
        l->capacity = (int32_t)grown;
    }
    l->tail[l->num_arcs] = u;
    l->head[l->num_arcs] = v;
    l->cap[l->num_arcs] = cap;
    l->num_arcs++;
    return MF_OK;
}

/* A problem line ("p max NODES ARCS"): the sizes, checked against the
 * representation's bounds (int32 ids; every arc has a reverse residual
 * arc) and then the caller's limits, both before anything is allocated;
 * the arc list reserved. kind_at: the line's 'p'. */
static int problem_line(cursor *cp, const parse_state *st, int have_problem, const char *kind_at, int seen_line,
                        int64_t *n, int64_t *m, mf_arclist *out)
{
    cursor c = *cp;
    mf_error *err = c.err;
    char word[16];
    int rc = MF_OK;
    if (have_problem)
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "duplicate problem line");
    else if (c.p < c.end && !is_blank(*c.p))
        rc = mf_unknown_line(&c, kind_at, !seen_line);
    else if (!mf_field_word(&c, "problem type", word, sizeof word) || strcmp(word, "max") != 0)
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "problem line must be 'p max NODES ARCS'");
    else if (!mf_field_int(&c, "node count", n) || !mf_field_int(&c, "arc count", m) || !end_of_line(&c))
        rc = MF_ERR_PARSE;
    else if (*n < 2 || *n > INT32_MAX - 1)
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "node count %lld out of range 2..%d", (long long)*n,
                     INT32_MAX - 1);
    else if (*m < 0 || *m > (INT32_MAX >> 1))
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "arc count %lld out of range 0..%d", (long long)*m,
                     INT32_MAX >> 1);
    else if (*n > st->max_vertices)
        rc = mf_fail(err, MF_ERR_TOO_LARGE, c.name, c.line, "node count %lld over the limit of %lld vertices",
                     (long long)*n, (long long)st->max_vertices);
    else if (*m > st->max_arcs)
        rc = mf_fail(err, MF_ERR_TOO_LARGE, c.name, c.line, "arc count %lld over the limit of %lld arcs",
                     (long long)*m, (long long)st->max_arcs);
    if (rc == MF_OK) {
        int64_t reserve = st->arc_room < 0 ? STREAM_RESERVE : st->arc_room;
        rc = mf_arclist_init(out, (int32_t)*n, (int32_t)(*m < reserve ? *m : reserve));
        if (rc)
            mf_fail(err, rc, c.name, c.line, "out of memory");
    }
    *cp = c;
    return rc;
}

/* A node line ("n ID s" or "n ID t"): the source or the sink, once each. */
static int node_line(cursor *cp, int have_problem, int64_t n, int64_t *source, int64_t *sink)
{
    cursor c = *cp;
    mf_error *err = c.err;
    int64_t id;
    char word[16];
    int rc = MF_OK;
    if (!have_problem)
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "node line before the problem line");
    else if (!mf_field_int(&c, "node id", &id) || !mf_field_word(&c, "node kind", word, sizeof word) ||
             !end_of_line(&c))
        rc = MF_ERR_PARSE;
    else if (id < 1 || id > n)
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "node id %lld out of range 1..%lld", (long long)id,
                     (long long)n);
    else if (strcmp(word, "s") == 0 && *source >= 0)
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "duplicate source line");
    else if (strcmp(word, "t") == 0 && *sink >= 0)
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "duplicate sink line");
    else if (strcmp(word, "s") != 0 && strcmp(word, "t") != 0)
        rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "node kind '%s' is neither s nor t", word);
    if (rc == MF_OK) {
        *(word[0] == 's' ? source : sink) = id - 1;
        if (*source >= 0 && *source == *sink)
            rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "source and sink are the same node");
    }
    *cp = c;
    return rc;
}

/* Parses lines from c->p to the end or, with stop_at_arcs, up to the first
 * arc line (c->p then at its start, c->line the lines before it). Lines
 * must be whole: the text ends at a line end or at the input's end. */
static int parse_lines(cursor *cur, parse_state *st, mf_arclist *out, int stop_at_arcs)
{
    cursor c = *cur;
    mf_error *err = c.err;
    int have_problem = st->have_problem, seen_line = st->seen_line;
    int64_t n = st->n, m = st->m, arcs = st->arcs;
    int64_t source = st->source, sink = st->sink;
    int64_t last_line = st->last_line;
    const char *line_start = c.p;
    int rc = MF_OK;
    while (c.p < c.end) {
        line_start = c.p;
        skip_blanks(&c);
        if (stop_at_arcs && c.p < c.end && *c.p == 'a') {
            c.p = line_start;
            break;
        }
        c.line++;
        last_line = c.line;
        char kind = at_eol(&c) ? '\n' : *c.p;
        const char *kind_at = c.p;
        if (kind != '\n')
            c.p++;
        switch (kind) {
        case '\n':
            break;
        case 'c':
            if ((rc = skip_comment(&c)))
                goto fail;
            break;
        case 'p':
            if ((rc = problem_line(&c, st, have_problem, kind_at, seen_line, &n, &m, out)))
                goto fail;
            have_problem = 1;
            break;
        case 'n':
            if ((rc = node_line(&c, have_problem, n, &source, &sink)))
                goto fail;
            break;
        case 'a': {
            int64_t u, v, cap;
            if (!have_problem) {
                rc = mf_fail(err, MF_ERR_PARSE, c.name, c.line, "arc line before the problem line");
                goto fail;
            }
            if (!mf_field_int(&c, "arc tail", &u) || !mf_field_int(&c, "arc head", &v) ||
                !mf_field_int(&c, "arc capacity", &cap) || !end_of_line(&c)) {
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
            rc = add_arc(out, m, (int32_t)(u - 1), (int32_t)(v - 1), (int32_t)cap);
            if (rc) {
                mf_fail(err, rc, c.name, c.line, "%s", mf_strerror(rc));
                goto fail;
            }
            arcs++;
            break;
        }
        default:
            rc = mf_unknown_line(&c, kind_at, !seen_line);
            goto fail;
        }
        if (kind != '\n' && kind != 'c')
            seen_line = 1;
        /* every branch leaves c.p at the end of its line */
        if (c.p < c.end && *c.p == '\n')
            c.p++;
    }
fail:
    if (rc)
        rc = mf_line_error(&c, line_start, rc);
    st->have_problem = have_problem;
    st->seen_line = seen_line;
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

#define DIMACS_FORMAT "a DIMACS max-flow file"

void mf_dimacs_limits_default(mf_dimacs_limits *lim)
{
    lim->max_vertices = MF_DIMACS_MAX_VERTICES_DEFAULT;
    lim->max_arcs = MF_DIMACS_MAX_ARCS_DEFAULT;
    lim->threads = 0;
}

/* The most arc lines a text of `length` bytes holds: the shortest takes 7
 * bytes and its line end ("a1 2 3\n"). */
static int64_t arc_room(size_t length) { return (int64_t)(length / 7) + 1; }

static int parse_serial(const char *text, size_t length, const char *name, const mf_dimacs_limits *lim,
                        mf_arclist *out, mf_error *err)
{
    cursor c = {text, text + length, name, 0, err, text, 0, DIMACS_FORMAT};
    parse_state st;
    state_init(&st, lim, arc_room(length));
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
 * exactly (file, line) as for a small input. The list is the serial parser's. */
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
                if (p < eol && memchr(p, 0, (size_t)(eol - p))) { /* binary: the serial parser says so */
                    ch->bad = 1;
                    break;
                }
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
static int parse_parallel(const char *text, size_t length, const char *name, const mf_dimacs_limits *lim,
                          int threads, mf_arclist *out, mf_error *err)
{
    cursor c = {text, text + length, name, 0, err, text, 0, DIMACS_FORMAT};
    parse_state st;
    state_init(&st, lim, arc_room(length));
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

int mf_parse_dimacs_limited(const char *text, size_t length, const char *name, const mf_dimacs_limits *lim,
                            mf_arclist *out, mf_error *err)
{
    name = name ? name : "<input>";
    const int threads = mf_threads(lim ? lim->threads : 0);
    if (length >= PARALLEL_PARSE_BYTES && threads > 1) {
        int rc = parse_parallel(text, length, name, lim, threads, out, err);
        if (rc != 0)
            return rc > 0 ? MF_OK : rc;
    }
    return parse_serial(text, length, name, lim, out, err);
}

int mf_parse_dimacs(const char *text, size_t length, const char *name, mf_arclist *out, mf_error *err)
{
    return mf_parse_dimacs_limited(text, length, name, NULL, out, err);
}

typedef struct dimacs_stream {
    parse_state st;
    mf_arclist *out;
} dimacs_stream;

static int dimacs_lines(void *ctx, cursor *c)
{
    dimacs_stream *ds = ctx;
    return parse_lines(c, &ds->st, ds->out, 0);
}

/* A regular file mapped read-only (no copy: reading a large file into a
 * fresh buffer takes longer than parsing it); NULL where it cannot be
 * (standard input, pipes, empty files). */
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

int mf_read_dimacs_limited(const char *path, const mf_dimacs_limits *lim, mf_arclist *out, mf_error *err)
{
    size_t len;
    memset(out, 0, sizeof *out);
    const char *mapped = map_file(path, &len);
    if (mapped) {
        int rc = mf_parse_dimacs_limited(mapped, len, path, lim, out, err);
        munmap((void *)mapped, len);
        return rc;
    }
    const char *name;
    FILE *f = mf_open_stream(path, &name, err);
    if (!f)
        return MF_ERR_IO;
    dimacs_stream ds = {.out = out};
    state_init(&ds.st, lim, -1);
    cursor c = {NULL, NULL, name, 0, err, NULL, 0, DIMACS_FORMAT};
    int rc = mf_stream_lines(f, &c, dimacs_lines, &ds);
    mf_close_stream(f);
    if (!rc)
        rc = finish(&c, &ds.st, out);
    if (rc)
        mf_arclist_free(out);
    return rc;
}

int mf_read_dimacs(const char *path, mf_arclist *out, mf_error *err)
{
    return mf_read_dimacs_limited(path, NULL, out, err);
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
