/* libFuzzer harness: the interactive session driven by a sequence of
 * operations (strokes, clicks, patches, commits, undo, redo, cuts, lambda,
 * refit, history limit) on a 16x12 synthetic photo. Checked after every step:
 *  - undo and redo give back exactly the labels of the step they name (a
 *    shadow history of label snapshots; the session may have forgotten
 *    old steps under its byte limit, never altered them);
 *  - the history never holds more bytes than its limit;
 *  - a cut leaves a binary mask with every seed on its own side, and with
 *    re-fitting on it equals seg_segment, the one-shot segmentation, on
 *    the same seeds (after a click that corrects a cut, with that click
 *    and that cut's mask as the previous answer: the session's documented
 *    equivalence). */
#include "flowcut/segment.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_cursor.h"

enum { W = 16, H = 12, NPX = W * H, MAX_SNAP = 64 };

static uint8_t rgb[NPX * 3];

static void make_photo(void)
{
    /* a warm disc on a cool gradient: two colour models to tell apart */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = rgb + 3 * (y * W + x);
            int in = (x - 8) * (x - 8) + (y - 6) * (y - 6) < 16;
            p[0] = (uint8_t)(in ? 200 + x : 20 + 4 * y);
            p[1] = (uint8_t)(in ? 60 + 3 * y : 90 + 5 * x);
            p[2] = (uint8_t)(in ? 40 : 160 + 3 * x);
        }
}


static int byte(cursor *c)
{
    int b = take(c);
    return b < 0 ? 0 : b;
}

/* a coordinate a little beyond the photo on every side, quarter pixels */
static double coord(cursor *c, int span)
{
    return (double)(byte(c) % (span + 8)) - 4 + (byte(c) & 3) * 0.25;
}

/* the shadow history: snapshots [0, n), the current one at pos */
static uint8_t snaps[MAX_SNAP][NPX];
static int nsnap, spos, shadow_lost; /* lost: the shadow dropped steps the session may keep */

static void shadow_reset(const uint8_t *labels)
{
    memcpy(snaps[0], labels, NPX);
    nsnap = 1;
    spos = 0;
    shadow_lost = 0;
}

/* what a commit does: a changed state is a new step, dropping redo */
static void shadow_commit(const uint8_t *labels)
{
    if (!memcmp(snaps[spos], labels, NPX))
        return;
    if (spos + 1 == MAX_SNAP) { /* keep the newest; older steps may be gone in the session too */
        memmove(snaps[0], snaps[1], (size_t)(MAX_SNAP - 1) * NPX);
        spos--;
        shadow_lost = 1;
    }
    spos++;
    memcpy(snaps[spos], labels, NPX);
    nsnap = spos + 1;
}

static void check_cut(seg_session *s, int refit)
{
    const uint8_t *m = seg_session_mask(s), *l = seg_session_labels(s);
    for (int i = 0; i < NPX; i++) {
        if (m[i] != 0 && m[i] != 255)
            abort();
        if ((l[i] == GB_FOREGROUND && m[i] != 255) || (l[i] == GB_BACKGROUND && m[i] != 0))
            abort(); /* a hard seed on the wrong side */
    }
    if (!refit)
        return;
    seg_options o;
    seg_options_default(&o);
    seg_session_options so;
    seg_session_options_default(&so);
    o.graph = so.graph;
    o.graph.lambda = seg_session_lambda(s);
    o.solve = so.solve;
    o.solve.engine = MF_ENGINE_CPU;
    o.solve.threads = 1;
    o.seeds = SEG_SEEDS_LABELS;
    /* after a click that corrects a cut: that click and that cut's mask */
    seg_click click;
    const uint8_t *previous = seg_session_get_previous(s, &click);
    seg_prompts *p = seg_prompts_new();
    if (!p)
        abort();
    if (previous) {
        if (seg_prompts_add_click(p, click.x, click.y, click.label, NULL) != SEG_OK)
            abort();
        o.prompts = p;
        seg_options_set_previous(&o, previous, W, H);
    }
    int32_t box[4];
    if (seg_session_get_box(s, box) && seg_prompts_set_box(p, box[0], box[1], box[2], box[3], NULL) == SEG_OK)
        o.prompts = p;
    uint8_t want[NPX];
    seg_error err = {0};
    int rc = seg_segment(rgb, W, H, l, 1, &o, want, NULL, &err);
    seg_prompts_free(p);
    if (rc != SEG_OK)
        abort(); /* the session cut these seeds, so must the one-shot path */
    if (memcmp(want, m, NPX) != 0) {
        fprintf(stderr, "session mask differs from seg_segment (lambda %g)\n", seg_session_lambda(s));
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        make_photo();
        init = 1;
    }
    cursor c = {data, size};
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    o.solve.threads = 1; /* a pool per solve would be most of the time on 192 pixels */
    seg_session *s = NULL;
    seg_error err = {0};
    uint8_t start[NPX];
    memset(start, 0, sizeof start);
    if (byte(&c) & 1) /* sometimes starting seeds */
        for (int i = 0; i < NPX; i++)
            start[i] = (uint8_t)(i % 16 == 0 ? GB_BACKGROUND : i == 6 * W + 8 ? GB_FOREGROUND : 0);
    if (seg_session_open(rgb, W, H, start, &o, &s, &err) != SEG_OK)
        abort();
    shadow_reset(seg_session_labels(s));
    size_t limit = SEG_SESSION_HISTORY_DEFAULT;
    int refit = 1, cuts = 0;
    for (int op; (op = take(&c)) >= 0;) {
        switch (op % 10) {
        case 1: { /* a click, inside the photo or refused outside it */
            int x = byte(&c) % (W + 1), y = byte(&c) % (H + 1);
            uint8_t label = (uint8_t)(1 + (byte(&c) & 1));
            if ((seg_session_click(s, x, y, label) == SEG_OK) != (x < W && y < H))
                abort();
            break;
        }
        case 0: { /* a stroke of 1..8 points */
            uint8_t label = (uint8_t)(byte(&c) % 3);
            double r = (byte(&c) % 40) * 0.25;
            int n = 1 + byte(&c) % 8;
            double xy[16];
            for (int i = 0; i < n; i++)
                xy[2 * i] = coord(&c, W), xy[2 * i + 1] = coord(&c, H);
            if (seg_session_paint_stroke(s, label, xy, n, r) != SEG_OK)
                abort();
            break;
        }
        case 2: { /* a patch, sometimes invalid (refused, nothing changes) */
            int x = byte(&c) % (W + 2), y = byte(&c) % (H + 2), w = byte(&c) % 6, h = byte(&c) % 6;
            uint8_t patch[36], before[NPX];
            for (int i = 0; i < 36; i++)
                patch[i] = (uint8_t)(byte(&c) % 4);
            memcpy(before, seg_session_labels(s), NPX);
            if (seg_session_set_labels(s, x, y, w, h, patch, w ? w : 1) != SEG_OK &&
                memcmp(before, seg_session_labels(s), NPX))
                abort();
            break;
        }
        case 3:
            if (seg_session_commit(s) != SEG_OK)
                abort();
            shadow_commit(seg_session_labels(s));
            break;
        case 4:
        case 5: { /* undo, redo */
            int redo = op % 10 == 5;
            shadow_commit(seg_session_labels(s)); /* both commit pending edits first */
            int rc = redo ? seg_session_redo(s) : seg_session_undo(s);
            if (rc < 0)
                abort();
            if (rc == 1) {
                int want = redo ? spos + 1 : spos - 1;
                if (want < 0 && shadow_lost) {
                    shadow_reset(seg_session_labels(s));
                    break;
                }
                if (want < 0 || want >= nsnap || memcmp(snaps[want], seg_session_labels(s), NPX))
                    abort(); /* undo or redo to anything but the step's neighbour */
                spos = want;
            } else if (redo) {
                nsnap = spos + 1; /* the redo branch is gone (dropped under the limit) */
            } else { /* older steps forgotten: the shadow starts here */
                memmove(snaps[0], snaps[spos], (size_t)(nsnap - spos) * NPX); /* the redo branch too */
                nsnap -= spos;
                spos = 0;
            }
            break;
        }
        case 6: { /* a cut; a few per input keep the harness fast */
            if (++cuts > 4)
                break;
            if (byte(&c) & 1) { /* the page's preview first: it changes nothing the cut checks */
                uint8_t look[NPX];
                const int prc = seg_session_preview(s, look, NULL, &err);
                if (prc != SEG_OK && prc != SEG_ERR_NEED_SEEDS)
                    abort();
            }
            int rc = seg_session_cut(s, NULL, &err);
            if (rc == SEG_OK)
                check_cut(s, refit);
            else if (rc != SEG_ERR_NEED_SEEDS)
                abort();
            break;
        }
        case 7: { /* lambda, sometimes out of range (refused) */
            int b = byte(&c);
            double l = b == 255 ? -1 : b * 4.0;
            if ((seg_session_set_lambda(s, l) == SEG_OK) != (l >= 0))
                abort();
            break;
        }
        case 8:
            refit = byte(&c) & 1;
            seg_session_set_refit(s, refit);
            break;
        case 9: /* a history limit from nothing to plenty */
            limit = (size_t)(byte(&c) % 16) * 24;
            seg_session_set_history_limit(s, limit);
            break;
        }
        if (seg_session_history_bytes(s) > limit)
            abort();
    }
    seg_session_close(s);
    return 0;
}
