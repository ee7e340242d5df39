/* Segmentation pipeline: decode, seeds, models, network, solve, mask. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline.h"

#include "seg_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void seg_result_free(seg_result *r)
{
    img_free(&r->photo);
    img_free(&r->mask);
}

static int fail_img(seg_result *r, const img_error *e)
{
    img_error_format(e, r->error, sizeof r->error);
    r->code = e->code == IMG_ERR_NOMEM ? SEG_ERR_NOMEM : SEG_ERR_IMAGE;
    return -1;
}

/* Scribble colours are matched with a tolerance, so that strokes of any
 * brush count: a paint program's antialiased (or slightly off) pixels are
 * seeds too. A pixel is a seed of a colour when its Euclidean RGB distance
 * to it is at most SCRIBBLE_TOLERANCE, it is nearer to it than to the other
 * colour by SCRIBBLE_MARGIN, and it is not neutral (max - min channel of at
 * least SCRIBBLE_MIN_CHROMA). 96 takes a red stroke's rim down to about 73%
 * coverage over white (pink (255, 67, 67) is within 96) or over any photo
 * colour within 355 of red, and no grey, white or black is within 96 of a
 * saturated colour; the neutral test keeps paper and photo greys out when
 * a colour is a pale one. A pixel exactly the colour is always its seed,
 * so white or black scribbles work, without tolerance. */
#define SCRIBBLE_TOLERANCE 96
#define SCRIBBLE_MARGIN 32
#define SCRIBBLE_MIN_CHROMA 48

/* Returned with the kind when a one-channel label image has no labels but
 * only 0 and 255 (and 128) in it: a trimap given as --seeds. */
#define SEEDS_LOOK_TRIMAP 0x100
#define SEEDS_LOOK_TRIMAP_GREY 0x200

static int dist2(const uint8_t *p, const uint8_t *q)
{
    int d0 = p[0] - q[0], d1 = p[1] - q[1], d2 = p[2] - q[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

static uint8_t scribble_label(const uint8_t *px, const uint8_t *fg, const uint8_t *bg)
{
    if (!memcmp(px, fg, 3))
        return GB_FOREGROUND;
    if (!memcmp(px, bg, 3))
        return GB_BACKGROUND;
    const int df2 = dist2(px, fg), db2 = dist2(px, bg), tol2 = SCRIBBLE_TOLERANCE * SCRIBBLE_TOLERANCE;
    if (df2 > tol2 && db2 > tol2) /* most pixels: far from both */
        return GB_UNMARKED;
    int hi = px[0] > px[1] ? px[0] : px[1], lo = px[0] < px[1] ? px[0] : px[1];
    hi = px[2] > hi ? px[2] : hi;
    lo = px[2] < lo ? px[2] : lo;
    if (hi - lo < SCRIBBLE_MIN_CHROMA)
        return GB_UNMARKED;
    const double df = sqrt((double)df2), db = sqrt((double)db2);
    if (df <= SCRIBBLE_TOLERANCE && df + SCRIBBLE_MARGIN <= db)
        return GB_FOREGROUND;
    if (db <= SCRIBBLE_TOLERANCE && db + SCRIBBLE_MARGIN <= df)
        return GB_BACKGROUND;
    return GB_UNMARKED;
}

int seg_labels_from_seeds(const uint8_t *seeds, int32_t width, int32_t height, int32_t channels,
                          const seg_options *o, uint8_t *labels, int64_t *nfg, int64_t *nbg)
{
    if (!seeds || !o || !labels || !nfg || !nbg || width <= 0 || height <= 0 || (channels != 1 && channels != 3))
        return SEG_ERR_INVALID;
    int64_t npx = (int64_t)width * height;
    seg_seed_kind kind = o->seeds;
    const uint8_t *src = seeds;
    if (kind == SEG_SEEDS_LABELS && channels == 3) {
        /* a colour seed image: scribbles in the default colours, unless it
         * is grey throughout and holds labels (a label image saved as RGB,
         * a BMP or GIF with a grey palette): then its grey values are the
         * labels (grey strokes without a label keep the scribbles' message) */
        int64_t i = 0;
        int labelled = 0;
        for (; i < npx && seeds[3 * i] == seeds[3 * i + 1] && seeds[3 * i] == seeds[3 * i + 2]; i++)
            labelled |= seeds[3 * i] == GB_FOREGROUND || seeds[3 * i] == GB_BACKGROUND;
        if (i < npx || !labelled) {
            kind = SEG_SEEDS_SCRIBBLE;
        } else {
            for (i = 0; i < npx; i++)
                labels[i] = seeds[3 * i];
            src = labels; /* read in place below */
        }
    }
    int64_t fg = 0, bg = 0;
    int flags = 0;
    if (kind == SEG_SEEDS_LABELS) { /* one channel: the label image or its grey copy */
        /* the common label image, in a loop of its own that vectorises:
         * values 1 and 2 are GB_FOREGROUND and GB_BACKGROUND themselves;
         * which values occur, for the message when there is no label */
        _Static_assert(GB_FOREGROUND == 1 && GB_BACKGROUND == 2, "label values are graphbuild's");
        uint8_t other = 0, white = 0, grey = 0;
        for (int64_t i = 0; i < npx; i++) {
            const uint8_t v = src[i], l = v == GB_FOREGROUND || v == GB_BACKGROUND ? v : GB_UNMARKED;
            labels[i] = l;
            fg += l == GB_FOREGROUND;
            bg += l == GB_BACKGROUND;
            other |= v != 0 && v != 128 && v != 255;
            white |= v == 255;
            grey |= v == 128;
        }
        if (!other && white)
            flags = SEEDS_LOOK_TRIMAP | (grey ? SEEDS_LOOK_TRIMAP_GREY : 0);
    } else {
        for (int64_t i = 0; i < npx; i++) {
            const uint8_t *px = seeds + i * channels;
            uint8_t l = GB_UNMARKED;
            if (kind == SEG_SEEDS_TRIMAP)
                l = px[0] == 255 ? GB_FOREGROUND : px[0] == 0 ? GB_BACKGROUND : GB_UNMARKED;
            else if (kind == SEG_SEEDS_SCRIBBLE && channels == 3)
                l = scribble_label(px, o->fg_rgb, o->bg_rgb);
            labels[i] = l;
            fg += l == GB_FOREGROUND;
            bg += l == GB_BACKGROUND;
        }
    }
    *nfg = fg;
    *nbg = bg;
    return (int)kind | flags;
}

static void count_labels(const uint8_t *labels, int64_t npx, int64_t *nfg, int64_t *nbg)
{
    int64_t fg = 0, bg = 0;
    for (int64_t i = 0; i < npx; i++) {
        fg += labels[i] == GB_FOREGROUND;
        bg += labels[i] == GB_BACKGROUND;
    }
    *nfg = fg;
    *nbg = bg;
}

static int has_box(const seg_options *o)
{
    int32_t box[4];
    return o->prompts && seg_prompts_get_box(o->prompts, box);
}

/* Whether the seeds define both regions: a foreground seed (or a box, whose
 * inside is the foreground's first guess), and a background seed or the
 * photo's border standing in for one (border >= 0). */
static int seeds_suffice(const seg_options *o, int64_t nfg, int64_t nbg)
{
    return (nfg || has_box(o)) && (nbg || o->graph.border >= 0);
}

/* "no foreground seed: mark at least one pixel with value 1 (foreground)" */
static void no_seed_message(int kind, const seg_options *o, int64_t nfg, char *buf, size_t size)
{
    static const char *what[] = {"value 1 (foreground)", "255 (foreground)", "the foreground colour"};
    static const char *what_bg[] = {"value 2 (background)", "0 (background)", "the background colour"};
    const int k = kind & 0xff, need_bg = nfg || has_box(o);
    if (k == SEG_SEEDS_SCRIBBLE) { /* the colour by name and value, and how near counts */
        const uint8_t *rgb = need_bg ? o->bg_rgb : o->fg_rgb;
        const char *name = seg_colour_name(rgb);
        char colour[96];
        snprintf(colour, sizeof colour, "%s%s#%02x%02x%02x%s pixels within RGB distance %d of it count)",
                 name ? name : "", name ? " (" : "", rgb[0], rgb[1], rgb[2], name ? ";" : " (", SCRIBBLE_TOLERANCE);
        if (need_bg)
            snprintf(buf, size, "no background seed: paint some background %s, or leave --border on", colour);
        else
            snprintf(buf, size, "no foreground seed: paint the object %s, or set the colours with --scribble-colors=FG,BG",
                     colour);
    } else if (!need_bg && (kind & SEEDS_LOOK_TRIMAP)) {
        snprintf(buf, size, "no foreground seed (value 1): this looks like a trimap (%s): use --trimap FILE",
                 kind & SEEDS_LOOK_TRIMAP_GREY ? "0/128/255" : "0/255");
    } else if (need_bg) {
        snprintf(buf, size, "no background seed: mark at least one pixel with %s, or leave --border on", what_bg[k]);
    } else {
        snprintf(buf, size, "no foreground seed: mark at least one pixel with %s, or click on the object", what[k]);
    }
}

/* The seed image, decoded beside the photo. */
typedef struct seed_load {
    const char *path;
    int64_t max_pixels;
    img_image seeds;
    img_error err;
    int rc;
} seed_load;

static void *seed_load_main(void *arg)
{
    seed_load *l = arg;
    l->rc = img_load_labels(l->path, l->max_pixels, &l->seeds, &l->err);
    return NULL;
}

int seg_load(const char *image_path, const char *seed_path, const seg_options *o, seg_result *r,
             uint8_t **labels_out)
{
    img_error ie = {0};
    *labels_out = NULL;
    /* with more than one thread the seeds decode while the photo does (a
     * large seed PNG is a good part of the decode stage); the photo's
     * error, if any, is the one reported, as when they decode in turn */
    seed_load sl = {.path = seed_path, .max_pixels = o->max_pixels};
    pthread_t tid;
    int apart = seed_path && o->graph.threads != 1 && pthread_create(&tid, NULL, seed_load_main, &sl) == 0;
    int rc = img_load_rgb(image_path, o->max_pixels, &r->photo, &ie);
    if (apart)
        pthread_join(tid, NULL);
    else if (!rc && seed_path)
        seed_load_main(&sl);
    img_image seeds = sl.seeds;
    if (rc) {
        img_free(&seeds);
        return fail_img(r, &ie);
    }
    if (sl.rc)
        return fail_img(r, &sl.err);
    if (!seed_path) { /* prompts alone: no seed image */
        if (!o->prompts) {
            snprintf(r->error, sizeof r->error, "%s: no seeds: give a seed image, clicks or a box", image_path);
            r->code = SEG_ERR_NEED_SEEDS;
            return -1;
        }
        if (img_alloc(&seeds, r->photo.width, r->photo.height, 1)) {
            snprintf(r->error, sizeof r->error, "%s: out of memory", image_path);
            r->code = SEG_ERR_NOMEM;
            return -1;
        }
        memset(seeds.data, GB_UNMARKED, (size_t)r->photo.width * r->photo.height);
        seed_path = image_path; /* messages name the photo */
    }
    if (seeds.width != r->photo.width || seeds.height != r->photo.height) {
        snprintf(r->error, sizeof r->error, "%s: seed image is %dx%d, the photo %s is %dx%d", seed_path,
                 seeds.width, seeds.height, image_path, r->photo.width, r->photo.height);
        r->code = SEG_ERR_INVALID;
        img_free(&seeds);
        return -1;
    }
    int64_t npx = (int64_t)seeds.width * seeds.height;
    uint8_t *labels = malloc((size_t)npx);
    if (!labels) {
        img_free(&seeds);
        snprintf(r->error, sizeof r->error, "%s: out of memory", seed_path);
        r->code = SEG_ERR_NOMEM;
        return -1;
    }
    int64_t nfg = 0, nbg = 0;
    int kind = seg_labels_from_seeds(seeds.data, seeds.width, seeds.height, seeds.channels, o, labels, &nfg, &nbg);
    img_free(&seeds);
    seg_error pe = {0};
    gb_params keep;
    if (kind >= 0 && o->prompts &&
        (seg_keep_params(o, r->photo.width, r->photo.height, &keep, &pe) ||
         seg_prompts_paint_previous(o->prompts, r->photo.width, r->photo.height, keep.previous, labels,
                                    &r->click_radius, &pe))) {
        snprintf(r->error, sizeof r->error, "%s: %s", image_path, pe.message);
        r->code = pe.code;
        free(labels);
        return -1;
    }
    if (kind >= 0 && o->prompts)
        count_labels(labels, (int64_t)r->photo.width * r->photo.height, &nfg, &nbg);
    if (kind < 0 || !seeds_suffice(o, nfg, nbg)) {
        char msg[256] = "seed image has 2 or 4 channels";
        if (kind >= 0)
            no_seed_message(kind, o, nfg, msg, sizeof msg);
        snprintf(r->error, sizeof r->error, "%s: %s", seed_path, msg);
        r->code = kind < 0 ? SEG_ERR_INVALID : SEG_ERR_NEED_SEEDS;
        free(labels);
        return -1;
    }
    *labels_out = labels;
    return 0;
}

/* Fits the models and builds the network of a loaded photo into g or,
 * when grid is not NULL, into the grid form (gb_build_fitting); adds the
 * model and build times to times when not NULL. */
static int build_network(const seg_result *r, const uint8_t *labels, const uint8_t *model_labels,
                         const seg_options *o, mf_graph *g, mf_grid *grid, int32_t *cancelled, seg_times *times,
                         char *error, size_t error_size)
{
    gb_models *models = NULL;
    double t0 = seg_now(), fit = 0;
    gb_params gp = o->graph;
    seg_error e = {0};
    if (seg_keep_params(o, r->photo.width, r->photo.height, &gp, &e)) {
        snprintf(error, error_size, "%s", e.message);
        return -1;
    }
    int rc = gb_build_fitting(r->photo.data, r->photo.width, r->photo.height, labels, model_labels, &gp,
                              grid ? NULL : g, cancelled, grid, &models, &fit);
    const int fitted = models != NULL;
    gb_models_free(models);
    if (rc) {
        snprintf(error, error_size, "%s: %s", fitted ? "network" : "colour models", gb_strerror(rc));
        return -1;
    }
    if (times) {
        times->model += fit;
        times->build += seg_now() - t0 - fit;
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
    mf_grid_free(&j->grid);
}

/* The labels the colour models are first fitted on when the seeds lack a
 * region or there is a box (seg_model_labels); none otherwise. */
static int prompt_model_labels(seg_job *j, const seg_options *o)
{
    int32_t box[4];
    int has_box = o->prompts && seg_prompts_get_box(o->prompts, box);
    uint8_t *m = NULL;
    int rc = seg_model_labels(j->labels, j->r.photo.width, j->r.photo.height, has_box ? box : NULL, &m,
                              &j->box_route);
    if (m)
        j->model_labels = m;
    return rc;
}

/* Fits the models on the current model labels and builds the network. */
static int fit_and_build(seg_job *j, const seg_options *o)
{
    char msg[512];
    seg_options box_alone;
    if (j->box_route) {
        box_alone = *o;
        seg_box_params(&o->graph, &box_alone.graph);
        o = &box_alone;
    }
    mf_graph_free(&j->graph);
    mf_grid_free(&j->grid);
    if (build_network(&j->r, j->labels, j->model_labels, o, &j->graph, j->grid_form ? &j->grid : NULL,
                      j->cancelled, &j->r.times, msg, sizeof msg)) {
        snprintf(j->r.error, sizeof j->r.error, "%s: %s", j->image_path, msg);
        j->r.code = SEG_ERR_MODEL;
        return -1;
    }
    return 0;
}

/* A job's first step from files: the photo and seeds decoded. */
int seg_job_load(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o)
{
    memset(j, 0, sizeof *j);
    j->image_path = image_path;
    j->seed_path = seed_path;
    double t0 = seg_now();
    if (seg_load(image_path, seed_path, o, &j->r, &j->labels))
        return -1;
    j->r.times.decode = seg_now() - t0;
    return 0;
}

int seg_job_start(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o)
{
    if (seg_job_load(j, image_path, seed_path, o))
        return -1;
    return seg_job_begin(j, image_path, &j->r.photo, j->labels, o);
}

int seg_job_start_grid(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o)
{
    if (seg_job_load(j, image_path, seed_path, o))
        return -1;
    j->grid_form = !o->graph.star;
    return seg_job_begin(j, image_path, &j->r.photo, j->labels, o);
}

int seg_job_begin(seg_job *j, const char *name, img_image *photo, uint8_t *labels, const seg_options *o)
{
    if (photo != &j->r.photo) { /* in memory: the job was not started from files */
        memset(j, 0, sizeof *j);
        j->r.photo = *photo;
        j->labels = labels;
    }
    j->image_path = name;
    if (img_alloc(&j->r.mask, j->r.photo.width, j->r.photo.height, 1)) {
        snprintf(j->r.error, sizeof j->r.error, "%s: out of memory", name);
        j->r.code = SEG_ERR_NOMEM;
        return -1;
    }
    j->model_labels = j->labels;
    gb_params gp;
    seg_error e = {0};
    if (seg_keep_params(o, j->r.photo.width, j->r.photo.height, &gp, &e)) {
        snprintf(j->r.error, sizeof j->r.error, "%s: %s", name, e.message);
        j->r.code = SEG_ERR_INVALID;
        return -1;
    }
    int rc = prompt_model_labels(j, o);
    if (rc) {
        if (rc > 0)
            snprintf(j->r.error, sizeof j->r.error, "%s: %s", name, SEG_NO_BACKGROUND_SAMPLE);
        else
            snprintf(j->r.error, sizeof j->r.error, "%s: out of memory", name);
        j->r.code = rc > 0 ? SEG_ERR_NEED_SEEDS : SEG_ERR_NOMEM;
        return -1;
    }
    if (j->box_route) { /* its first cuts at half size: the photo is cut once they are done */
        seg_error err = {0};
        int done = 0;
        rc = seg_box_coarse(j->r.photo.data, j->r.photo.width, j->r.photo.height, j->labels, j->model_labels, o,
                            &j->r.times, &done, &err);
        if (rc) {
            snprintf(j->r.error, sizeof j->r.error, "%s: %s", name, err.message);
            j->r.code = rc;
            return -1;
        }
        if (done)
            j->iteration = SEG_BOX_ITERATIONS; /* its re-fits are behind it */
    }
    return fit_and_build(j, o);
}

int seg_job_solve(seg_job *j, const seg_options *o, mf_gpu_solver *solver)
{
    mf_error err = {0};
    double t0 = seg_now();
    mf_result_free(&j->res);
    mf_options so = o->solve;
    /* a network built without in-lists (o->graph.in_lists 0, for the
     * device or a one-thread CPU solve) goes through the launch that builds
     * them there; the CPU gets them from mf_graph_finish unless its set-up
     * reads none */
    const int gpu = solver && so.engine != MF_ENGINE_CPU, lists = o->graph.in_lists;
    const int cpu_alone = gpu || so.engine == MF_ENGINE_CPU; /* what solves below if not the GPU */
    int rc = MF_OK;
    if (j->grid.w) { /* a grid form: the device expands it; anything else needs the CSR */
        if (gpu) {
            const mf_grid *one = &j->grid;
            rc = mf_gpu_solve_many_grids(solver, &one, 1, &so, &j->res, &err);
            if (!mf_engine_falls_back(&so, rc))
                goto solved;
            mf_result_free(&j->res);
        }
        rc = gb_grid_to_graph(&j->grid, lists, o->graph.threads, &j->graph);
        if (rc) {
            snprintf(j->r.error, sizeof j->r.error, "%s: network: %s", j->image_path, gb_strerror(rc));
            j->r.code = rc == GB_ERR_NOMEM ? SEG_ERR_NOMEM : SEG_ERR_SOLVE;
            return -1;
        }
        mf_grid_free(&j->grid);
        rc = lists || (cpu_alone && !mf_cpu_reads_in_lists(&j->graph, &so)) ? MF_OK
                                                                              : mf_graph_finish(&j->graph, &err);
        if (rc == MF_OK)
            rc = gpu ? mf_solve_cpu(&j->graph, &so, &j->res, &err) : mf_solve(&j->graph, &so, &j->res, &err);
        goto solved;
    }
    if (gpu) {
        const mf_graph *one = &j->graph;
        rc = lists ? mf_gpu_solve(solver, &j->graph, &so, &j->res, &err)
                   : mf_gpu_solve_many(solver, &one, 1, &so, &j->res, &err);
    }
    if (!gpu || mf_engine_falls_back(&so, rc)) { /* or too large for the device */
        mf_result_free(&j->res);
        rc = lists || (cpu_alone && !mf_cpu_reads_in_lists(&j->graph, &so)) ? MF_OK
                                                                              : mf_graph_finish(&j->graph, &err);
        if (rc == MF_OK)
            rc = gpu ? mf_solve_cpu(&j->graph, &so, &j->res, &err) : mf_solve(&j->graph, &so, &j->res, &err);
    }
solved:
    if (rc) {
        char msg[512];
        mf_error_format(&err, msg, sizeof msg);
        snprintf(j->r.error, sizeof j->r.error, "%s: solve: %s", j->image_path, msg);
        j->r.code = SEG_ERR_SOLVE;
        return -1;
    }
    j->r.times.solve += seg_now() - t0;
    return 0;
}

void seg_jobs_solve_gpu(seg_job **jobs, int k, const seg_options *o, mf_gpu_solver *solver, int *failed)
{
    if (k == 1 || o->solve.engine == MF_ENGINE_CPU || k > MF_GPU_MANY_MAX)
        goto one_by_one; /* one alone: seg_job_solve takes the same launch, and its fallbacks */
    {
        const mf_graph *parts[MF_GPU_MANY_MAX];
        const mf_grid *grids[MF_GPU_MANY_MAX];
        mf_result res[MF_GPU_MANY_MAX];
        mf_error err = {0};
        mf_options so = o->solve;
        so.cut_only = 1;
        int as_grids = 0; /* all grid forms, or all CSR networks */
        for (int i = 0; i < k; i++) {
            parts[i] = &jobs[i]->graph;
            grids[i] = &jobs[i]->grid;
            as_grids += jobs[i]->grid.w != NULL;
            mf_result_free(&jobs[i]->res);
        }
        if (as_grids != 0 && as_grids != k)
            goto one_by_one;
        const double t0 = seg_now();
        if ((as_grids ? mf_gpu_solve_many_grids(solver, grids, k, &so, res, &err)
                      : mf_gpu_solve_many(solver, parts, k, &so, res, &err)) != MF_OK)
            goto one_by_one; /* e.g. too large for the device together: each alone
                              * (and on the CPU when one alone is too large) */
        /* each photo's share of the launch, so that stage sums stay wall time */
        const double share = (seg_now() - t0) / k;
        for (int i = 0; i < k; i++) {
            jobs[i]->res = res[i];
            jobs[i]->r.times.solve += share;
            failed[i] = 0;
        }
        return;
    }
one_by_one:
    for (int i = 0; i < k; i++)
        failed[i] = seg_job_solve(jobs[i], o, solver) != 0;
}

int64_t seg_job_vertices(const seg_job *j)
{
    return j->grid.w ? (int64_t)j->grid.width * j->grid.height + 2 : j->graph.num_vertices;
}

int seg_cut_has_both(const uint8_t *side, int64_t n)
{
    int64_t nfg = 0;
    for (int64_t i = 0; i < n; i++)
        nfg += side[i] != 0;
    return nfg > 0 && nfg < n;
}

void seg_labels_from_cut(const uint8_t *side, int64_t n, uint8_t *labels)
{
    for (int64_t i = 0; i < n; i++)
        labels[i] = side[i] ? GB_FOREGROUND : GB_BACKGROUND;
}

int seg_job_next(seg_job *j, const seg_options *o)
{
    seg_result *r = &j->r;
    int64_t npx = (int64_t)r->photo.width * r->photo.height;
    const uint8_t *side = j->res.source_side;
    for (int64_t i = 0; i < npx; i++)
        r->mask.data[i] = side[i] ? 255 : 0;
    int iterations = j->box_route && o->iterations < SEG_BOX_ITERATIONS ? SEG_BOX_ITERATIONS : o->iterations;
    if (j->iteration < iterations) {
        /* GrabCut-style: re-fit the models on the current segmentation */
        if (seg_cut_has_both(side, npx)) { /* else one region vanished: keep this result */
            if (j->model_labels == j->labels && !(j->model_labels = malloc((size_t)npx))) {
                j->model_labels = j->labels;
                snprintf(r->error, sizeof r->error, "%s: out of memory", j->image_path);
                r->code = SEG_ERR_NOMEM;
                return -1;
            }
            seg_labels_from_cut(side, npx, j->model_labels);
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
    mf_grid_free(&j->grid);
    return 0;
}

/* Solves and re-fits until the job is done. */
static int job_finish(seg_job *j, const seg_options *o, mf_gpu_solver *solver)
{
    int rc = 0;
    while (rc == 0) {
        rc = seg_job_solve(j, o, solver);
        if (rc == 0 && (rc = seg_job_next(j, o)) != 1)
            break; /* 0: done; -1: failed */
        rc = rc == 1 ? 0 : rc;
    }
    return rc;
}

#define SEG_AUTO_CPU_PIXELS 750000

/* CUDA's start (driver, context, stream: a good part of a second) on a thread of its
 * own while the photo decodes and the network is built. */
typedef struct gpu_start {
    pthread_t thread;
    int started;
    int device;
    mf_gpu_solver *solver;
    mf_error err;
    atomic_int done; /* set once solver (or its failure) is known */
} gpu_start;

static void *gpu_start_main(void *arg)
{
    gpu_start *g = arg;
    if (mf_gpu_solver_create(g->device, &g->solver, &g->err) != MF_OK)
        g->solver = NULL;
    atomic_store(&g->done, 1);
    return NULL;
}

int seg_cpu_skips_in_lists(const seg_options *o)
{
    return o->solve.cut_only && o->solve.threads == 1 && o->graph.threads == 1;
}

/* Starts a job from files, CUDA starting beside it unless solver is given
 * or the engine is the CPU; then solves it to the end. */
static int job_run_files(seg_job *j, const char *image_path, const char *seed_path, const seg_options *o,
                         mf_gpu_solver *solver)
{
    seg_options small;
    int32_t w, h;
    /* --engine auto without a running GPU solver: starting CUDA costs more
     * than a small photo's whole CPU run with the geodesic prior (wall time,
     * tests/bench/latency.sh), so photos under SEG_AUTO_CPU_PIXELS stay on
     * the CPU; the size comes from the header */
    if (!solver && o->solve.engine == MF_ENGINE_AUTO && o->graph.geodesic > 0 &&
        img_probe_size(image_path, &w, &h) == IMG_OK && (int64_t)w * h < SEG_AUTO_CPU_PIXELS) {
        small = *o;
        small.solve.engine = MF_ENGINE_CPU;
        o = &small;
    }
    gpu_start gs = {.device = o->solve.device};
    seg_options lean;
    if (!solver && o->solve.engine != MF_ENGINE_CPU && mf_gpu_compiled())
        gs.started = pthread_create(&gs.thread, NULL, gpu_start_main, &gs) == 0;
    int rc = seg_job_load(j, image_path, seed_path, o);
    /* bound for the device, which builds the in-lists itself (a sizeable
     * part of a build; two of an arc's five arrays not uploaded), unless CUDA has
     * already found none while the photo decoded; a late failure leaves
     * them to the CPU solve (mf_graph_finish) */
    if ((o->solve.engine != MF_ENGINE_CPU && (solver || (gs.started && !(atomic_load(&gs.done) && !gs.solver)))) ||
        (o->solve.engine == MF_ENGINE_CPU && seg_cpu_skips_in_lists(o))) {
        lean = *o;
        lean.graph.in_lists = 0;
        o = &lean;
        /* and for the device, the grid form: it lays out the CSR itself
         * (12 Mpx: 240 MB to upload instead of 1.4 GB) */
        j->grid_form = o->solve.engine != MF_ENGINE_CPU && !o->graph.star;
    }
    if (rc == 0)
        rc = seg_job_begin(j, image_path, &j->r.photo, j->labels, o);
    if (gs.started) {
        pthread_join(gs.thread, NULL);
        solver = gs.solver; /* NULL without a usable device: the solve decides (CPU or error) */
    }
    if (rc == 0)
        rc = job_finish(j, o, solver);
    if (gs.solver)
        mf_gpu_solver_destroy(gs.solver);
    return rc;
}

int seg_run(const char *image_path, const char *seed_path, const seg_options *o,
            mf_gpu_solver *solver, seg_result *r)
{
    seg_job j;
    int rc = job_run_files(&j, image_path, seed_path, o, solver);
    seg_job_free(&j);
    *r = j.r;
    return rc ? -1 : 0;
}

static void fill_info(const seg_job *j, seg_info *info)
{
    if (!info)
        return;
    memset(info, 0, sizeof *info);
    info->flow = j->r.flow_value;
    info->foreground = j->r.foreground_pixels;
    info->engine = j->r.engine_used;
    info->iterations = j->iteration;
    info->model_seconds = j->r.times.model;
    info->build_seconds = j->r.times.build;
    info->solve_seconds = j->r.times.solve;
    snprintf(info->device, sizeof info->device, "%s", j->r.device);
    info->click_radius = j->r.click_radius;
}

int seg_segment(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
                int32_t seed_channels, const seg_options *o, uint8_t *mask, seg_info *info, seg_error *err)
{
    seg_options defaults;
    if (!o) {
        seg_options_default(&defaults);
        o = &defaults;
    }
    if (!rgb || (!seeds && !o->prompts) || !mask || width <= 0 || height <= 0 ||
        (int64_t)width * height > INT32_MAX - 2)
        return seg_fail(err, SEG_ERR_INVALID, "seg_segment: NULL buffer or bad size %dx%d", width, height);
    if (seeds && seed_channels != 1 && seed_channels != 3)
        return seg_fail(err, SEG_ERR_INVALID, "seeds have %d channels; 1 (labels, trimap) or 3 (scribbles)",
                        seed_channels);
    size_t npx = (size_t)width * (size_t)height;
    int32_t click_radius = 0;
    img_image photo = {0};
    uint8_t *labels = malloc(npx);
    if (!labels || img_alloc(&photo, width, height, 3)) {
        free(labels);
        return seg_fail(err, SEG_ERR_NOMEM, "out of memory for a %dx%d photo", width, height);
    }
    memcpy(photo.data, rgb, npx * 3);
    int64_t nfg = 0, nbg = 0;
    int kind = SEG_SEEDS_LABELS;
    if (seeds)
        kind = seg_labels_from_seeds(seeds, width, height, seed_channels, o, labels, &nfg, &nbg);
    else
        memset(labels, GB_UNMARKED, npx);
    if (o->prompts) {
        gb_params keep;
        int rc = seg_keep_params(o, width, height, &keep, err);
        if (!rc)
            rc = seg_prompts_paint_previous(o->prompts, width, height, keep.previous, labels, &click_radius, err);
        if (rc) {
            free(labels);
            img_free(&photo);
            return rc;
        }
        count_labels(labels, (int64_t)npx, &nfg, &nbg);
    }
    if (!seeds_suffice(o, nfg, nbg)) {
        char msg[256];
        no_seed_message(kind, o, nfg, msg, sizeof msg);
        free(labels);
        img_free(&photo);
        return seg_fail(err, SEG_ERR_NEED_SEEDS, "%s", msg);
    }
    seg_job j;
    int rc = seg_job_begin(&j, "photo", &photo, labels, o);
    j.r.click_radius = click_radius;
    if (rc == 0)
        rc = job_finish(&j, o, NULL);
    if (rc == 0) {
        memcpy(mask, j.r.mask.data, npx);
        fill_info(&j, info);
    } else {
        rc = seg_fail(err, j.r.code ? j.r.code : SEG_ERR_SOLVE, "%s", j.r.error);
    }
    seg_job_free(&j);
    seg_result_free(&j.r);
    return rc;
}

int seg_segment_files(const char *image_path, const char *seed_path, const seg_options *o, uint8_t **mask,
                      int32_t *width, int32_t *height, seg_info *info, seg_error *err)
{
    seg_options defaults;
    if (!o) {
        seg_options_default(&defaults);
        o = &defaults;
    }
    if (!image_path || (!seed_path && !o->prompts) || !mask || !width || !height)
        return seg_fail(err, SEG_ERR_INVALID, "seg_segment_files: NULL argument");
    *mask = NULL;
    seg_job j;
    int rc = job_run_files(&j, image_path, seed_path, o, NULL);
    if (rc == 0) {
        fill_info(&j, info);
        *width = j.r.mask.width;
        *height = j.r.mask.height;
        *mask = j.r.mask.data; /* handed over */
        j.r.mask.data = NULL;
    } else {
        rc = seg_fail(err, j.r.code ? j.r.code : SEG_ERR_SOLVE, "%s", j.r.error);
    }
    seg_job_free(&j);
    seg_result_free(&j.r);
    return rc;
}
