/* GPU entry points for builds without CUDA: every call says so. */
#include "internal.h"

int mf_gpu_compiled(void) { return 0; }

int mf_gpu_available(int *device_count)
{
    if (device_count)
        *device_count = 0;
    return MF_ERR_NO_DEVICE;
}

int mf_gpu_solver_create(int device, mf_gpu_solver **out, mf_error *err)
{
    (void)device;
    *out = NULL;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

int mf_gpu_set_wait(int device, mf_gpu_wait mode, mf_error *err)
{
    (void)device; (void)mode;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

size_t mf_gpu_memory_needed(const mf_graph *g)
{
    (void)g;
    return 0;
}

int mf_gpu_memory_free(mf_gpu_solver *s, size_t *free_bytes)
{
    (void)s;
    *free_bytes = 0;
    return MF_ERR_NO_DEVICE;
}

int mf_gpu_solve(mf_gpu_solver *s, const mf_graph *g, const mf_options *opt,
                 mf_result *res, mf_error *err)
{
    (void)s; (void)g; (void)opt; (void)res;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

int mf_gpu_solve_many(mf_gpu_solver *s, const mf_graph *const *networks, int k, const mf_options *opt,
                      mf_result *res, mf_error *err)
{
    (void)s; (void)networks; (void)k; (void)opt; (void)res;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

int mf_gpu_solve_many_grids(mf_gpu_solver *s, const mf_grid *const *grids, int k, const mf_options *opt,
                            mf_result *res, mf_error *err)
{
    (void)s; (void)grids; (void)k; (void)opt; (void)res;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

void mf_gpu_solver_destroy(mf_gpu_solver *s) { (void)s; }

int mf_gpu_dyn_load(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
{
    (void)s; (void)g;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

int mf_gpu_dyn_load_caps(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
{
    (void)s; (void)g;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

int mf_gpu_dyn_update(mf_gpu_solver *s, const mf_graph *g, int32_t count, const int32_t *changes,
                      int *deficits, int64_t *removed, mf_error *err)
{
    (void)s; (void)g; (void)count; (void)changes; (void)deficits; (void)removed;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

int mf_gpu_dyn_solve(mf_gpu_solver *s, const mf_graph *g, const mf_options *opt, int deficits,
                     mf_result *res, mf_error *err)
{
    (void)s; (void)g; (void)opt; (void)deficits; (void)res;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}

int mf_gpu_dyn_reset(mf_gpu_solver *s, const mf_graph *g, mf_error *err)
{
    (void)s; (void)g;
    return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0, "this build has no CUDA support");
}
