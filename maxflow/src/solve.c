/* Engine dispatch: auto picks the GPU when it is usable and the graph fits. */
#include "internal.h"

#include <string.h>

int mf_solve(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    mf_options defaults;
    if (!opt) {
        mf_options_default(&defaults);
        opt = &defaults;
    }
    if (opt->engine == MF_ENGINE_CPU)
        return mf_solve_cpu(g, opt, res, err);
    int count = 0;
    int have_gpu = mf_gpu_compiled() && mf_gpu_available(&count) == MF_OK && count > 0;
    if (!have_gpu) {
        if (opt->engine == MF_ENGINE_GPU)
            return mf_fail(err, MF_ERR_NO_DEVICE, NULL, 0,
                           mf_gpu_compiled() ? "no CUDA device is available"
                                             : "this build has no CUDA support");
        return mf_solve_cpu(g, opt, res, err);
    }
    mf_gpu_solver *solver = NULL;
    int rc = mf_gpu_solver_create(opt->device, &solver, err);
    if (rc == MF_OK) {
        rc = mf_gpu_solve(solver, g, opt, res, err);
        mf_gpu_solver_destroy(solver);
    }
    if (rc == MF_ERR_DEVICE_MEMORY && opt->engine == MF_ENGINE_AUTO) {
        int r2 = mf_solve_cpu(g, opt, res, err);
        if (r2 == MF_OK)
            res->stats.engine_used = MF_ENGINE_CPU; /* caller sees the fallback */
        return r2;
    }
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
