/* The session's images: the mask, the seeds, an overlay or a cut-out, as
 * PNG in memory or saved to a file. */
#define _POSIX_C_SOURCE 200809L
#include "session_internal.h"
#include "save.h"

#include "flowcut/images.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void seg_draw_overlay(const uint8_t *rgb, const uint8_t *mask, int32_t w, int32_t h, uint8_t *out)
{
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            int64_t i = (int64_t)y * w + x;
            const uint8_t *src = rgb + 3 * i;
            uint8_t *dst = out + 3 * i;
            int fg = mask[i] != 0;
            int edge = (x > 0 && (mask[i - 1] != 0) != fg) || (x + 1 < w && (mask[i + 1] != 0) != fg) ||
                       (y > 0 && (mask[i - w] != 0) != fg) || (y + 1 < h && (mask[i + w] != 0) != fg);
            if (edge) {
                dst[0] = 255, dst[1] = 220, dst[2] = 0; /* boundary in yellow */
            } else if (fg) {
                memcpy(dst, src, 3);
            } else {
                for (int c = 0; c < 3; c++)
                    dst[c] = (uint8_t)(src[c] * 3 / 10);
            }
        }
}

void seg_draw_cutout(const uint8_t *rgb, const uint8_t *mask, int32_t w, int32_t h, uint8_t *out)
{
    for (int64_t i = 0; i < (int64_t)w * h; i++) {
        memcpy(out + 4 * i, rgb + 3 * i, 3);
        out[4 * i + 3] = mask[i];
    }
}

/* The image of kind, allocated in out. */
static int render(const seg_session *s, seg_save_kind kind, img_image *out)
{
    int32_t w = s->width, h = s->height;
    int channels = kind == SEG_SAVE_OVERLAY ? 3 : kind == SEG_SAVE_CUTOUT ? 4 : 1;
    if (img_alloc(out, w, h, channels))
        return SEG_ERR_NOMEM;
    switch (kind) {
    case SEG_SAVE_MASK: memcpy(out->data, s->mask, (size_t)s->npx); break;
    case SEG_SAVE_SEEDS: memcpy(out->data, s->labels, (size_t)s->npx); break;
    case SEG_SAVE_CUTOUT: seg_draw_cutout(s->rgb, s->mask, w, h, out->data); break;
    case SEG_SAVE_OVERLAY: seg_draw_overlay(s->rgb, s->mask, w, h, out->data); break;
    case SEG_SAVE_PREVIOUS:
        for (int64_t i = 0; i < s->npx; i++)
            out->data[i] = (uint8_t)(0u - s->keep_mask[i]);
        break;
    }
    return SEG_OK;
}

int seg_session_render_png(const seg_session *s, seg_save_kind kind, uint8_t **png, size_t *size,
                           seg_error *err)
{
    img_image im = {0};
    img_error ie = {0};
    char *buf = NULL;
    size_t len = 0;
    *png = NULL;
    *size = 0;
    if (kind < SEG_SAVE_MASK || kind > SEG_SAVE_PREVIOUS)
        return seg_fail(err, SEG_ERR_INVALID, "unknown image kind %d", (int)kind);
    if (kind == SEG_SAVE_PREVIOUS && !seg_session_get_previous(s, NULL))
        return seg_fail(err, SEG_ERR_INVALID, "no previous answer: the last edit is not a click that corrects a cut");
    if (render(s, kind, &im))
        return seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        img_free(&im);
        return seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    }
    int rc = img_write_png(f, &im, "<memory>", &ie);
    img_free(&im);
    if (fclose(f) != 0 || rc) {
        free(buf);
        return seg_fail(err, SEG_ERR_NOMEM, "cannot encode the PNG");
    }
    *png = (uint8_t *)buf;
    *size = len;
    return SEG_OK;
}

/* Saved as every flowcut output is (save.c): temporary name, fsync,
 * rename, folder fsync, mode 0666 less the umask. */
int seg_session_save(const seg_session *s, seg_save_kind kind, const char *path, int overwrite, seg_error *err)
{
    if (!path || !*path)
        return seg_fail(err, SEG_ERR_INVALID, "%s: invalid path", path ? path : "(null)");
    uint8_t *png = NULL;
    size_t size = 0;
    int rc = seg_session_render_png(s, kind, &png, &size, err);
    if (rc)
        return rc;
    char msg[sizeof err->message];
    rc = seg_save_file(path, png, size, overwrite, msg, sizeof msg);
    free(png);
    return rc ? seg_fail(err, SEG_ERR_IO, "%s", msg) : SEG_OK;
}
