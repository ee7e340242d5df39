/* The batch scheduler (seg_batch_run): CPU workers decode, fit models and
 * build networks while one thread per device stream solves them, several
 * photos a launch; without a device the workers solve. Outputs are written
 * all or none; a bad file fails only its own item. */
#define _GNU_SOURCE /* gettid, setpriority of one thread */
#include "outputs.h"
#include "pipeline.h"
#include "save.h"
#include "seg_internal.h"

#include "flowcut_threads.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAX_GPUS 64
#define MAX_PER_GPU 16
#define MAX_PER_LAUNCH 32

/* How much lower the CPU workers run than the stream threads when GPUs
 * solve: a stream thread that waits for a core leaves its GPU idle between
 * kernel launches, and as many workers as cores keep every core busy. */
#define GPU_WORKER_NICE 5

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

typedef struct batch_run {
    const seg_batch_item *items;
    seg_options *opt;
    const seg_batch_config *cfg;
    size_t count, next;
    int use_gpu;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    queue to_solve, solved;
    size_t in_flight, max_in_flight, max_queued;
    int gpu_threads_running;
    int per_launch;                                /* photos one GPU launch may solve together */
    int64_t queued_vertices, max_queued_vertices; /* networks waiting for a GPU */
    seg_batch_stats *stats;                        /* counters, under lock */
} batch_run;

static int stopped(const batch_run *run)
{
    return run->cfg->stop && *run->cfg->stop;
}

void seg_batch_config_default(seg_batch_config *c)
{
    memset(c, 0, sizeof *c);
    c->ndevices = -1;
    c->per_gpu = 4;
    c->per_launch = 16;
    c->alloc_cache_bytes = -1;
}

/* How much released memory the batch keeps for the next photos
 * (mf_alloc_cache_limit) by default: fresh pages are zeroed by the kernel
 * one by one, a sizeable part of a CPU batch. A typical photo's arrays come
 * to about 60 MB, so 128 MB a worker, at most a quarter of the memory. */
static size_t alloc_cache_bytes(long jobs)
{
    return seg_memory_share((size_t)jobs * ((size_t)128 << 20));
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

/* Reports an ended item and counts it. Under run->lock. */
static void report(batch_run *run, size_t index, const seg_result *r, int code, const char *error)
{
    seg_batch_outcome o = {.index = index, .code = code, .error = code ? error : NULL};
    seg_batch_stats *s = run->stats;
    if (code == SEG_OK) {
        o.width = r->photo.width;
        o.height = r->photo.height;
        o.flow = r->flow_value;
        o.foreground = r->foreground_pixels;
        o.engine = r->engine_used;
        o.device = r->device;
        o.decode_seconds = r->times.decode;
        o.model_seconds = r->times.model;
        o.build_seconds = r->times.build;
        o.solve_seconds = r->times.solve;
        o.encode_seconds = r->times.encode;
        s->ok++;
        s->decode_seconds += o.decode_seconds;
        s->model_seconds += o.model_seconds;
        s->build_seconds += o.build_seconds;
        s->solve_seconds += o.solve_seconds;
        s->encode_seconds += o.encode_seconds;
    } else {
        s->failed++;
    }
    if (run->cfg->report)
        run->cfg->report(run->cfg->user, &o);
}

/* An item's outputs are one result: rendered first, written all or none. */
static int write_outputs(const seg_batch_item *it, seg_result *r, int overwrite, char *msg, size_t msg_size)
{
    double t0 = seg_now();
    const char *paths[3] = {it->mask, it->overlay, it->cutout};
    for (int i = 0; i < 3; i++)
        if (paths[i] && seg_make_parent_dirs(paths[i])) {
            snprintf(msg, msg_size, "%s: cannot create its folder: %s", paths[i], strerror(errno));
            return -1;
        }
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
        rc = seg_save_pngs(n, paths, imgs, overwrite, msg, msg_size);
    img_free(&ov);
    img_free(&co);
    r->times.encode = seg_now() - t0;
    return rc;
}

/* An item has ended: reported, no longer in flight, the waiting threads
 * woken (a worker may start the next item, the last one may leave). */
static void end_item(batch_run *run, size_t index, const seg_result *r, int code, const char *error)
{
    pthread_mutex_lock(&run->lock);
    report(run, index, r, code, error);
    run->in_flight--;
    pthread_cond_broadcast(&run->wake);
    pthread_mutex_unlock(&run->lock);
}

/* Ends a task: writes its outputs or reports its failure; frees it. */
static void finish(batch_run *run, task *t)
{
    const seg_batch_item *it = &run->items[t->index];
    char msg[1024];
    int ok = !t->failed && write_outputs(it, &t->job.r, run->cfg->overwrite, msg, sizeof msg) == 0;
    int code = ok ? SEG_OK : t->failed ? (t->job.r.code ? t->job.r.code : SEG_ERR_SOLVE) : SEG_ERR_IO;
    end_item(run, t->index, &t->job.r, code, t->failed ? t->job.r.error : msg);
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
static int start_job(batch_run *run, const seg_batch_item *it, seg_job *job)
{
    seg_options o = *run->opt;
    seg_prompts *p = NULL;
    o.prompts = NULL;
    o.previous = NULL; /* a previous answer is one photo's, not a batch's */
    if (it->prompts) {
        seg_error e = {0};
        if (!(p = seg_prompts_new()) || seg_prompts_read_file(p, it->prompts, &e)) {
            memset(job, 0, sizeof *job);
            snprintf(job->r.error, sizeof job->r.error, "%s", p ? e.message : "out of memory");
            job->r.code = p ? e.code : SEG_ERR_NOMEM;
            seg_prompts_free(p);
            return 1;
        }
        o.prompts = p;
    }
    int rc = (run->use_gpu ? seg_job_start_grid : seg_job_start)(job, it->image, it->seeds, &o);
    seg_prompts_free(p); /* read by the start alone */
    return rc != 0;
}

static void start_task(batch_run *run, size_t index)
{
    task *t = calloc(1, sizeof *t);
    if (!t) {
        end_item(run, index, NULL, SEG_ERR_NOMEM, "out of memory");
        return;
    }
    t->index = index;
    t->failed = start_job(run, &run->items[index], &t->job);
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

static void *cpu_worker(void *arg)
{
    batch_run *run = arg;
    if (run->use_gpu) { /* Linux: a thread id names this thread alone; failure costs only speed */
        errno = 0;
        int cur = getpriority(PRIO_PROCESS, (id_t)gettid());
        if (errno == 0)
            (void)setpriority(PRIO_PROCESS, (id_t)gettid(), cur + GPU_WORKER_NICE);
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
        if (!stopped(run) && run->next < run->count && run->in_flight < run->max_in_flight) {
            size_t index = run->next++;
            run->in_flight++;
            pthread_mutex_unlock(&run->lock);
            start_task(run, index);
            pthread_mutex_lock(&run->lock);
            continue;
        }
        if ((stopped(run) || run->next >= run->count) && run->in_flight == 0)
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

/* Takes the queued networks one launch solves together, as
 * mf_gpu_launch_takes groups them. Under run->lock. */
static int take_launch(batch_run *run, task **group)
{
    int k = 0;
    int64_t vertices = 0;
    while (run->to_solve.head) {
        const int64_t nv = seg_job_vertices(&run->to_solve.head->job);
        if (!mf_gpu_launch_takes(k, vertices, nv, run->per_launch))
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
            run->stats->launches++;
            run->stats->launched += (size_t)k;
            for (int i = 0; i < k; i++) {
                group[i]->failed = failed[i];
                push(&run->solved, group[i]);
            }
            pthread_cond_broadcast(&run->wake);
            continue;
        }
        if ((stopped(run) || run->next >= run->count) && run->in_flight == 0)
            break;
        pthread_cond_wait(&run->wake, &run->lock);
    }
    pthread_mutex_unlock(&run->lock);
    return NULL;
}

/* The solving devices: c's list, every usable one, or none, as the engine
 * decision (mf_engine_pick) allows. */
static int pick_devices(const seg_options *o, const seg_batch_config *c, int32_t *devices, int32_t *n,
                        seg_error *err)
{
    mf_engine engine = MF_ENGINE_CPU;
    int usable = 0;
    mf_error me = {0};
    *n = 0;
    if (o->solve.engine == MF_ENGINE_CPU || c->ndevices == 0)
        return o->solve.engine == MF_ENGINE_GPU ? seg_fail(err, SEG_ERR_INVALID, "engine gpu with no device to use")
                                                : SEG_OK;
    mf_options want = o->solve;
    if (c->ndevices > 0)
        want.engine = MF_ENGINE_GPU; /* devices named: they must be there */
    if (mf_engine_pick(&want, &engine, &usable, &me))
        return seg_fail(err, SEG_ERR_SOLVE, "%s", me.message);
    if (engine != MF_ENGINE_GPU)
        return SEG_OK;
    if (c->ndevices > 0) {
        if (c->ndevices > MAX_GPUS || !c->devices)
            return seg_fail(err, SEG_ERR_INVALID, "%d devices: at most %d", c->ndevices, MAX_GPUS);
        *n = c->ndevices;
        memcpy(devices, c->devices, sizeof *devices * (size_t)*n);
        return SEG_OK;
    }
    *n = usable < MAX_GPUS ? usable : MAX_GPUS;
    for (int32_t i = 0; i < *n; i++)
        devices[i] = i;
    return SEG_OK;
}

/* Starts the threads and waits for them; threads has room for nsolvers +
 * jobs, gargs for nsolvers. */
static void run_threads(batch_run *run, mf_gpu_solver **solvers, int nsolvers, long jobs, pthread_t *threads,
                        gpu_worker_arg *gargs)
{
    size_t nthreads = 0, started_cpu = 0;
    for (int i = 0; i < nsolvers; i++) {
        gargs[i] = (gpu_worker_arg){run, solvers[i]};
        if (pthread_create(&threads[nthreads], NULL, gpu_worker, &gargs[i]) == 0)
            nthreads++;
    }
    run->gpu_threads_running = (int)nthreads;
    if (run->use_gpu && nthreads == 0) { /* no stream thread could start: the workers solve */
        run->use_gpu = 0;
        run->opt->solve.engine = MF_ENGINE_CPU;
    }
    for (long i = 0; i < jobs; i++)
        if (pthread_create(&threads[nthreads], NULL, cpu_worker, run) == 0) {
            nthreads++;
            started_cpu++;
        }
    if (started_cpu == 0)
        cpu_worker(run); /* no thread could start: work on this one */
    for (size_t i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
}

int seg_batch_run(const seg_batch_item *items, size_t count, const seg_options *opt, const seg_batch_config *c,
                  seg_batch_stats *stats_out, seg_error *err)
{
    seg_batch_config defaults;
    seg_batch_stats stats = {0};
    if (!c) {
        seg_batch_config_default(&defaults);
        c = &defaults;
    }
    if ((count && !items) || !opt)
        return seg_fail(err, SEG_ERR_INVALID, "seg_batch_run: no items or no options");
    const int per_gpu = c->per_gpu > 0 ? c->per_gpu : 4, per_launch = c->per_launch > 0 ? c->per_launch : 16;
    if (per_gpu > MAX_PER_GPU || per_launch > MAX_PER_LAUNCH)
        return seg_fail(err, SEG_ERR_INVALID, "at most %d photos a device and %d a launch", MAX_PER_GPU,
                        MAX_PER_LAUNCH);
    int32_t devices[MAX_GPUS], ndevices = 0;
    int rc = pick_devices(opt, c, devices, &ndevices, err);
    if (rc)
        return rc;
    long jobs = c->jobs > 0 ? c->jobs : mf_threads(0);
    seg_options o = *opt;
    if (!o.solve.threads) { /* each CPU worker gets its share of the cores for the network and
                             * the solve; many images, one thread each, one huge image, all */
        long cores = mf_threads(0), workers = jobs < (long)count ? jobs : (long)count;
        int share = workers > 0 && cores > workers ? (int)(cores / workers) : 1;
        o.graph.threads = o.solve.threads = share;
    }
    const int nsolvers = ndevices * per_gpu; /* solver i on device i / per_gpu, a stream each */
    mf_gpu_solver **solvers = calloc((size_t)nsolvers + 1, sizeof *solvers);
    pthread_t *threads = malloc(sizeof *threads * ((size_t)nsolvers + (size_t)jobs));
    gpu_worker_arg *gargs = malloc(sizeof *gargs * ((size_t)nsolvers + 1));
    if (!solvers || !threads || !gargs)
        rc = seg_fail(err, SEG_ERR_NOMEM, "out of memory");
    for (int i = 0; i < nsolvers && rc == SEG_OK; i++) {
        mf_error me = {0};
        /* stream threads sleep while their device solves: spinning, 4 a GPU
         * would take a quarter of 16 cores from the workers that feed it */
        if ((i % per_gpu == 0 && mf_gpu_set_wait(devices[i / per_gpu], MF_GPU_WAIT_BLOCK, &me)) ||
            mf_gpu_solver_create(devices[i / per_gpu], &solvers[i], &me))
            rc = seg_fail(err, SEG_ERR_SOLVE, "device %d: %s", devices[i / per_gpu], me.message);
    }
    batch_run run = {.items = items, .opt = &o, .cfg = c, .count = count, .stats = &stats};
    run.use_gpu = ndevices > 0;
    if (!run.use_gpu) /* the workers solve: on the CPU, never a device that c left out */
        o.solve.engine = MF_ENGINE_CPU;
    if (run.use_gpu || seg_cpu_skips_in_lists(&o))
        o.graph.in_lists = 0; /* a union launch builds them on the device (a sizeable part of a build), and
                               * a worker's one-thread CPU solve reads none */
    run.max_queued = 2 * (size_t)(nsolvers > 0 ? nsolvers : 1);
    run.per_launch = per_launch;
    run.max_queued_vertices = per_launch > 1 ? (int64_t)nsolvers * MF_GPU_LAUNCH_VERTICES : 0;
    run.max_in_flight = (size_t)jobs + run.max_queued + (size_t)nsolvers * (size_t)per_launch;
    stats.workers = (int32_t)jobs;
    stats.devices = ndevices;
    stats.per_gpu = per_gpu;
    if (rc == SEG_OK && count > 0) {
        pthread_mutex_init(&run.lock, NULL);
        pthread_cond_init(&run.wake, NULL);
        mf_alloc_cache_limit(c->alloc_cache_bytes >= 0 ? (size_t)c->alloc_cache_bytes : alloc_cache_bytes(jobs));
        const double start = seg_now();
        run_threads(&run, solvers, nsolvers, jobs < (long)count ? jobs : (long)count, threads, gargs);
        stats.seconds = seg_now() - start;
        mf_alloc_cache_limit(0);
        pthread_mutex_destroy(&run.lock);
        pthread_cond_destroy(&run.wake);
        stats.not_started = count - run.next;
    }
    for (int i = 0; solvers && i < nsolvers; i++)
        if (solvers[i])
            mf_gpu_solver_destroy(solvers[i]);
    free(solvers);
    free(threads);
    free(gargs);
    if (stats_out)
        *stats_out = stats;
    return rc;
}
