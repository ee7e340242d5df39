/* Format signatures, shared by the loader and the header probe. */
#ifndef FLOWCUT_IMAGES_FORMAT_H
#define FLOWCUT_IMAGES_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int img_is_png(const uint8_t *b, size_t n)
{
    return n >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8);
}

static inline int img_is_jpeg(const uint8_t *b, size_t n)
{
    return n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF;
}

#endif
