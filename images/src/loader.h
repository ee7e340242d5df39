/* The image loader's internals, shared by its files: the error and size
 * helpers (load.c) and the decoders that the format dispatch (load.c)
 * calls besides libpng and libjpeg: stb_image's formats (stb.c) and PNM
 * (pnm.c). Private: not installed. */
#ifndef FLOWCUT_IMAGES_LOADER_H
#define FLOWCUT_IMAGES_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "flowcut/images.h"

/* Fills err (when not NULL) with code, file and the formatted message;
 * returns code. */
int img_fail(img_error *err, int code, const char *file, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* IMG_ERR_CORRUPT for a size that is not positive, IMG_ERR_TOO_LARGE past
 * max_pixels (IMG_DEFAULT_MAX_PIXELS when <= 0) or a side past INT32_MAX / 4. */
int img_check_size(const char *path, int64_t w, int64_t h, int64_t max_pixels, img_error *err);

/* IMG_ERR_CORRUPT: the format's header implies `need` bytes, the file has len. */
int img_truncated(const char *path, const char *format, uint64_t need, size_t len, img_error *err);

/* BMP, TGA and GIF through stb_image, each header checked first (stb.c). */
int img_load_stb(const char *path, const uint8_t *buf, size_t len, int labels, int64_t max_pixels,
                 img_image *out, img_error *err);

/* Netpbm P2, P3, P5, P6 (pnm.c); b holds at least the two signature bytes. */
int img_load_pnm(const char *path, const uint8_t *b, size_t len, int labels, int64_t max_pixels,
                 img_image *out, img_error *err);

#endif
