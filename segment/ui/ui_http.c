/* `flowcut ui`'s HTTP side (libmicrohttpd, one internal polling thread):
 * each request's headers are checked as soon as they arrive (the token, a
 * body too large), its body gathered within limits, and the whole request
 * handed to the app (ui_server.c), whose reply goes back as it is, with
 * headers that keep the page from being cached, sniffed or framed. */
#define _POSIX_C_SOURCE 200809L
#include "ui_server.h"

#include "cli.h" /* cli_now: one clock for the front ends */

#include "ui_mhd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

/* Idle connections are closed after this many seconds; a request whose
 * body has not arrived within BODY_DEADLINE seconds is answered 408. */
#define IDLE_TIMEOUT 10
#define BODY_DEADLINE 30

struct ui_server {
    ui_app *app;
    struct MHD_Daemon *daemon;
    size_t max_body;
};

typedef struct request {
    char *body;
    size_t size;
    double start;
} request;

static enum MHD_Result send_reply(struct MHD_Connection *c, ui_reply *rp)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(rp->size, (void *)rp->data, MHD_RESPMEM_MUST_COPY);
    unsigned status = rp->status;
    const char *type = rp->type ? rp->type : "text/plain; charset=utf-8";
    ui_reply_free(rp);
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

static const char *request_token(struct MHD_Connection *c)
{
    const char *tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Flowcut-Token");
    return tok ? tok : MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    ui_server *srv = cls;
    ui_app *s = srv->app;
    request *rq = *con_cls;
    ui_reply r = {0};
    if (!rq) {
        /* the headers are in: a request without the token, or announcing
         * too large a body, is answered now, before its body is read */
        if (ui_app_precheck(s, request_token(c),
                            MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length"), &r))
            return send_reply(c, &r);
        rq = calloc(1, sizeof *rq);
        if (!rq)
            return MHD_NO;
        rq->start = cli_now();
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_size) { /* body chunks (a chunked body has no length to check first) */
        if (rq->size + *upload_size > srv->max_body) {
            *upload_size = 0;
            ui_reply_text(&r, 413, "request body too large");
            return send_reply(c, &r);
        }
        if (cli_now() - rq->start > BODY_DEADLINE) {
            *upload_size = 0;
            ui_reply_text(&r, 408, "request body too slow");
            return send_reply(c, &r);
        }
        char *b = realloc(rq->body, rq->size + *upload_size + 1);
        if (!b)
            return MHD_NO;
        memcpy(b + rq->size, upload, *upload_size);
        rq->body = b;
        rq->size += *upload_size;
        rq->body[rq->size] = 0;
        *upload_size = 0;
        return MHD_YES;
    }
    ui_app_handle(s, method, url, request_token(c), rq->body, rq->size, &r);
    return send_reply(c, &r);
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
    ui_server *srv = calloc(1, sizeof *srv);
    if (!srv) {
        snprintf(msg, msg_size, "out of memory");
        return -1;
    }
    srv->max_body = cfg->max_body;
    if (ui_mhd_load(msg, msg_size) || ui_app_open(cfg, &srv->app, msg, msg_size)) {
        free(srv);
        return -1;
    }
    /* Connections: an idle one costs a descriptor and a little memory, so
     * allow many (epoll has no FD_SETSIZE cap) and let the idle timeout
     * reclaim them: a few dozen idle connections from another local user
     * must not lock the page out. Keep descriptors for the process. */
    unsigned limit = 1000;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < limit + 64)
        limit = rl.rlim_cur > 96 ? (unsigned)rl.rlim_cur - 64 : 32;
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_EPOLL;
    if (getsockname(listen_fd, (struct sockaddr *)&sa, &sl) == 0 && sa.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    srv->daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle, srv, MHD_OPTION_LISTEN_SOCKET, listen_fd,
                                   MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                   cfg->per_ip_limit, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT,
                                   MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
                                   MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_EXTERNAL_LOGGER,
                                   ignore_log, NULL, MHD_OPTION_END);
    if (!srv->daemon) {
        ui_app_close(srv->app);
        free(srv);
        snprintf(msg, msg_size, "cannot start the HTTP server");
        return -1;
    }
    *out = srv;
    return 0;
}

void ui_server_stop(ui_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->daemon);
    ui_app_close(s->app);
    free(s);
}
