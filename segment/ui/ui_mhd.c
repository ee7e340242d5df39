/* Loads libmicrohttpd for `flowcut ui` (see ui_mhd.h). */
#define _POSIX_C_SOURCE 200809L
#include "ui_mhd.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

ui_mhd_table ui_mhd;

/* the ABI flowcut is built against (12 since 2014), then the development link */
static const char *const NAMES[] = {"libmicrohttpd.so.12", "libmicrohttpd.so"};

int ui_mhd_load(char *msg, size_t msg_size)
{
    static void *lib;
    if (lib)
        return 0;
    void *h = NULL;
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0] && !h; i++)
        h = dlopen(NAMES[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(msg, msg_size, "flowcut ui needs libmicrohttpd.so.12 (Debian: apt-get install libmicrohttpd12): %s",
                 dlerror());
        return -1;
    }
    struct {
        const char *name;
        void **slot;
    } syms[] = {
        {"MHD_start_daemon", (void **)&ui_mhd.start_daemon},
        {"MHD_stop_daemon", (void **)&ui_mhd.stop_daemon},
        {"MHD_create_response_from_buffer", (void **)&ui_mhd.create_response_from_buffer},
        {"MHD_add_response_header", (void **)&ui_mhd.add_response_header},
        {"MHD_queue_response", (void **)&ui_mhd.queue_response},
        {"MHD_destroy_response", (void **)&ui_mhd.destroy_response},
        {"MHD_lookup_connection_value", (void **)&ui_mhd.lookup_connection_value},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(h, syms[i].name);
        if (!f) {
            snprintf(msg, msg_size, "libmicrohttpd has no %s: too old for flowcut ui", syms[i].name);
            dlclose(h);
            memset(&ui_mhd, 0, sizeof ui_mhd);
            return -1;
        }
        /* POSIX guarantees that a dlsym result converts to a function pointer */
        memcpy(syms[i].slot, &f, sizeof f);
    }
    lib = h;
    return 0;
}
