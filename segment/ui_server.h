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
    size_t max_body;         /* request bodies above this get 413 */
    int quiet;
} ui_config;

typedef struct ui_server ui_server;

/* Starts serving on listen_fd (bound and listening) in a thread of its
 * own; every request is handled in that one thread, in order. */
int ui_server_start(const ui_config *cfg, int listen_fd, ui_server **out, char *msg, size_t msg_size);
/* Stops after the request in progress; outputs are never half-written. */
void ui_server_stop(ui_server *s);

#endif
