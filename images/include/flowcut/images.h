/* flowcut images library: photo and seed I/O. PNG through libpng, JPEG
 * through libjpeg-turbo (EXIF orientation honoured), BMP (uncompressed),
 * TGA and GIF (first frame) through stb_image, PNM (P2, P3, P5, P6) by a
 * reader of its own. The pixel limit is checked from the header before any
 * pixel buffer is allocated, and a file shorter than its header implies
 * is IMG_ERR_CORRUPT in every format. Functions return 0 or a negative
 * IMG_ERR_* code; the library never prints or exits. */
#ifndef FLOWCUT_IMAGES_H
#define FLOWCUT_IMAGES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the interface: exported from the shared
 * library, which is built with all else hidden. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Status codes: the images library's range, -200.. (each flowcut module
 * has its own, so that a code names its module). */
enum {
    IMG_OK = 0,
    IMG_ERR_NOMEM = -201,
    IMG_ERR_IO = -202,
    IMG_ERR_FORMAT = -203,   /* unknown or unsupported format */
    IMG_ERR_CORRUPT = -204,  /* truncated or corrupt data */
    IMG_ERR_TOO_LARGE = -205,
    IMG_ERR_INVALID = -206
};

const char *img_strerror(int code);

typedef struct img_error {
    int code;
    char file[256];
    char message[256];
} img_error;

/* "FILE: message" */
void img_error_format(const img_error *err, char *buf, size_t size);

typedef struct img_image {
    int32_t width, height, channels; /* 1 (grey or palette index), 3 (RGB), 4 (RGBA) */
    uint8_t *data;                   /* row-major, channels bytes per pixel */
} img_image;

#define IMG_DEFAULT_MAX_PIXELS ((int64_t)1 << 28) /* 268 Mpx */

/* Loads a photo as 8-bit RGB. max_pixels <= 0 means the default limit. */
int img_load_rgb(const char *path, int64_t max_pixels, img_image *out, img_error *err);

/* Loads a seed or label image without colour conversion: one channel for
 * grey and palette images (the grey value or the palette index), three for
 * true-colour images (alpha dropped). 16-bit samples are scaled to 8. */
int img_load_labels(const char *path, int64_t max_pixels, img_image *out, img_error *err);

/* The stored width and height of a PNG or JPEG from its first bytes,
 * without decoding (a JPEG's EXIF rotation may swap them; the pixel count
 * is the same): IMG_OK, or IMG_ERR_FORMAT for other formats and
 * IMG_ERR_IO / IMG_ERR_CORRUPT when the header cannot be read. For
 * decisions before a full load, e.g. which engine to start. */
int img_probe_size(const char *path, int32_t *width, int32_t *height);

/* Writes an 8-bit PNG (1, 3 or 4 channels) to an open stream. */
int img_write_png(FILE *f, const img_image *img, const char *name, img_error *err);

int img_alloc(img_image *img, int32_t width, int32_t height, int32_t channels);
void img_free(img_image *img);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
