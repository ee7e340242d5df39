/* A result's output images: overlay, cut-out, PNGs saved all or none. */
#define _GNU_SOURCE /* open_memstream */
#include "outputs.h"

#include "save.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int seg_overlay(const seg_result *r, img_image *out)
{
    if (img_alloc(out, r->photo.width, r->photo.height, 3))
        return -1;
    seg_draw_overlay(r->photo.data, r->mask.data, r->photo.width, r->photo.height, out->data);
    return 0;
}

int seg_cutout(const seg_result *r, img_image *out)
{
    if (img_alloc(out, r->photo.width, r->photo.height, 4))
        return -1;
    seg_draw_cutout(r->photo.data, r->mask.data, r->photo.width, r->photo.height, out->data);
    return 0;
}

/* img as PNG bytes in memory (*buf malloc'ed). */
static int encode_png(const char *path, const img_image *img, char **buf, size_t *len, char *msg,
                      size_t msg_size)
{
    img_error ie = {0};
    *buf = NULL;
    *len = 0;
    FILE *m = open_memstream(buf, len);
    if (!m) {
        snprintf(msg, msg_size, "%s: out of memory", path);
        return -1;
    }
    int rc = img_write_png(m, img, path, &ie);
    /* into memory only an allocation can fail; and glibc's fclose of a
     * memory stream returns 0 with no buffer when its last realloc fails */
    if (fclose(m) != 0 || rc || !*buf || *len == 0) {
        free(*buf);
        *buf = NULL;
        snprintf(msg, msg_size, "%s: cannot encode the PNG: out of memory", path);
        return -1;
    }
    return 0;
}

int seg_save_pngs(size_t n, const char *const *paths, const img_image *const *imgs, int overwrite, char *msg,
                  size_t msg_size)
{
    enum { MAX_FILES = 8 };
    struct stat st;
    char *bufs[MAX_FILES] = {0};
    size_t lens[MAX_FILES] = {0};
    if (n > MAX_FILES) {
        snprintf(msg, msg_size, "%s: too many outputs at once", paths[0]);
        return -1;
    }
    for (size_t i = 0; i < n; i++) /* before the encodes; seg_save_files checks again */
        if (!overwrite && stat(paths[i], &st) == 0) {
            snprintf(msg, msg_size, "%s: already exists", paths[i]);
            return SEG_SAVE_EXISTS;
        }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = encode_png(paths[i], imgs[i], &bufs[i], &lens[i], msg, msg_size);
    if (rc == 0)
        rc = seg_save_files(n, paths, (const void *const *)bufs, lens, overwrite, msg, msg_size);
    for (size_t i = 0; i < n; i++)
        free(bufs[i]);
    return rc == SEG_SAVE_EXISTS ? rc : rc ? -1 : 0;
}
