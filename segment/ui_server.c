/* HTTP routes of `flowcut ui` (libmicrohttpd, one internal polling thread):
 *   GET  /             the page (segment/ui/index.html, built in)
 *   GET  /photo.png    the photo
 *   GET  /api/state    JSON: size, lambda, version, undo/redo, last cut
 *   GET  /api/mask     the mask, one bit per pixel (LSB first), empty before a cut
 *   GET  /api/seeds    the seed labels, one byte per pixel
 *   POST /api/stroke   "LABEL RADIUS X0 Y0 [X1 Y1 ...]": paint, re-cut at once with
 *                      the models as they are (only the stroked pixels change)
 *   POST /api/refine   re-fit the models on the seeds and re-cut: the mask of
 *                      `flowcut segment` (the page asks after each edit)
 *   POST /api/undo, /api/redo, /api/lambda "VALUE", /api/save "mask [cutout] [seeds]"
 *                      (save refines first)
 * Every request carries the token (query ?token= or header X-Flowcut-Token);
 * anything else is refused with a 4xx and the server keeps running. */
#define _POSIX_C_SOURCE 200809L
#include "ui_server.h"

#include "flowcut/images.h"

#include "ui_mhd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char ui_page_html[];
extern const size_t ui_page_html_size;

/* One undoable edit: the labels of a rectangle before and after. */
typedef struct edit {
    int32_t x, y, w, h;
    uint8_t *before, *after;
} edit;

#define MAX_HISTORY 200

struct ui_server {
    ui_config cfg;
    struct MHD_Daemon *daemon;
    uint8_t *photo_png;
    size_t photo_png_size;
    edit history[MAX_HISTORY];
    int nhist, pos;          /* edits 0..pos-1 applied; pos..nhist-1 redoable */
    int64_t version;         /* bumps at every cut */
    seg_cut_stats last;
    int have_cut;
    char message[512];       /* why there is no mask, or the last error */
};

typedef struct request {
    char *body;
    size_t size;
    int too_large;
} request;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, const void *data,
                             size_t size, int copy)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(size, (void *)data, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_MUST_FREE);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                            "img-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned status, const char *msg)
{
    return reply(c, status, "text/plain; charset=utf-8", msg, strlen(msg), 1);
}

static void json_escape(char *dst, size_t size, const char *src)
{
    size_t k = 0;
    for (; *src && k + 7 < size; src++) {
        unsigned char ch = (unsigned char)*src;
        if (ch == '"' || ch == '\\') {
            dst[k++] = '\\';
            dst[k++] = (char)ch;
        } else if (ch < 0x20) {
            k += (size_t)snprintf(dst + k, size - k, "\\u%04x", ch);
        } else {
            dst[k++] = (char)ch;
        }
    }
    dst[k] = 0;
}

static enum MHD_Result state_json(ui_server *s, struct MHD_Connection *c)
{
    char msg[1100], buf[2048];
    json_escape(msg, sizeof msg, s->message);
    const seg_cut_stats *st = &s->last;
    snprintf(buf, sizeof buf,
             "{\"width\": %d, \"height\": %d, \"lambda\": %g, \"version\": %lld, \"can_undo\": %s, "
             "\"can_redo\": %s, \"have_mask\": %s, \"message\": \"%s\", \"foreground\": %lld, \"flow\": %lld, "
             "\"warm\": %s, \"engine\": \"%s\", \"seconds\": %.6f, \"solve_seconds\": %.6f, "
             "\"changed_pixels\": %lld, \"refine\": %s}",
             seg_session_width(s->cfg.session), seg_session_height(s->cfg.session),
             seg_session_lambda(s->cfg.session), (long long)s->version, s->pos > 0 ? "true" : "false",
             s->pos < s->nhist ? "true" : "false", s->have_cut ? "true" : "false", msg,
             (long long)st->foreground, (long long)st->flow, st->warm ? "true" : "false",
             st->engine == MF_ENGINE_GPU ? "gpu" : "cpu", st->total_seconds, st->solve_seconds,
             (long long)st->changed_pixels, seg_session_models_stale(s->cfg.session) ? "true" : "false");
    return reply(c, MHD_HTTP_OK, "application/json", buf, strlen(buf), 1);
}

/* Re-cuts; a missing seed is a state (message), not an error. Without
 * refit the models stay and only the edited pixels change: the quick
 * answer to a stroke, refined by the page's next request. */
static void recut_with(ui_server *s, int refit)
{
    seg_error err = {0};
    seg_session_set_refit(s->cfg.session, refit);
    int rc = seg_session_cut(s->cfg.session, &s->last, &err);
    s->version++;
    if (rc == SEG_OK) {
        s->have_cut = 1;
        s->message[0] = 0;
        if (!s->cfg.quiet)
            fprintf(stderr, "flowcut ui: cut %lld: %s %s %.1f ms (%lld pixels changed)\n",
                    (long long)s->version, s->last.engine == MF_ENGINE_GPU ? "gpu" : "cpu",
                    s->last.warm ? "warm" : "cold", 1000 * s->last.total_seconds,
                    (long long)s->last.changed_pixels);
    } else {
        s->have_cut = 0;
        memset(&s->last, 0, sizeof s->last);
        snprintf(s->message, sizeof s->message, "%s", err.message);
    }
}

static void recut(ui_server *s) { recut_with(s, 1); }

static void quick_recut(ui_server *s) { recut_with(s, 0); }

static void edit_free(edit *e)
{
    free(e->before);
    free(e->after);
    memset(e, 0, sizeof *e);
}

/* Copies the labels of a rectangle. */
static uint8_t *grab(seg_session *ss, int32_t x, int32_t y, int32_t w, int32_t h)
{
    uint8_t *p = malloc((size_t)w * h + 1);
    if (!p)
        return NULL;
    const uint8_t *l = seg_session_labels(ss);
    int32_t W = seg_session_width(ss);
    for (int32_t r = 0; r < h; r++)
        memcpy(p + (int64_t)r * w, l + (int64_t)(y + r) * W + x, (size_t)w);
    return p;
}

/* Parses "LABEL RADIUS X0 Y0 [X1 Y1 ...]" strictly; paints it and records
 * the edit. Returns NULL or what is wrong. */
static const char *stroke(ui_server *s, char *body)
{
    double v[2 + 2 * 4096];
    int n = 0;
    char *p = body, *end;
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
    if (!(v[1] >= 0 && v[1] <= 1000))
        return "stroke: radius must be in 0..1000";
    seg_session *ss = s->cfg.session;
    int32_t W = seg_session_width(ss), H = seg_session_height(ss);
    double r = v[1] < 0.5 ? 0.5 : v[1], minx = v[2], maxx = v[2], miny = v[3], maxy = v[3];
    for (int i = 2; i < n; i += 2) {
        if (fabs(v[i]) > 1e7 || fabs(v[i + 1]) > 1e7)
            return "stroke: coordinates out of range";
        minx = fmin(minx, v[i]), maxx = fmax(maxx, v[i]);
        miny = fmin(miny, v[i + 1]), maxy = fmax(maxy, v[i + 1]);
    }
    int32_t x0 = (int32_t)fmax(0, floor(minx - r)), y0 = (int32_t)fmax(0, floor(miny - r));
    int32_t x1 = (int32_t)fmin(W - 1, ceil(maxx + r)), y1 = (int32_t)fmin(H - 1, ceil(maxy + r));
    edit e = {0};
    if (x0 <= x1 && y0 <= y1) {
        e.x = x0, e.y = y0, e.w = x1 - x0 + 1, e.h = y1 - y0 + 1;
        if (!(e.before = grab(ss, e.x, e.y, e.w, e.h)))
            return "out of memory";
    }
    for (int i = 2; i < n; i += 2) {
        int j = i + 2 < n ? i + 2 : i;
        if (seg_session_paint_line(ss, (uint8_t)v[0], v[i], v[i + 1], v[j], v[j + 1], v[1]) != SEG_OK) {
            edit_free(&e);
            return "stroke: cannot paint";
        }
    }
    if (e.before) {
        if (!(e.after = grab(ss, e.x, e.y, e.w, e.h))) {
            edit_free(&e);
            return "out of memory";
        }
        for (int k = s->pos; k < s->nhist; k++) /* a new edit drops the redo branch */
            edit_free(&s->history[k]);
        s->nhist = s->pos;
        if (s->nhist == MAX_HISTORY) {
            edit_free(&s->history[0]);
            memmove(s->history, s->history + 1, sizeof(edit) * (MAX_HISTORY - 1));
            s->nhist--;
        }
        s->history[s->nhist++] = e;
        s->pos = s->nhist;
    }
    quick_recut(s);
    return NULL;
}

static const char *undo_redo(ui_server *s, int redo)
{
    if (redo ? s->pos >= s->nhist : s->pos <= 0)
        return NULL; /* nothing to do: the state answers */
    edit *e = &s->history[redo ? s->pos : s->pos - 1];
    if (seg_session_set_labels(s->cfg.session, e->x, e->y, e->w, e->h, redo ? e->after : e->before, e->w))
        return "cannot restore the seeds";
    s->pos += redo ? 1 : -1;
    quick_recut(s);
    return NULL;
}

static const char *lambda(ui_server *s, const char *body)
{
    char *end;
    errno = 0;
    double l = strtod(body, &end);
    while (*end == ' ' || *end == '\n' || *end == '\r')
        end++;
    if (end == body || *end || errno || seg_session_set_lambda(s->cfg.session, l))
        return "lambda: expected a number in 0..1000000";
    recut(s);
    return NULL;
}

/* "mask [cutout] [seeds]": writes each to its path atomically; answers the
 * paths as JSON. */
static enum MHD_Result save(ui_server *s, struct MHD_Connection *c, char *body)
{
    char out[4096] = "{\"saved\": [";
    if (seg_session_models_stale(s->cfg.session))
        recut(s); /* what is saved is what `flowcut segment` gives */
    size_t k = strlen(out);
    int count = 0;
    for (char *tok = strtok(body, " \n\r\t"); tok; tok = strtok(NULL, " \n\r\t")) {
        seg_save_kind kind;
        const char *path;
        if (!strcmp(tok, "mask"))
            kind = SEG_SAVE_MASK, path = s->cfg.mask_path;
        else if (!strcmp(tok, "cutout"))
            kind = SEG_SAVE_CUTOUT, path = s->cfg.cutout_path;
        else if (!strcmp(tok, "seeds"))
            kind = SEG_SAVE_SEEDS, path = s->cfg.seeds_path;
        else
            return text(c, MHD_HTTP_BAD_REQUEST, "save: expected 'mask', 'cutout' or 'seeds'");
        if (kind != SEG_SAVE_SEEDS && !s->have_cut)
            return text(c, MHD_HTTP_CONFLICT, "save: no mask yet: paint a foreground and a background stroke");
        seg_error err = {0};
        if (seg_session_save(s->cfg.session, kind, path, 1, &err))
            return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, err.message);
        char esc[2100];
        json_escape(esc, sizeof esc, path);
        k += (size_t)snprintf(out + k, sizeof out - k, "%s\"%s\"", count++ ? ", " : "", esc);
        if (k >= sizeof out - 8)
            break;
        if (!s->cfg.quiet)
            fprintf(stderr, "flowcut ui: saved %s\n", path);
    }
    if (!count)
        return text(c, MHD_HTTP_BAD_REQUEST, "save: nothing named");
    snprintf(out + k, sizeof out - k, "]}");
    return reply(c, MHD_HTTP_OK, "application/json", out, strlen(out), 1);
}

static enum MHD_Result mask_bits(ui_server *s, struct MHD_Connection *c)
{
    if (!s->have_cut)
        return reply(c, MHD_HTTP_OK, "application/octet-stream", "", 0, 1);
    int64_t npx = (int64_t)seg_session_width(s->cfg.session) * seg_session_height(s->cfg.session);
    size_t size = (size_t)((npx + 7) / 8);
    uint8_t *bits = calloc(size, 1);
    if (!bits)
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    const uint8_t *m = seg_session_mask(s->cfg.session);
    /* eight pixels a byte (the mask holds 0 or 255) */
    int64_t full = npx / 8;
    for (int64_t j = 0; j < full; j++) {
        const uint8_t *q = m + 8 * j;
        bits[j] = (uint8_t)((q[0] & 1) | (q[1] & 2) | (q[2] & 4) | (q[3] & 8) | (q[4] & 16) | (q[5] & 32) |
                            (q[6] & 64) | (q[7] & 128));
    }
    for (int64_t i = 8 * full; i < npx; i++)
        bits[i >> 3] |= (uint8_t)((m[i] != 0) << (i & 7));
    return reply(c, MHD_HTTP_OK, "application/octet-stream", bits, size, 0);
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

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    ui_server *s = cls;
    request *rq = *con_cls;
    if (!rq) { /* first call: headers only */
        rq = calloc(1, sizeof *rq);
        if (!rq)
            return MHD_NO;
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_size) { /* body chunks */
        if (rq->too_large || rq->size + *upload_size > s->cfg.max_body) {
            rq->too_large = 1;
        } else {
            char *b = realloc(rq->body, rq->size + *upload_size + 1);
            if (!b)
                return MHD_NO;
            memcpy(b + rq->size, upload, *upload_size);
            rq->body = b;
            rq->size += *upload_size;
            rq->body[rq->size] = 0;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    const char *tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Flowcut-Token");
    if (!tok)
        tok = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    if (!token_ok(tok, s->cfg.token))
        return text(c, MHD_HTTP_FORBIDDEN, "forbidden: this page needs the token of the URL flowcut ui printed");
    if (rq->too_large)
        return text(c, MHD_HTTP_CONTENT_TOO_LARGE, "request body too large");
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST");
    const char *body = rq->body ? rq->body : "";
    if (rq->body && strlen(rq->body) != rq->size)
        return text(c, MHD_HTTP_BAD_REQUEST, "request body contains a NUL byte");
    static const char *gets[] = {"/", "/index.html", "/photo.png", "/api/state", "/api/mask", "/api/seeds"};
    static const char *posts[] = {"/api/stroke", "/api/undo", "/api/redo", "/api/lambda", "/api/save", "/api/refine"};
    int is_get = -1, is_post = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(url, gets[i]))
            is_get = i;
    for (int i = 0; i < 6; i++)
        if (!strcmp(url, posts[i]))
            is_post = i;
    if (is_get < 0 && is_post < 0)
        return text(c, MHD_HTTP_NOT_FOUND, "not found");
    if ((is_get >= 0 && !get) || (is_post >= 0 && !post))
        return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed");
    const char *bad = NULL;
    switch (is_get) {
    case 0:
    case 1: return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", ui_page_html, ui_page_html_size, 1);
    case 2: return reply(c, MHD_HTTP_OK, "image/png", s->photo_png, s->photo_png_size, 1);
    case 3: return state_json(s, c);
    case 4: return mask_bits(s, c);
    case 5: {
        int64_t npx = (int64_t)seg_session_width(s->cfg.session) * seg_session_height(s->cfg.session);
        return reply(c, MHD_HTTP_OK, "application/octet-stream", seg_session_labels(s->cfg.session), (size_t)npx, 1);
    }
    default: break;
    }
    char *copy = strdup(body);
    if (!copy)
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    enum MHD_Result ret;
    switch (is_post) {
    case 0: bad = stroke(s, copy); break;
    case 1: bad = undo_redo(s, 0); break;
    case 2: bad = undo_redo(s, 1); break;
    case 3: bad = lambda(s, copy); break;
    case 4: ret = save(s, c, copy); free(copy); return ret;
    case 5:
        if (seg_session_models_stale(s->cfg.session))
            recut(s);
        break;
    }
    free(copy);
    if (bad)
        return text(c, MHD_HTTP_BAD_REQUEST, bad);
    return state_json(s, c);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)c, (void)toe;
    request *rq = *con_cls;
    if (rq) {
        free(rq->body);
        free(rq);
    }
    *con_cls = NULL;
}

static void ignore_log(void *cls, const char *fmt, va_list ap) { (void)cls, (void)fmt, (void)ap; }

int ui_server_start(const ui_config *cfg, int listen_fd, ui_server **out, char *msg, size_t msg_size)
{
    *out = NULL;
    ui_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(msg, msg_size, "out of memory");
        return -1;
    }
    s->cfg = *cfg;
    if (ui_mhd_load(msg, msg_size)) {
        free(s);
        return -1;
    }
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
    recut(s); /* starting seeds: the first cut before the page asks (or the message why not) */
    s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, handle, s,
                                 MHD_OPTION_LISTEN_SOCKET, listen_fd, MHD_OPTION_CONNECTION_LIMIT, 64,
                                 MHD_OPTION_CONNECTION_TIMEOUT, 60, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                                 (size_t)64 * 1024, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                                 MHD_OPTION_EXTERNAL_LOGGER, ignore_log, NULL, MHD_OPTION_END);
    if (!s->daemon) {
        free(s->photo_png);
        free(s);
        snprintf(msg, msg_size, "cannot start the HTTP server");
        return -1;
    }
    *out = s;
    return 0;
}

void ui_server_stop(ui_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->daemon);
    for (int k = 0; k < s->nhist; k++)
        edit_free(&s->history[k]);
    free(s->photo_png);
    free(s);
}
