/* The CPU stages of a GPU batch worker, without the solve: each photo's
 * decode (photo and seeds), colour models and network in grid form, one
 * photo a thread on T threads, as `flowcut batch` runs them. Prints the
 * milliseconds a photo of each stage, photos/s, and a hash of every grid
 * form (weights' distances, terminals, similarity table, offset), so
 * that a change meant to keep the networks the same to the bit can be
 * checked: the hash does not depend on T or the order of the photos.
 *
 *   bench_stages [--threads T] [--copies C] [--connectivity 4|8] IMAGES SEEDS
 *
 * IMAGES: a folder of photos; SEEDS: a seed image of the same name for
 * each (as `flowcut batch --seeds-dir`). --copies: every photo C times
 * (the steady state of a long batch). */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "flowcut/graphbuild.h"
#include "flowcut/images.h"
#include "flowcut/maxflow.h"
#include "flowcut/segment.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 256

typedef struct stage_run {
    const char *images, *seeds;
    char **names;
    int count, copies;
    seg_options opt;
    _Atomic int next;
    _Atomic int failed;
} stage_run;

typedef struct stage_worker {
    stage_run *run;
    double decode, model, build;
    int photos;
    uint64_t hash; /* the sum of the photos' hashes (first copies): independent of order */
} stage_worker;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t grid_hash(const mf_grid *g, const char *name)
{
    const int64_t npx = (int64_t)g->width * g->height;
    uint64_t h = fnv(1469598103934665603ull, name, strlen(name));
    h = fnv(h, g->w, sizeof(int32_t) * (size_t)(npx * g->nd));
    h = fnv(h, g->term, sizeof(int32_t) * (size_t)npx);
    h = fnv(h, g->row_sources, sizeof(int32_t) * (size_t)g->height);
    h = fnv(h, g->row_sinks, sizeof(int32_t) * (size_t)g->height);
    if (g->table)
        h = fnv(h, g->table, sizeof(double) * (size_t)g->table_size);
    return fnv(h, &g->flow_offset, sizeof g->flow_offset);
}

/* One photo's stages; 0 on success. */
static int one_photo(stage_worker *w, const char *name, int first_copy)
{
    stage_run *r = w->run;
    char ip[4096], sp[4096];
    snprintf(ip, sizeof ip, "%s/%s", r->images, name);
    snprintf(sp, sizeof sp, "%s/%s", r->seeds, name);
    img_image photo = {0}, seeds = {0};
    img_error ie = {0};
    uint8_t *labels = NULL;
    gb_models *models = NULL;
    mf_grid grid = {0};
    int rc = -1;
    double t0 = bench_now();
    if (img_load_rgb(ip, 0, &photo, &ie) || img_load_labels(sp, 0, &seeds, &ie)) {
        char msg[512];
        img_error_format(&ie, msg, sizeof msg);
        fprintf(stderr, "bench_stages: %s\n", msg);
        goto done;
    }
    if (seeds.width != photo.width || seeds.height != photo.height) {
        fprintf(stderr, "bench_stages: %s: seeds are %dx%d, the photo %dx%d\n", sp, seeds.width, seeds.height,
                photo.width, photo.height);
        goto done;
    }
    labels = malloc((size_t)photo.width * (size_t)photo.height);
    int64_t nfg = 0, nbg = 0;
    if (!labels || seg_labels_from_seeds(seeds.data, seeds.width, seeds.height, seeds.channels, &r->opt, labels,
                                         &nfg, &nbg) < 0 || !nfg || !nbg) {
        fprintf(stderr, "bench_stages: %s: no usable seeds\n", sp);
        goto done;
    }
    double t1 = bench_now();
    int e = gb_models_fit(photo.data, photo.width, photo.height, labels, &r->opt.graph, &models);
    double t2 = bench_now();
    if (!e)
        e = gb_build_grid(photo.data, photo.width, photo.height, labels, models, &r->opt.graph, &grid);
    double t3 = bench_now();
    if (e) {
        fprintf(stderr, "bench_stages: %s: %s\n", ip, gb_strerror(e));
        goto done;
    }
    w->decode += t1 - t0;
    w->model += t2 - t1;
    w->build += t3 - t2;
    w->photos++;
    if (first_copy)
        w->hash += grid_hash(&grid, name);
    rc = 0;
done:
    mf_grid_free(&grid);
    gb_models_free(models);
    free(labels);
    img_free(&photo);
    img_free(&seeds);
    return rc;
}

static void *worker_main(void *arg)
{
    stage_worker *w = arg;
    stage_run *r = w->run;
    for (;;) {
        int k = atomic_fetch_add(&r->next, 1);
        if (k >= r->count * r->copies || atomic_load(&r->failed))
            break;
        if (one_photo(w, r->names[k % r->count], k < r->count))
            atomic_store(&r->failed, 1);
    }
    return NULL;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    int threads = 1, copies = 1, connectivity = 8, i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--copies"))
            copies = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--connectivity"))
            connectivity = atoi(argv[i + 1]);
        else
            break;
    }
    if (argc - i != 2 || threads < 1 || threads > MAX_THREADS || copies < 1 ||
        (connectivity != 4 && connectivity != 8)) {
        fprintf(stderr, "usage: bench_stages [--threads T (1..%d)] [--copies C] [--connectivity 4|8] IMAGES SEEDS\n",
                MAX_THREADS);
        return 2;
    }
    static stage_run run;
    run.images = argv[i];
    run.seeds = argv[i + 1];
    seg_options_default(&run.opt);
    run.opt.graph.threads = 1; /* a batch worker's photo runs on its own thread */
    run.opt.graph.connectivity = connectivity;
    run.copies = copies;
    DIR *d = opendir(run.images);
    if (!d) {
        fprintf(stderr, "bench_stages: cannot open %s\n", run.images);
        return 1;
    }
    int cap = 0;
    for (struct dirent *de; (de = readdir(d));) {
        const char *dot = strrchr(de->d_name, '.');
        if (de->d_name[0] == '.' || !dot || (strcmp(dot, ".png") && strcmp(dot, ".jpg") && strcmp(dot, ".jpeg")))
            continue;
        if (run.count == cap) {
            cap = cap ? 2 * cap : 256;
            char **grown = realloc(run.names, sizeof *grown * (size_t)cap);
            if (!grown)
                return 1;
            run.names = grown;
        }
        run.names[run.count++] = strdup(de->d_name);
    }
    closedir(d);
    if (!run.count) {
        fprintf(stderr, "bench_stages: no photos in %s\n", run.images);
        return 1;
    }
    qsort(run.names, (size_t)run.count, sizeof *run.names, by_name);
    static stage_worker ws[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    double t0 = bench_now();
    for (int t = 0; t < threads; t++) {
        ws[t].run = &run;
        if (pthread_create(&tid[t], NULL, worker_main, &ws[t])) {
            fprintf(stderr, "bench_stages: cannot start thread %d\n", t);
            return 1;
        }
    }
    stage_worker sum = {0};
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        sum.decode += ws[t].decode;
        sum.model += ws[t].model;
        sum.build += ws[t].build;
        sum.photos += ws[t].photos;
        sum.hash += ws[t].hash;
    }
    double wall = bench_now() - t0;
    if (atomic_load(&run.failed))
        return 1;
    const double n = sum.photos;
    printf("bench_stages: %d photos on %d threads, %.2f s, %.1f photos/s; ms a photo: decode %.2f, models %.2f, "
           "build %.2f (sum %.2f); networks hash %016llx\n",
           sum.photos, threads, wall, n / wall, 1e3 * sum.decode / n, 1e3 * sum.model / n, 1e3 * sum.build / n,
           1e3 * (sum.decode + sum.model + sum.build) / n, (unsigned long long)sum.hash);
    for (int k = 0; k < run.count; k++)
        free(run.names[k]);
    free(run.names);
    return 0;
}
