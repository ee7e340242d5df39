/* Max-flow benchmark: CPU and GPU engines side by side on generated
 * instances. Every GPU result is checked against the CPU engine (value and
 * bit-identical cut) and the certificate before it is timed. GPU solve
 * times come from CUDA events (mf_stats), end-to-end times include upload
 * and download; each is the median of the repeats.
 *
 * usage: bench_maxflow [--suite cpu|gpu|quick] [--repeats R] [--cpu-repeats R]
 *                      [--no-gpu] [--phase2] [--only SUBSTRING]
 *                      [--gpu-tuning KEY=VALUE,...]
 * --gpu-tuning sets the GPU engine's tuning (tuning.h, mf_gpu_tuning's
 * keys), e.g. cycles=16,group=8. */
#define _POSIX_C_SOURCE 200809L
#include "flowcut/maxflow.h"
#include "tuning.h"

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct instance {
    const char *name;
    char family; /* r genrmf, w rlg, a acyclic-dense, g grid */
    int32_t p1, p2;
} instance;

static const instance gpu_suite[] = {
    {"genrmf-wide a64 b64", 'r', 64, 64},      {"genrmf-wide a128 b128", 'r', 128, 128},
    {"genrmf-long a32 b256", 'r', 32, 256},    {"genrmf-long a48 b384", 'r', 48, 384},
    {"rlg 512x1024", 'w', 512, 1024},          {"rlg 1024x1024", 'w', 1024, 1024},
    {"rlg 2048x2048", 'w', 2048, 2048},        {"acyclic-dense 2000", 'a', 2000, 0},
    {"acyclic-dense 4000", 'a', 4000, 0},      {"grid 1 Mpx (1000x1000, 4-conn)", 'g', 1000, 1000},
    {"grid 4 Mpx (2000x2000, 4-conn)", 'g', 2000, 2000},
    {"grid 16 Mpx (4000x4000, 4-conn)", 'g', 4000, 4000},
};

/* 0.25 M to 2 M vertices, for the CPU tables of docs/benchmarks.md */
static const instance cpu_suite[] = {
    {"genrmf-wide a64 b64", 'r', 64, 64},   {"genrmf-wide a96 b96", 'r', 96, 96},
    {"genrmf-wide a128 b128", 'r', 128, 128}, {"genrmf-long a32 b256", 'r', 32, 256},
    {"genrmf-long a48 b384", 'r', 48, 384}, {"genrmf-long a64 b512", 'r', 64, 512},
    {"rlg 512x512", 'w', 512, 512},         {"rlg 512x1024", 'w', 512, 1024},
    {"rlg 1024x2048", 'w', 1024, 2048},     {"acyclic-dense 1000", 'a', 1000, 0},
    {"acyclic-dense 2000", 'a', 2000, 0},   {"grid 0.25 Mpx (500x500, 4-conn)", 'g', 500, 500},
    {"grid 1 Mpx (1000x1000, 4-conn)", 'g', 1000, 1000},
    {"grid 2 Mpx (1414x1414, 4-conn)", 'g', 1414, 1414},
};

static const instance quick_suite[] = {
    {"genrmf-wide a32 b32", 'r', 32, 32}, {"rlg 256x256", 'w', 256, 256},
    {"acyclic-dense 500", 'a', 500, 0},   {"grid 0.25 Mpx (500x500, 4-conn)", 'g', 500, 500},
};

static int generate(const instance *in, mf_arclist *list)
{
    switch (in->family) {
    case 'r': return mf_gen_genrmf(in->p1, in->p2, 100, 10000, 1, list);
    case 'w': return mf_gen_washington_rlg(in->p1, in->p2, 10000, 1, list);
    case 'a': return mf_gen_acyclic_dense(in->p1, 1, list);
    default: return mf_gen_grid(in->p1, in->p2, 4, 1, list);
    }
}

int main(int argc, char **argv)
{
    const instance *suite = gpu_suite;
    size_t count = sizeof gpu_suite / sizeof gpu_suite[0];
    int repeats = 5, cpu_repeats = 1, use_gpu = 1, phase2 = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--suite") && i + 1 < argc) {
            const char *s = argv[++i];
            if (!strcmp(s, "cpu")) {
                suite = cpu_suite;
                count = sizeof cpu_suite / sizeof cpu_suite[0];
            } else if (!strcmp(s, "quick")) {
                suite = quick_suite;
                count = sizeof quick_suite / sizeof quick_suite[0];
            }
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--cpu-repeats") && i + 1 < argc) {
            cpu_repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--no-gpu")) {
            use_gpu = 0;
        } else if (!strcmp(argv[i], "--phase2")) {
            phase2 = 1;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--gpu-tuning") && i + 1 < argc) {
            mf_gpu_tuning tuning = *mf_gpu_tuning_get();
            char msg[200];
            if (mf_gpu_tuning_parse(&tuning, argv[++i], msg, sizeof msg)) {
                fprintf(stderr, "bench_maxflow: %s\n", msg);
                return 2;
            }
            mf_gpu_tuning_set(&tuning);
        } else {
            fprintf(stderr, "usage: bench_maxflow [--suite cpu|gpu|quick] [--repeats R] "
                            "[--cpu-repeats R] [--no-gpu] [--phase2] [--only SUBSTRING] "
                            "[--gpu-tuning KEY=VALUE,...]\n");
            return 2;
        }
    }
    if (repeats < 1) repeats = 1;
    if (cpu_repeats < 1) cpu_repeats = 1;
    mf_gpu_solver *solver = NULL;
    mf_error err = {0};
    int ndev = 0;
    if (use_gpu) {
        if (mf_gpu_available(&ndev) != MF_OK || ndev == 0 || mf_gpu_solver_create(0, &solver, &err)) {
            printf("GPU: skipped: no CUDA device\n");
            use_gpu = 0;
        }
    }
    char device[128] = "";
    int failures = 0;
    printf("%-34s %9s %10s %14s %9s %9s %9s %8s %7s %5s %7s %6s %8s\n", "instance", "|V|", "|E|", "flow", "cpu_s",
           "gpu_s", "gpu_e2e_s", "speedup", "rounds", "bfs", "levels", "bfs_s", "visits/n");
    for (size_t k = 0; k < count; k++) {
        const instance *in = &suite[k];
        if (only && !strstr(in->name, only))
            continue;
        mf_arclist list;
        mf_graph g;
        if (generate(in, &list) || mf_graph_from_arcs(&list, NULL, &g, &err)) {
            printf("%-34s generation failed\n", in->name);
            failures++;
            continue;
        }
        int32_t input_arcs = list.num_arcs;
        mf_arclist_free(&list);
        mf_options opt;
        mf_options_default(&opt);
        opt.phase2 = phase2;
        opt.engine = MF_ENGINE_CPU;
        double cpu_t[16], gpu_t[64], e2e_t[64];
        mf_result cpu;
        memset(&cpu, 0, sizeof cpu);
        for (int r = 0; r < cpu_repeats && r < 16; r++) {
            mf_result_free(&cpu);
            if (mf_solve_cpu(&g, &opt, &cpu, &err)) {
                printf("%-34s CPU failed: %s\n", in->name, err.message);
                failures++;
                break;
            }
            cpu_t[r] = cpu.stats.solve_seconds;
        }
        if (mf_verify(&g, &cpu, phase2, &err)) {
            printf("%-34s CPU certificate FAILED: %s\n", in->name, err.message);
            failures++;
        }
        double cpu_med = bench_median(cpu_t, cpu_repeats < 16 ? cpu_repeats : 16);
        double gpu_med = 0, e2e_med = 0;
        long long rounds = 0;
        mf_stats gst;
        memset(&gst, 0, sizeof gst);
        if (use_gpu) {
            int ok = 1;
            for (int r = -1; r < repeats && r < 64; r++) { /* r = -1: warm-up and check */
                mf_result gr;
                double t0 = bench_now();
                if (mf_gpu_solve(solver, &g, &opt, &gr, &err)) {
                    printf("%-34s GPU failed: %s\n", in->name, err.message);
                    ok = 0;
                    break;
                }
                double t1 = bench_now();
                if (r < 0) {
                    snprintf(device, sizeof device, "%s", gr.stats.device_name);
                    rounds = gr.stats.rounds;
                    gst = gr.stats;
                    if (gr.flow_value != cpu.flow_value ||
                        memcmp(gr.source_side, cpu.source_side, (size_t)g.num_vertices) ||
                        mf_verify(&g, &gr, phase2, &err)) {
                        printf("%-34s GPU MISMATCH: flow %lld vs CPU %lld (%s)\n", in->name,
                               (long long)gr.flow_value, (long long)cpu.flow_value, err.message);
                        ok = 0;
                    }
                } else {
                    gpu_t[r] = gr.stats.solve_seconds;
                    e2e_t[r] = t1 - t0;
                }
                mf_result_free(&gr);
                if (!ok)
                    break;
            }
            if (!ok) {
                failures++;
            } else {
                gpu_med = bench_median(gpu_t, repeats < 64 ? repeats : 64);
                e2e_med = bench_median(e2e_t, repeats < 64 ? repeats : 64);
            }
        }
        if (use_gpu && gpu_med > 0)
            printf("%-34s %9d %10d %14lld %9.3f %9.4f %9.4f %7.1fx %7lld %5lld %7lld %6.3f %8.1f\n", in->name,
                   g.num_vertices, input_arcs, (long long)cpu.flow_value, cpu_med, gpu_med, e2e_med,
                   cpu_med / gpu_med, rounds, (long long)gst.global_relabels, (long long)gst.bfs_levels,
                   gst.relabel_seconds, (double)gst.visits / g.num_vertices);
        else
            printf("%-34s %9d %10d %14lld %9.3f %9s %9s %8s %7s\n", in->name, g.num_vertices,
                   input_arcs, (long long)cpu.flow_value, cpu_med, "-", "-", "-", "-");
        fflush(stdout);
        mf_result_free(&cpu);
        mf_graph_free(&g);
    }
    if (device[0])
        printf("device: %s\n", device);
    mf_gpu_solver_destroy(solver);
    if (failures)
        printf("FAILURES: %d\n", failures);
    return failures ? 1 : 0;
}
