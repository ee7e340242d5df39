/* Segmentation pipeline: decode, seeds, models, network, solve, mask. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void seg_options_default(seg_options *o)
{
    memset(o, 0, sizeof *o);
    o->seeds = SEEDS_LABELS;
    o->fg_rgb[0] = 255;
    o->bg_rgb[2] = 255;
    gb_params_default(&o->graph);
    o->iterations = 0;
    mf_options_default(&o->solve);
    o->max_pixels = IMG_DEFAULT_MAX_PIXELS;
}

void seg_result_free(seg_result *r)
{
    img_free(&r->photo);
    img_free(&r->mask);
}

static int fail_img(seg_result *r, const img_error *e)
{
    img_error_format(e, r->error, sizeof r->error);
    return -1;
}

int seg_load(const char *image_path, const char *seed_path, const seg_options *o, seg_result *r,
             uint8_t **labels_out)
{
    img_error ie = {0};
    img_image seeds = {0};
    *labels_out = NULL;
    if (img_load_rgb(image_path, o->max_pixels, &r->photo, &ie))
        return fail_img(r, &ie);
    if (img_load_labels(seed_path, o->max_pixels, &seeds, &ie))
        return fail_img(r, &ie);
    if (seeds.width != r->photo.width || seeds.height != r->photo.height) {
        snprintf(r->error, sizeof r->error, "%s: seed image is %dx%d, the photo %s is %dx%d", seed_path,
                 seeds.width, seeds.height, image_path, r->photo.width, r->photo.height);
        img_free(&seeds);
        return -1;
    }
    int64_t npx = (int64_t)seeds.width * seeds.height;
    uint8_t *labels = malloc((size_t)npx);
    if (!labels) {
        img_free(&seeds);
        snprintf(r->error, sizeof r->error, "%s: out of memory", seed_path);
        return -1;
    }
    int64_t nfg = 0, nbg = 0;
    seed_kind kind = o->seeds;
    if (kind == SEEDS_LABELS && seeds.channels == 3)
        kind = SEEDS_SCRIBBLE; /* a colour seed image: scribbles in the default colours */
    for (int64_t i = 0; i < npx; i++) {
        const uint8_t *px = seeds.data + i * seeds.channels;
        uint8_t l = GB_UNMARKED;
        switch (kind) {
        case SEEDS_LABELS:
            l = px[0] == 1 ? GB_FOREGROUND : px[0] == 2 ? GB_BACKGROUND : GB_UNMARKED;
            break;
        case SEEDS_TRIMAP:
            l = px[0] == 255 ? GB_FOREGROUND : px[0] == 0 ? GB_BACKGROUND : GB_UNMARKED;
            break;
        case SEEDS_SCRIBBLE:
            if (seeds.channels == 3 && !memcmp(px, o->fg_rgb, 3))
                l = GB_FOREGROUND;
            else if (seeds.channels == 3 && !memcmp(px, o->bg_rgb, 3))
                l = GB_BACKGROUND;
            break;
        }
        labels[i] = l;
        nfg += l == GB_FOREGROUND;
        nbg += l == GB_BACKGROUND;
    }
    img_free(&seeds);
    if (!nfg || !nbg) {
        static const char *what[] = {"value 1 (foreground)", "255 (foreground)", "the foreground colour"};
        static const char *what_bg[] = {"value 2 (background)", "0 (background)", "the background colour"};
        snprintf(r->error, sizeof r->error, "%s: no %s seed: mark at least one pixel with %s", seed_path,
                 !nfg ? "foreground" : "background", !nfg ? what[kind] : what_bg[kind]);
        free(labels);
        return -1;
    }
    *labels_out = labels;
    return 0;
}

int seg_build(const seg_result *r, const uint8_t *labels, const uint8_t *model_labels,
              const seg_options *o, mf_graph *g, int32_t *cancelled, char *error, size_t error_size)
{
    gb_models *models = NULL;
    int rc = gb_models_fit(r->photo.data, r->photo.width, r->photo.height, model_labels, &o->graph, &models);
    if (rc) {
        snprintf(error, error_size, "colour models: %s", gb_strerror(rc));
        return -1;
    }
    rc = gb_build(r->photo.data, r->photo.width, r->photo.height, labels, models, &o->graph, g, cancelled);
    gb_models_free(models);
    if (rc) {
        snprintf(error, error_size, "network: %s", gb_strerror(rc));
        return -1;
    }
    return 0;
}

int seg_run(const char *image_path, const char *seed_path, const seg_options *o,
            mf_gpu_solver *solver, seg_result *r)
{
    uint8_t *labels = NULL, *model_labels = NULL;
    mf_graph g;
    mf_result res;
    mf_error err = {0};
    int status = -1;
    memset(r, 0, sizeof *r);
    memset(&g, 0, sizeof g);
    memset(&res, 0, sizeof res);
    double t0 = now();
    if (seg_load(image_path, seed_path, o, r, &labels))
        return -1;
    double t1 = now();
    r->times.decode = t1 - t0;
    int64_t npx = (int64_t)r->photo.width * r->photo.height;
    if (img_alloc(&r->mask, r->photo.width, r->photo.height, 1)) {
        snprintf(r->error, sizeof r->error, "%s: out of memory", image_path);
        goto done;
    }
    model_labels = labels;
    for (int it = 0; it <= o->iterations; it++) {
        double ta = now();
        gb_models *models = NULL;
        int rc = gb_models_fit(r->photo.data, r->photo.width, r->photo.height, model_labels, &o->graph, &models);
        if (rc) {
            snprintf(r->error, sizeof r->error, "%s: colour models: %s", seed_path, gb_strerror(rc));
            goto done;
        }
        double tb = now();
        mf_graph_free(&g);
        rc = gb_build(r->photo.data, r->photo.width, r->photo.height, labels, models, &o->graph, &g, NULL);
        gb_models_free(models);
        if (rc) {
            snprintf(r->error, sizeof r->error, "%s: network: %s", image_path, gb_strerror(rc));
            goto done;
        }
        double tc = now();
        mf_result_free(&res);
        rc = solver && o->solve.engine != MF_ENGINE_CPU ? mf_gpu_solve(solver, &g, &o->solve, &res, &err)
                                                        : mf_solve(&g, &o->solve, &res, &err);
        if (rc) {
            char msg[512];
            mf_error_format(&err, msg, sizeof msg);
            snprintf(r->error, sizeof r->error, "%s: solve: %s", image_path, msg);
            goto done;
        }
        double td = now();
        r->times.model += tb - ta;
        r->times.build += tc - tb;
        r->times.solve += td - tc;
        for (int64_t i = 0; i < npx; i++)
            r->mask.data[i] = res.source_side[i] ? 255 : 0;
        if (it < o->iterations) {
            /* GrabCut-style: re-fit the models on the current segmentation */
            if (model_labels == labels) {
                model_labels = malloc((size_t)r->photo.width * (size_t)r->photo.height);
                if (!model_labels) {
                    model_labels = labels;
                    snprintf(r->error, sizeof r->error, "%s: out of memory", image_path);
                    goto done;
                }
            }
            int64_t nfg = 0;
            for (int64_t i = 0; i < npx; i++) {
                model_labels[i] = res.source_side[i] ? GB_FOREGROUND : GB_BACKGROUND;
                nfg += res.source_side[i];
            }
            if (nfg == 0 || nfg == npx)
                break; /* one region vanished: keep this result */
        }
    }
    r->flow_value = res.flow_value;
    r->engine_used = res.stats.engine_used;
    snprintf(r->device, sizeof r->device, "%s", res.stats.device_name);
    r->foreground_pixels = 0;
    for (int64_t i = 0; i < npx; i++)
        r->foreground_pixels += r->mask.data[i] != 0;
    status = 0;
done:
    if (model_labels != labels)
        free(model_labels);
    free(labels);
    mf_result_free(&res);
    mf_graph_free(&g);
    return status;
}

int seg_overlay(const seg_result *r, img_image *out)
{
    int32_t w = r->photo.width, h = r->photo.height;
    if (img_alloc(out, w, h, 3))
        return -1;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            int64_t i = (int64_t)y * w + x;
            const uint8_t *src = r->photo.data + 3 * i;
            uint8_t *dst = out->data + 3 * i;
            int fg = r->mask.data[i] != 0;
            int edge = (x > 0 && (r->mask.data[i - 1] != 0) != fg) ||
                       (x + 1 < w && (r->mask.data[i + 1] != 0) != fg) ||
                       (y > 0 && (r->mask.data[i - w] != 0) != fg) ||
                       (y + 1 < h && (r->mask.data[i + w] != 0) != fg);
            if (edge) {
                dst[0] = 255; dst[1] = 220; dst[2] = 0; /* boundary in yellow */
            } else if (fg) {
                memcpy(dst, src, 3);
            } else {
                for (int c = 0; c < 3; c++)
                    dst[c] = (uint8_t)(src[c] * 3 / 10);
            }
        }
    return 0;
}

int seg_cutout(const seg_result *r, img_image *out)
{
    int32_t w = r->photo.width, h = r->photo.height;
    if (img_alloc(out, w, h, 4))
        return -1;
    for (int64_t i = 0; i < (int64_t)w * h; i++) {
        memcpy(out->data + 4 * i, r->photo.data + 3 * i, 3);
        out->data[4 * i + 3] = r->mask.data[i];
    }
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
