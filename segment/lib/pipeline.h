/* The segmentation pipeline behind seg_segment and `flowcut segment`,
 * `graph` and `batch`: decode, seeds, colour models, network, min cut,
 * mask. Private to the segmentation library and the CLI (the batch driver
 * runs the steps on different threads). */
#ifndef FLOWCUT_PIPELINE_H
#define FLOWCUT_PIPELINE_H

#include "flowcut/graphbuild.h"
#include <stdio.h>
#include "flowcut/images.h"
#include "flowcut/maxflow.h"
#include "flowcut/segment.h"

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
    int32_t click_radius; /* the last click's disc radius (0: no click) */
    int code;          /* SEG_ERR_* on failure */
    char error[768];   /* "FILE: message" on failure */
} seg_result;

/* Loads the photo and seed file and turns the seeds into a label map
 * (GB_FOREGROUND / GB_BACKGROUND / GB_UNMARKED). */
int seg_load(const char *image_path, const char *seed_path, const seg_options *o, seg_result *r,
             uint8_t **labels);

/* A box is re-fitted this many times at least (GrabCut's loop): the first
 * guess, the box's middle as the foreground's sample, is poor. */
#define SEG_BOX_ITERATIONS 3

/* A box is cut at this share of the smoothness weight: its first
 * foreground sample holds background too, and the box's route has no
 * geodesic prior (a box's inside is no seed to measure from), so the
 * colours alone carry the data terms and the full weight smooths the
 * object away. Two sevenths (20 at the default 70) gave the box's best
 * mean IoU of lambda 10 to 70 on both dev sets (docs/benchmarks.md, "Box
 * through --box"). */
#define SEG_BOX_LAMBDA_SHARE (2.0 / 7.0)

/* A GrabCut-style re-fit's samples: 1 when the cut (source_side, n
 * pixels) keeps both regions, 0 when one vanished (a re-fit would have no
 * sample of it: the caller keeps its last labels); then labels[i] is
 * GB_FOREGROUND on the cut's source side and GB_BACKGROUND elsewhere. */
int seg_cut_has_both(const uint8_t *side, int64_t n);
void seg_labels_from_cut(const uint8_t *side, int64_t n, uint8_t *labels);

/* Both sides of the photo at least this long for the box's half-size
 * cuts (seg_box_coarse); smaller photos are cut at full size every time. */
#define SEG_BOX_COARSE_MIN_SIDE 128

/* The energy of the box's cuts: no geodesic prior, SEG_BOX_LAMBDA_SHARE
 * of the smoothness weight; the rest as p. */
void seg_box_params(const gb_params *p, gb_params *box);

/* gp's previous answer (gb_params.previous, keep_x, keep_y) from
 * o->previous and the last of o's clicks, on a width x height photo; none
 * without o->previous, with a box (its route's energy has none) or with a
 * term of no weight (o->graph.keep 0). SEG_ERR_INVALID (err may be NULL)
 * without a click or for another size. The one place that decides whether
 * the last click corrects a previous answer: its disc
 * (seg_prompts_paint_previous) and the term both follow gp->previous. */
int seg_keep_params(const seg_options *o, int32_t width, int32_t height, gb_params *gp, seg_error *err);

/* The box's route's first SEG_BOX_ITERATIONS cuts at half the photo's
 * width and height (box_route.c): model_labels (the box's first samples,
 * seg_model_labels) become the last coarse cut, brought to full size, and
 * *done is set; photos under 128 pixels a side are left alone (*done 0).
 * The stages' times are added to times. */
int seg_box_coarse(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels, uint8_t *model_labels,
                   const seg_options *o, seg_times *times, int *done, seg_error *err);

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
    mf_grid grid;  /* the network in grid form instead (grid.w set), with grid_form */
    int grid_form; /* build grid forms for a device's union launch (seg_job_start_grid) */
    mf_result res;
    int iteration;
    int box_route; /* a box: its middle a foreground sample, no geodesic
                    * prior, GrabCut-style re-fits (seg_model_labels) */
    int32_t *cancelled; /* the caller's, a pixel each, or NULL: receives each
                         * built network's pre-cancelled terminal capacities
                         * (gb_build_fitting's), as gb_to_arclist reads them;
                         * set it between seg_job_load and seg_job_begin (a
                         * job begun on a photo in memory starts zeroed) */
} seg_job;

int seg_job_start(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o);
/* The same, its networks built in grid form (gb_build_grid) for
 * seg_jobs_solve_gpu, which expands them on the device: the CPU writes a
 * fifth of the bytes. Any other solve expands them on the host first.
 * Star convexity has no grid form: such jobs build CSR networks. */
int seg_job_start_grid(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o);
/* The same on a photo and labels already in memory: the job takes both
 * (photo->data and labels are freed with it); name is used in messages. */
int seg_job_begin(seg_job *j, const char *name, img_image *photo, uint8_t *labels, const seg_options *o);
/* seg_job_start in two: the photo and seeds decoded (j zeroed first), then
 * seg_job_begin(j, image_path, &j->r.photo, j->labels, o) fits and builds;
 * between them the caller may set j->cancelled. */
int seg_job_load(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o);
int seg_job_solve(seg_job *j, const seg_options *o, mf_gpu_solver *solver);
/* Solves k jobs' networks in one GPU launch (mf_gpu_solve_many); each
 * alone when that fails (seg_job_solve completes networks built without
 * in-lists, o->graph.in_lists 0, first). failed[i]: 1 when job i failed (its r.error). */
void seg_jobs_solve_gpu(seg_job **jobs, int k, const seg_options *o, mf_gpu_solver *solver, int *failed);
int seg_job_next(seg_job *j, const seg_options *o);
/* The vertices of the job's network, CSR or grid form (0: none built). */
int64_t seg_job_vertices(const seg_job *j);
void seg_job_free(seg_job *j);

/* Whether networks the CPU engine solves with o may be built without
 * in-lists (o->graph.in_lists 0; a sizeable part of a build): cut only, one thread,
 * where BK and IBFS set up by streaming the arcs by tail. seg_job_solve
 * completes a network whose solve would read them after all
 * (mf_cpu_reads_in_lists decides). */
int seg_cpu_skips_in_lists(const seg_options *o);

/* The whole pipeline; solver may be NULL (one is made when needed). */
int seg_run(const char *image_path, const char *seed_path, const seg_options *o,
            mf_gpu_solver *solver, seg_result *r);

void seg_result_free(seg_result *r);

#endif
