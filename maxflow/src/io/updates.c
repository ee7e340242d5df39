/* Update scripts (--updates): the parser ('b' batch lines, 'u ARC CAP'
 * change lines) over the line layer (lines.h), strict and line-accurate
 * as the DIMACS reader is, and the check of a parsed script against the
 * graph it changes. */
#include "internal.h"
#include "lines.h"

#include <stdlib.h>
#include <string.h>

#define UPDATES_FORMAT "an update file"

void mf_updates_free(mf_updates *u)
{
    free(u->batch_start);
    free(u->arc);
    free(u->cap);
    free(u->line);
    memset(u, 0, sizeof *u);
}

/* Grows an array to hold `need` elements (doubling); 0 or MF_ERR_NOMEM. */
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

typedef struct updates_state {
    mf_updates *out;
    int32_t num_arcs;
    int64_t batch_cap, change_cap;
} updates_state;

static int update_lines(void *ctx, cursor *cur)
{
    updates_state *us = ctx;
    mf_updates *out = us->out;
    cursor c = *cur;
    const char *line_start = c.p;
    int rc = MF_OK;
    while (c.p < c.end) {
        line_start = c.p;
        c.line++;
        skip_blanks(&c);
        char kind = at_eol(&c) ? '\n' : *c.p;
        const char *kind_at = c.p;
        if (kind != '\n')
            c.p++;
        if (kind != '\n' && kind != 'c' && c.p < c.end && !is_blank(*c.p) && *c.p != '\n') {
            rc = mf_fail(c.err, MF_ERR_PARSE, c.name, c.line, "unknown line type");
            goto fail;
        }
        switch (kind) {
        case '\n':
            break;
        case 'c':
            if ((rc = skip_comment(&c)))
                goto fail;
            break;
        case 'b':
            if (!end_of_line(&c)) {
                rc = MF_ERR_PARSE;
                goto fail;
            }
            if (grow((void **)&out->batch_start, &us->batch_cap, (int64_t)out->num_batches + 2, sizeof(int64_t)))
                goto nomem;
            if (out->num_batches == INT32_MAX - 1) {
                rc = mf_fail(c.err, MF_ERR_TOO_LARGE, c.name, c.line, "more than %d batches", INT32_MAX - 1);
                goto fail;
            }
            out->num_batches++;
            out->batch_start[out->num_batches] = out->count;
            break;
        case 'u': {
            int64_t k, cap;
            if (!out->num_batches) {
                rc = mf_fail(c.err, MF_ERR_PARSE, c.name, c.line, "update line before the first batch line 'b'");
                goto fail;
            }
            if (!mf_field_int(&c, "arc number", &k) || !mf_field_int(&c, "capacity", &cap) || !end_of_line(&c)) {
                rc = MF_ERR_PARSE;
                goto fail;
            }
            if (k < 1 || k > us->num_arcs) {
                rc = mf_fail(c.err, MF_ERR_PARSE, c.name, c.line, "arc number %lld out of range 1..%d",
                             (long long)k, us->num_arcs);
                goto fail;
            }
            if (cap < 0 || cap > INT32_MAX) {
                rc = mf_fail(c.err, MF_ERR_PARSE, c.name, c.line, "capacity %lld outside 0..%d", (long long)cap,
                             INT32_MAX);
                goto fail;
            }
            int64_t cc = us->change_cap, need = out->count + 1;
            if (grow((void **)&out->arc, &cc, need, sizeof(int32_t)) ||
                (cc = us->change_cap, grow((void **)&out->cap, &cc, need, sizeof(int32_t))) ||
                (cc = us->change_cap, grow((void **)&out->line, &cc, need, sizeof(int64_t))))
                goto nomem;
            us->change_cap = cc;
            out->arc[out->count] = (int32_t)(k - 1);
            out->cap[out->count] = (int32_t)cap;
            out->line[out->count] = c.line;
            out->count++;
            out->batch_start[out->num_batches] = out->count;
            break;
        }
        default:
            /* printable: a malformed line of an update file (a text of
             * another format is told by its first line only in DIMACS) */
            rc = mf_unknown_line(&c, kind_at, 0);
            goto fail;
        }
        if (c.p < c.end && *c.p == '\n')
            c.p++;
    }
    *cur = c;
    return MF_OK;
nomem:
    rc = mf_fail(c.err, MF_ERR_NOMEM, c.name, c.line, "out of memory");
fail:
    rc = mf_line_error(&c, line_start, rc);
    *cur = c;
    return rc;
}

static int updates_begin(updates_state *us, mf_updates *out, int32_t num_arcs)
{
    memset(out, 0, sizeof *out);
    memset(us, 0, sizeof *us);
    us->out = out;
    us->num_arcs = num_arcs;
    if (grow((void **)&out->batch_start, &us->batch_cap, 1, sizeof(int64_t)))
        return MF_ERR_NOMEM;
    out->batch_start[0] = 0;
    return MF_OK;
}

int mf_parse_updates(const char *text, size_t length, const char *name, int32_t num_arcs, mf_updates *out,
                     mf_error *err)
{
    cursor c = {text, text + length, name ? name : "<input>", 0, err, text, 0, UPDATES_FORMAT};
    updates_state us;
    int rc = updates_begin(&us, out, num_arcs);
    if (rc)
        rc = mf_fail(err, rc, c.name, 0, "out of memory");
    else
        rc = update_lines(&us, &c);
    if (rc)
        mf_updates_free(out);
    return rc;
}

int mf_read_updates(const char *path, int32_t num_arcs, mf_updates *out, mf_error *err)
{
    const char *name;
    memset(out, 0, sizeof *out);
    FILE *f = mf_open_stream(path, &name, err);
    if (!f)
        return MF_ERR_IO;
    cursor c = {NULL, NULL, name, 0, err, NULL, 0, UPDATES_FORMAT};
    updates_state us;
    int rc = updates_begin(&us, out, num_arcs);
    if (rc)
        rc = mf_fail(err, rc, name, 0, "out of memory");
    else
        rc = mf_stream_lines(f, &c, update_lines, &us);
    mf_close_stream(f);
    if (rc)
        mf_updates_free(out);
    return rc;
}

/* A merged antiparallel pair is one stored arc whose two capacities sum
 * to at most INT32_MAX (so that every residual and flow of every engine,
 * the GPU's included, fits an int32_t). An update that would break that
 * is refused here, for the whole script, before anything is solved:
 * widening the stored capacities to 64 bits would double the arc memory
 * of every engine for a case that --no-merge (or merge_antiparallel 0)
 * already serves. The changes are replayed in order, as
 * mf_dynamic_set_input_arc applies them, so a script this accepts is
 * applied without a refusal. */
int mf_updates_check(const mf_graph *g, const mf_updates *u, const char *name, mf_error *err)
{
    name = name ? name : "<input>";
    if (!u->count)
        return MF_OK;
    if (!g->input_map)
        return mf_fail(err, MF_ERR_INVALID, name, 0, "the graph was not built from an arc list");
    int32_t *cap = malloc(sizeof(int32_t) * ((size_t)g->num_arcs + 1));
    int32_t *rcap = malloc(sizeof(int32_t) * ((size_t)g->num_arcs + 1));
    int rc = MF_OK;
    if (!cap || !rcap) {
        rc = mf_fail(err, MF_ERR_NOMEM, name, 0, "out of memory");
        goto done;
    }
    memcpy(cap, g->arc_cap, sizeof(int32_t) * (size_t)g->num_arcs);
    memcpy(rcap, g->arc_rcap, sizeof(int32_t) * (size_t)g->num_arcs);
    for (int64_t k = 0; k < u->count; k++) {
        int64_t line = u->line ? u->line[k] : 0;
        int32_t i = u->arc[k];
        if (i < 0 || i >= g->num_input_arcs || u->cap[k] < 0) {
            rc = mf_fail(err, MF_ERR_INVALID, name, line, "arc %lld out of range 1..%d", (long long)i + 1,
                         g->num_input_arcs);
            goto done;
        }
        int32_t map = g->input_map[i];
        if (map < 0)
            continue; /* a dropped self-loop */
        int32_t a = map >> 1;
        int32_t *mine = map & 1 ? rcap : cap, *other = map & 1 ? cap : rcap;
        if ((int64_t)u->cap[k] + other[a] > INT32_MAX) {
            rc = mf_fail(err, MF_ERR_TOO_LARGE, name, line,
                         "arc %d to capacity %d: merged with its antiparallel arc of capacity %d, the pair "
                         "would carry %lld, over %d",
                         i + 1, u->cap[k], other[a], (long long)u->cap[k] + other[a], INT32_MAX);
            goto done;
        }
        mine[a] = u->cap[k];
    }
done:
    free(cap);
    free(rcap);
    return rc;
}
