/* The segmentation pipeline behind `flowcut segment`, `graph` and `batch`:
 * decode, seeds, colour models, network, min cut, mask. */
#ifndef FLOWCUT_PIPELINE_H
#define FLOWCUT_PIPELINE_H

#include "flowcut/graphbuild.h"
#include <stdio.h>
#include "flowcut/images.h"
#include "flowcut/maxflow.h"

typedef enum { SEEDS_LABELS = 0, SEEDS_TRIMAP, SEEDS_SCRIBBLE } seed_kind;

typedef struct seg_options {
    seed_kind seeds;
    uint8_t fg_rgb[3], bg_rgb[3];  /* scribble colours */
    gb_params graph;
    int iterations;                /* model re-fits on the segmentation */
    mf_options solve;
    int64_t max_pixels;
} seg_options;

void seg_options_default(seg_options *o);

typedef struct seg_times {
    double decode, model, build, solve, encode;
} seg_times;

typedef struct seg_result {
    img_image photo;   /* RGB */
    img_image mask;    /* 1 channel, 255 foreground */
    int64_t flow_value;
    int64_t foreground_pixels;
    int engine_used;
    char device[128];
    seg_times times;
    char error[768];   /* "FILE: message" on failure */
} seg_result;

/* Turns a seed image into labels (GB_FOREGROUND / GB_BACKGROUND /
 * GB_UNMARKED) by o->seeds; counts both kinds; returns the kind used (a
 * colour image under SEEDS_LABELS is read as scribbles). */
seed_kind seg_labels_from_image(const img_image *seeds, const seg_options *o, uint8_t *labels, int64_t *nfg,
                                int64_t *nbg);

/* Loads the photo and seed file and turns the seeds into a label map
 * (GB_FOREGROUND / GB_BACKGROUND / GB_UNMARKED). */
int seg_load(const char *image_path, const char *seed_path, const seg_options *o, seg_result *r,
             uint8_t **labels);

/* Fits the models and builds the network of a loaded photo; adds the
 * model and build times to times when not NULL. */
int seg_build(const seg_result *r, const uint8_t *labels, const uint8_t *model_labels,
              const seg_options *o, mf_graph *g, int32_t *cancelled, seg_times *times, char *error,
              size_t error_size);

/* One image through the pipeline in steps, so that a batch driver can run
 * the CPU stages and the solve on different threads:
 *   seg_job_start (decode, seeds, models, network), then
 *   seg_job_solve and seg_job_next while next returns 1 (another
 *   GrabCut-style iteration was built). 0: done, r holds the result.
 * All return -1 on failure with r.error set. seg_job_free frees all but r. */
typedef struct seg_job {
    seg_result r;
    const char *image_path, *seed_path;
    uint8_t *labels, *model_labels;
    mf_graph graph;
    mf_result res;
    int iteration;
} seg_job;

int seg_job_start(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o);
int seg_job_solve(seg_job *j, const seg_options *o, mf_gpu_solver *solver);
int seg_job_next(seg_job *j, const seg_options *o);
void seg_job_free(seg_job *j);

/* The whole pipeline; solver may be NULL (one is made when needed). */
int seg_run(const char *image_path, const char *seed_path, const seg_options *o,
            mf_gpu_solver *solver, seg_result *r);

void seg_result_free(seg_result *r);

/* The fields of a finished result that close a JSON line of segment and
 * batch: size, flow, foreground, engine, device, stage times, then "}\n". */
void seg_json_result(FILE *f, const seg_result *r);

/* Overlay (background dimmed, boundary drawn) and RGBA cut-out images. */
int seg_overlay(const seg_result *r, img_image *out);
int seg_cutout(const seg_result *r, img_image *out);

/* Writes an image as PNG through a temporary file and rename. */
int seg_write_png(const char *path, int force, const img_image *img, char *error, size_t error_size);

#endif
