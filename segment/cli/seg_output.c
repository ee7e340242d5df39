/* What the CLI writes of a segmentation: the JSON fields of a result, and
 * its images saved through the library (outputs.c) with the CLI's wording. */
#include "seg_output.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void seg_json_outcome(FILE *f, const seg_batch_outcome *r)
{
    fprintf(f,
            "\"width\": %d, \"height\": %d, \"flow\": %lld, \"foreground_pixels\": %lld, \"engine\": \"%s\", "
            "\"device\": ",
            r->width, r->height, (long long)r->flow, (long long)r->foreground,
            r->engine == MF_ENGINE_GPU ? "gpu" : "cpu");
    json_string(f, r->device ? r->device : "");
    fprintf(f,
            ", \"times\": {\"decode\": %.6f, \"model\": %.6f, \"build\": %.6f, \"solve\": %.6f, "
            "\"encode\": %.6f}}\n",
            r->decode_seconds, r->model_seconds, r->build_seconds, r->solve_seconds, r->encode_seconds);
}

void seg_json_result(FILE *f, const seg_result *r)
{
    const seg_batch_outcome o = {.width = r->photo.width, .height = r->photo.height, .flow = r->flow_value,
                                 .foreground = r->foreground_pixels, .engine = r->engine_used,
                                 .device = r->device, .decode_seconds = r->times.decode,
                                 .model_seconds = r->times.model, .build_seconds = r->times.build,
                                 .solve_seconds = r->times.solve, .encode_seconds = r->times.encode};
    seg_json_outcome(f, &o);
}

int seg_write_png(const char *path, int force, const img_image *img, char *error, size_t error_size)
{
    return seg_write_pngs(1, &path, &img, force, error, error_size);
}

int seg_write_pngs(size_t n, const char *const *paths, const img_image *const *imgs, int force, char *error,
                   size_t error_size)
{
    int rc = seg_save_pngs(n, paths, imgs, force, error, error_size);
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
