/* flowcut segmentation library: photo + seeds -> mask in one call
 * (seg_segment, every option of `flowcut segment`), and an interactive
 * session that re-cuts a photo warm as strokes are added or erased.
 *
 * The session keeps the photo, the colour models, the grid network and a
 * warm solver (mf_dynamic; on the GPU when one is usable) alive between
 * edits. After each edit, seg_session_cut brings the mask up to date:
 *  - seeds changed, models unchanged: only the edited pixels' terminal
 *    capacities change (a few thousand arcs), re-solved warm;
 *  - with refit on (the default) the models are re-fitted on the seeds as
 *    `flowcut segment` fits them; when the fit differs, every pixel's
 *    terminal capacities change (n-links stay), re-solved warm;
 *  - lambda changed: the network is rebuilt and solved cold.
 * With refit on, the mask is bit-identical to `flowcut segment` run on the
 * photo with the session's seed image (seg_session_labels); after a click
 * that corrects the last cut, with that cut's mask as the previous answer
 * and the click as the last one (`--clicks X,Y --previous MASK`).
 *
 * Conventions: functions return 0 (SEG_OK) or a negative SEG_ERR_* code;
 * where a seg_error is passed it receives a message. The library never
 * prints and never exits. */
#ifndef FLOWCUT_SEGMENT_H
#define FLOWCUT_SEGMENT_H

#include "flowcut/graphbuild.h"
#include "flowcut/maxflow.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the interface: exported from the shared
 * library, which is built with all else hidden. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Status codes: the segmentation library's range, -300.. (maxflow.h says
 * why each module has its own). */
enum {
    SEG_OK = 0,
    SEG_ERR_NOMEM = -301,
    SEG_ERR_INVALID = -302,    /* bad argument */
    SEG_ERR_IO = -303,         /* a file could not be written */
    SEG_ERR_NEED_SEEDS = -304, /* no foreground or no background seed yet */
    SEG_ERR_MODEL = -305,      /* colour models or network could not be built */
    SEG_ERR_SOLVE = -306,      /* the max-flow engine failed */
    SEG_ERR_IMAGE = -307       /* an image file could not be read */
};

const char *seg_strerror(int code);

typedef struct seg_error {
    int code;
    char message[512];
} seg_error;

/* ---------------------------------------------------------------------
 * One-shot segmentation: what `flowcut segment` does, on memory. */

/* Prompts: clicks and a box, beside or instead of a seed image.
 *
 * Text form (command line, prompt files, every front end): tokens
 * separated by spaces, newlines or ';', '#' to the end of a line a comment:
 *   X,Y  or  +X,Y  or  fg X,Y    a foreground click at pixel (X, Y)
 *   -X,Y  or  bg X,Y             a background click
 *   X,Y,R (any of the above)     the click's disc of radius R pixels
 *   box X,Y,W,H                  everything outside the W x H rectangle at
 *                                (X, Y) is background (GrabCut's box)
 * A click is a hard seed: a disc of seg_prompts_radius() pixels (or R)
 * takes its label, so the clicked pixel is on the clicked side; the last
 * click of a segmentation given a previous answer (seg_options.previous)
 * takes seg_click_radius() unless R is given. Foreground clicks alone are
 * enough: the photo's border (or the box) gives the background. */
typedef struct seg_prompts seg_prompts;
typedef struct seg_click {
    int32_t x, y;
    uint8_t label;  /* GB_FOREGROUND or GB_BACKGROUND */
    int32_t radius; /* the disc's radius in pixels; 0: the default */
} seg_click;
#define SEG_MAX_CLICKS 4096
#define SEG_CLICK_MIN_RADIUS 3

seg_prompts *seg_prompts_new(void); /* NULL when out of memory */
void seg_prompts_free(seg_prompts *p);
void seg_prompts_clear(seg_prompts *p);
int seg_prompts_add_click(seg_prompts *p, int32_t x, int32_t y, uint8_t label, seg_error *err);
int seg_prompts_set_box(seg_prompts *p, int32_t x, int32_t y, int32_t w, int32_t h, seg_error *err);
/* Adds the prompts of the text form; `where` names the text in messages
 * ("--clicks", a file name). SEG_ERR_INVALID with the token at fault. */
int seg_prompts_parse(seg_prompts *p, const char *text, const char *where, seg_error *err);
int seg_prompts_read_file(seg_prompts *p, const char *path, seg_error *err);
int32_t seg_prompts_count(const seg_prompts *p);
int seg_prompts_click(const seg_prompts *p, int32_t i, seg_click *out);
/* 1 and the box (x, y, w, h) when there is one, else 0. */
int seg_prompts_get_box(const seg_prompts *p, int32_t box[4]);
/* Sets click i's disc radius (1 .. SEG_CLICK_MAX_RADIUS pixels; 0: the
 * default). */
int seg_prompts_set_radius(seg_prompts *p, int32_t i, int32_t radius, seg_error *err);
#define SEG_CLICK_MAX_RADIUS 100000
/* The radius of a click's disc on a width x height photo. */
int seg_prompts_radius(int32_t width, int32_t height);
/* The disc of a click at (x, y) that corrects `previous` (width * height
 * bytes, nonzero foreground): seg_prompts_radius(), cut down to the
 * distance from the click to the nearest pixel the previous answer already
 * gives the click's label, at least 2. The click lands in a region the
 * answer got wrong; a disc reaching past that region's near side would
 * likely cross its far side too, where the answer was right. */
int32_t seg_click_radius(const uint8_t *previous, int32_t width, int32_t height, int32_t x, int32_t y,
                         uint8_t label);
/* Writes the prompts into a label map (width * height bytes): the box's
 * outside, then each click's disc in order. SEG_ERR_INVALID when a click
 * or the box lies outside the photo. */
int seg_prompts_paint(const seg_prompts *p, int32_t width, int32_t height, uint8_t *labels, seg_error *err);

/* How a seed image is read. */
typedef enum {
    SEG_SEEDS_LABELS = 0, /* grey or palette index: 1 foreground, 2 background, else unmarked
                           * (a 3-channel image is read as SEG_SEEDS_SCRIBBLE) */
    SEG_SEEDS_TRIMAP,     /* 255 foreground, 0 background, else unknown */
    SEG_SEEDS_SCRIBBLE    /* RGB: fg_rgb foreground, bg_rgb background, else unmarked */
} seg_seed_kind;

/* The largest smoothness weight (lambda) any front end takes. */
#define SEG_LAMBDA_MAX 100000

typedef struct seg_options {
    seg_seed_kind seeds;
    uint8_t fg_rgb[3], bg_rgb[3]; /* scribble colours (default red, blue) */
    gb_params graph;              /* lambda, connectivity, model, uniform_mix */
    int iterations;               /* GrabCut-style re-fits on the segmentation (default 0) */
    mf_options solve;             /* engine, device, cpu_algorithm */
    int64_t max_pixels;           /* larger images are refused (files only) */
    const seg_prompts *prompts;   /* clicks and box painted over the seeds
                                   * (NULL: none); the caller keeps them */
    /* The answer the last click corrects (previous_width x previous_height
     * bytes, nonzero foreground; NULL: none, the default): near that click
     * the cut is free to change it, beyond it a pixel keeps its label
     * unless the colours and edges argue by more than graph.keep nats
     * (gb_params.keep). What a session does at each click, for replaying
     * one: the mask before the last click, with every click so far.
     * SEG_ERR_INVALID without a click or for another size; a box's route
     * ignores it. The caller keeps it. */
    const uint8_t *previous;
    int32_t previous_width, previous_height;
} seg_options;

/* The defaults of `flowcut segment`. */
void seg_options_default(seg_options *o);

/* A heap-allocated seg_options with the defaults, for language bindings
 * that cannot lay out the struct; free with seg_options_free. NULL when
 * out of memory. */
seg_options *seg_options_new(void);
void seg_options_free(seg_options *o);
/* o->prompts = p, for bindings that cannot lay out the struct. */
void seg_options_set_prompts(seg_options *o, const seg_prompts *p);
/* o->previous and its size, for bindings that cannot lay out the struct. */
void seg_options_set_previous(seg_options *o, const uint8_t *previous, int32_t width, int32_t height);
/* Frees what the library malloc'ed for the caller (the mask of
 * seg_segment_files, the PNG of seg_session_render_png): bindings call it
 * rather than a free() of their own. */
void seg_free(void *p);

/* Sets one option by its command-line name (without the dashes) from a
 * string, with the CLI's checks and messages: seeds (labels, trimap,
 * scribble), scribble-colors (FG,BG hex RGB), lambda, connectivity,
 * model, uniform-mix, iterations, geodesic, border, star, keep, engine,
 * cpu-algorithm, threads, device, max-pixels. SEG_ERR_INVALID with the reason in err. */
int seg_options_set(seg_options *o, const char *name, const char *value, seg_error *err);

/* Reads a seed image (width * height * channels bytes; 1 or 3 channels)
 * into labels (GB_UNMARKED, GB_FOREGROUND, GB_BACKGROUND) as o->seeds
 * says; with labels (the default), 3 channels are scribbles unless the
 * image is grey throughout and holds a 1 or a 2 (a label image saved as
 * RGB). *nfg and *nbg count the seeds of each kind. Returns the kind used
 * (0 or more) or SEG_ERR_INVALID. */
int seg_labels_from_seeds(const uint8_t *seeds, int32_t width, int32_t height, int32_t channels,
                          const seg_options *o, uint8_t *labels, int64_t *nfg, int64_t *nbg);

typedef struct seg_info {
    int64_t flow;          /* max-flow value of the last cut */
    int64_t foreground;    /* pixels in the mask */
    int engine;            /* MF_ENGINE_CPU or MF_ENGINE_GPU */
    int iterations;        /* re-fits done */
    double model_seconds, build_seconds, solve_seconds;
    char device[128];
    int32_t click_radius; /* the last click's disc radius (0: no click) */
} seg_info;

/* Segments an RGB photo (width * height * 3 bytes) with a seed image as
 * seg_labels_from_seeds reads it; writes width * height bytes to mask
 * (255 foreground, 0 background). The mask is bit-identical to `flowcut
 * segment` with the same options. info may be NULL. SEG_ERR_NEED_SEEDS
 * when either region has no seed. */
int seg_segment(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                int32_t seed_channels, const seg_options *o, uint8_t *mask, seg_info *info,
                seg_error *err);

/* The same from files (any format the images library reads); the mask is
 * malloc'ed (the caller frees it) and its size returned in *width and
 * *height. */
int seg_segment_files(const char *image_path, const char *seed_path, const seg_options *o,
                      uint8_t **mask, int32_t *width, int32_t *height, seg_info *info,
                      seg_error *err);

/* ---------------------------------------------------------------------
 * Batch: many photos on every core and every GPU, what `flowcut batch`
 * runs. CPU workers decode, fit the models and build the networks while
 * a thread per device stream solves them, several photos per launch
 * (mf_gpu_launch_takes); without a device the workers solve. Each item's
 * outputs are written all or none (temporary name, fsync, rename); an
 * item that fails fails alone. */
typedef struct seg_batch_item {
    const char *image;            /* the photo */
    const char *seeds;            /* its seed image as o->seeds reads it, or NULL */
    const char *prompts;          /* its prompt file (the text form above), or NULL;
                                   * seeds, prompts or both */
    const char *mask;             /* where its mask goes (PNG, 255 foreground) */
    const char *overlay, *cutout; /* also these PNGs, or NULL */
} seg_batch_item;

/* What became of one item, reported as it ends. */
typedef struct seg_batch_outcome {
    size_t index;       /* into the items */
    int code;           /* SEG_OK, or why it failed (SEG_ERR_*) */
    const char *error;  /* "FILE: why" when it failed, else NULL */
    int32_t width, height;
    int64_t flow, foreground;
    int engine;         /* MF_ENGINE_CPU or MF_ENGINE_GPU */
    const char *device;
    double decode_seconds, model_seconds, build_seconds, solve_seconds, encode_seconds;
} seg_batch_outcome;

typedef struct seg_batch_config {
    int32_t jobs;              /* CPU workers; 0: every core */
    int32_t ndevices;          /* -1: every usable CUDA device (none: the CPU); 0: the CPU
                                * solves; N: devices[0..N), an error when none is usable */
    const int32_t *devices;
    int32_t per_gpu;           /* photos a device solves at once, a stream each (default 4) */
    int32_t per_launch;        /* photos one launch solves together (default 16) */
    int64_t alloc_cache_bytes; /* memory kept for the next photos' arrays instead of being
                                * returned to the system; -1 (default): 128 MB a worker,
                                * at most a quarter of the memory */
    int overwrite;             /* 0: an existing output fails its item */
    const volatile int *stop;  /* when it turns non-zero no further item starts; the
                                * ones in flight finish (a signal handler's flag); NULL */
    /* Called once for each item as it ends, one call at a time, from the
     * batch's threads; outcome is valid during the call. NULL: none. */
    void (*report)(void *user, const seg_batch_outcome *outcome);
    void *user;
} seg_batch_config;

typedef struct seg_batch_stats {
    size_t ok, failed, not_started; /* not started: stopped first */
    double seconds;                 /* wall time */
    /* stage sums over the items that succeeded */
    double decode_seconds, model_seconds, build_seconds, solve_seconds, encode_seconds;
    int32_t workers, devices, per_gpu;
    size_t launches, launched;      /* GPU launches and the photos they solved */
} seg_batch_stats;

void seg_batch_config_default(seg_batch_config *c);

/* Segments items[0..count) with o (the same options as `flowcut segment`;
 * o->prompts is ignored: prompts come per item). Returns SEG_OK once every
 * item has ended (stats, when not NULL, says how many failed), or an
 * error when the batch could not start: no usable device where c names
 * devices or o->solve.engine is gpu (SEG_ERR_SOLVE), out of memory. With
 * o->solve.threads 0 each worker gets its share of the cores. */
int seg_batch_run(const seg_batch_item *items, size_t count, const seg_options *o, const seg_batch_config *c,
                  seg_batch_stats *stats, seg_error *err);

/* ---------------------------------------------------------------------
 * Interactive session. */
typedef struct seg_session_options {
    gb_params graph;   /* lambda, connectivity, model, the geodesic prior and
                        * the border: `flowcut segment`'s energy by default
                        * (gb_params_default); with star convexity a stroke
                        * rebuilds the network */
    mf_options solve;  /* engine (auto: GPU when usable), device, cpu_algorithm */
    int refit;         /* 1 (default): re-fit the models after every seed edit */
} seg_session_options;

void seg_session_options_default(seg_session_options *o);

typedef struct seg_session seg_session;

/* Opens a session on an RGB photo (width * height * 3 bytes, copied).
 * labels may be NULL (no seeds) or hold width * height seed labels
 * (GB_UNMARKED, GB_FOREGROUND, GB_BACKGROUND). Nothing is solved yet. */
int seg_session_open(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels,
                     const seg_session_options *o, seg_session **out, seg_error *err);
void seg_session_close(seg_session *s);

int32_t seg_session_width(const seg_session *s);
int32_t seg_session_height(const seg_session *s);

/* Seed edits; they take effect at the next seg_session_cut. */
/* Sets the labels of the w x h rectangle at (x, y) from patch (row
 * stride `stride` bytes); values other than 0, 1, 2 are refused. */
int seg_session_set_labels(seg_session *s, int32_t x, int32_t y, int32_t w, int32_t h, const uint8_t *patch,
                           int32_t stride);
/* Paints label along the segment (x0, y0) - (x1, y1) with a round brush of
 * the given radius (pixels; 0 paints single pixels; at most
 * SEG_STROKE_MAX_RADIUS): the pixels whose centre lies within radius of
 * the segment. Parts outside the photo are clipped. GB_UNMARKED erases. */
int seg_session_paint_line(seg_session *s, uint8_t label, double x0, double y0, double x1, double y1,
                           double radius);
#define SEG_STROKE_MAX_RADIUS 4096.0
/* The same along the polyline of npoints points (x, y pairs in xy; one
 * point paints a disc). The cost is O(rows of the stroke's box * segments
 * + pixels of its box), whatever the radius: each pixel is painted once
 * however many segments cover it. SEG_ERR_NOMEM, SEG_ERR_INVALID (bad
 * label, radius, or a coordinate not finite or beyond 1e7). */
int seg_session_paint_stroke(seg_session *s, uint8_t label, const double *xy, int32_t npoints, double radius);
/* A click at pixel (x, y), label GB_FOREGROUND or GB_BACKGROUND, painted
 * as `flowcut segment --clicks` paints it (a disc of seg_prompts_radius()
 * pixels, hard seeds). One foreground click is enough for a cut: the
 * photo's border stands in for the background (unless border < 0). When
 * the last cut answered every edit before the click, the click corrects
 * that cut's mask (seg_options.previous, gb_params.keep): away from the
 * click the next cuts keep its labels unless the photo argues by more than
 * opt.graph.keep nats, until another edit (a stroke, a box, labels set)
 * ends the term; undo and redo restore each step's, and the click's disc
 * stays inside the region it corrects (seg_click_radius). SEG_ERR_INVALID
 * outside the photo or for another label. */
int seg_session_click(seg_session *s, int32_t x, int32_t y, uint8_t label);
/* The same with the disc's radius given (1 .. SEG_CLICK_MAX_RADIUS; 0:
 * as seg_session_click chooses it); returns the radius painted, or
 * SEG_ERR_INVALID. */
int seg_session_click_disc(seg_session *s, int32_t x, int32_t y, uint8_t label, int32_t radius);
/* A box (GrabCut's rectangle): every pixel outside it becomes background.
 * While the box stands (not undone or painted over), a cut takes the
 * route of `flowcut segment --box` on the same seeds: the box's middle is
 * the foreground's first colour sample, clicks and strokes are hard
 * constraints. The first cut after a box is that route's, cold; later
 * cuts with refit off (seg_session_set_refit) keep its models and change
 * only the edited pixels, re-solved warm; with refit on, the route runs
 * again and the mask equals `flowcut segment --box`. Photos under 128
 * pixels a side take the whole route, cold, at every cut. Undo and redo
 * bring back the box the step had. A box past the photo's edges stands for
 * the part of it on the photo (as `--box` does); SEG_ERR_INVALID when none
 * of it is, or x, y < 0, w, h <= 0. */
int seg_session_box(seg_session *s, int32_t x, int32_t y, int32_t w, int32_t h);
/* 1 and the box (x, y, w, h) while the session's cuts take a box's route
 * (the last seg_session_box, not undone or painted over), else 0: its
 * seeds replay to the same mask with the box given too
 * (`flowcut segment --seeds SEEDS --box X,Y,W,H`). */
int seg_session_get_box(const seg_session *s, int32_t box[4]);
/* The mask the last click corrects (width * height bytes, 1 foreground)
 * and, when click is not NULL, that click, while the session's cuts
 * correct it (seg_session_click); else NULL. The seeds replay to the same
 * mask with that click and that mask given (seg_options.previous;
 * `flowcut segment --seeds SEEDS --clicks X,Y --previous MASK`, a minus
 * before X for a background click; SEG_SAVE_PREVIOUS writes the mask).
 * Valid until the next edit, undo or redo. */
const uint8_t *seg_session_get_previous(const seg_session *s, seg_click *click);
/* Replaces every label (width * height bytes). */
int seg_session_set_all_labels(seg_session *s, const uint8_t *labels);
/* New n-link weight, 0 to SEG_LAMBDA_MAX (as `--lambda`, so that a saved
 * session replays); the next cut rebuilds the network. */
int seg_session_set_lambda(seg_session *s, double lambda);
double seg_session_lambda(const seg_session *s);

/* Undo history. The edits since the last commit (strokes, patches, all
 * labels) form one step; seg_session_commit closes it. Undo and redo
 * restore the labels (the next cut follows). The starting labels of
 * seg_session_open are where undo stops.
 *
 * The history is bounded in bytes, not steps: a step costs about
 * 3 bytes per run of changed pixels in a row (a stroke: a few bytes per
 * row it crosses) plus a fixed 32, and the oldest steps are forgotten
 * when the total would exceed the limit, SEG_SESSION_HISTORY_DEFAULT (256
 * MiB: thousands of whole-photo strokes at 12 Mpx, and on any photo far
 * below the photo, network and solver the session already holds) unless
 * seg_session_set_history_limit says otherwise. A step larger than the
 * whole limit is not undoable and clears the history before it. Besides
 * the history the session keeps one label copy (width * height bytes). */
#define SEG_SESSION_HISTORY_DEFAULT ((size_t)256 << 20)
/* SEG_OK; SEG_ERR_NOMEM when the step could not be kept (the labels are as
 * painted, the history is then empty). */
int seg_session_commit(seg_session *s);
/* 1 when a step was undone (redone), 0 when there was none; commits first
 * (so undo takes back uncommitted edits, and they end the redo branch).
 * A negative SEG_ERR_* as seg_session_commit. */
int seg_session_undo(seg_session *s);
int seg_session_redo(seg_session *s);
int seg_session_can_undo(const seg_session *s);
int seg_session_can_redo(const seg_session *s);
/* A new limit (0: no history) applies at once: older steps are dropped. */
void seg_session_set_history_limit(seg_session *s, size_t bytes);
/* What the history holds now (always <= the limit). */
size_t seg_session_history_bytes(const seg_session *s);

/* Bytes of released solver arrays worth keeping for the session's next
 * cuts, for mf_alloc_cache_limit (process-wide: a front end that owns the
 * process sets it, as `flowcut ui` does). Re-fitted cuts and a box's solve
 * cold, and their arrays would otherwise come from fresh pages, which the
 * kernel zeroes one by one: 15-20% of a re-fitted edit at 3 Mpx. About
 * what one cold solve releases (256 bytes a pixel), at most a quarter of
 * the machine's memory. */
size_t seg_session_cache_bytes(const seg_session *s);

/* Turns re-fitting on or off for the next cuts. Off, a cut after a stroke
 * changes only the stroked pixels' terminal arcs (milliseconds); a later
 * cut with it on re-fits the models and brings the mask to what `flowcut
 * segment` gives. The web UI answers every stroke so, then refines. */
void seg_session_set_refit(seg_session *s, int refit);
/* 1 when the seeds changed since the models were last fitted (a cut with
 * refit on would re-fit them). */
int seg_session_models_stale(const seg_session *s);
/* 1 when a cut with refit on has work for the quick cuts to come: the
 * models are stale, or the last solve kept no flow for their warm repair
 * (a new network's first answer on the CPU is cut-only, its fastest). The
 * web UI sends such a cut after each quick answer, while the user looks. */
int seg_session_refine_pending(const seg_session *s);

typedef struct seg_cut_stats {
    double total_seconds;   /* the whole seg_session_cut call */
    double model_seconds;   /* re-fitting the colour models */
    double update_seconds;  /* new capacities (or the network build when cold) */
    double solve_seconds;   /* the max-flow solve, upload included */
    int warm;               /* 1: re-solved from the previous flow */
    int refitted;           /* 1: the models changed and every pixel's terminals with them */
    int64_t changed_pixels; /* pixels whose terminal capacities were rewritten */
    int64_t changed_arcs;
    int64_t flow;           /* max-flow value (= `flowcut segment`'s) */
    int64_t foreground;     /* pixels in the mask */
    int engine;             /* MF_ENGINE_CPU or MF_ENGINE_GPU */
    char device[128];
} seg_cut_stats;

/* Brings the mask up to date with the seeds (warm when it can). st may be
 * NULL. SEG_ERR_NEED_SEEDS while either region has no seed: the mask is
 * then all background. */
int seg_session_cut(seg_session *s, seg_cut_stats *st, seg_error *err);

/* A preview of the next cut on a large photo, whose exact cut after a
 * click or a box takes a fraction of a second or more (every pixel's
 * terminals change and the solve is cold): `flowcut segment` on the photo
 * shrunk by the smallest whole factor f that leaves at most
 * SEG_PREVIEW_PIXELS (each block its mean colour; the seeds, the box and
 * the previous answer shrunk with it; lambda / f, as a block stands for f
 * * f pixels and f pixels of boundary), on the CPU, each block's answer
 * written to its pixels of mask (width * height bytes, 255 foreground).
 * It changes nothing in the session: show it, then cut. st (may be NULL)
 * gets its times and the mask's pixel count. SEG_ERR_NEED_SEEDS as
 * seg_session_cut, and also where shrinking loses a region's seeds (a
 * block with as many of each drops both) though the cut has them: then
 * show nothing until the cut. */
int seg_session_preview(const seg_session *s, uint8_t *mask, seg_cut_stats *st, seg_error *err);
#define SEG_PREVIEW_PIXELS 150000
/* 1 when the photo has at least SEG_PREVIEW_MIN_PIXELS, where a preview
 * comes several times sooner than the exact cut (2 cores: a click's cut
 * takes 0.2-0.4 s at 1-3 Mpx, its preview 0.04-0.05 s), unless the next
 * cut (with the refit setting as it is now) repairs a standing box's
 * route warm: a click on a box, models kept. Once the session's solver
 * runs on a GPU, from SEG_PREVIEW_MIN_PIXELS_GPU (a click's cut there:
 * 0.09 s at 1 Mpx, 0.28 s at 3 Mpx). */
int seg_session_preview_pays(const seg_session *s);
#define SEG_PREVIEW_MIN_PIXELS 800000
#define SEG_PREVIEW_MIN_PIXELS_GPU 2000000

/* width * height bytes: 255 foreground, 0 background (the last cut). */
const uint8_t *seg_session_mask(const seg_session *s);
/* width * height seed labels: the current seeds, edits included. */
const uint8_t *seg_session_labels(const seg_session *s);
const uint8_t *seg_session_rgb(const seg_session *s);

/* What seg_session_save writes. */
typedef enum {
    SEG_SAVE_MASK = 0,  /* grey PNG, 255 foreground */
    SEG_SAVE_OVERLAY,   /* RGB PNG: background dimmed, boundary in yellow */
    SEG_SAVE_CUTOUT,    /* RGBA PNG: the photo with the mask as alpha */
    SEG_SAVE_SEEDS,     /* grey PNG of the labels (0, 1, 2): `flowcut segment --seeds` */
    SEG_SAVE_PREVIOUS   /* grey PNG of the mask the last click corrects (255 foreground):
                         * `--previous`, while seg_session_get_previous says there is one */
} seg_save_kind;

/* Writes through a temporary file beside path, synced before its rename
 * into place and the folder synced after (mode 0666 less the umask): path
 * is never half-written, also after a crash or power loss. Refuses an
 * existing path unless overwrite (SEG_ERR_IO, "already exists"). */
int seg_session_save(const seg_session *s, seg_save_kind kind, const char *path, int overwrite,
                     seg_error *err);
/* The same image in memory (malloc'ed PNG bytes; the caller frees them). */
int seg_session_render_png(const seg_session *s, seg_save_kind kind, uint8_t **png, size_t *size,
                           seg_error *err);

/* The overlay (background dimmed to 30%, the mask's boundary in yellow)
 * into out (width * height * 3), and the cut-out (the photo with the mask
 * as alpha) into out (width * height * 4). mask: 0 background, else
 * foreground. */
void seg_draw_overlay(const uint8_t *rgb, const uint8_t *mask, int32_t width, int32_t height, uint8_t *out);
void seg_draw_cutout(const uint8_t *rgb, const uint8_t *mask, int32_t width, int32_t height, uint8_t *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
