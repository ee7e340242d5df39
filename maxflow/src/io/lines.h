/* The line layer under the text formats (DIMACS max-flow files, update
 * scripts): a cursor over whole lines, its field readers, the errors that
 * a malformed line or binary data raise, and the stream reader that hands
 * a parser its lines a block at a time (lines.c). Private to src/io. The
 * small helpers that the parsers' per-line loops call are static inline
 * here, so that those loops keep them inlined; the rest are calls made
 * once a field, on an error or once a block. */
#ifndef FLOWCUT_IO_LINES_H
#define FLOWCUT_IO_LINES_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct cursor {
    const char *p, *end;
    const char *name;
    int64_t line;
    mf_error *err;
    /* byte offset of `base` in the input, for "binary data at byte N" */
    const char *base;
    int64_t base_offset;
    const char *format; /* "a DIMACS max-flow file", "an update file" */
} cursor;

static inline int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static inline void skip_blanks(cursor *c)
{
    while (c->p < c->end && is_blank(*c->p))
        c->p++;
}

static inline int at_eol(const cursor *c) { return c->p >= c->end || *c->p == '\n'; }

/* The error for binary data at `at`; line 0, as it concerns the input as a
 * whole rather than one of its lines. */
int mf_fail_binary(const cursor *c, const char *at);

/* After a malformed line: a NUL byte in it makes the input binary (every
 * line before it parsed, so this is the input's first NUL). */
int mf_line_error(const cursor *c, const char *line_start, int rc);

/* A line whose first byte is no line type of the format: binary data, or
 * (as the input's first line that is not a comment) a text of another
 * format; else a malformed line of this one. */
int mf_unknown_line(const cursor *c, const char *at, int first);

/* Moves past a comment to its line end; a NUL in it makes the input
 * binary. */
static inline int skip_comment(cursor *c)
{
    const char *eol = memchr(c->p, '\n', (size_t)(c->end - c->p));
    eol = eol ? eol : c->end;
    const char *nul = memchr(c->p, 0, (size_t)(eol - c->p));
    if (nul)
        return mf_fail_binary(c, nul);
    c->p = eol;
    return MF_OK;
}

/* Reads one decimal integer field (optional sign). Returns 1 and sets *out,
 * or 0 with the error filled in. */
int mf_field_int(cursor *c, const char *what, int64_t *out);

/* Reads a word (non-blank run) into buf. */
int mf_field_word(cursor *c, const char *what, char *buf, size_t size);

static inline int end_of_line(cursor *c)
{
    skip_blanks(c);
    if (!at_eol(c)) {
        mf_fail(c->err, MF_ERR_PARSE, c->name, c->line, "unexpected extra field");
        return 0;
    }
    return 1;
}

/* A parser's step on a stream: the whole lines in c->p .. c->end. */
typedef int (*lines_fn)(void *ctx, cursor *c);

/* Hands fn the whole lines of f, a block at a time, in c (whose line
 * count runs on from block to block); the input's last line may lack its
 * line end. */
int mf_stream_lines(FILE *f, cursor *c, lines_fn fn, void *ctx);

/* Opens path for mf_stream_lines ("-": standard input). */
FILE *mf_open_stream(const char *path, const char **name, mf_error *err);
void mf_close_stream(FILE *f);

#endif
