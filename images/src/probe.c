/* Image size from the header alone: PNG's IHDR, JPEG's start-of-frame
 * marker. The segmentation front end uses it to choose an engine before
 * the photo is decoded (starting CUDA costs more than a small photo's
 * whole CPU run). */
#include "flowcut/images.h"
#include "format.h"

#include <stdio.h>
#include <stdlib.h>

/* a JPEG's frame header follows its EXIF and other APPn segments, each at
 * most 64 KiB; a few of them fit here */
#define PROBE_BYTES (256 * 1024)

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static uint32_t be32(const uint8_t *p) { return be16(p) << 16 | be16(p + 2); }

static int probe_png(const uint8_t *b, size_t n, int32_t *w, int32_t *h)
{
    if (n < 24 || be32(b + 8) != 13 || b[12] != 'I' || b[13] != 'H' || b[14] != 'D' || b[15] != 'R')
        return IMG_ERR_CORRUPT;
    uint32_t pw = be32(b + 16), ph = be32(b + 20);
    if (!pw || !ph || pw > INT32_MAX || ph > INT32_MAX)
        return IMG_ERR_CORRUPT;
    *w = (int32_t)pw;
    *h = (int32_t)ph;
    return IMG_OK;
}

/* Walks the marker segments to the first SOFn (C0-CF but C4 DHT, C8 JPG
 * and CC DAC), whose payload holds precision, height, width. */
static int probe_jpeg(const uint8_t *b, size_t n, int32_t *w, int32_t *h)
{
    size_t i = 2;
    while (i + 4 <= n) {
        if (b[i] != 0xff)
            return IMG_ERR_CORRUPT;
        uint8_t m = b[i + 1];
        if (m == 0xff) { /* fill byte */
            i++;
            continue;
        }
        if (m == 0xd8 || (m >= 0xd0 && m <= 0xd7) || m == 0x01) { /* no payload */
            i += 2;
            continue;
        }
        size_t len = be16(b + i + 2);
        if (len < 2)
            return IMG_ERR_CORRUPT;
        if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
            if (i + 9 > n || len < 7)
                return IMG_ERR_CORRUPT;
            uint32_t ph = be16(b + i + 5), pw = be16(b + i + 7);
            if (!pw || !ph)
                return IMG_ERR_CORRUPT;
            *w = (int32_t)pw;
            *h = (int32_t)ph;
            return IMG_OK;
        }
        if (m == 0xda || m == 0xd9) /* scan or end before any frame header */
            return IMG_ERR_CORRUPT;
        i += 2 + len;
    }
    return IMG_ERR_CORRUPT;
}

int img_probe_memory(const uint8_t *b, size_t n, int32_t *width, int32_t *height)
{
    if (img_is_png(b, n))
        return probe_png(b, n, width, height);
    if (img_is_jpeg(b, n))
        return probe_jpeg(b, n, width, height);
    return IMG_ERR_FORMAT;
}

int img_probe_size(const char *path, int32_t *width, int32_t *height)
{
    if (!path || !width || !height)
        return IMG_ERR_INVALID;
    FILE *f = fopen(path, "rb");
    if (!f)
        return IMG_ERR_IO;
    uint8_t *b = malloc(PROBE_BYTES);
    if (!b) {
        fclose(f);
        return IMG_ERR_NOMEM;
    }
    size_t n = fread(b, 1, PROBE_BYTES, f);
    fclose(f);
    int rc = img_probe_memory(b, n, width, height);
    free(b);
    return rc;
}
