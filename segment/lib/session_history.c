/* The session's undo history: steps of changed pixels, bounded in bytes
 * (seg_session_commit, undo, redo; see segment.h). */
#include "session_internal.h"

#include <stdlib.h>
#include <string.h>

static void history_drop(seg_session *s, int64_t from, int64_t to)
{
    for (int64_t k = from; k < to; k++) {
        s->hist_bytes -= STEP_COST(s->steps[k]);
        free(s->steps[k].data);
        s->steps[k].data = NULL;
        session_keep_unref(s->steps[k].keep[0]);
        session_keep_unref(s->steps[k].keep[1]);
        s->steps[k].keep[0] = s->steps[k].keep[1] = NULL;
    }
}

/* Forgets steps until the history fits the limit: the oldest undo steps
 * first; once none is left, the redo branch from its far end, since redo
 * replays that branch from the labels as they are (dropping its first step
 * would make the next redo skip it). The slots are compacted once half of
 * them are dropped: amortised O(1) a step. */
static void history_trim(seg_session *s)
{
    while (s->hist_bytes > s->hist_limit && s->head < s->nsteps) {
        if (s->head < s->pos) {
            history_drop(s, s->head, s->head + 1);
            s->head++;
        } else {
            history_drop(s, s->nsteps - 1, s->nsteps);
            s->nsteps--;
        }
    }
    if (s->head == s->nsteps) {
        s->head = s->pos = s->nsteps = 0;
    } else if (s->head > 64 && s->head > s->nsteps / 2) {
        memmove(s->steps, s->steps + s->head, sizeof(hist_step) * (size_t)(s->nsteps - s->head));
        s->nsteps -= s->head;
        s->pos -= s->head;
        s->head = 0;
    }
}

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80)
        v >>= 7, n++;
    return n;
}

static uint8_t *varint_put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static const uint8_t *varint_get(const uint8_t *p, int64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0;; shift += 7) {
        x |= (uint64_t)(*p & 0x7f) << shift;
        if (!(*p++ & 0x80))
            break;
    }
    *v = (int64_t)x;
    return p;
}

/* Walks the changed runs of the open step: size only (out NULL) or encoded. */
static size_t encode_step(const seg_session *s, uint8_t *out)
{
    const int32_t *b = s->step;
    size_t size = 0;
    int64_t prev_end = 0;
    for (int32_t y = b[1]; y < b[3]; y++) {
        const uint8_t *was = s->committed + (int64_t)y * s->width, *now = s->labels + (int64_t)y * s->width;
        for (int32_t x = b[0]; x < b[2];) {
            if (was[x] == now[x]) {
                x++;
                continue;
            }
            int32_t x1 = x + 1;
            while (x1 < b[2] && was[x1] == was[x] && now[x1] == now[x])
                x1++;
            int64_t at = (int64_t)y * s->width + x;
            size += varint_size((uint64_t)(at - prev_end)) + varint_size((uint64_t)(x1 - x)) + 1;
            if (out) {
                out = varint_put(out, (uint64_t)(at - prev_end));
                out = varint_put(out, (uint64_t)(x1 - x));
                *out++ = (uint8_t)(was[x] << 4 | now[x]);
            }
            prev_end = at + (x1 - x);
            x = x1;
        }
    }
    return size;
}

int seg_session_commit(seg_session *s)
{
    int32_t *b = s->step;
    if (b[0] >= b[2])
        return SEG_OK;
    int rc = SEG_OK;
    size_t size = encode_step(s, NULL);
    keep_pack *after = NULL;
    if (size && session_keep_pack(s, &after))
        rc = SEG_ERR_NOMEM;
    hist_step st = {NULL, size, {b[0], b[1], b[2], b[3]}, {{0}}, {s->committed_keep, after}};
    if (size) {
        /* a new step ends the redo branch */
        history_drop(s, s->pos, s->nsteps);
        s->nsteps = s->pos;
        if (rc || STEP_COST(st) > s->hist_limit) {
            /* larger than the whole allowance: not undoable, and the older
             * steps cannot be replayed across it */
            history_drop(s, s->head, s->nsteps);
            s->head = s->pos = s->nsteps = 0;
        } else {
            s->hist_bytes += STEP_COST(st); /* charged first so the trim makes room */
            history_trim(s);
            s->hist_bytes -= STEP_COST(st);
            st.data = malloc(size);
            memcpy(st.prompt_box[0], s->committed_box, sizeof st.prompt_box[0]);
            st.prompt_box[1][0] = s->has_box;
            memcpy(st.prompt_box[1] + 1, s->box, sizeof s->box);
            if (st.data && s->nsteps == s->cap) {
                int64_t cap = s->cap ? 2 * s->cap : 64;
                hist_step *more = realloc(s->steps, sizeof(hist_step) * (size_t)cap);
                if (more)
                    s->steps = more, s->cap = cap;
            }
            if (!st.data || s->nsteps == s->cap) {
                free(st.data);
                history_drop(s, s->head, s->nsteps);
                s->head = s->pos = s->nsteps = 0;
                rc = SEG_ERR_NOMEM;
            } else {
                encode_step(s, st.data);
                session_keep_ref(st.keep[0]);
                session_keep_ref(st.keep[1]);
                s->steps[s->nsteps++] = st;
                s->pos = s->nsteps;
                s->hist_bytes += STEP_COST(st);
            }
        }
        /* the term after this step starts the next one */
        session_keep_unref(s->committed_keep);
        s->committed_keep = session_keep_ref(after);
    }
    session_keep_unref(after);
    for (int32_t y = b[1]; y < b[3]; y++)
        memcpy(s->committed + (int64_t)y * s->width + b[0], s->labels + (int64_t)y * s->width + b[0],
               (size_t)(b[2] - b[0]));
    s->committed_box[0] = s->has_box;
    memcpy(s->committed_box + 1, s->box, sizeof s->box);
    b[0] = b[2] = 0;
    return rc;
}

/* Replays step k's before (undo) or after labels, and its box: a box
 * drawn over another one undoes to the first box's route. */
static void apply_step(seg_session *s, const hist_step *st, int after)
{
    session_keep_unpack(s, st->keep[after]);
    session_keep_unref(s->committed_keep);
    s->committed_keep = session_keep_ref(st->keep[after]);
    s->has_box = st->prompt_box[after][0];
    memcpy(s->box, st->prompt_box[after] + 1, sizeof s->box);
    memcpy(s->committed_box, st->prompt_box[after], sizeof s->committed_box);
    const uint8_t *p = st->data, *end = st->data + st->size;
    int64_t at = 0;
    while (p < end) {
        int64_t skip, len;
        p = varint_get(p, &skip);
        p = varint_get(p, &len);
        uint8_t l = after ? (*p & 15) : (uint8_t)(*p >> 4);
        p++;
        at += skip;
        for (int64_t i = at; i < at + len; i++) {
            session_set_label(s, i, l);
            s->committed[i] = l;
        }
        at += len;
    }
    session_mark_dirty(s, st->box[0], st->box[1], st->box[2], st->box[3]);
}

int seg_session_undo(seg_session *s)
{
    int rc = seg_session_commit(s); /* edits not yet committed are the step undone */
    if (rc)
        return rc;
    if (s->pos <= s->head)
        return 0;
    s->pos--;
    apply_step(s, &s->steps[s->pos], 0);
    return 1;
}

int seg_session_redo(seg_session *s)
{
    int rc = seg_session_commit(s); /* an edit since the undo ends the redo branch */
    if (rc)
        return rc;
    if (s->pos >= s->nsteps)
        return 0;
    apply_step(s, &s->steps[s->pos], 1);
    s->pos++;
    return 1;
}

int seg_session_can_undo(const seg_session *s) { return s->pos > s->head || s->step[0] < s->step[2]; }

int seg_session_can_redo(const seg_session *s) { return s->pos < s->nsteps && s->step[0] >= s->step[2]; }

void seg_session_set_history_limit(seg_session *s, size_t bytes)
{
    s->hist_limit = bytes;
    history_trim(s);
}

size_t seg_session_history_bytes(const seg_session *s) { return s->hist_bytes; }


void session_history_free(seg_session *s)
{
    if (s->steps)
        history_drop(s, s->head, s->nsteps);
    free(s->steps);
    s->steps = NULL;
    session_keep_unref(s->committed_keep);
    s->committed_keep = NULL;
}
