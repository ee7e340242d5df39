/* What the CLI writes of a segmentation: the JSON fields of a result, the
 * overlay and cut-out images, saved through the library's save (save.c). */
#define _GNU_SOURCE /* open_memstream */
#include "seg_output.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void seg_json_result(FILE *f, const seg_result *r)
{
    fprintf(f,
            "\"width\": %d, \"height\": %d, \"flow\": %lld, \"foreground_pixels\": %lld, \"engine\": \"%s\", "
            "\"device\": ",
            r->photo.width, r->photo.height, (long long)r->flow_value, (long long)r->foreground_pixels,
            r->engine_used == MF_ENGINE_GPU ? "gpu" : "cpu");
    json_string(f, r->device);
    fprintf(f,
            ", \"times\": {\"decode\": %.6f, \"model\": %.6f, \"build\": %.6f, \"solve\": %.6f, "
            "\"encode\": %.6f}}\n",
            r->times.decode, r->times.model, r->times.build, r->times.solve, r->times.encode);
}

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
static int encode_png(const char *path, const img_image *img, char **buf, size_t *len, char *error,
                      size_t error_size)
{
    img_error ie = {0};
    *buf = NULL;
    *len = 0;
    FILE *m = open_memstream(buf, len);
    if (!m) {
        snprintf(error, error_size, "%s: out of memory", path);
        return -1;
    }
    int rc = img_write_png(m, img, path, &ie);
    /* into memory only an allocation can fail; and glibc's fclose of a
     * memory stream returns 0 with no buffer when its last realloc fails */
    if (fclose(m) != 0 || rc || !*buf || *len == 0) {
        free(*buf);
        *buf = NULL;
        snprintf(error, error_size, "%s: cannot encode the PNG: out of memory", path);
        return -1;
    }
    return 0;
}

int seg_write_png(const char *path, int force, const img_image *img, char *error, size_t error_size)
{
    return seg_write_pngs(1, &path, &img, force, error, error_size);
}

int seg_write_pngs(size_t n, const char *const *paths, const img_image *const *imgs, int force, char *error,
                   size_t error_size)
{
    enum { MAX_FILES = 8 };
    struct stat st;
    char *bufs[MAX_FILES] = {0};
    size_t lens[MAX_FILES] = {0};
    if (n > MAX_FILES) {
        snprintf(error, error_size, "%s: too many outputs at once", paths[0]);
        return -1;
    }
    for (size_t i = 0; i < n; i++) /* before the encodes; seg_save_files checks again */
        if (!force && stat(paths[i], &st) == 0) {
            snprintf(error, error_size, "%s: already exists (use -f to overwrite)", paths[i]);
            return -1;
        }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = encode_png(paths[i], imgs[i], &bufs[i], &lens[i], error, error_size);
    if (rc == 0)
        rc = seg_save_files(n, paths, (const void *const *)bufs, lens, force, error, error_size);
    for (size_t i = 0; i < n; i++)
        free(bufs[i]);
    if (rc == SEG_SAVE_EXISTS)
        snprintf(error + strlen(error), error_size - strlen(error), " (use -f to overwrite)");
    return rc ? -1 : 0;
}

int cli_out_open(seg_out *o, const char *path, int force, char *msg, size_t msg_size)
{
    int rc = seg_out_open(o, path, force, msg, msg_size);
    if (rc == SEG_SAVE_EXISTS)
        snprintf(msg + strlen(msg), msg_size - strlen(msg), " (use -f to overwrite)");
    return rc ? -1 : 0;
}
