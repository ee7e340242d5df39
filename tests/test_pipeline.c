/* The batch's jobs (segment/lib/pipeline.h) with networks in grid form
 * (seg_job_start_grid) against the usual CSR networks: the same flow and
 * mask, solved on the CPU (the grid expanded on the host), iterations
 * included, and with a CUDA device in unions (seg_jobs_solve_gpu, the grid
 * expanded on the device). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FLOWCUT_EXAMPLES_DIR
#define FLOWCUT_EXAMPLES_DIR "examples"
#endif
#define PHOTO FLOWCUT_EXAMPLES_DIR "/coffee.png"
#define SEEDS FLOWCUT_EXAMPLES_DIR "/coffee-seeds.png"

/* Runs one job to its end, solving with solver (NULL: the CPU); the
 * mask and the flow come back. */
static void run_job(int grid, const seg_options *o, mf_gpu_solver *solver, uint8_t **mask, int64_t *flow,
                    int64_t *npx)
{
    seg_job j;
    int rc = (grid ? seg_job_start_grid : seg_job_start)(&j, PHOTO, SEEDS, o);
    if (rc)
        fail_msg("job start: %s", j.r.error);
    assert_true(grid ? j.grid.w != NULL && j.graph.num_vertices == 0 : j.grid.w == NULL);
    /* the batch's launches and back-pressure count the network's vertices, either form */
    assert_true(seg_job_vertices(&j) == (int64_t)j.r.photo.width * j.r.photo.height + 2);
    for (;;) {
        if (seg_job_solve(&j, o, solver))
            fail_msg("solve: %s", j.r.error);
        rc = seg_job_next(&j, o);
        assert_true(rc >= 0);
        if (rc == 0)
            break;
    }
    *npx = (int64_t)j.r.mask.width * j.r.mask.height;
    *mask = malloc((size_t)*npx);
    assert_non_null(*mask);
    memcpy(*mask, j.r.mask.data, (size_t)*npx);
    *flow = j.r.flow_value;
    seg_job_free(&j);
    seg_result_free(&j.r);
}

static void compare_modes(const seg_options *o, mf_gpu_solver *solver, const char *what)
{
    uint8_t *a, *b;
    int64_t fa, fb, na, nb;
    run_job(0, o, NULL, &a, &fa, &na);
    run_job(1, o, solver, &b, &fb, &nb);
    assert_true(na == nb);
    if (fa != fb)
        fail_msg("%s: flow %lld (CSR, CPU) against %lld (grid form)", what, (long long)fa, (long long)fb);
    if (memcmp(a, b, (size_t)na))
        fail_msg("%s: the masks differ", what);
    free(a);
    free(b);
}

/* On the CPU: the grid form expanded on the host, both connectivities,
 * with and without the prior, with in-lists and without (the batch's
 * setting), and with GrabCut iterations (each rebuilds in grid form). */
static void test_grid_jobs_cpu(void **state)
{
    (void)state;
    seg_options o;
    seg_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    compare_modes(&o, NULL, "defaults");
    o.graph.connectivity = 4;
    o.graph.in_lists = 0;
    compare_modes(&o, NULL, "4-connected, no in-lists");
    o.graph.connectivity = 8;
    o.graph.geodesic = 0;
    o.iterations = 2;
    compare_modes(&o, NULL, "no prior, 2 iterations");
    o.iterations = 0;
    o.graph.geodesic = 14;
    o.graph.star = 1; /* no grid form: the job builds its CSR network */
    seg_job j;
    assert_int_equal(seg_job_start_grid(&j, PHOTO, SEEDS, &o), 0);
    assert_null(j.grid.w);
    assert_true(j.graph.num_vertices > 0);
    seg_job_free(&j);
    seg_result_free(&j.r);
}

/* On the device: alone, and four photos' grids in one union launch. */
static void test_grid_jobs_gpu(void **state)
{
    (void)state;
    int count = 0;
    if (!mf_gpu_compiled() || mf_gpu_available(&count) != MF_OK || count == 0) {
        printf("skipped: no CUDA device\n");
        skip();
    }
    mf_gpu_solver *solver = NULL;
    mf_error err = {0};
    assert_int_equal(mf_gpu_solver_create(0, &solver, &err), MF_OK);
    seg_options o;
    seg_options_default(&o);
    o.solve.engine = MF_ENGINE_GPU;
    o.graph.in_lists = 0;
    compare_modes(&o, solver, "one job on the device");
    uint8_t *ref;
    int64_t flow, npx;
    seg_options cpu = o;
    cpu.solve.engine = MF_ENGINE_CPU;
    run_job(0, &cpu, NULL, &ref, &flow, &npx);
    seg_job jobs[4], *ptr[4];
    int failed[4];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(seg_job_start_grid(&jobs[i], PHOTO, SEEDS, &o), 0);
        ptr[i] = &jobs[i];
    }
    seg_jobs_solve_gpu(ptr, 4, &o, solver, failed);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(failed[i], 0);
        assert_int_equal(seg_job_next(&jobs[i], &o), 0);
        assert_true(jobs[i].r.flow_value == flow);
        assert_memory_equal(jobs[i].r.mask.data, ref, (size_t)npx);
        seg_job_free(&jobs[i]);
        seg_result_free(&jobs[i].r);
    }
    free(ref);
    mf_gpu_solver_destroy(solver);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_jobs_cpu),
        cmocka_unit_test(test_grid_jobs_gpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
