/* Segmentation pipeline: decode, seeds, models, network, solve, mask. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline.h"

#include "cli.h"
#include "flowcut/segment.h"

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
    /* BK on large photos, push-relabel on small ones (measured) */
    o->solve.cpu_algorithm = MF_CPU_AUTO;
    o->solve.cut_only = 1; /* a mask needs the cut, not the flows */
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

seed_kind seg_labels_from_image(const img_image *seeds, const seg_options *o, uint8_t *labels, int64_t *nfg,
                                int64_t *nbg)
{
    int64_t npx = (int64_t)seeds->width * seeds->height;
    seed_kind kind = o->seeds;
    if (kind == SEEDS_LABELS && seeds->channels == 3)
        kind = SEEDS_SCRIBBLE; /* a colour seed image: scribbles in the default colours */
    *nfg = *nbg = 0;
    for (int64_t i = 0; i < npx; i++) {
        const uint8_t *px = seeds->data + i * seeds->channels;
        uint8_t l = GB_UNMARKED;
        switch (kind) {
        case SEEDS_LABELS:
            l = px[0] == 1 ? GB_FOREGROUND : px[0] == 2 ? GB_BACKGROUND : GB_UNMARKED;
            break;
        case SEEDS_TRIMAP:
            l = px[0] == 255 ? GB_FOREGROUND : px[0] == 0 ? GB_BACKGROUND : GB_UNMARKED;
            break;
        case SEEDS_SCRIBBLE:
            if (seeds->channels == 3 && !memcmp(px, o->fg_rgb, 3))
                l = GB_FOREGROUND;
            else if (seeds->channels == 3 && !memcmp(px, o->bg_rgb, 3))
                l = GB_BACKGROUND;
            break;
        }
        labels[i] = l;
        *nfg += l == GB_FOREGROUND;
        *nbg += l == GB_BACKGROUND;
    }
    return kind;
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
    seed_kind kind = seg_labels_from_image(&seeds, o, labels, &nfg, &nbg);
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
              const seg_options *o, mf_graph *g, int32_t *cancelled, seg_times *times, char *error,
              size_t error_size)
{
    gb_models *models = NULL;
    double t0 = now();
    int rc = gb_models_fit(r->photo.data, r->photo.width, r->photo.height, model_labels, &o->graph, &models);
    if (rc) {
        snprintf(error, error_size, "colour models: %s", gb_strerror(rc));
        return -1;
    }
    double t1 = now();
    rc = gb_build(r->photo.data, r->photo.width, r->photo.height, labels, models, &o->graph, g, cancelled);
    gb_models_free(models);
    if (rc) {
        snprintf(error, error_size, "network: %s", gb_strerror(rc));
        return -1;
    }
    if (times) {
        times->model += t1 - t0;
        times->build += now() - t1;
    }
    return 0;
}

void seg_job_free(seg_job *j)
{
    if (j->model_labels != j->labels)
        free(j->model_labels);
    free(j->labels);
    j->labels = j->model_labels = NULL;
    mf_result_free(&j->res);
    mf_graph_free(&j->graph);
}

/* Fits the models on the current model labels and builds the network. */
static int fit_and_build(seg_job *j, const seg_options *o)
{
    char msg[512];
    mf_graph_free(&j->graph);
    if (seg_build(&j->r, j->labels, j->model_labels, o, &j->graph, NULL, &j->r.times, msg, sizeof msg)) {
        snprintf(j->r.error, sizeof j->r.error, "%s: %s", j->image_path, msg);
        return -1;
    }
    return 0;
}

int seg_job_start(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o)
{
    memset(j, 0, sizeof *j);
    j->image_path = image_path;
    j->seed_path = seed_path;
    double t0 = now();
    if (seg_load(image_path, seed_path, o, &j->r, &j->labels))
        return -1;
    j->r.times.decode = now() - t0;
    if (img_alloc(&j->r.mask, j->r.photo.width, j->r.photo.height, 1)) {
        snprintf(j->r.error, sizeof j->r.error, "%s: out of memory", image_path);
        return -1;
    }
    j->model_labels = j->labels;
    return fit_and_build(j, o);
}

int seg_job_solve(seg_job *j, const seg_options *o, mf_gpu_solver *solver)
{
    mf_error err = {0};
    double t0 = now();
    mf_result_free(&j->res);
    int rc;
    if (solver && o->solve.engine != MF_ENGINE_CPU) {
        rc = mf_gpu_solve(solver, &j->graph, &o->solve, &j->res, &err);
        if (rc == MF_ERR_DEVICE_MEMORY && o->solve.engine == MF_ENGINE_AUTO) {
            mf_result_free(&j->res);
            rc = mf_solve_cpu(&j->graph, &o->solve, &j->res, &err); /* too large for the device */
        }
    } else {
        rc = mf_solve(&j->graph, &o->solve, &j->res, &err);
    }
    if (rc) {
        char msg[512];
        mf_error_format(&err, msg, sizeof msg);
        snprintf(j->r.error, sizeof j->r.error, "%s: solve: %s", j->image_path, msg);
        return -1;
    }
    j->r.times.solve += now() - t0;
    return 0;
}

int seg_job_next(seg_job *j, const seg_options *o)
{
    seg_result *r = &j->r;
    int64_t npx = (int64_t)r->photo.width * r->photo.height;
    const uint8_t *side = j->res.source_side;
    for (int64_t i = 0; i < npx; i++)
        r->mask.data[i] = side[i] ? 255 : 0;
    if (j->iteration < o->iterations) {
        /* GrabCut-style: re-fit the models on the current segmentation */
        int64_t nfg = 0;
        for (int64_t i = 0; i < npx; i++)
            nfg += side[i];
        if (nfg > 0 && nfg < npx) { /* else one region vanished: keep this result */
            if (j->model_labels == j->labels && !(j->model_labels = malloc((size_t)npx))) {
                j->model_labels = j->labels;
                snprintf(r->error, sizeof r->error, "%s: out of memory", j->image_path);
                return -1;
            }
            for (int64_t i = 0; i < npx; i++)
                j->model_labels[i] = side[i] ? GB_FOREGROUND : GB_BACKGROUND;
            j->iteration++;
            return fit_and_build(j, o) ? -1 : 1;
        }
    }
    r->flow_value = j->res.flow_value;
    r->engine_used = j->res.stats.engine_used;
    snprintf(r->device, sizeof r->device, "%s", j->res.stats.device_name);
    r->foreground_pixels = 0;
    for (int64_t i = 0; i < npx; i++)
        r->foreground_pixels += r->mask.data[i] != 0;
    /* the network is no longer needed; the caller keeps r */
    mf_result_free(&j->res);
    mf_graph_free(&j->graph);
    return 0;
}

int seg_run(const char *image_path, const char *seed_path, const seg_options *o,
            mf_gpu_solver *solver, seg_result *r)
{
    seg_job j;
    int rc = seg_job_start(&j, image_path, seed_path, o);
    while (rc == 0) {
        rc = seg_job_solve(&j, o, solver);
        if (rc == 0 && (rc = seg_job_next(&j, o)) != 1)
            break; /* 0: done; -1: failed */
        rc = rc == 1 ? 0 : rc;
    }
    seg_job_free(&j);
    *r = j.r;
    return rc ? -1 : 0;
}

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
