/* The line layer under DIMACS files and update scripts (lines.h): the
 * field readers, the errors of malformed lines and binary data, and the
 * stream reader. */
#define _GNU_SOURCE /* memrchr */
#include "lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int64_t offset_of(const cursor *c, const char *at) { return c->base_offset + (at - c->base); }

/* The error for binary data at `at`; line 0, as it concerns the input as a
 * whole rather than one of its lines. */
int mf_fail_binary(const cursor *c, const char *at)
{
    return mf_fail(c->err, MF_ERR_PARSE, c->name, 0, "not %s (binary data at byte %lld)", c->format,
                   (long long)offset_of(c, at));
}

/* Bytes a line may begin with in a text: printable ASCII or blanks. */
static int is_text_start(unsigned char b) { return (b >= 0x20 && b < 0x7f) || b == '\t' || b == '\r' || b == '\v' || b == '\f'; }

/* After a malformed line: a NUL byte in it makes the input binary (every
 * line before it parsed, so this is the input's first NUL). */
int mf_line_error(const cursor *c, const char *line_start, int rc)
{
    if (rc != MF_ERR_PARSE)
        return rc;
    const char *eol = memchr(line_start, '\n', (size_t)(c->end - line_start));
    const char *nul = memchr(line_start, 0, (size_t)((eol ? eol : c->end) - line_start));
    return nul ? mf_fail_binary(c, nul) : rc;
}

/* A line whose first byte is no line type of the format: binary data, or
 * (as the input's first line that is not a comment) a text of another
 * format; else a malformed line of this one. */
int mf_unknown_line(const cursor *c, const char *at, int first)
{
    unsigned char b = (unsigned char)*at;
    if (!is_text_start(b))
        return mf_fail_binary(c, at);
    if (first)
        return mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "not %s (line %lld starts with '%c')", c->format,
                       (long long)c->line, (char)b);
    return mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "unknown line type '%c'", (char)b);
}

/* Reads one decimal integer field (optional sign). Returns 1 and sets *out,
 * or 0 with the error filled in. */
int mf_field_int(cursor *c, const char *what, int64_t *out)
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
int mf_field_word(cursor *c, const char *what, char *buf, size_t size)
{
    skip_blanks(c);
    if (at_eol(c)) {
        mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "missing field: %s", what);
        return 0;
    }
    size_t k = 0;
    while (c->p < c->end && !is_blank(*c->p) && *c->p != '\n') {
        if (*c->p == 0) /* would end the word early: "s\0" is no "s" */
            return mf_fail_binary(c, c->p), 0;
        if (k + 1 < size)
            buf[k++] = *c->p;
        c->p++;
    }
    buf[k] = 0;
    return 1;
}

/* Streams (standard input, pipes, devices) are read a block at a time and
 * parsed as they come: memory is the block and what the lines hold, and
 * an input that is not text is refused at its first block. A line must
 * end within MAX_LINE_BYTES (a DIMACS line has four short fields); only a
 * comment may be longer, its rest is skipped. */
#define STREAM_BLOCK (1 << 20)
#define MAX_LINE_BYTES (1 << 20)

/* Hands fn the whole lines of f, a block at a time, in c (whose line
 * count runs on from block to block); the input's last line may lack its
 * line end. */
int mf_stream_lines(FILE *f, cursor *c, lines_fn fn, void *ctx)
{
    const size_t size = STREAM_BLOCK + MAX_LINE_BYTES;
    char *buf = malloc(size);
    if (!buf)
        return mf_fail(c->err, MF_ERR_NOMEM, c->name, 0, "out of memory");
    size_t have = 0;   /* bytes in buf */
    int64_t offset = 0; /* of buf[0] in the input */
    int skipping = 0;   /* in the rest of an overlong comment (fn has seen its line) */
    int rc = MF_OK;
    for (;;) {
        size_t got = fread(buf + have, 1, size - have, f);
        if (got == 0 && ferror(f)) {
            rc = mf_fail(c->err, MF_ERR_IO, c->name, 0, "read error: %s", strerror(errno));
            break;
        }
        const int eof = got == 0;
        have += got;
        c->base = buf;
        c->base_offset = offset;
        if (skipping) {
            const char *eol = memchr(buf, '\n', have);
            const char *nul = memchr(buf, 0, (size_t)((eol ? eol : buf + have) - buf));
            if (nul) {
                rc = mf_fail_binary(c, nul);
                break;
            }
            size_t drop = eol ? (size_t)(eol - buf) + 1 : have;
            memmove(buf, buf + drop, have - drop);
            offset += (int64_t)drop;
            have -= drop;
            c->base_offset = offset;
            skipping = !eol;
            if (skipping) {
                if (eof)
                    break;
                continue;
            }
        }
        const char *last = have ? memrchr(buf, '\n', have) : NULL;
        size_t whole = eof ? have : last ? (size_t)(last - buf) + 1 : 0;
        if (whole) {
            c->p = buf;
            c->end = buf + whole;
            if ((rc = fn(ctx, c)))
                break;
        }
        if (eof)
            break;
        memmove(buf, buf + whole, have - whole);
        offset += (int64_t)whole;
        have -= whole;
        if (have >= MAX_LINE_BYTES) { /* one line, and no end to it yet */
            c->base_offset = offset;
            const char *nul = memchr(buf, 0, have);
            if (nul) {
                rc = mf_fail_binary(c, nul);
                break;
            }
            const char *q = buf;
            while (q < buf + have && is_blank(*q))
                q++;
            if (q == buf + have || *q != 'c') {
                rc = mf_fail(c->err, MF_ERR_PARSE, c->name, c->line + 1, "line longer than %d bytes",
                             MAX_LINE_BYTES);
                break;
            }
            c->p = buf; /* the comment's start counts as its line */
            c->end = buf + have;
            if ((rc = fn(ctx, c)))
                break;
            offset += (int64_t)have;
            have = 0;
            skipping = 1;
        }
    }
    free(buf);
    return rc;
}

/* Opens path for mf_stream_lines ("-": standard input). */
FILE *mf_open_stream(const char *path, const char **name, mf_error *err)
{
    int is_stdin = strcmp(path, "-") == 0;
    *name = is_stdin ? "<stdin>" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        mf_fail(err, MF_ERR_IO, *name, 0, "cannot open: %s", strerror(errno));
    return f;
}

void mf_close_stream(FILE *f)
{
    if (f != stdin)
        fclose(f);
}
