/* Format signatures, shared by the loader and the header probe, and the
 * loader's in-memory entry (internal: not exported; the fuzz harnesses
 * link the static library). */
#ifndef FLOWCUT_IMAGES_FORMAT_H
#define FLOWCUT_IMAGES_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "flowcut/images.h"

static inline int img_is_png(const uint8_t *b, size_t n)
{
    return n >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8);
}

static inline int img_is_jpeg(const uint8_t *b, size_t n)
{
    return n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF;
}

/* img_load_rgb (labels 0) or img_load_labels (labels 1) on bytes in
 * memory; name is the file name errors report. */
int img_load_memory(const uint8_t *buf, size_t len, const char *name, int labels, int64_t max_pixels,
                    img_image *out, img_error *err);

/* img_probe_size on the first bytes of a file (all of them, or at least
 * the 256 KiB that img_probe_size reads). */
int img_probe_memory(const uint8_t *b, size_t n, int32_t *width, int32_t *height);

#endif
