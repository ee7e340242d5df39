/* flowcut batch: segments whole folders. The work list (which photos, their
 * seeds, their outputs; resume by skipping what exists) is made here, the
 * library's scheduler (seg_batch_run) runs it; this file reports. */
#define _POSIX_C_SOURCE 200809L /* sigaction, strndup, mkstemp, clock_gettime */
#include "batch_inputs.h"
#include "cli.h"
#include "seg_args.h"
#include "seg_output.h"

#include "flowcut_threads.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_GPUS 64      /* as the scheduler takes them */
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

static volatile sig_atomic_t g_stop; /* the scheduler polls it (seg_batch_config.stop) */
_Static_assert(_Generic(g_stop, int: 1, default: 0), "seg_batch_config.stop is a volatile int");

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

/* ---- reporting: the scheduler calls report() once per item, one call at a time */

typedef struct batch_report {
    const batch_list *list;
    const size_t *todo; /* the run's item i is list item todo[i] */
    size_t total, done, failed;
    int json, progress;
    double start, last_draw;
} batch_report;

static void clear_progress(batch_report *b)
{
    if (b->progress)
        fputs("\r\033[K", stderr);
}

static void draw_progress(batch_report *b, int final)
{
    if (!b->progress)
        return;
    double t = cli_now();
    if (!final && t - b->last_draw < 0.1)
        return;
    b->last_draw = t;
    size_t total = b->total, done = b->done;
    double elapsed = t - b->start, rate = elapsed > 0 ? (double)done / elapsed : 0;
    int width = 30, filled = total ? (int)((double)width * (double)done / (double)total) : width;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '-';
    bar[width] = 0;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu  %.2f img/s", bar, done, total, rate);
    if (b->failed)
        fprintf(stderr, "  %zu failed", b->failed);
    if (rate > 0 && done < total) {
        long eta = (long)((double)(total - done) / rate + 0.5);
        fprintf(stderr, "  ETA %ld:%02ld:%02ld", eta / 3600, eta / 60 % 60, eta % 60);
    }
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
}

static void report_error(batch_report *b, const batch_item *it, const char *msg)
{
    b->failed++;
    clear_progress(b);
    DISPLAYLEVEL(1, "flowcut: %s\n", msg);
    if (b->json) {
        printf("{\"file\": ");
        json_string(stdout, it->image);
        printf(", \"status\": \"error\", \"error\": ");
        json_string(stdout, msg);
        printf("}\n");
        fflush(stdout);
    }
    draw_progress(b, 0);
}

static void report(void *user, const seg_batch_outcome *r)
{
    batch_report *b = user;
    const batch_item *it = &b->list->items[b->todo[r->index]];
    b->done++;
    if (r->code != SEG_OK) {
        report_error(b, it, r->error);
        return;
    }
    if (b->json) {
        printf("{\"file\": ");
        json_string(stdout, it->image);
        printf(", \"status\": \"ok\", \"error\": null, \"seeds\": ");
        json_string(stdout, it->seeds ? it->seeds : it->prompts);
        printf(", \"mask\": ");
        json_string(stdout, it->mask);
        printf(", ");
        seg_json_outcome(stdout, r);
        fflush(stdout);
    }
    draw_progress(b, 0);
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
    if (seg_make_parent_dirs(path)) {
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

/* The command line, parsed. */
typedef struct batch_args {
    seg_options o;
    const char *in_dir, *out_dir, *seeds_dir, *list_path, *overlay_dir, *cutout_dir;
    int recursive, force, json, show_time, no_progress, shard_k, shard_n, trimap;
    int devices[MAX_GPUS], ndevices, gpus_given, per_gpu, per_launch;
    long jobs;
    int64_t alloc_cache_mb; /* -1: the scheduler's default */
} batch_args;

/* Parses argv into a; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, batch_args *a)
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
    const char *seed_file = NULL; /* --seeds or --trimap: segment's, refused here */
    int64_t iv;
    int c;
    memset(a, 0, sizeof *a);
    seg_options_default(&a->o);
    a->shard_k = a->shard_n = 1;
    a->ndevices = -1;
    a->per_gpu = 4;
    a->per_launch = 16;
    a->jobs = mf_threads(0);
    a->alloc_cache_mb = -1;
    optind = 1;
    opterr = 0;
    while ((c = seg_next_option(argc, argv, ":o:rfqh", longopts, &a->o, &seed_file, "flowcut batch")) != -1) {
        switch (c) {
        case SEG_BAD_OPTION: return EXIT_USAGE;
        case 'o': a->out_dir = optarg; break;
        case O_SEEDS_DIR: a->seeds_dir = optarg; a->trimap = 0; break;
        case O_TRIMAP_DIR: a->seeds_dir = optarg; a->trimap = 1; break;
        case 'r': a->recursive = 1; break;
        case O_LIST: a->list_path = optarg; break;
        case O_OVERLAY_DIR: a->overlay_dir = optarg; break;
        case O_CUTOUT_DIR: a->cutout_dir = optarg; break;
        case O_JOBS:
            if (parse_i64(optarg, 1, 4096, &iv)) {
                DISPLAYLEVEL(1, "flowcut batch: --jobs needs 1..4096\n");
                return EXIT_USAGE;
            }
            a->jobs = (long)iv;
            break;
        case O_GPUS:
            if (parse_gpus(optarg, a->devices, &a->ndevices)) {
                DISPLAYLEVEL(1, "flowcut batch: --gpus takes all, none or device numbers like 0,1\n");
                return EXIT_USAGE;
            }
            a->gpus_given = 1;
            break;
        case O_SHARD:
            if (parse_shard(optarg, &a->shard_k, &a->shard_n)) {
                DISPLAYLEVEL(1, "flowcut batch: --shard takes K/N with 1 <= K <= N\n");
                return EXIT_USAGE;
            }
            break;
        case O_JSON: a->json = 1; break;
        case O_TIME: a->show_time = 1; break;
        case O_NO_PROGRESS: a->no_progress = 1; break;
        case O_PER_GPU:
            if (parse_i64(optarg, 1, MAX_PER_GPU, &iv)) {
                DISPLAYLEVEL(1, "flowcut batch: --per-gpu needs 1..%d\n", MAX_PER_GPU);
                return EXIT_USAGE;
            }
            a->per_gpu = (int)iv;
            break;
        case O_PER_LAUNCH:
            if (parse_i64(optarg, 1, MAX_PER_LAUNCH, &iv)) {
                DISPLAYLEVEL(1, "flowcut batch: --per-launch needs 1..%d\n", MAX_PER_LAUNCH);
                return EXIT_USAGE;
            }
            a->per_launch = (int)iv;
            break;
        case O_ALLOC_CACHE:
            if (parse_i64(optarg, 0, (int64_t)1 << 30, &a->alloc_cache_mb)) {
                DISPLAYLEVEL(1, "flowcut batch: --alloc-cache needs megabytes, 0..%lld\n", (long long)1 << 30);
                return EXIT_USAGE;
            }
            break;
        case 'f': a->force = 1; break;
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
    a->in_dir = optind < argc ? argv[optind] : NULL;
    if (argc - optind > 1 || (!a->in_dir && !a->list_path) || !a->out_dir || !a->seeds_dir) {
        cli_usage_error("flowcut batch", "needs IN_DIR (or --list FILE), -o OUT_DIR and --seeds-dir or --trimap-dir");
        return EXIT_USAGE;
    }
    if (a->trimap)
        a->o.seeds = SEG_SEEDS_TRIMAP;
    else if (a->o.seeds == SEG_SEEDS_TRIMAP)
        a->o.seeds = SEG_SEEDS_LABELS;
    if (!a->gpus_given && a->o.solve.device != 0) { /* --device N alone: that one */
        a->devices[0] = a->o.solve.device;
        a->ndevices = 1;
    }
    if (a->ndevices == 0 && a->o.solve.engine == MF_ENGINE_GPU) {
        DISPLAYLEVEL(1, "flowcut batch: --engine gpu with --gpus none\n");
        return EXIT_USAGE;
    }
    return -1;
}

/* Sorts the listed images into the run's items (todo[i]: the list index
 * of item i), those already done (their outputs exist, without -f) and
 * those that cannot be processed, which are reported here. */
static void select_work(const batch_args *a, const batch_list *list, batch_report *rep, seg_batch_item *items,
                        size_t *todo, size_t *ntodo, size_t *skipped)
{
    for (size_t i = 0; i < list->count; i++) {
        const batch_item *it = &list->items[i];
        if (it->problem) {
            char msg[1400];
            snprintf(msg, sizeof msg, "%s: %s", it->image, it->problem);
            report_error(rep, it, msg);
        } else if (!a->force && output_done(it->mask) && (!it->overlay || output_done(it->overlay)) &&
                   (!it->cutout || output_done(it->cutout))) {
            (*skipped)++;
            if (a->json) {
                printf("{\"file\": ");
                json_string(stdout, it->image);
                printf(", \"status\": \"skipped\", \"error\": null, \"mask\": ");
                json_string(stdout, it->mask);
                printf("}\n");
            }
        } else {
            items[*ntodo] = (seg_batch_item){it->image, it->seeds, it->prompts, it->mask, it->overlay, it->cutout};
            todo[(*ntodo)++] = i;
        }
    }
}

static void print_summary(const batch_args *a, const seg_batch_stats *st, size_t failed, size_t skipped)
{
    DISPLAYLEVEL(1, "flowcut batch: %zu ok, %zu failed, %zu skipped (outputs exist)%s in %.1f s, %.2f images/s\n",
                 st->ok, failed, skipped, g_stop ? ", interrupted" : "", st->seconds,
                 st->seconds > 0 ? (double)st->ok / st->seconds : 0.0);
    if (g_stop && st->not_started)
        DISPLAYLEVEL(1, "flowcut batch: %zu not started; run the same command again to resume\n", st->not_started);
    if (!a->show_time || !st->ok)
        return;
    const int use_gpu = st->devices > 0;
    double cpu = st->decode_seconds + st->model_seconds + st->build_seconds + st->encode_seconds +
                 (use_gpu ? 0 : st->solve_seconds);
    DISPLAYLEVEL(1,
                 "flowcut batch: stage seconds over %zu images: decode %.2f, model %.2f, build %.2f, "
                 "solve %.2f, encode %.2f\n",
                 st->ok, st->decode_seconds, st->model_seconds, st->build_seconds, st->solve_seconds,
                 st->encode_seconds);
    DISPLAYLEVEL(1, "flowcut batch: busy: %ld CPU workers %.0f%%", a->jobs,
                 100.0 * cpu / ((double)a->jobs * st->seconds));
    if (use_gpu)
        DISPLAYLEVEL(1, ", %d GPUs x %d streams solving %.0f%%; %zu launches, %.1f networks each", st->devices,
                     st->per_gpu, 100.0 * st->solve_seconds / ((double)st->devices * st->per_gpu * st->seconds),
                     st->launches, st->launches ? (double)st->launched / (double)st->launches : 0.0);
    DISPLAYLEVEL(1, "\n");
}

int cmd_batch(int argc, char **argv)
{
    batch_args a;
    struct timespec start_time; /* temporary files older than this are no writer's of this run */
    clock_gettime(CLOCK_REALTIME, &start_time);
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    /* the folders, before any photo is decoded: one line for a folder
     * that is wrong, not one per photo after all were solved */
    if ((!a.list_path && readable_folder("", a.in_dir)) ||
        readable_folder(a.trimap ? "--trimap-dir " : "--seeds-dir ", a.seeds_dir) ||
        writable_folder("-o", a.out_dir) || (a.overlay_dir && writable_folder("--overlay-dir", a.overlay_dir)) ||
        (a.cutout_dir && writable_folder("--cutout-dir", a.cutout_dir)))
        return EXIT_FAIL;

    /* the scheduler's settings; it checks the devices against the engine decision */
    seg_batch_config cfg;
    seg_batch_config_default(&cfg);
    int32_t dev32[MAX_GPUS];
    for (int i = 0; i < a.ndevices; i++)
        dev32[i] = a.devices[i];
    cfg.ndevices = a.ndevices;
    cfg.devices = dev32;
    cfg.jobs = (int32_t)a.jobs;
    cfg.per_gpu = a.per_gpu;
    cfg.per_launch = a.per_launch;
    cfg.alloc_cache_bytes = a.alloc_cache_mb >= 0 ? a.alloc_cache_mb << 20 : -1;
    cfg.overwrite = 1; /* what exists was skipped unless -f */
    cfg.stop = &g_stop;

    /* the work list */
    batch_list list = {0};
    char err[1024];
    status = EXIT_FAIL;
    size_t *todo = NULL, ntodo = 0, skipped = 0;
    seg_batch_item *items = NULL;
    batch_report rep = {.json = a.json};
    const char *skip[4] = {a.out_dir, a.seeds_dir, a.overlay_dir, a.cutout_dir};
    int rc = a.list_path ? batch_collect_list(&list, a.list_path, a.in_dir, err, sizeof err)
                         : batch_collect_dir(&list, a.in_dir, a.recursive, skip, 4, err, sizeof err);
    if (rc) {
        DISPLAYLEVEL(1, "flowcut batch: %s\n", err);
        goto done;
    }
    batch_sort_and_shard(&list, a.shard_k, a.shard_n);
    if (batch_pair(&list, a.seeds_dir, a.out_dir, a.overlay_dir, a.cutout_dir)) {
        DISPLAYLEVEL(1, "flowcut batch: out of memory\n");
        goto done;
    }
    remove_stale_temps(&list, &start_time);
    todo = malloc((list.count + 1) * sizeof *todo);
    items = malloc((list.count + 1) * sizeof *items);
    if (!todo || !items) {
        DISPLAYLEVEL(1, "flowcut batch: out of memory\n");
        goto done;
    }
    rep.list = &list;
    rep.todo = todo;
    select_work(&a, &list, &rep, items, todo, &ntodo, &skipped);
    const size_t listed_failures = rep.failed;
    rep.total = ntodo;
    rep.progress = !a.no_progress && g_display_level >= 2 && isatty(STDERR_FILENO);
    cfg.report = report;
    cfg.user = &rep;

    /* the run: the first Ctrl-C stops taking new images, the second aborts */
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    DISPLAYLEVEL(3, "flowcut batch: %zu inputs, %zu to do, %ld workers\n", list.count, ntodo, a.jobs);
    rep.start = cli_now();
    seg_batch_stats st;
    seg_error serr = {0};
    rc = seg_batch_run(items, ntodo, &a.o, &cfg, &st, &serr);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc) {
        DISPLAYLEVEL(1, "flowcut batch: %s\n", serr.message);
        goto done;
    }
    if (ntodo > 0)
        draw_progress(&rep, 1);
    print_summary(&a, &st, st.failed + listed_failures, skipped);
    status = g_stop ? 130 : (st.failed + listed_failures) ? EXIT_FAIL : EXIT_OK;
done:
    free(todo);
    free(items);
    batch_list_free(&list);
    return status;
}
