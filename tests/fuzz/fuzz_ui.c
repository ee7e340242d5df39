/* libFuzzer harness: the web UI's routes (ui_app_handle, the function the
 * libmicrohttpd callback calls) on a 16x12 session: methods, paths, the
 * token, bodies of every route (strokes, clicks, boxes, undo/redo over
 * them), Content-Length as the header check sees it. Input: requests one after another, each
 *   method byte, path byte (a known route, or a fuzzed NUL-ended path),
 *   token byte (right, none, or a fuzzed NUL-ended string),
 *   body length byte (0-255), body bytes.
 * Checked: every request is answered with a status in 200..599 and a
 * type; the right token never gets 403, a wrong one always does; JSON
 * answers are one object; the session stays usable (the state answers). */
#include "ui_server.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_cursor.h"

/* the page itself is irrelevant here (flowcut embeds segment/ui/index.html) */
const unsigned char ui_page_html[] = "<!doctype html><canvas></canvas>";
const size_t ui_page_html_size = sizeof ui_page_html - 1;

enum { W = 16, H = 12 };
static const char TOKEN[] = "0123456789abcdef0123456789abcdef";


/* a NUL-ended string from the input (at most size-1 bytes) */
static void str(cursor *c, char *out, size_t size)
{
    size_t k = 0;
    int b;
    while ((b = take(c)) > 0 && k + 1 < size)
        out[k++] = (char)b;
    out[k] = 0;
}

static void check_reply(const ui_reply *r)
{
    if (r->status < 200 || r->status > 599 || !r->type || (r->size && !r->data))
        abort();
    if (!strcmp(r->type, "application/json")) {
        const char *d = r->data;
        if (r->size < 2 || d[0] != '{' || d[r->size - 1] != '}' || memchr(d, 0, r->size))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t rgb[W * H * 3];
    for (int i = 0; i < W * H; i++) { /* a reddish disc on blue */
        int x = i % W, y = i / W, in = (x - 8) * (x - 8) + (y - 6) * (y - 6) < 16;
        rgb[3 * i] = (uint8_t)(in ? 210 : 30 + 3 * x), rgb[3 * i + 1] = (uint8_t)(in ? 50 : 80 + 4 * y);
        rgb[3 * i + 2] = (uint8_t)(in ? 40 : 190);
    }
    seg_session_options so;
    seg_session_options_default(&so);
    so.solve.engine = MF_ENGINE_CPU;
    so.solve.threads = 1; /* a pool per solve would be most of the time on 192 pixels */
    seg_session *ss = NULL;
    seg_error err = {0};
    if (seg_session_open(rgb, W, H, NULL, &so, &ss, &err))
        abort();
    /* no save paths: /api/save answers an error instead of writing files */
    ui_config cfg = {.session = ss, .token = TOKEN, .max_body = 4096, .quiet = 1};
    ui_app *app = NULL;
    char msg[256];
    if (ui_app_open(&cfg, &app, msg, sizeof msg))
        abort();
    static const char *methods[] = {"GET", "POST", "HEAD", "PUT", "DELETE", "get", ""};
    static const char *paths[] = {"/",          "/index.html", "/photo.png",  "/api/state", "/api/mask",
                                  "/api/seeds", "/api/stroke", "/api/undo",   "/api/redo",  "/api/lambda",
                                  "/api/save",  "/api/refine", "/api/click",  "/api/box"};
    cursor c = {data, size};
    int nreq = 0;
    for (int m; (m = take(&c)) >= 0 && nreq < 64; nreq++) {
        const char *method = methods[m % 7];
        char path[128], given[64], cl[24];
        int p = take(&c);
        if (p < 0)
            break;
        if (p % 16 < 14)
            strcpy(path, paths[p % 16]);
        else
            str(&c, path, sizeof path);
        int t = take(&c);
        const char *token = TOKEN;
        if (t >= 0 && t % 8 == 6)
            token = NULL;
        else if (t >= 0 && t % 8 == 7) {
            str(&c, given, sizeof given);
            token = given;
        }
        int n = take(&c);
        n = n < 0 ? 0 : n;
        if ((size_t)n > c.n)
            n = (int)c.n;
        const char *body = (const char *)c.p;
        c.p += n, c.n -= (size_t)n;
        /* the header check, with this length as the client would announce it */
        ui_reply r = {0};
        snprintf(cl, sizeof cl, "%d", n * (m & 0x80 ? 64 : 1));
        int pre = ui_app_precheck(app, token, cl, &r);
        int right = token && !strcmp(token, TOKEN);
        if (pre) {
            check_reply(&r);
            if (right ? r.status != 413 : r.status != 403)
                abort();
            ui_reply_free(&r);
            continue;
        }
        if (!right)
            abort(); /* a wrong token passed the header check */
        ui_app_handle(app, method, path, token, n ? body : NULL, (size_t)n, &r);
        check_reply(&r);
        if (r.status == 403)
            abort();
        ui_reply_free(&r);
    }
    /* still answering */
    ui_reply r = {0};
    ui_app_handle(app, "GET", "/api/state", TOKEN, NULL, 0, &r);
    if (r.status != 200)
        abort();
    ui_reply_free(&r);
    ui_app_close(app);
    seg_session_close(ss);
    return 0;
}
