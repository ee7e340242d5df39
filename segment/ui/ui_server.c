/* HTTP routes of `flowcut ui` (served by ui_http.c, one request at a time):
 *   GET  /             the page (segment/ui/index.html, built in)
 *   GET  /photo.png    the photo
 *   GET  /api/state    JSON: size, lambda, version, undo/redo, last cut, the clicks and
 *                      boxes in effect (for the page to draw)
 *   GET  /api/mask     the mask, one bit per pixel (LSB first), empty before a cut
 *   GET  /api/seeds    the seed labels, one byte per pixel
 *   POST /api/stroke   "LABEL RADIUS X0 Y0 [X1 Y1 ...]": paint, re-cut at once with
 *                      the models as they are (only the stroked pixels change)
 *   POST /api/click    "X Y LABEL": a click as `flowcut segment --clicks` paints it
 *                      (LABEL 1 foreground, 2 background), re-cut as a stroke is;
 *                      the state lists it as [X, Y, LABEL, RADIUS] (its disc).
 *                      On a photo of SEG_PREVIEW_MIN_PIXELS or more the answer is
 *                      a preview (state "preview": seg_session_preview) and the
 *                      cut waits for the next POST, which makes it first
 *   POST /api/box      "X Y W H": everything outside the rectangle is background
 *                      (`flowcut segment --box`), answered as a click is
 *   POST /api/refine   the cut a preview put off, else re-fit the models on the
 *                      seeds and re-cut: the mask of `flowcut segment` (the page
 *                      asks after each edit whose state says "refine": a preview,
 *                      or seg_session_refine_pending)
 *   POST /api/undo, /api/redo, /api/lambda "VALUE", /api/save "mask [cutout] [seeds]"
 *                      (save refines first)
 * Every request carries the token (query ?token= or header X-Flowcut-Token);
 * anything else is refused with a 4xx and the server keeps running.
 *
 * One thread serves every request in order, so no request may hold it long
 * or grow the process without bound: a stroke's work is capped before it
 * is painted, the undo history is bounded in bytes (the session's limit),
 * a request without the token or with too large a body is refused as soon
 * as its headers arrive, and idle or slow connections are closed after a
 * timeout. ui_app_* is the server without HTTP (what the fuzzer drives);
 * ui_http.c only carries requests to it. */
#define _POSIX_C_SOURCE 200809L
#include "ui_server.h"

#include "cli.h" /* cli_json_escape: one JSON escape for the front ends */

#include "flowcut/images.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const unsigned char ui_page_html[];
extern const size_t ui_page_html_size;

/* One stroke request: at most this many points, radius at most this. */
#define STROKE_MAX_POINTS 4096
#define STROKE_MAX_RADIUS 1000
/* Painting costs about one span computation per (segment, row it crosses);
 * 2^24 of them take a noticeable fraction of a second. Beyond that a
 * stroke is refused (413) before anything is painted: the page never sends
 * one (its brush is at most 80 pixels), and a client that does would hold
 * every other request up. */
#define STROKE_MAX_SPANS ((int64_t)1 << 24)
/* The clicks and boxes the state lists for the page to draw. Only the
 * drawing is capped: beyond this many the oldest are no longer listed
 * (their seeds stay), so a client clicking without end neither grows the
 * server nor every state answer without bound. */
#define PROMPTS_SHOWN 4096

/* A click (kind GB_FOREGROUND or GB_BACKGROUND at x, y, its disc's
 * radius in w) or a box (kind BOX_KIND, x, y, w, h), made by the edit that
 * became undo step `step`. */
#define BOX_KIND 3
typedef struct ui_prompt {
    int64_t step;
    int32_t x, y, w, h;
    uint8_t kind;
} ui_prompt;

struct ui_app {
    ui_config cfg;
    uint8_t *photo_png;
    size_t photo_png_size;
    int64_t version;         /* bumps at every cut */
    seg_cut_stats last;
    int have_cut;
    char message[512];       /* why there is no mask, or the last error */
    char error[256];         /* a request's formatted one-line refusal */
    /* Every committed edit is one undo step; `step` counts the steps in
     * effect (undo lowers it, redo raises it, a new edit drops the steps
     * above it, as the session's history does). A prompt is in effect while
     * its step is. Steps the session's bounded history forgot can no longer
     * be undone, so their prompts stay in effect, as their seeds do. */
    int64_t step;
    ui_prompt *prompts; /* oldest first, at most PROMPTS_SHOWN */
    int nprompts;
    /* On a large photo a click or a box is answered with a preview
     * (seg_session_preview) and its cut waits for the next request: the
     * page shows the preview, then asks for the cut (refine). Every POST
     * first makes the waiting cut, so the session goes through the same
     * cuts as without previews, one request later. */
    uint8_t *preview; /* width * height bytes while previewing */
    int previewing;
};

/* a reply pointing at constant or app-owned bytes */
static void set_reply(ui_reply *r, unsigned status, const char *type, const void *data, size_t size)
{
    r->status = status;
    r->type = type;
    r->data = data;
    r->size = size;
    r->owned = NULL;
}

/* a reply that owns malloc'ed bytes */
static void own_reply(ui_reply *r, unsigned status, const char *type, void *data, size_t size)
{
    set_reply(r, status, type, data, size);
    r->owned = data;
}

void ui_reply_text(ui_reply *r, unsigned status, const char *msg)
{
    set_reply(r, status, "text/plain; charset=utf-8", msg, strlen(msg));
}

/* text that must outlive the caller's buffer */
static void text_copy(ui_reply *r, unsigned status, const char *msg)
{
    char *m = strdup(msg);
    if (!m)
        ui_reply_text(r, 500, "out of memory");
    else
        own_reply(r, status, "text/plain; charset=utf-8", m, strlen(m));
}

void ui_reply_free(ui_reply *r)
{
    free(r->owned);
    memset(r, 0, sizeof *r);
}

/* Whether a refine has work: the cut a preview put off, or a re-fit the
 * quick cut left. Not after a cut that failed (no foreground seed, no
 * background seed with the border off): a refine would fail the same way,
 * and the page, which asks while the state says so, would ask forever. */
static int refine_waits(ui_app *s)
{
    return s->previewing || (s->have_cut && seg_session_refine_pending(s->cfg.session));
}

static void state_json(ui_app *s, ui_reply *r)
{
    char msg[1100];
    cli_json_escape(msg, sizeof msg, s->message);
    const seg_cut_stats *st = &s->last;
    /* the fixed part, then at most PROMPTS_SHOWN prompts of 4 numbers */
    size_t size = 2048 + (size_t)s->nprompts * 64, k;
    char *buf = malloc(size);
    if (!buf)
        return ui_reply_text(r, 500, "out of memory");
    k = (size_t)snprintf(buf, size,
             "{\"width\": %d, \"height\": %d, \"lambda\": %g, \"version\": %lld, \"can_undo\": %s, "
             "\"can_redo\": %s, \"have_mask\": %s, \"message\": \"%s\", \"foreground\": %lld, \"flow\": %lld, "
             "\"warm\": %s, \"engine\": \"%s\", \"seconds\": %.6f, \"solve_seconds\": %.6f, "
             "\"changed_pixels\": %lld, \"refine\": %s, \"preview\": %s, \"click_radius\": %d, \"prompts\": [",
             seg_session_width(s->cfg.session), seg_session_height(s->cfg.session),
             seg_session_lambda(s->cfg.session), (long long)s->version,
             seg_session_can_undo(s->cfg.session) ? "true" : "false",
             seg_session_can_redo(s->cfg.session) ? "true" : "false", s->have_cut ? "true" : "false", msg,
             (long long)st->foreground, (long long)st->flow, st->warm ? "true" : "false",
             st->engine == MF_ENGINE_GPU ? "gpu" : "cpu", st->total_seconds, st->solve_seconds,
             (long long)st->changed_pixels,
             refine_waits(s) ? "true" : "false",
             s->previewing ? "true" : "false",
             seg_prompts_radius(seg_session_width(s->cfg.session), seg_session_height(s->cfg.session)));
    /* [x, y, label, radius] for a click, ["box", x, y, w, h] for a box,
     * oldest first */
    int first = 1;
    for (int i = 0; i < s->nprompts && k < size; i++) {
        const ui_prompt *q = &s->prompts[i];
        if (q->step > s->step)
            continue;
        if (q->kind == BOX_KIND)
            k += (size_t)snprintf(buf + k, size - k, "%s[\"box\", %d, %d, %d, %d]", first ? "" : ", ", q->x, q->y,
                                  q->w, q->h);
        else
            k += (size_t)snprintf(buf + k, size - k, "%s[%d, %d, %d, %d]", first ? "" : ", ", q->x, q->y, q->kind,
                                  q->w);
        first = 0;
    }
    if (k < size)
        snprintf(buf + k, size - k, "]}");
    own_reply(r, 200, "application/json", buf, strlen(buf));
}

/* Re-cuts; a missing seed is a state (message), not an error. Without
 * refit the models stay and only the edited pixels change: the quick
 * answer to a stroke, refined by the page's next request. */
static void recut_with(ui_app *s, int refit)
{
    seg_error err = {0};
    s->previewing = 0;
    seg_session_set_refit(s->cfg.session, refit);
    int rc = seg_session_cut(s->cfg.session, &s->last, &err);
    s->version++;
    if (rc == SEG_OK) {
        s->have_cut = 1;
        s->message[0] = 0;
        if (!s->cfg.quiet)
            fprintf(stderr, "flowcut ui: cut %lld: %s %s %.1f ms (%lld pixels' terminal arcs rewritten)\n",
                    (long long)s->version, s->last.engine == MF_ENGINE_GPU ? "gpu" : "cpu",
                    s->last.warm ? "warm" : "cold", 1000 * s->last.total_seconds,
                    (long long)s->last.changed_pixels);
    } else {
        s->have_cut = 0;
        memset(&s->last, 0, sizeof s->last);
        snprintf(s->message, sizeof s->message, "%s", err.message);
    }
}

static void recut(ui_app *s) { recut_with(s, 1); }

static void quick_recut(ui_app *s) { recut_with(s, 0); }

/* A click's or a box's answer: a preview where it pays, else the cut. */
static void answer_edit(ui_app *s)
{
    seg_session *ss = s->cfg.session;
    seg_session_set_refit(ss, 0); /* the quick cut's: whether a preview pays depends on it */
    if (!seg_session_preview_pays(ss))
        return quick_recut(s);
    if (!s->preview && !(s->preview = malloc((size_t)seg_session_width(ss) * seg_session_height(ss))))
        return quick_recut(s);
    seg_cut_stats st;
    seg_error err = {0};
    if (seg_session_preview(ss, s->preview, &st, &err) != SEG_OK)
        return quick_recut(s); /* no seed yet, or out of memory: the cut says why */
    s->previewing = 1;
    s->have_cut = 1;
    s->last = st;
    s->message[0] = 0;
    s->version++;
    if (!s->cfg.quiet)
        fprintf(stderr, "flowcut ui: cut %lld: preview %.1f ms\n", (long long)s->version, 1000 * st.total_seconds);
}

/* The cut a preview put off, before any other change; 1 when it ran. */
static int settle(ui_app *s)
{
    if (!s->previewing)
        return 0;
    quick_recut(s);
    return 1;
}

/* Closes the request's edit as one undo step; kind 0 (a stroke) or a
 * prompt to list. The steps above the current one (the redo branch) end
 * here, as they do in the session's history. */
static void commit_step(ui_app *s, uint8_t kind, int32_t x, int32_t y, int32_t w, int32_t h)
{
    /* out of memory for the undo step: the edit stands, without undo */
    (void)seg_session_commit(s->cfg.session);
    while (s->nprompts && s->prompts[s->nprompts - 1].step > s->step)
        s->nprompts--;
    s->step++;
    if (!kind)
        return;
    if (!s->prompts) {
        s->prompts = malloc(PROMPTS_SHOWN * sizeof *s->prompts);
        if (!s->prompts)
            return; /* not listed: the seeds are painted all the same */
    }
    if (s->nprompts == PROMPTS_SHOWN) {
        memmove(s->prompts, s->prompts + 1, (PROMPTS_SHOWN - 1) * sizeof *s->prompts);
        s->nprompts--;
    }
    s->prompts[s->nprompts++] = (ui_prompt){s->step, x, y, w, h, kind};
}

/* Reads exactly n integers separated by white space; 0 or -1. */
static int read_ints(const char *body, long *v, int n)
{
    const char *p = body;
    char *end;
    for (int i = 0; i < n; i++) {
        while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
            p++;
        if (!(*p == '-' || (*p >= '0' && *p <= '9')))
            return -1;
        errno = 0;
        v[i] = strtol(p, &end, 10);
        if (end == p || errno || (*end && *end != ' ' && *end != '\n' && *end != '\t' && *end != '\r'))
            return -1;
        p = end;
    }
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return *p ? -1 : 0;
}

/* "X Y LABEL": a click inside the photo, one undo step, the quick cut. */
static const char *click(ui_app *s, const char *body)
{
    long v[3];
    int32_t W = seg_session_width(s->cfg.session), H = seg_session_height(s->cfg.session);
    if (read_ints(body, v, 3))
        return "click: expected 'X Y LABEL' (integers; LABEL 1 foreground, 2 background)";
    if (v[2] != GB_FOREGROUND && v[2] != GB_BACKGROUND)
        return "click: LABEL must be 1 (foreground) or 2 (background)";
    if (v[0] < 0 || v[1] < 0 || v[0] >= W || v[1] >= H) {
        snprintf(s->error, sizeof s->error, "click: pixel %ld,%ld lies outside the %dx%d photo", v[0], v[1], W, H);
        return s->error;
    }
    const int r = seg_session_click_disc(s->cfg.session, (int32_t)v[0], (int32_t)v[1], (uint8_t)v[2], 0);
    if (r < 0)
        return "click: cannot paint";
    commit_step(s, (uint8_t)v[2], (int32_t)v[0], (int32_t)v[1], r, 0);
    answer_edit(s);
    return NULL;
}

/* "X Y W H": a box that lies inside the photo, one undo step, the quick
 * cut (with no foreground seed yet, `flowcut segment --box`'s cut). Its
 * work is one pass over the photo, whatever the box. */
static const char *box(ui_app *s, const char *body)
{
    long v[4];
    int32_t W = seg_session_width(s->cfg.session), H = seg_session_height(s->cfg.session);
    if (read_ints(body, v, 4))
        return "box: expected 'X Y W H' (integers: the top-left pixel, the width and the height)";
    if (v[0] < 0 || v[1] < 0 || v[2] < 1 || v[3] < 1 || v[0] > W - v[2] || v[1] > H - v[3]) {
        snprintf(s->error, sizeof s->error, "box: %ld,%ld %ldx%ld must be at least 1x1 and lie inside the %dx%d photo",
                 v[0], v[1], v[2], v[3], W, H);
        return s->error;
    }
    if (seg_session_box(s->cfg.session, (int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3]))
        return "box: cannot paint";
    commit_step(s, BOX_KIND, (int32_t)v[0], (int32_t)v[1], (int32_t)v[2], (int32_t)v[3]);
    answer_edit(s);
    return NULL;
}

/* Parses "LABEL RADIUS X0 Y0 [X1 Y1 ...]" strictly, checks what painting
 * it would cost, paints it as one undo step. Returns NULL or what is wrong
 * (*status 400, or 413 for a stroke over the work limit). */
static const char *stroke(ui_app *s, char *body, unsigned *status)
{
    double v[2 + 2 * STROKE_MAX_POINTS];
    int n = 0;
    char *p = body, *end;
    *status = 400;
    while (*p) {
        while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
            p++;
        if (!*p)
            break;
        if (n == (int)(sizeof v / sizeof v[0]))
            return "too many points in one stroke (4096 at most)";
        errno = 0;
        v[n] = strtod(p, &end);
        if (end == p || errno || !isfinite(v[n]))
            return "stroke: expected numbers 'LABEL RADIUS X0 Y0 [X1 Y1 ...]'";
        p = end;
        n++;
    }
    if (n < 4 || n % 2)
        return "stroke: expected 'LABEL RADIUS X0 Y0 [X1 Y1 ...]'";
    if (v[0] != 0 && v[0] != 1 && v[0] != 2)
        return "stroke: label must be 0 (erase), 1 (foreground) or 2 (background)";
    if (!(v[1] >= 0 && v[1] <= STROKE_MAX_RADIUS))
        return "stroke: radius must be in 0..1000";
    seg_session *ss = s->cfg.session;
    int32_t H = seg_session_height(ss);
    int32_t npts = (n - 2) / 2;
    const double *xy = v + 2;
    double r = v[1] < 0.5 ? 0.5 : v[1];
    int64_t spans = 0;
    for (int32_t i = 0; i < npts; i++) {
        if (fabs(xy[2 * i]) > 1e7 || fabs(xy[2 * i + 1]) > 1e7)
            return "stroke: coordinates out of range";
        const double *q = i + 1 < npts ? xy + 2 * i + 2 : xy + 2 * i;
        if (i + 1 == npts && npts > 1)
            break;
        /* the rows this segment's capsule crosses, clipped to the photo */
        double y0 = fmax(0, floor(fmin(xy[2 * i + 1], q[1]) - r)), y1 = fmin(H - 1, ceil(fmax(xy[2 * i + 1], q[1]) + r));
        if (y1 >= y0)
            spans += (int64_t)(y1 - y0) + 1;
    }
    if (spans > STROKE_MAX_SPANS) {
        *status = 413;
        return "stroke: too much to paint in one request (segments x rows crossed above 16777216): "
               "split it or use a smaller brush";
    }
    if (seg_session_paint_stroke(ss, (uint8_t)v[0], xy, npts, v[1]) != SEG_OK)
        return "stroke: cannot paint";
    commit_step(s, 0, 0, 0, 0, 0); /* one request, one undo step */
    quick_recut(s);
    return NULL;
}

static const char *undo_redo(ui_app *s, int redo)
{
    int rc = redo ? seg_session_redo(s->cfg.session) : seg_session_undo(s->cfg.session);
    if (rc < 0)
        return "cannot restore the seeds";
    if (rc > 0) {
        s->step += redo ? 1 : -1;
        quick_recut(s);
    }
    return NULL; /* nothing to do: the state answers */
}

static const char *lambda(ui_app *s, const char *body)
{
    char *end;
    errno = 0;
    double l = strtod(body, &end);
    while (*end == ' ' || *end == '\n' || *end == '\r')
        end++;
    if (end == body || *end || errno || seg_session_set_lambda(s->cfg.session, l))
        return "lambda: expected a number in 0..100000";
    recut(s);
    return NULL;
}

/* "mask [cutout] [seeds]": writes each to its path atomically; answers the
 * paths as JSON, the box while one stands (the seeds replay with it:
 * seg_session_get_box), and with the seeds the previous answer and the
 * click that corrects it while they stand (seg_session_get_previous,
 * written to its own path). */
static void save(ui_app *s, char *body, ui_reply *r)
{
    char out[16384] = "{\"saved\": [";
    if (seg_session_models_stale(s->cfg.session))
        recut(s); /* what is saved is what `flowcut segment` gives */
    size_t k = strlen(out);
    int count = 0, saved_seeds = 0, saved_mask = 0;
    char *save_ptr = NULL;
    for (char *tok = strtok_r(body, " \n\r\t", &save_ptr); tok; tok = strtok_r(NULL, " \n\r\t", &save_ptr)) {
        seg_save_kind kind;
        const char *path;
        if (!strcmp(tok, "mask"))
            kind = SEG_SAVE_MASK, path = s->cfg.mask_path, saved_mask = 1;
        else if (!strcmp(tok, "cutout"))
            kind = SEG_SAVE_CUTOUT, path = s->cfg.cutout_path;
        else if (!strcmp(tok, "seeds"))
            kind = SEG_SAVE_SEEDS, path = s->cfg.seeds_path, saved_seeds = 1;
        else
            return ui_reply_text(r, 400, "save: expected 'mask', 'cutout' or 'seeds'");
        if (kind != SEG_SAVE_SEEDS && !s->have_cut)
            return ui_reply_text(r, 409, "save: no mask yet: click on the object or paint a foreground stroke");
        seg_error err = {0};
        if (seg_session_save(s->cfg.session, kind, path, 1, &err))
            return text_copy(r, 500, err.message);
        char esc[2100];
        cli_json_escape(esc, sizeof esc, path);
        k += (size_t)snprintf(out + k, sizeof out - k, "%s\"%s\"", count++ ? ", " : "", esc);
        if (k >= sizeof out - 9500) /* room for the previous answer, the box, the replay and the brackets */
            break;
        if (!s->cfg.quiet)
            fprintf(stderr, "flowcut ui: saved %s\n", path);
    }
    if (!count)
        return ui_reply_text(r, 400, "save: nothing named");
    /* the seeds replay with the click that corrects the mask before it */
    seg_click c;
    if (saved_seeds && seg_session_get_previous(s->cfg.session, &c)) {
        seg_error err = {0};
        if (seg_session_save(s->cfg.session, SEG_SAVE_PREVIOUS, s->cfg.previous_path, 1, &err))
            return text_copy(r, 500, err.message);
        char esc[2100];
        cli_json_escape(esc, sizeof esc, s->cfg.previous_path);
        k += (size_t)snprintf(out + k, sizeof out - k, "], \"previous\": \"%s\", \"click\": \"%s%d,%d\"",
                              esc, c.label == GB_BACKGROUND ? "-" : "", c.x, c.y);
    } else {
        k += (size_t)snprintf(out + k, sizeof out - k, "]");
    }
    int32_t box[4];
    const int has_box = seg_session_get_box(s->cfg.session, box);
    if (has_box)
        k += (size_t)snprintf(out + k, sizeof out - k, ", \"box\": [%d, %d, %d, %d]", box[0], box[1], box[2], box[3]);
    /* the whole command that gives the saved mask from the saved seeds */
    char replay[6144] = "", word[64], esc[7000];
    int overflow = 0; /* a word did not fit (cli_shell_word): no replay line */
    if (saved_seeds && s->cfg.replay) {
        snprintf(replay, sizeof replay, "%s", s->cfg.replay);
        if (has_box) {
            snprintf(word, sizeof word, "%d,%d,%d,%d", box[0], box[1], box[2], box[3]);
            overflow |= cli_shell_word(replay, sizeof replay, "--box") | cli_shell_word(replay, sizeof replay, word);
        }
        if (seg_session_get_previous(s->cfg.session, &c)) {
            snprintf(word, sizeof word, "%s%d,%d", c.label == GB_BACKGROUND ? "-" : "", c.x, c.y);
            overflow |= cli_shell_word(replay, sizeof replay, "--clicks") | cli_shell_word(replay, sizeof replay, word) |
                        cli_shell_word(replay, sizeof replay, "--previous") |
                        cli_shell_word(replay, sizeof replay, s->cfg.previous_path);
        }
        snprintf(word, sizeof word, "%.17g", seg_session_lambda(s->cfg.session));
        overflow |= cli_shell_word(replay, sizeof replay, "--lambda") | cli_shell_word(replay, sizeof replay, word) |
                    cli_shell_word(replay, sizeof replay, "-o") | cli_shell_word(replay, sizeof replay, s->cfg.mask_path);
        if (saved_mask) /* the same mask over the one just saved; else it is not overwritten */
            overflow |= cli_shell_word(replay, sizeof replay, "-f");
    }
    if (saved_seeds && s->cfg.replay && !overflow) {
        cli_json_escape(esc, sizeof esc, replay);
        k += (size_t)snprintf(out + k, sizeof out - k, ", \"replay\": \"%s\"", esc);
        if (!s->cfg.quiet)
            fprintf(stderr, "flowcut ui: replay: %s\n", replay);
    }
    snprintf(out + k, sizeof out - k, "}");
    text_copy(r, 200, out);
    r->type = "application/json";
}

static void mask_bits(ui_app *s, ui_reply *r)
{
    if (!s->have_cut)
        return set_reply(r, 200, "application/octet-stream", "", 0);
    int64_t npx = (int64_t)seg_session_width(s->cfg.session) * seg_session_height(s->cfg.session);
    size_t size = (size_t)((npx + 7) / 8);
    uint8_t *bits = calloc(size, 1);
    if (!bits)
        return ui_reply_text(r, 500, "out of memory");
    const uint8_t *m = s->previewing ? s->preview : seg_session_mask(s->cfg.session);
    /* eight pixels a byte (the mask holds 0 or 255) */
    int64_t full = npx / 8;
    for (int64_t j = 0; j < full; j++) {
        const uint8_t *q = m + 8 * j;
        bits[j] = (uint8_t)((q[0] & 1) | (q[1] & 2) | (q[2] & 4) | (q[3] & 8) | (q[4] & 16) | (q[5] & 32) |
                            (q[6] & 64) | (q[7] & 128));
    }
    for (int64_t i = 8 * full; i < npx; i++)
        bits[i >> 3] |= (uint8_t)((m[i] != 0) << (i & 7));
    own_reply(r, 200, "application/octet-stream", bits, size);
}

/* Constant-time comparison: the token must not leak through timing. */
static int token_ok(const char *given, const char *want)
{
    if (!given)
        return 0;
    size_t n = strlen(want), m = strlen(given);
    unsigned diff = (unsigned)(n ^ m);
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(unsigned char)want[i] ^ (unsigned)(unsigned char)(i < m ? given[i] : 0);
    return diff == 0;
}

int ui_app_precheck(ui_app *s, const char *token, const char *content_length, ui_reply *r)
{
    if (!token_ok(token, s->cfg.token)) {
        ui_reply_text(r, 403, "forbidden: this page needs the token of the URL flowcut ui printed");
        return 1;
    }
    if (content_length) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(content_length, &end, 10);
        if (end == content_length || errno || n > s->cfg.max_body) {
            ui_reply_text(r, 413, "request body too large");
            return 1;
        }
    }
    return 0;
}

void ui_app_handle(ui_app *s, const char *method, const char *url, const char *token, const char *body,
                   size_t body_size, ui_reply *r)
{
    memset(r, 0, sizeof *r);
    if (ui_app_precheck(s, token, NULL, r))
        return;
    if (body_size > s->cfg.max_body)
        return ui_reply_text(r, 413, "request body too large");
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST");
    if (body && memchr(body, 0, body_size))
        return ui_reply_text(r, 400, "request body contains a NUL byte");
    static const char *gets[] = {"/", "/index.html", "/photo.png", "/api/state", "/api/mask", "/api/seeds"};
    static const char *posts[] = {"/api/stroke", "/api/undo", "/api/redo",  "/api/lambda",
                                  "/api/save",   "/api/refine", "/api/click", "/api/box"};
    int is_get = -1, is_post = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(url, gets[i]))
            is_get = i;
    for (int i = 0; i < 8; i++)
        if (!strcmp(url, posts[i]))
            is_post = i;
    if (is_get < 0 && is_post < 0)
        return ui_reply_text(r, 404, "not found");
    if ((is_get >= 0 && !get) || (is_post >= 0 && !post))
        return ui_reply_text(r, 405, "method not allowed");
    switch (is_get) {
    case 0:
    case 1: return set_reply(r, 200, "text/html; charset=utf-8", ui_page_html, ui_page_html_size);
    case 2: return set_reply(r, 200, "image/png", s->photo_png, s->photo_png_size);
    case 3: return state_json(s, r);
    case 4: return mask_bits(s, r);
    case 5: {
        int64_t npx = (int64_t)seg_session_width(s->cfg.session) * seg_session_height(s->cfg.session);
        return set_reply(r, 200, "application/octet-stream", seg_session_labels(s->cfg.session), (size_t)npx);
    }
    default: break;
    }
    char *copy = malloc(body_size + 1); /* the parsers want a string */
    if (!copy)
        return ui_reply_text(r, 500, "out of memory");
    if (body_size)
        memcpy(copy, body, body_size);
    copy[body_size] = 0;
    const char *bad = NULL;
    unsigned status = 400;
    const int settled = settle(s);
    switch (is_post) {
    case 0: bad = stroke(s, copy, &status); break;
    case 1: bad = undo_redo(s, 0); break;
    case 2: bad = undo_redo(s, 1); break;
    case 3: bad = lambda(s, copy); break;
    case 4: save(s, copy, r); free(copy); return;
    case 5:
        if (!settled && refine_waits(s))
            recut(s);
        break;
    case 6: bad = click(s, copy); break;
    case 7: bad = box(s, copy); break;
    }
    free(copy);
    if (bad)
        return ui_reply_text(r, status, bad);
    state_json(s, r);
}

/* The command line's prompts, as the page's box and clicks would be: the
 * box first (as segment paints it), each an undo step and listed. */
static int apply_prompts(ui_app *s, const seg_prompts *p, char *msg, size_t msg_size)
{
    int32_t W = seg_session_width(s->cfg.session), H = seg_session_height(s->cfg.session), b[4];
    seg_click c;
    if (seg_prompts_get_box(p, b)) {
        if (seg_session_box(s->cfg.session, b[0], b[1], b[2], b[3])) {
            snprintf(msg, msg_size, "--box %d,%d,%d,%d must lie inside the %dx%d photo", (int)b[0], (int)b[1],
                     (int)b[2], (int)b[3], (int)W, (int)H);
            return -1;
        }
        commit_step(s, BOX_KIND, b[0], b[1], b[2], b[3]);
    }
    for (int32_t i = 0; seg_prompts_click(p, i, &c) == SEG_OK; i++) {
        const int r = seg_session_click_disc(s->cfg.session, c.x, c.y, c.label, c.radius);
        if (r < 0) {
            snprintf(msg, msg_size, "--clicks: pixel %d,%d lies outside the %dx%d photo", (int)c.x, (int)c.y, (int)W,
                     (int)H);
            return -1;
        }
        commit_step(s, c.label, c.x, c.y, r, 0);
    }
    return 0;
}

int ui_app_open(const ui_config *cfg, ui_app **out, char *msg, size_t msg_size)
{
    *out = NULL;
    ui_app *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(msg, msg_size, "out of memory");
        return -1;
    }
    s->cfg = *cfg;
    /* the photo as PNG once: the page draws it and the mask over it */
    img_image ph = {seg_session_width(cfg->session), seg_session_height(cfg->session), 3,
                    (uint8_t *)seg_session_rgb(cfg->session)};
    char *buf = NULL;
    size_t len = 0;
    img_error ie = {0};
    FILE *f = open_memstream(&buf, &len);
    int rc = f ? img_write_png(f, &ph, "photo", &ie) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc) {
        free(buf);
        free(s);
        snprintf(msg, msg_size, "cannot encode the photo for the page");
        return -1;
    }
    s->photo_png = (uint8_t *)buf;
    s->photo_png_size = len;
    if (cfg->prompts && apply_prompts(s, cfg->prompts, msg, msg_size)) {
        ui_app_close(s);
        return -1;
    }
    recut(s); /* starting seeds: the first cut before the page asks (or the message why not) */
    *out = s;
    return 0;
}

void ui_app_close(ui_app *s)
{
    if (!s)
        return;
    free(s->photo_png);
    free(s->prompts);
    free(s->preview);
    free(s);
}
