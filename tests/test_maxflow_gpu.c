/* GPU engine differential test: every family, size and seed against the
 * CPU engine (same value, bit-identical cut) and the certificate.
 * Without a CUDA device it says "skipped: no CUDA device" and exits 77,
 * which ctest reports as skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mf_gpu_solver *solver; /* one solver reused across all graphs */

static void compare_engines(const mf_arclist *list, int phase2, const char *what)
{
    mf_graph g;
    mf_result cpu, gpu;
    mf_error err = {0};
    mf_options opt;
    mf_options_default(&opt);
    opt.phase2 = phase2;
    assert_int_equal(mf_graph_from_arcs(list, NULL, &g, &err), MF_OK);
    opt.engine = MF_ENGINE_CPU;
    assert_int_equal(mf_solve(&g, &opt, &cpu, &err), MF_OK);
    if (mf_gpu_solve(solver, &g, &opt, &gpu, &err) != MF_OK)
        fail_msg("%s: GPU solve failed: %s", what, err.message);
    if (gpu.flow_value != cpu.flow_value)
        fail_msg("%s: GPU flow %lld, CPU %lld", what, (long long)gpu.flow_value,
                 (long long)cpu.flow_value);
    if (mf_verify(&g, &gpu, phase2, &err) != MF_OK)
        fail_msg("%s: GPU certificate: %s", what, err.message);
    if (memcmp(gpu.source_side, cpu.source_side, (size_t)g.num_vertices) != 0)
        fail_msg("%s: GPU cut differs from the CPU cut", what);
    mf_result_free(&cpu);
    mf_result_free(&gpu);
    mf_graph_free(&g);
}

static void test_random_graphs(void **state)
{
    (void)state;
    int count = 0;
    for (int family = 0; family < FAMILY_COUNT; family++)
        for (uint64_t seed = 1; seed <= 40; seed++) {
            mf_arclist list;
            int32_t n = 2 + (int32_t)(seed * 53 % (family == FAMILY_DENSE ? 40 : 300));
            assert_int_equal(random_graph(family, n, seed, &list), MF_OK);
            char what[64];
            snprintf(what, sizeof what, "random family %d seed %llu", family, (unsigned long long)seed);
            compare_engines(&list, (int)(seed & 1), what);
            mf_arclist_free(&list);
            count++;
        }
    printf("compared %d random graphs\n", count);
}

static void test_generator_families(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        mf_arclist list;
        char what[96];
        static const int32_t rmf[][2] = {{8, 8}, {16, 4}, {6, 40}, {24, 24}};
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(mf_gen_genrmf(rmf[i][0], rmf[i][1], 100, 10000, seed, &list), MF_OK);
            snprintf(what, sizeof what, "genrmf %dx%d seed %llu", rmf[i][0], rmf[i][1], (unsigned long long)seed);
            compare_engines(&list, (int)(i & 1), what);
            mf_arclist_free(&list);
        }
        static const int32_t rlg[][2] = {{16, 32}, {64, 64}, {128, 256}};
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(mf_gen_washington_rlg(rlg[i][0], rlg[i][1], 10000, seed, &list), MF_OK);
            snprintf(what, sizeof what, "rlg %dx%d seed %llu", rlg[i][0], rlg[i][1], (unsigned long long)seed);
            compare_engines(&list, (int)(i & 1), what);
            mf_arclist_free(&list);
        }
        static const int32_t ad[] = {50, 300};
        for (size_t i = 0; i < 2; i++) {
            assert_int_equal(mf_gen_acyclic_dense(ad[i], seed, &list), MF_OK);
            snprintf(what, sizeof what, "acyclic-dense %d seed %llu", ad[i], (unsigned long long)seed);
            compare_engines(&list, (int)(i & 1), what);
            mf_arclist_free(&list);
        }
        static const int32_t grid[][3] = {{64, 48, 4}, {200, 150, 8}, {512, 512, 4}};
        for (size_t i = 0; i < 3; i++) {
            assert_int_equal(mf_gen_grid(grid[i][0], grid[i][1], grid[i][2], seed, &list), MF_OK);
            snprintf(what, sizeof what, "grid %dx%d/%d seed %llu", grid[i][0], grid[i][1], grid[i][2],
                     (unsigned long long)seed);
            compare_engines(&list, (int)(i & 1), what);
            mf_arclist_free(&list);
        }
    }
}

static void test_known_instances(void **state)
{
    (void)state;
    FILE *f = fopen(test_data_path("EXPECTED.tsv"), "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        char name[256];
        long long value;
        if (sscanf(line, "%255s %*d %*d %*d %*d %lld", name, &value) != 2)
            continue;
        mf_arclist list;
        mf_error err = {0};
        assert_int_equal(mf_read_dimacs(test_data_path(name), &list, &err), MF_OK);
        for (int phase2 = 0; phase2 < 2; phase2++)
            compare_engines(&list, phase2, name);
        mf_arclist_free(&list);
    }
    fclose(f);
}

/* Warm re-solve on the device: the CPU suite's batches, each against
 * Edmonds-Karp or a cold CPU solve, certificates included. */
static void test_dynamic_random(void **state)
{
    (void)state;
    check_dynamic_random(MF_ENGINE_GPU);
}

static void test_dynamic_generators(void **state)
{
    (void)state;
    check_dynamic_generators(MF_ENGINE_GPU);
}

int main(void)
{
    int count = 0;
    mf_error err = {0};
    if (!mf_gpu_compiled() || mf_gpu_available(&count) != MF_OK || count == 0) {
        printf("skipped: no CUDA device\n");
        return 77;
    }
    if (mf_gpu_solver_create(0, &solver, &err) != MF_OK) {
        printf("GPU solver: %s\n", err.message);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_instances),
        cmocka_unit_test(test_random_graphs),
        cmocka_unit_test(test_generator_families),
        cmocka_unit_test(test_dynamic_random),
        cmocka_unit_test(test_dynamic_generators),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    mf_gpu_solver_destroy(solver);
    return rc;
}
