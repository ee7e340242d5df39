/* The engine decision, made here once for every front end (mf_engine_pick,
 * mf_engine_falls_back, mf_gpu_launch_takes), and the solves built on it:
 * one network (mf_solve) and many (mf_solve_many). */
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int mf_engine_pick(const mf_options *opt, mf_engine *engine, int *devices, mf_error *err)
{
    const mf_engine asked = opt ? opt->engine : MF_ENGINE_AUTO;
    int count = 0;
    *engine = MF_ENGINE_CPU;
    if (devices)
        *devices = 0;
    if (asked == MF_ENGINE_CPU)
        return MF_OK; /* no CUDA start: asking would cost the device's start-up */
    if (!(mf_gpu_compiled() && mf_gpu_available(&count) == MF_OK && count > 0)) {
        if (asked == MF_ENGINE_GPU)
            return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0,
                           mf_gpu_compiled() ? "no CUDA device is available" : "this build has no CUDA support");
        return MF_OK;
    }
    *engine = MF_ENGINE_GPU;
    if (devices)
        *devices = count;
    return MF_OK;
}

int mf_engine_falls_back(const mf_options *opt, int rc)
{
    /* only auto may change engines, and only for a network the device
     * cannot hold: any other failure is the caller's to see */
    return rc == MF_ERR_DEVICE_MEMORY && (!opt || opt->engine == MF_ENGINE_AUTO);
}

int mf_gpu_launch_takes(int32_t taken, int64_t taken_vertices, int64_t next_vertices, int32_t max_networks)
{
    if (taken == 0)
        return 1; /* one network, however large, at least */
    if (max_networks > MF_GPU_MANY_MAX)
        max_networks = MF_GPU_MANY_MAX;
    return taken < max_networks && taken_vertices + next_vertices <= MF_GPU_LAUNCH_VERTICES;
}

/* The CPU after a GPU attempt that fell back; the stats say so. */
static int solve_cpu_instead(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    mf_result_free(res);
    int rc = mf_solve_cpu(g, opt, res, err);
    if (rc == MF_OK) {
        res->stats.engine_used = MF_ENGINE_CPU;
        res->stats.fell_back = 1;
    }
    return rc;
}

int mf_solve(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    mf_options defaults;
    if (!opt) {
        mf_options_default(&defaults);
        opt = &defaults;
    }
    mf_engine engine;
    int rc = mf_engine_pick(opt, &engine, NULL, err);
    if (rc)
        return rc;
    if (engine == MF_ENGINE_CPU)
        return mf_solve_cpu(g, opt, res, err);
    mf_gpu_solver *solver = NULL;
    rc = mf_gpu_solver_create(opt->device, &solver, err);
    if (rc == MF_OK) {
        rc = mf_gpu_solve(solver, g, opt, res, err);
        mf_gpu_solver_destroy(solver);
    }
    if (mf_engine_falls_back(opt, rc))
        return solve_cpu_instead(g, opt, res, err);
    return rc;
}

/* ---- many networks */

/* Networks on the CPU side by side, one thread each: workers take the
 * next index until none is left; the first failure stops the rest. */
typedef struct many_cpu {
    const mf_graph *const *g;
    int32_t k;
    mf_options opt; /* threads 1 */
    mf_result *res;
    atomic_int next, failed_at;
    int rc;
    mf_error err;
    pthread_mutex_t lock;
} many_cpu;

static void *many_cpu_main(void *arg)
{
    many_cpu *m = arg;
    for (;;) {
        int i = atomic_fetch_add(&m->next, 1);
        if (i >= m->k || atomic_load(&m->failed_at) < m->k)
            return NULL;
        mf_error e = {0};
        int rc = mf_solve_cpu(m->g[i], &m->opt, &m->res[i], &e);
        if (rc) {
            pthread_mutex_lock(&m->lock);
            if (i < atomic_load(&m->failed_at)) { /* report the first in order */
                atomic_store(&m->failed_at, i);
                m->rc = rc;
                m->err = e;
            }
            pthread_mutex_unlock(&m->lock);
        }
    }
}

static int solve_many_cpu(const mf_graph *const *g, int32_t k, const mf_options *opt, mf_result *res, mf_error *err)
{
    /* threads given: in turn, that many threads each (the caller's
     * choice); else side by side, one thread each, as many as cores */
    const int cores = mf_threads(0);
    if (opt->threads > 0 || k < 2 || cores < 2) {
        for (int32_t i = 0; i < k; i++) {
            int rc = mf_solve_cpu(g[i], opt, &res[i], err);
            if (rc)
                return rc;
        }
        return MF_OK;
    }
    many_cpu m = {.g = g, .k = k, .opt = *opt, .res = res};
    m.opt.threads = 1;
    atomic_init(&m.next, 0);
    atomic_init(&m.failed_at, k);
    pthread_mutex_init(&m.lock, NULL);
    int n = cores < k ? cores : k;
    pthread_t tid[64];
    int started = 0;
    if (n > 64)
        n = 64;
    for (int i = 1; i < n; i++)
        if (pthread_create(&tid[started], NULL, many_cpu_main, &m) == 0)
            started++;
    many_cpu_main(&m);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&m.lock);
    if (atomic_load(&m.failed_at) < k) {
        if (err)
            *err = m.err;
        return m.rc;
    }
    return MF_OK;
}

static int terminals_last(const mf_graph *g)
{
    return g->source == g->num_vertices - 2 && g->sink == g->num_vertices - 1;
}

int mf_solve_many(const mf_graph *const *g, int32_t k, const mf_options *opt, mf_result *res, mf_error *err)
{
    mf_options defaults;
    if (!opt) {
        mf_options_default(&defaults);
        opt = &defaults;
    }
    if (k < 0 || (k > 0 && (!g || !res)))
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "mf_solve_many: %d networks", (int)k);
    for (int32_t i = 0; i < k; i++)
        memset(&res[i], 0, sizeof res[i]);
    mf_engine engine;
    int rc = mf_engine_pick(opt, &engine, NULL, err);
    if (rc == MF_OK && engine == MF_ENGINE_CPU)
        rc = solve_many_cpu(g, k, opt, res, err);
    if (rc || engine == MF_ENGINE_CPU)
        goto done;
    mf_gpu_solver *solver = NULL;
    if ((rc = mf_gpu_solver_create(opt->device, &solver, err)))
        goto done;
    mf_options cut = *opt;
    cut.cut_only = 1; /* what a union launch gives */
    for (int32_t i = 0; i < k && rc == MF_OK;) {
        int32_t n = 0;
        int64_t vertices = 0;
        /* a union launch joins networks whose terminals are their last two
         * vertices (mf_gpu_solve_many's form); any other goes alone */
        while (i + n < k && mf_gpu_launch_takes(n, vertices, g[i + n]->num_vertices, MF_GPU_MANY_MAX) &&
               (n == 0 || (terminals_last(g[i]) && terminals_last(g[i + n]))))
            vertices += g[i + n++]->num_vertices;
        /* one network alone keeps what the caller asked (flows, phase 2) */
        rc = n == 1 ? mf_gpu_solve(solver, g[i], opt, &res[i], err)
                    : mf_gpu_solve_many(solver, g + i, n, &cut, res + i, err);
        if (mf_engine_falls_back(opt, rc)) { /* too large together: each as mf_solve would */
            rc = MF_OK;
            for (int32_t j = i; j < i + n && rc == MF_OK; j++) {
                mf_result_free(&res[j]);
                rc = n > 1 ? mf_gpu_solve(solver, g[j], opt, &res[j], err) : MF_ERR_DEVICE_MEMORY;
                if (mf_engine_falls_back(opt, rc))
                    rc = solve_cpu_instead(g[j], opt, &res[j], err);
            }
        }
        i += n;
    }
    mf_gpu_solver_destroy(solver);
done:
    if (rc)
        for (int32_t i = 0; i < k; i++)
            mf_result_free(&res[i]);
    return rc;
}

int mf_engine_parse(const char *name, mf_engine *e)
{
    static const char *names[] = {"auto", "cpu", "gpu"};
    for (int i = 0; name && i < 3; i++)
        if (!strcmp(name, names[i])) {
            *e = (mf_engine)i;
            return MF_OK;
        }
    return MF_ERR_INVALID;
}
