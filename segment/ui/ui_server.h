/* The HTTP side of `flowcut ui`: libmicrohttpd on a listening socket the
 * caller made, the page and a small API over one segmentation session. */
#ifndef FLOWCUT_UI_SERVER_H
#define FLOWCUT_UI_SERVER_H

#include "flowcut/segment.h"

#include <stddef.h>

typedef struct ui_config {
    seg_session *session;    /* served, not owned */
    const char *token;       /* every request must carry it */
    const char *mask_path;   /* where Save writes the mask */
    const char *cutout_path; /* ... the cut-out */
    const char *seeds_path;  /* ... the seed image */
    const char *previous_path; /* ... the mask the last click corrects, with the seeds */
    size_t max_body;         /* request bodies above this get 413 */
    unsigned per_ip_limit;   /* connections from one address (0: no limit beyond the total) */
    int quiet;
    const seg_prompts *prompts; /* given on the command line (NULL: none): applied when the
                                 * app opens as the page's box and clicks, an undo step each */
    const char *replay;      /* `flowcut segment PHOTO --seeds SEEDS` and the options the
                              * ui was started with (not its prompts or lambda): Save's
                              * replay of saved seeds adds the box, the correcting click,
                              * lambda and -o (NULL: no replay line) */
} ui_config;

/* The server without HTTP: the state of the page and every route, as
 * plain calls (the libmicrohttpd callbacks and the fuzzer use them). */
typedef struct ui_app ui_app;

/* A response: data points into the app (or a constant) unless owned. */
typedef struct ui_reply {
    unsigned status;
    const char *type;
    const void *data;
    size_t size;
    void *owned; /* malloc'ed, freed by ui_reply_free */
} ui_reply;

/* Encodes the photo for the page and makes the first cut. */
int ui_app_open(const ui_config *cfg, ui_app **out, char *msg, size_t msg_size);
void ui_app_close(ui_app *a);
/* What can be decided from the headers alone: 0 (go on and read the body)
 * or 1 with the refusal in r (no or wrong token: 403; a Content-Length
 * above max_body or not a number: 413). content_length may be NULL. */
int ui_app_precheck(ui_app *a, const char *token, const char *content_length, ui_reply *r);
/* One whole request (body: body_size bytes, NULL when none). Always
 * answers in r; free it with ui_reply_free. */
void ui_app_handle(ui_app *a, const char *method, const char *url, const char *token, const char *body,
                   size_t body_size, ui_reply *r);
void ui_reply_free(ui_reply *r);
/* A reply of constant text (a refusal or a notice): msg is not copied. */
void ui_reply_text(ui_reply *r, unsigned status, const char *msg);

typedef struct ui_server ui_server;

/* Starts serving on listen_fd (bound and listening) in a thread of its
 * own; every request is handled in that one thread, in order. */
int ui_server_start(const ui_config *cfg, int listen_fd, ui_server **out, char *msg, size_t msg_size);
/* Stops after the request in progress; outputs are never half-written. */
void ui_server_stop(ui_server *s);

#endif
