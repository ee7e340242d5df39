/* libmicrohttpd, loaded when `flowcut ui` starts rather than when any
 * flowcut command starts: linking it pulls in GnuTLS and eight more
 * libraries, milliseconds of every process start, which
 * `segment` and `batch` never use. The calls keep their names: the macros
 * below route them through the table the loader fills. */
#ifndef FLOWCUT_UI_MHD_H
#define FLOWCUT_UI_MHD_H

#include <microhttpd.h>

#include <stddef.h>
#include <stdint.h>

typedef struct ui_mhd_table {
    struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
                                       void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...);
    void (*stop_daemon)(struct MHD_Daemon *daemon);
    struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
                                                        enum MHD_ResponseMemoryMode mode);
    enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
                                           const char *content);
    enum MHD_Result (*queue_response)(struct MHD_Connection *connection, unsigned int status_code,
                                      struct MHD_Response *response);
    void (*destroy_response)(struct MHD_Response *response);
    const char *(*lookup_connection_value)(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                           const char *key);
} ui_mhd_table;

extern ui_mhd_table ui_mhd;

/* Loads the library once; 0, or -1 with the reason (which library, what
 * to install) in msg. */
int ui_mhd_load(char *msg, size_t msg_size);

#define MHD_start_daemon ui_mhd.start_daemon
#define MHD_stop_daemon ui_mhd.stop_daemon
#define MHD_create_response_from_buffer ui_mhd.create_response_from_buffer
#define MHD_add_response_header ui_mhd.add_response_header
#define MHD_queue_response ui_mhd.queue_response
#define MHD_destroy_response ui_mhd.destroy_response
#define MHD_lookup_connection_value ui_mhd.lookup_connection_value

#endif
