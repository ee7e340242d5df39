/* A session's preview: the next cut's answer on the photo shrunk to at
 * most SEG_PREVIEW_PIXELS, for a large photo whose exact cut takes a
 * fraction of a second or more (a click or a box re-fits the models and
 * solves cold). The page shows it at once and the exact mask when it
 * comes. It is `flowcut segment` on the shrunk photo, seeds, box and
 * previous answer, on the CPU; it changes nothing in the session. */
#include "session_internal.h"

#include "flowcut/images.h"
#include "flowcut_threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The side of the square blocks the photo is shrunk by: the smallest
 * whole factor that brings it to SEG_PREVIEW_PIXELS or fewer. */
static int32_t preview_factor(const seg_session *s)
{
    int32_t f = 1;
    while (((int64_t)s->width + f - 1) / f * (((int64_t)s->height + f - 1) / f) > SEG_PREVIEW_PIXELS)
        f++;
    return f;
}

/* Not while the network is the standing box's route and the models are
 * kept: a click then changes its own pixels alone and the quick cut
 * repairs the flow warm (2 cores, 3 Mpx: 0.17-0.20 s, against a
 * preview's 0.08 s that would put the exact mask off by 0.14 s). Once the
 * solver runs on a GPU, only from SEG_PREVIEW_MIN_PIXELS_GPU: a click's
 * cut there takes 0.09 s at 1 Mpx, a preview 0.04 s, which would put the
 * exact mask off by half; at 3 Mpx 0.28 s against 0.06 s. */
int seg_session_preview_pays(const seg_session *s)
{
    if (!s || s->npx < SEG_PREVIEW_MIN_PIXELS ||
        (s->dyn && mf_dynamic_engine(s->dyn) == MF_ENGINE_GPU && s->npx < SEG_PREVIEW_MIN_PIXELS_GPU))
        return 0;
    int32_t box[4];
    const int warm_box = s->dyn && !s->rebuild && s->box_net && !s->opt.refit && seg_session_get_box(s, box) &&
                         !memcmp(box, s->net_box, sizeof box);
    return !warm_box;
}

/* Block (bx, by) of side f, clipped to the photo: its first and last
 * pixel rows and columns. */
typedef struct block {
    int32_t x0, y0, x1, y1;
} block;

static block block_at(const seg_session *s, int32_t f, int32_t bx, int32_t by)
{
    block b = {bx * f, by * f, bx * f + f, by * f + f};
    if (b.x1 > s->width)
        b.x1 = s->width;
    if (b.y1 > s->height)
        b.y1 = s->height;
    return b;
}

/* The passes over the photo, on the session's threads in bands of block
 * rows (on a 12 Mpx photo each reads or writes every pixel: 0.05 s on one
 * core). */
typedef struct pass {
    const seg_session *s;
    int32_t f, cw;
    const uint8_t *previous;
    uint8_t *rgb, *labels, *prev; /* the shrunk photo, seeds and previous answer */
    const uint8_t *small;         /* the shrunk answer */
    uint8_t *mask;
    _Atomic int64_t foreground; /* integers: the same sum in any order */
} pass;

/* The shrunk photo (each block's mean colour), seeds (a block takes the
 * label more of its seeded pixels have; none on a tie, so a stroke or a
 * click's disc smaller than a block still counts) and previous answer
 * (foreground where at least half the block is), block rows [by0, by1). */
static void shrink(void *arg, int32_t by0, int32_t by1)
{
    pass *t = arg;
    const seg_session *s = t->s;
    for (int32_t by = by0; by < by1; by++)
        for (int32_t bx = 0; bx < t->cw; bx++) {
            const block b = block_at(s, t->f, bx, by);
            uint32_t sum[3] = {0, 0, 0}, count[3] = {0, 0, 0}, fg = 0, n = 0;
            for (int32_t y = b.y0; y < b.y1; y++)
                for (int32_t x = b.x0; x < b.x1; x++) {
                    const int64_t i = (int64_t)y * s->width + x;
                    for (int c = 0; c < 3; c++)
                        sum[c] += s->rgb[3 * i + c];
                    count[s->labels[i] <= GB_BACKGROUND ? s->labels[i] : 0]++;
                    fg += t->previous && t->previous[i];
                    n++;
                }
            const int64_t k = (int64_t)by * t->cw + bx;
            for (int c = 0; c < 3; c++)
                t->rgb[3 * k + c] = (uint8_t)((sum[c] + n / 2) / n);
            t->labels[k] = count[GB_FOREGROUND] > count[GB_BACKGROUND]   ? GB_FOREGROUND
                           : count[GB_BACKGROUND] > count[GB_FOREGROUND] ? GB_BACKGROUND
                                                                         : GB_UNMARKED;
            if (t->prev)
                t->prev[k] = 2 * fg >= n;
        }
}

/* Each block's answer to its pixels, the pixel rows of block rows
 * [by0, by1). */
static void spread(void *arg, int32_t by0, int32_t by1)
{
    pass *t = arg;
    const seg_session *s = t->s;
    const int32_t y1 = (int64_t)by1 * t->f < s->height ? by1 * t->f : s->height;
    int64_t fg = 0;
    for (int32_t y = by0 * t->f; y < y1; y++) {
        const uint8_t *row = t->small + (int64_t)(y / t->f) * t->cw;
        uint8_t *out = t->mask + (int64_t)y * s->width;
        for (int32_t x = 0; x < s->width; x++) {
            out[x] = row[x / t->f];
            fg += out[x] != 0;
        }
    }
    t->foreground += fg;
}

int seg_session_preview(const seg_session *s, uint8_t *mask, seg_cut_stats *st, seg_error *err)
{
    seg_cut_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    if (!s || !mask)
        return seg_fail(err, SEG_ERR_INVALID, "seg_session_preview: NULL session or mask");
    const double t0 = seg_now();
    const int32_t f = preview_factor(s), cw = (s->width + f - 1) / f, ch = (s->height + f - 1) / f;
    const int64_t cpx = (int64_t)cw * ch;
    int32_t box[4];
    const int has_box = seg_session_get_box(s, box); /* a scan of the photo once a box was drawn */
    seg_click click;
    const uint8_t *previous = has_box ? NULL : seg_session_get_previous(s, &click); /* a box's route has none */
    uint8_t *rgb = malloc((size_t)cpx * 3), *labels = malloc((size_t)cpx), *small = malloc((size_t)cpx);
    uint8_t *prev = previous ? malloc((size_t)cpx) : NULL;
    seg_prompts *p = seg_prompts_new();
    int rc = SEG_OK;
    if (!rgb || !labels || !small || (previous && !prev) || !p) {
        rc = seg_fail(err, SEG_ERR_NOMEM, "preview: out of memory for a %dx%d copy", cw, ch);
        goto done;
    }
    const int threads = mf_threads(s->opt.solve.threads);
    pass ps = {s, f, cw, previous, rgb, labels, prev, small, mask, 0};
    mf_parallel_for(threads, ch, 1, shrink, &ps);
    seg_options o;
    seg_options_default(&o);
    o.graph = s->opt.graph;
    /* a block stands for f * f pixels and f pixels of boundary, so the
     * photo's energy of a blocky mask is f * f times the shrunk photo's
     * with n-links of weight lambda / f */
    o.graph.lambda /= f;
    o.solve = s->opt.solve;
    o.solve.engine = MF_ENGINE_CPU; /* a GPU solve's start costs more than this whole cut */
    o.prompts = p;
    /* the click the previous answer's term centres on, its disc already
     * among the seeds: on the shrunk photo the least disc (radius 1, a
     * plus of five blocks) */
    if (previous && !(rc = seg_prompts_add_click(p, click.x / f, click.y / f, click.label, err))) {
        rc = seg_prompts_set_radius(p, 0, 1, err);
        seg_options_set_previous(&o, prev, cw, ch);
    }
    if (!rc && has_box) {
        /* the blocks the box touches (seg_session_box keeps the part of a
         * box on the photo; the sum stays in 64 bits all the same) */
        const int64_t x0 = box[0] / f, y0 = box[1] / f, x1 = ((int64_t)box[0] + box[2] + f - 1) / f,
                      y1 = ((int64_t)box[1] + box[3] + f - 1) / f;
        rc = seg_prompts_set_box(p, (int32_t)x0, (int32_t)y0, (int32_t)((x1 < cw ? x1 : cw) - x0),
                                 (int32_t)((y1 < ch ? y1 : ch) - y0), err);
    }
    seg_info info;
    if (!rc)
        rc = seg_segment(rgb, cw, ch, labels, 1, &o, small, &info, err);
    if (rc)
        goto done;
    mf_parallel_for(threads, ch, 1, spread, &ps);
    st->foreground = ps.foreground;
    st->flow = info.flow;
    st->engine = MF_ENGINE_CPU;
    st->model_seconds = info.model_seconds;
    st->update_seconds = info.build_seconds;
    st->solve_seconds = info.solve_seconds;
    snprintf(st->device, sizeof st->device, "%s", info.device);
done:
    st->total_seconds = seg_now() - t0;
    seg_prompts_free(p);
    free(rgb);
    free(labels);
    free(small);
    free(prev);
    return rc;
}
