/* flowcut batch: segments whole folders. CPU workers decode, fit models and
 * build networks while one thread per GPU solves; outputs are atomic, a
 * rerun resumes, a bad file fails only its own item. */
#define _GNU_SOURCE /* gettid, setpriority of one thread */
#include "batch_inputs.h"
#include "cli.h"
#include "seg_args.h"
#include "seg_output.h"

#include "flowcut_threads.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_GPUS 64
#define MAX_PER_GPU 16
#define MAX_PER_LAUNCH 32

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flowcut batch IN_DIR -o OUT_DIR (--seeds-dir DIR | --trimap-dir DIR) [options]\n"
            "       flowcut batch --list FILE [IN_DIR] -o OUT_DIR --seeds-dir DIR [options]\n"
            "Segments every image of IN_DIR (PNG, JPEG, BMP, TGA, GIF, PNM). The seed file of\n"
            "IN_DIR/a/photo.jpg is DIR/a/photo.png (or .bmp, .tga, .gif, .pnm, .pgm, .ppm); its\n"
            "mask goes to OUT_DIR/a/photo.png. Existing outputs are skipped, so a rerun resumes.\n"
            "A prompt file DIR/a/photo.txt (clicks and a box: lines 'fg X,Y', 'bg X,Y',\n"
            "'box X,Y,W,H') is used with the seed file, or instead of it.\n"
            "  -o, --output DIR      mask folder (created when missing)\n"
            "  --seeds-dir DIR       seed images: 1 = foreground, 2 = background, 0 = unmarked\n"
            "  --trimap-dir DIR      trimaps instead: 255 foreground, 0 background, else unknown\n"
            "  -r, --recursive       include sub-folders\n"
            "  --list FILE           the images to process, one path a line (- for stdin); names\n"
            "                        below IN_DIR keep their sub-folders in OUT_DIR\n"
            "  --overlay-dir DIR     also write overlays (background dimmed, boundary drawn)\n"
            "  --cutout-dir DIR      also write RGBA cut-outs\n"
            "  --jobs N              CPU worker threads (default: all cores)\n"
            "  --alloc-cache MB      memory kept for the next photos' arrays instead of being\n"
            "                        returned to the system (default 128 a worker, at most a\n"
            "                        quarter of the memory; 0: none)\n"
            "  --gpus all|none|I,J,..  CUDA devices that solve (default all; none = CPU engine)\n"
            "  --per-gpu N           photos each GPU solves at once, each on a stream of its own\n"
            "                        (default 4: small solves wait on launches, not on the GPU)\n"
            "  --per-launch N        photos one launch solves together, as one network (default 16;\n"
            "                        up to %d M pixels in all): a BFS level serves them all\n"
            "  --shard K/N           process only the K-th of N shards of the sorted inputs\n"
            "  --json                one JSON line per input on stdout\n"
            "  --time                stage totals and throughput on stderr at the end\n"
            "  --no-progress         no progress bar (it is drawn only when stderr is a terminal)\n"
            "  -f, --force           redo images whose outputs exist\n"
            "  -q, --quiet           errors and the summary only\n"
            "Model and engine options, as for `flowcut segment`:\n" SEG_MODEL_OPTIONS_HELP
            "Exit status: 0 all succeeded (or were already done), 1 some failed, 2 usage,\n"
            "130 interrupted.\n",
            (int)(MF_GPU_LAUNCH_VERTICES >> 20));
}

/* ---- signals: the first Ctrl-C stops taking new images, the second aborts */

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    if (g_stop) {
        seg_out_abort_all();
        _exit(130);
    }
    g_stop = 1;
    static const char msg[] = "\nflowcut batch: interrupted; finishing the images in flight (again to abort)\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
}

/* ---- the shared state of one run */

typedef struct task {
    size_t index;
    seg_job job;
    int failed;
    struct task *next;
} task;

typedef struct queue {
    task *head, *tail;
    size_t length;
} queue;

typedef struct stage_totals {
    double decode, model, build, solve, encode;
} stage_totals;

typedef struct batch_run {
    const seg_options *opt;
    batch_list *list;
    size_t *todo; /* indices into list still to process */
    size_t todo_count, next_todo;
    int json, progress;
    int use_gpu;
    int worker_nice; /* added to the CPU workers' nice value (GPU batches) */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    queue to_solve, solved;
    size_t in_flight, max_in_flight, max_queued;
    int gpu_threads_running;
    int per_launch; /* photos one GPU launch may solve together */
    int64_t queued_vertices, max_queued_vertices; /* networks waiting for a GPU */
    /* counters, under lock */
    size_t ok, failed, skipped, done_total;
    stage_totals totals;
    size_t launches, launched; /* GPU launches and the photos they solved */
    double start, last_draw;
} batch_run;

/* How much released memory the batch keeps for the next photos
 * (mf_alloc_cache_limit) when --alloc-cache is not given: fresh pages are
 * zeroed by the kernel one by one, a sizeable part of a CPU batch. A
 * typical photo's arrays come to about 60 MB, so 128 MB a worker, at most
 * a quarter of the memory. */
static size_t alloc_cache_bytes(long jobs)
{
    size_t bytes = (size_t)jobs * ((size_t)128 << 20);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && bytes > (size_t)pages / 4 * (size_t)page)
        bytes = (size_t)pages / 4 * (size_t)page;
    return bytes;
}

static void push(queue *q, task *t)
{
    t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
    q->length++;
}

static task *pop(queue *q)
{
    task *t = q->head;
    if (t) {
        q->head = t->next;
        if (!q->head)
            q->tail = NULL;
        q->length--;
    }
    return t;
}

/* ---- reporting, always under run->lock */

static void clear_progress(batch_run *run)
{
    if (run->progress)
        fputs("\r\033[K", stderr);
}

static void draw_progress(batch_run *run, int final)
{
    if (!run->progress)
        return;
    double t = cli_now();
    if (!final && t - run->last_draw < 0.1)
        return;
    run->last_draw = t;
    size_t total = run->todo_count, done = run->done_total;
    double elapsed = t - run->start, rate = elapsed > 0 ? (double)done / elapsed : 0;
    int width = 30, filled = total ? (int)((double)width * (double)done / (double)total) : width;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '-';
    bar[width] = 0;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu  %.2f img/s", bar, done, total, rate);
    if (run->failed)
        fprintf(stderr, "  %zu failed", run->failed);
    if (rate > 0 && done < total) {
        long eta = (long)((double)(total - done) / rate + 0.5);
        fprintf(stderr, "  ETA %ld:%02ld:%02ld", eta / 3600, eta / 60 % 60, eta % 60);
    }
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

static void report_error(batch_run *run, const batch_item *it, const char *msg)
{
    run->failed++;
    clear_progress(run);
    DISPLAYLEVEL(1, "flowcut: %s\n", msg);
    if (run->json) {
        printf("{\"file\": ");
        json_string(stdout, it->image);
        printf(", \"status\": \"error\", \"error\": ");
        json_string(stdout, msg);
        printf("}\n");
        fflush(stdout);
    }
    draw_progress(run, 0);
}

static void report_ok(batch_run *run, const batch_item *it, const seg_result *r)
{
    run->ok++;
    run->totals.decode += r->times.decode;
    run->totals.model += r->times.model;
    run->totals.build += r->times.build;
    run->totals.solve += r->times.solve;
    run->totals.encode += r->times.encode;
    if (run->json) {
        printf("{\"file\": ");
        json_string(stdout, it->image);
        printf(", \"status\": \"ok\", \"error\": null, \"seeds\": ");
        json_string(stdout, it->seeds ? it->seeds : it->prompts);
        printf(", \"mask\": ");
        json_string(stdout, it->mask);
        printf(", ");
        seg_json_result(stdout, r);
        fflush(stdout);
    }
    draw_progress(run, 0);
}

/* ---- the stages */

/* Overwrites: an item is redone only when some output is missing, or with -f. */
static int write_outputs(const batch_item *it, seg_result *r, char *msg, size_t msg_size)
{
    double t0 = cli_now();
    const char *paths[3] = {it->mask, it->overlay, it->cutout};
    for (int i = 0; i < 3; i++)
        if (paths[i] && batch_make_parent_dirs(paths[i])) {
            snprintf(msg, msg_size, "%s: cannot create its folder: %s", paths[i], strerror(errno));
            return -1;
        }
    /* an image's outputs are one result: rendered first, written all or none */
    img_image ov = {0}, co = {0};
    const img_image *imgs[3] = {&r->mask};
    size_t n = 1;
    int rc = 0;
    if (it->overlay && seg_overlay(r, &ov))
        rc = -1, snprintf(msg, msg_size, "%s: out of memory", it->overlay);
    else if (it->overlay)
        paths[n] = it->overlay, imgs[n++] = &ov;
    if (rc == 0 && it->cutout && seg_cutout(r, &co))
        rc = -1, snprintf(msg, msg_size, "%s: out of memory", it->cutout);
    else if (rc == 0 && it->cutout)
        paths[n] = it->cutout, imgs[n++] = &co;
    if (rc == 0)
        rc = seg_write_pngs(n, paths, imgs, 1, msg, msg_size);
    img_free(&ov);
    img_free(&co);
    r->times.encode = cli_now() - t0;
    return rc;
}

/* Ends a task: writes its outputs or reports its failure; frees it. */
static void finish(batch_run *run, task *t)
{
    const batch_item *it = &run->list->items[t->index];
    char msg[1024];
    int ok = !t->failed && write_outputs(it, &t->job.r, msg, sizeof msg) == 0;
    pthread_mutex_lock(&run->lock);
    run->done_total++;
    if (ok)
        report_ok(run, it, &t->job.r);
    else
        report_error(run, it, t->failed ? t->job.r.error : msg);
    run->in_flight--;
    pthread_cond_broadcast(&run->wake);
    pthread_mutex_unlock(&run->lock);
    seg_job_free(&t->job);
    seg_result_free(&t->job.r);
    free(t);
}

/* Queues t's network for a GPU, counting its vertices for the
 * back-pressure and the launches. Under run->lock. */
static void queue_for_gpu(batch_run *run, task *t)
{
    run->queued_vertices += seg_job_vertices(&t->job);
    push(&run->to_solve, t);
}

/* After a solve: another iteration goes back to a solver, else finish. On
 * the CPU path the worker solves itself. */
static void after_solve(batch_run *run, task *t)
{
    for (;;) {
        int rc = t->failed ? -1 : seg_job_next(&t->job, run->opt);
        if (rc == 1 && run->use_gpu) {
            pthread_mutex_lock(&run->lock);
            queue_for_gpu(run, t);
            pthread_cond_broadcast(&run->wake);
            pthread_mutex_unlock(&run->lock);
            return;
        }
        if (rc == 1) {
            t->failed = seg_job_solve(&t->job, run->opt, NULL) != 0;
            continue;
        }
        t->failed = rc != 0;
        finish(run, t);
        return;
    }
}

/* Decodes the photo and seeds and builds the network (grid forms for the
 * GPUs: a fifth of the bytes to write, and the device lays out the CSR);
 * the item's prompt file, if any, is read first and painted over its
 * seeds. 1 on failure (the job's error says why). */
static int start_job(batch_run *run, const batch_item *it, seg_job *job)
{
    const seg_options *o = run->opt;
    seg_options with_prompts;
    seg_prompts *p = NULL;
    if (it->prompts) {
        seg_error e = {0};
        if (!(p = seg_prompts_new()) || seg_prompts_read_file(p, it->prompts, &e)) {
            memset(job, 0, sizeof *job);
            snprintf(job->r.error, sizeof job->r.error, "%s", p ? e.message : "out of memory");
            job->r.code = p ? e.code : SEG_ERR_NOMEM;
            seg_prompts_free(p);
            return 1;
        }
        with_prompts = *o;
        with_prompts.prompts = p;
        o = &with_prompts;
    }
    int rc = (run->use_gpu ? seg_job_start_grid : seg_job_start)(job, it->image, it->seeds, o);
    seg_prompts_free(p); /* read by the start alone */
    return rc != 0;
}

static void start_task(batch_run *run, size_t index)
{
    const batch_item *it = &run->list->items[index];
    task *t = calloc(1, sizeof *t);
    if (!t) {
        pthread_mutex_lock(&run->lock);
        run->done_total++;
        report_error(run, it, "out of memory");
        run->in_flight--;
        pthread_cond_broadcast(&run->wake);
        pthread_mutex_unlock(&run->lock);
        return;
    }
    t->index = index;
    /* for the GPUs, grid forms: a fifth of the bytes to write, and the
     * device lays out the CSR */
    t->failed = start_job(run, it, &t->job);
    if (t->failed || !run->use_gpu) {
        if (!t->failed)
            t->failed = seg_job_solve(&t->job, run->opt, NULL) != 0;
        after_solve(run, t);
        return;
    }
    pthread_mutex_lock(&run->lock);
    /* back-pressure: networks are large (about 100 bytes a pixel); small
     * ones may queue until the GPUs' launches can take them all */
    while (run->to_solve.length >= run->max_queued && run->queued_vertices >= run->max_queued_vertices &&
           run->gpu_threads_running)
        pthread_cond_wait(&run->wake, &run->lock);
    queue_for_gpu(run, t);
    pthread_cond_broadcast(&run->wake);
    pthread_mutex_unlock(&run->lock);
}

/* How much lower the CPU workers run than the stream threads when GPUs
 * solve: a stream thread that waits for a core leaves its GPU idle between
 * kernel launches, and as many workers as cores keep every core busy. */
#define GPU_WORKER_NICE 5

static void *cpu_worker(void *arg)
{
    batch_run *run = arg;
    if (run->worker_nice > 0) { /* Linux: a thread id names this thread alone; failure costs only speed */
        errno = 0;
        int cur = getpriority(PRIO_PROCESS, (id_t)gettid());
        if (errno == 0)
            (void)setpriority(PRIO_PROCESS, (id_t)gettid(), cur + run->worker_nice);
    }
    pthread_mutex_lock(&run->lock);
    for (;;) {
        task *t = pop(&run->solved);
        if (t) {
            pthread_mutex_unlock(&run->lock);
            after_solve(run, t);
            pthread_mutex_lock(&run->lock);
            continue;
        }
        if (!g_stop && run->next_todo < run->todo_count && run->in_flight < run->max_in_flight) {
            size_t index = run->todo[run->next_todo++];
            run->in_flight++;
            pthread_mutex_unlock(&run->lock);
            start_task(run, index);
            pthread_mutex_lock(&run->lock);
            continue;
        }
        if ((g_stop || run->next_todo >= run->todo_count) && run->in_flight == 0)
            break;
        pthread_cond_wait(&run->wake, &run->lock);
    }
    pthread_cond_broadcast(&run->wake);
    pthread_mutex_unlock(&run->lock);
    return NULL;
}

typedef struct gpu_worker_arg {
    batch_run *run;
    mf_gpu_solver *solver;
} gpu_worker_arg;

/* Takes the queued networks one launch solves together: up to
 * per_launch of them, MF_GPU_LAUNCH_VERTICES in all (one, however large, at
 * least). Under run->lock. */
static int take_launch(batch_run *run, task **group)
{
    int k = 0;
    int64_t vertices = 0;
    while (k < run->per_launch && run->to_solve.head) {
        const int64_t nv = seg_job_vertices(&run->to_solve.head->job);
        if (k > 0 && vertices + nv > MF_GPU_LAUNCH_VERTICES)
            break;
        group[k++] = pop(&run->to_solve);
        vertices += nv;
        run->queued_vertices -= nv;
    }
    return k;
}

static void *gpu_worker(void *arg)
{
    gpu_worker_arg *g = arg;
    batch_run *run = g->run;
    task *group[MAX_PER_LAUNCH];
    seg_job *jobs[MAX_PER_LAUNCH];
    int failed[MAX_PER_LAUNCH];
    pthread_mutex_lock(&run->lock);
    for (;;) {
        const int k = take_launch(run, group);
        if (k) {
            pthread_cond_broadcast(&run->wake); /* room in the queue */
            pthread_mutex_unlock(&run->lock);
            for (int i = 0; i < k; i++)
                jobs[i] = &group[i]->job;
            seg_jobs_solve_gpu(jobs, k, run->opt, g->solver, failed);
            pthread_mutex_lock(&run->lock);
            run->launches++;
            run->launched += (size_t)k;
            for (int i = 0; i < k; i++) {
                group[i]->failed = failed[i];
                push(&run->solved, group[i]);
            }
            pthread_cond_broadcast(&run->wake);
            continue;
        }
        if ((g_stop || run->next_todo >= run->todo_count) && run->in_flight == 0)
            break;
        pthread_cond_wait(&run->wake, &run->lock);
    }
    pthread_mutex_unlock(&run->lock);
    return NULL;
}

/* ---- options */

static int parse_gpus(const char *s, int *devices, int *count)
{
    *count = 0;
    if (!strcmp(s, "all")) {
        *count = -1;
        return 0;
    }
    if (!strcmp(s, "none"))
        return 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 1024 || *count >= MAX_GPUS || (*end && *end != ','))
            return -1;
        devices[(*count)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return *count ? 0 : -1;
}

static int parse_shard(const char *s, int *k, int *n)
{
    char tail;
    return sscanf(s, "%d/%d%c", k, n, &tail) == 2 && *n >= 1 && *k >= 1 && *k <= *n ? 0 : -1;
}

/* An output counts as done when its final name holds a non-empty file:
 * outputs are synced before their rename (seg_save_file), and an empty one
 * can only be a leftover of older writers that did not sync. */
static int output_done(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Removes the temporary outputs that killed runs left in the folders this
 * run writes to, and only there (seg_remove_stale_temps: ours by name, not
 * locked, older than this run). Best effort: without memory, none. */
static void remove_stale_temps(const batch_list *list, const struct timespec *start)
{
    size_t n = 0;
    char **dirs = malloc((3 * list->count + 1) * sizeof *dirs);
    if (!dirs)
        return;
    for (size_t i = 0; i < list->count; i++) {
        const char *paths[3] = {list->items[i].mask, list->items[i].overlay, list->items[i].cutout};
        for (int k = 0; k < 3; k++) {
            const char *slash = paths[k] ? strrchr(paths[k], '/') : NULL;
            if (!paths[k])
                continue;
            char *d = slash ? strndup(paths[k], slash == paths[k] ? 1 : (size_t)(slash - paths[k])) : strdup(".");
            if (d)
                dirs[n++] = d;
        }
    }
    qsort(dirs, n, sizeof *dirs, by_string);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(dirs[i], dirs[i - 1])) {
            size_t removed = seg_remove_stale_temps(dirs[i], ".png", start);
            if (removed)
                DISPLAYLEVEL(2, "flowcut batch: %s: removed %zu temporary file%s of an interrupted run\n", dirs[i],
                             removed, removed == 1 ? "" : "s");
        }
    }
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
}

/* An input folder: 0, or -1 with "flowcut batch: OPTION DIR: why" printed. */
static int readable_folder(const char *option, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        DISPLAYLEVEL(1, "flowcut batch: %s%s: cannot open folder: %s\n", option, dir, strerror(errno));
        return -1;
    }
    closedir(d);
    return 0;
}

/* An output folder, created when missing, into which a file can be
 * written: a probe file is created and removed (named as our temporary
 * files are, so that a kill in between leaves what the next run removes). */
static int writable_folder(const char *option, const char *dir)
{
    struct stat st;
    char path[4096];
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        DISPLAYLEVEL(1, "flowcut batch: %s %s: is a file, not a folder\n", option, dir);
        return -1;
    }
    if (snprintf(path, sizeof path, "%s/.write-test.png.tmp-XXXXXX", dir) >= (int)sizeof path) {
        DISPLAYLEVEL(1, "flowcut batch: %s %s: path too long\n", option, dir);
        return -1;
    }
    if (batch_make_parent_dirs(path)) {
        DISPLAYLEVEL(1, "flowcut batch: %s %s: cannot create folder: %s\n", option, dir, strerror(errno));
        return -1;
    }
    int fd = mkstemp(path);
    if (fd < 0) {
        DISPLAYLEVEL(1, "flowcut batch: %s %s: cannot write there: %s\n", option, dir, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(path);
    return 0;
}

int cmd_batch(int argc, char **argv)
{
    enum {
        O_SEEDS_DIR = 256, O_TRIMAP_DIR, O_LIST, O_OVERLAY_DIR, O_CUTOUT_DIR, O_JOBS, O_GPUS, O_SHARD, O_JSON,
        O_TIME, O_NO_PROGRESS, O_PER_GPU, O_PER_LAUNCH, O_ALLOC_CACHE
    };
    static const struct option longopts[] = {
        SEG_LONG_OPTIONS,
        {"output", required_argument, NULL, 'o'},         {"seeds-dir", required_argument, NULL, O_SEEDS_DIR},
        {"trimap-dir", required_argument, NULL, O_TRIMAP_DIR}, {"recursive", no_argument, NULL, 'r'},
        {"list", required_argument, NULL, O_LIST},         {"overlay-dir", required_argument, NULL, O_OVERLAY_DIR},
        {"cutout-dir", required_argument, NULL, O_CUTOUT_DIR}, {"jobs", required_argument, NULL, O_JOBS},
        {"gpus", required_argument, NULL, O_GPUS},         {"shard", required_argument, NULL, O_SHARD},
        {"json", no_argument, NULL, O_JSON},               {"time", no_argument, NULL, O_TIME},
        {"no-progress", no_argument, NULL, O_NO_PROGRESS}, {"force", no_argument, NULL, 'f'},
        {"per-gpu", required_argument, NULL, O_PER_GPU},
        {"per-launch", required_argument, NULL, O_PER_LAUNCH},
        {"alloc-cache", required_argument, NULL, O_ALLOC_CACHE},
        {"quiet", no_argument, NULL, 'q'},                 {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    seg_options o;
    seg_options_default(&o);
    const char *out_dir = NULL, *seeds_dir = NULL, *list_path = NULL, *overlay_dir = NULL, *cutout_dir = NULL;
    const char *seed_file = NULL; /* --seeds or --trimap: segment's, refused here */
    int recursive = 0, force = 0, json = 0, show_time = 0, no_progress = 0, shard_k = 1, shard_n = 1, c;
    int trimap = 0, devices[MAX_GPUS], ndevices = -1, gpus_given = 0, per_gpu = 4, per_launch = 16;
    long jobs = mf_threads(0);
    int64_t alloc_cache_mb = -1; /* -1: alloc_cache_bytes decides */
    int64_t iv;
    struct timespec start_time; /* temporary files older than this are no writer's of this run */
    clock_gettime(CLOCK_REALTIME, &start_time);
    optind = 1;
    opterr = 0;
    while ((c = seg_next_option(argc, argv, ":o:rfqh", longopts, &o, &seed_file, "flowcut batch")) != -1) {
        switch (c) {
        case SEG_BAD_OPTION: return EXIT_USAGE;
        case 'o': out_dir = optarg; break;
        case O_SEEDS_DIR: seeds_dir = optarg; trimap = 0; break;
        case O_TRIMAP_DIR: seeds_dir = optarg; trimap = 1; break;
        case 'r': recursive = 1; break;
        case O_LIST: list_path = optarg; break;
        case O_OVERLAY_DIR: overlay_dir = optarg; break;
        case O_CUTOUT_DIR: cutout_dir = optarg; break;
        case O_JOBS:
            if (parse_i64(optarg, 1, 4096, &iv)) {
                DISPLAYLEVEL(1, "flowcut batch: --jobs needs 1..4096\n");
                return EXIT_USAGE;
            }
            jobs = (long)iv;
            break;
        case O_GPUS:
            if (parse_gpus(optarg, devices, &ndevices)) {
                DISPLAYLEVEL(1, "flowcut batch: --gpus takes all, none or device numbers like 0,1\n");
                return EXIT_USAGE;
            }
            gpus_given = 1;
            break;
        case O_SHARD:
            if (parse_shard(optarg, &shard_k, &shard_n)) {
                DISPLAYLEVEL(1, "flowcut batch: --shard takes K/N with 1 <= K <= N\n");
                return EXIT_USAGE;
            }
            break;
        case O_JSON: json = 1; break;
        case O_TIME: show_time = 1; break;
        case O_NO_PROGRESS: no_progress = 1; break;
        case O_PER_GPU:
            if (parse_i64(optarg, 1, MAX_PER_GPU, &iv)) {
                DISPLAYLEVEL(1, "flowcut batch: --per-gpu needs 1..%d\n", MAX_PER_GPU);
                return EXIT_USAGE;
            }
            per_gpu = (int)iv;
            break;
        case O_PER_LAUNCH:
            if (parse_i64(optarg, 1, MAX_PER_LAUNCH, &iv)) {
                DISPLAYLEVEL(1, "flowcut batch: --per-launch needs 1..%d\n", MAX_PER_LAUNCH);
                return EXIT_USAGE;
            }
            per_launch = (int)iv;
            break;
        case O_ALLOC_CACHE:
            if (parse_i64(optarg, 0, (int64_t)1 << 30, &alloc_cache_mb)) {
                DISPLAYLEVEL(1, "flowcut batch: --alloc-cache needs megabytes, 0..%lld\n", (long long)1 << 30);
                return EXIT_USAGE;
            }
            break;
        case 'f': force = 1; break;
        case 'q': g_display_level = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default:
            cli_option_error("flowcut batch", longopts, argv, c);
            return EXIT_USAGE;
        }
    }
    if (seed_file) {
        DISPLAYLEVEL(1, "flowcut batch: use --seeds-dir or --trimap-dir (a folder of seed files)\n");
        return EXIT_USAGE;
    }
    const char *in_dir = optind < argc ? argv[optind] : NULL;
    if (argc - optind > 1 || (!in_dir && !list_path) || !out_dir || !seeds_dir) {
        cli_usage_error("flowcut batch", "needs IN_DIR (or --list FILE), -o OUT_DIR and --seeds-dir or --trimap-dir");
        return EXIT_USAGE;
    }
    /* the folders, before any photo is decoded: one line for a folder
     * that is wrong, not one per photo after all were solved */
    if ((!list_path && readable_folder("", in_dir)) ||
        readable_folder(trimap ? "--trimap-dir " : "--seeds-dir ", seeds_dir) || writable_folder("-o", out_dir) ||
        (overlay_dir && writable_folder("--overlay-dir", overlay_dir)) ||
        (cutout_dir && writable_folder("--cutout-dir", cutout_dir)))
        return EXIT_FAIL;
    if (trimap)
        o.seeds = SEG_SEEDS_TRIMAP;
    else if (o.seeds == SEG_SEEDS_TRIMAP)
        o.seeds = SEG_SEEDS_LABELS;
    if (jobs < 1)
        jobs = 1;

    /* the solving devices */
    int device_count = 0;
    int have_gpu = mf_gpu_compiled() && mf_gpu_available(&device_count) == MF_OK && device_count > 0;
    if (!gpus_given && o.solve.device != 0) { /* --device N alone: that one */
        devices[0] = o.solve.device;
        ndevices = 1;
    }
    if (o.solve.engine == MF_ENGINE_CPU)
        ndevices = 0;
    if (ndevices != 0 && !have_gpu) {
        if (o.solve.engine == MF_ENGINE_GPU || (gpus_given && ndevices > 0)) {
            DISPLAYLEVEL(1, "flowcut batch: %s\n",
                         mf_gpu_compiled() ? "no CUDA device is available" : "this build has no CUDA support");
            return EXIT_FAIL;
        }
        ndevices = 0;
    }
    if (ndevices < 0) {
        ndevices = device_count < MAX_GPUS ? device_count : MAX_GPUS;
        for (int i = 0; i < ndevices; i++)
            devices[i] = i;
    }
    if (ndevices == 0 && o.solve.engine == MF_ENGINE_GPU) {
        DISPLAYLEVEL(1, "flowcut batch: --engine gpu with --gpus none\n");
        return EXIT_USAGE;
    }

    /* the work list */
    batch_list list = {0};
    char err[1024];
    int status = EXIT_FAIL;
    mf_gpu_solver *solvers[MAX_GPUS * MAX_PER_GPU] = {0};
    pthread_t threads[MAX_GPUS * MAX_PER_GPU + 4096];
    gpu_worker_arg gargs[MAX_GPUS * MAX_PER_GPU];
    size_t nthreads = 0;
    batch_run run;
    memset(&run, 0, sizeof run);
    const char *skip[4] = {out_dir, seeds_dir, overlay_dir, cutout_dir};
    int rc = list_path ? batch_collect_list(&list, list_path, in_dir, err, sizeof err)
                       : batch_collect_dir(&list, in_dir, recursive, skip, 4, err, sizeof err);
    if (rc) {
        DISPLAYLEVEL(1, "flowcut batch: %s\n", err);
        goto done;
    }
    batch_sort_and_shard(&list, shard_k, shard_n);
    if (batch_pair(&list, seeds_dir, out_dir, overlay_dir, cutout_dir)) {
        DISPLAYLEVEL(1, "flowcut batch: out of memory\n");
        goto done;
    }
    remove_stale_temps(&list, &start_time);
    run.opt = &o;
    run.list = &list;
    run.json = json;
    run.todo = malloc((list.count + 1) * sizeof *run.todo);
    if (!run.todo) {
        DISPLAYLEVEL(1, "flowcut batch: out of memory\n");
        goto done;
    }
    pthread_mutex_init(&run.lock, NULL);
    pthread_cond_init(&run.wake, NULL);
    for (size_t i = 0; i < list.count; i++) {
        const batch_item *it = &list.items[i];
        if (it->problem) {
            char msg[1400];
            snprintf(msg, sizeof msg, "%s: %s", it->image, it->problem);
            report_error(&run, it, msg);
        } else if (!force && output_done(it->mask) && (!it->overlay || output_done(it->overlay)) &&
                   (!it->cutout || output_done(it->cutout))) {
            run.skipped++;
            if (json) {
                printf("{\"file\": ");
                json_string(stdout, it->image);
                printf(", \"status\": \"skipped\", \"error\": null, \"mask\": ");
                json_string(stdout, it->mask);
                printf("}\n");
            }
        } else {
            run.todo[run.todo_count++] = i;
        }
    }

    if (!o.solve.threads) { /* --threads not given: each CPU worker gets its share of the
                             * cores for the network and the solve; many images, one
                             * thread each, one huge image, all of them */
        long cores = mf_threads(0);
        long workers = jobs < (long)run.todo_count ? jobs : (long)run.todo_count;
        int share = workers > 0 && cores > workers ? (int)(cores / workers) : 1;
        o.graph.threads = o.solve.threads = share;
    }
    run.progress = !no_progress && g_display_level >= 2 && isatty(STDERR_FILENO);
    int nsolvers = ndevices * per_gpu; /* solver i on device i / per_gpu, a stream each */
    for (int i = 0; i < nsolvers; i++) {
        mf_error merr = {0};
        /* stream threads sleep while their device solves: spinning, 4 a GPU
         * would take a quarter of 16 cores from the workers that feed it */
        if ((i % per_gpu == 0 && mf_gpu_set_wait(devices[i / per_gpu], MF_GPU_WAIT_BLOCK, &merr)) ||
            mf_gpu_solver_create(devices[i / per_gpu], &solvers[i], &merr)) {
            char m[512];
            mf_error_format(&merr, m, sizeof m);
            DISPLAYLEVEL(1, "flowcut batch: device %d: %s\n", devices[i / per_gpu], m);
            goto done;
        }
    }
    run.use_gpu = ndevices > 0;
    run.worker_nice = run.use_gpu ? GPU_WORKER_NICE : 0;
    if (!run.use_gpu) /* the workers solve: on the CPU, never a device that --gpus left out */
        o.solve.engine = MF_ENGINE_CPU;
    if (run.use_gpu || seg_cpu_skips_in_lists(&o))
        o.graph.in_lists = 0; /* a union launch builds them on the device (a sizeable part of a build), and
                               * a worker's one-thread CPU solve reads none */
    run.gpu_threads_running = nsolvers;
    run.max_queued = 2 * (size_t)(nsolvers > 0 ? nsolvers : 1);
    run.per_launch = per_launch;
    run.max_queued_vertices = per_launch > 1 ? (int64_t)nsolvers * MF_GPU_LAUNCH_VERTICES : 0;
    run.max_in_flight = (size_t)jobs + run.max_queued + (size_t)nsolvers * (size_t)per_launch;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    DISPLAYLEVEL(3, "flowcut batch: %zu inputs, %zu to do, %ld workers, %d GPUs\n", list.count, run.todo_count, jobs,
                 ndevices);
    mf_alloc_cache_limit(alloc_cache_mb >= 0 ? (size_t)alloc_cache_mb << 20 : alloc_cache_bytes(jobs));
    run.start = cli_now();
    for (int i = 0; i < nsolvers; i++) {
        gargs[i].run = &run;
        gargs[i].solver = solvers[i];
        if (pthread_create(&threads[nthreads], NULL, gpu_worker, &gargs[i]) == 0)
            nthreads++;
    }
    size_t started_cpu = 0;
    for (long i = 0; i < jobs && run.todo_count > 0; i++)
        if (pthread_create(&threads[nthreads], NULL, cpu_worker, &run) == 0) {
            nthreads++;
            started_cpu++;
        }
    if (run.todo_count > 0 && started_cpu == 0)
        cpu_worker(&run); /* no thread could start: work on this one */
    for (size_t i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    double wall = cli_now() - run.start;
    mf_alloc_cache_limit(0);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (run.todo_count > 0)
        draw_progress(&run, 1);

    size_t not_started = run.todo_count - run.next_todo;
    DISPLAYLEVEL(1, "flowcut batch: %zu ok, %zu failed, %zu skipped (outputs exist)%s in %.1f s, %.2f images/s\n",
                 run.ok, run.failed, run.skipped, g_stop ? ", interrupted" : "", wall,
                 wall > 0 ? (double)run.ok / wall : 0.0);
    if (g_stop && not_started)
        DISPLAYLEVEL(1, "flowcut batch: %zu not started; run the same command again to resume\n", not_started);
    if (show_time && run.ok) {
        stage_totals *s = &run.totals;
        double cpu = s->decode + s->model + s->build + s->encode + (run.use_gpu ? 0 : s->solve);
        DISPLAYLEVEL(1,
                     "flowcut batch: stage seconds over %zu images: decode %.2f, model %.2f, build %.2f, "
                     "solve %.2f, encode %.2f\n",
                     run.ok, s->decode, s->model, s->build, s->solve, s->encode);
        DISPLAYLEVEL(1, "flowcut batch: busy: %ld CPU workers %.0f%%", jobs, 100.0 * cpu / ((double)jobs * wall));
        if (run.use_gpu)
            DISPLAYLEVEL(1, ", %d GPUs x %d streams solving %.0f%%; %zu launches, %.1f networks each", ndevices,
                         per_gpu, 100.0 * s->solve / ((double)nsolvers * wall), run.launches,
                         run.launches ? (double)run.launched / (double)run.launches : 0.0);
        DISPLAYLEVEL(1, "\n");
    }
    status = g_stop ? 130 : run.failed ? EXIT_FAIL : EXIT_OK;
done:
    for (int i = 0; i < MAX_GPUS * MAX_PER_GPU; i++)
        if (solvers[i])
            mf_gpu_solver_destroy(solvers[i]);
    if (run.todo) {
        pthread_mutex_destroy(&run.lock);
        pthread_cond_destroy(&run.wake);
    }
    free(run.todo);
    batch_list_free(&list);
    return status;
}
