/* What the CLI writes of a segmentation: the JSON fields of a result, the
 * overlay and cut-out images, PNG files written atomically. */
#include "seg_output.h"

#include "cli.h"

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

int seg_write_png(const char *path, int force, const img_image *img, char *error, size_t error_size)
{
    out_file o;
    img_error ie = {0};
    if (out_open(&o, path, force, error, error_size))
        return -1;
    if (img_write_png(o.f, img, path, &ie)) {
        out_abort(&o);
        snprintf(error, error_size, "%s: cannot write PNG", path);
        return -1;
    }
    return out_commit(&o, error, error_size) ? -1 : 0;
}
