/* Many small networks on one GPU: each solved alone (mf_gpu_solve, cut
 * only) against groups of K solved as one union (mf_gpu_solve_many).
 * Prints the wall time per network of both, median of the repeats, and
 * checks that every union result equals the solve alone (value and cut).
 *
 *   bench_many [--groups 2,4,8,16] [--repeats R] [--gpu-tuning KEY=VALUE,...] FILE.max ...
 *
 * --gpu-tuning sets the engine's tuning (tuning.h, mf_gpu_tuning's keys).
 *
 * Networks whose source and sink are not their last two vertices are
 * renumbered (flowcut graph already writes them last). */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "flowcut/maxflow.h"
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void terminals_last(mf_arclist *list)
{
    const int32_t n = list->num_vertices;
    if (list->source == n - 2 && list->sink == n - 1)
        return;
    for (int32_t a = 0; a < list->num_arcs; a++)
        for (int e = 0; e < 2; e++) {
            int32_t *x = e ? &list->head[a] : &list->tail[a];
            /* swap source <-> n-2 and sink <-> n-1, as one permutation */
            int32_t v = *x;
            v = v == list->source ? n - 2 : v == n - 2 ? list->source : v;
            const int32_t sink = list->sink == n - 2 ? list->source : list->sink;
            v = v == sink ? n - 1 : v == n - 1 ? sink : v;
            *x = v;
        }
    list->source = n - 2;
    list->sink = n - 1;
}

/* Where launches' time went: sums over every step-th result (each network
 * of a launch holds that launch's stats). */
typedef struct launch_sums {
    double upload, solve, bfs;
    int64_t levels, rounds, relabels;
} launch_sums;

static launch_sums sum_launches(const mf_result *r, int count, int step)
{
    launch_sums t = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < count; i += step) {
        t.upload += r[i].stats.upload_seconds;
        t.solve += r[i].stats.solve_seconds;
        t.bfs += r[i].stats.relabel_seconds;
        t.levels += r[i].stats.bfs_levels;
        t.rounds += r[i].stats.rounds;
        t.relabels += r[i].stats.global_relabels;
    }
    return t;
}

/* One row: per network the wall time, upload, solve and BFS time; per
 * launch the global relabels, levels and rounds. */
static void print_row(int k, int count, double per, double base, launch_sums t)
{
    const int launches = (count + k - 1) / k;
    printf("%-6d %10.2f %10.1f %8.2f |                   %6.2f %6.2f %6.2f |             %5.1f %6.0f %6.0f\n", k,
           1e3 * per, 1.0 / per, base / per, 1e3 * t.upload / count, 1e3 * t.solve / count, 1e3 * t.bfs / count,
           (double)t.relabels / launches, (double)t.levels / launches, (double)t.rounds / launches);
}

int main(int argc, char **argv)
{
    int groups[16] = {2, 4, 8, 16}, ngroups = 4, repeats = 3, first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--groups") && first + 1 < argc) {
            ngroups = 0;
            for (char *p = strtok(argv[++first], ","); p && ngroups < 16; p = strtok(NULL, ","))
                groups[ngroups++] = atoi(p);
        } else if (!strcmp(argv[first], "--repeats") && first + 1 < argc) {
            repeats = atoi(argv[++first]);
        } else if (!strcmp(argv[first], "--gpu-tuning") && first + 1 < argc) {
            mf_gpu_tuning tuning = *mf_gpu_tuning_get();
            char msg[200];
            if (mf_gpu_tuning_parse(&tuning, argv[++first], msg, sizeof msg)) {
                fprintf(stderr, "bench_many: %s\n", msg);
                return 2;
            }
            mf_gpu_tuning_set(&tuning);
        } else {
            fprintf(stderr, "usage: bench_many [--groups 2,4,8] [--repeats R] [--gpu-tuning KEY=VALUE,...] "
                            "FILE.max ...\n");
            return 2;
        }
    }
    const int count = argc - first;
    if (count < 1 || repeats < 1)
        return 2;
    mf_error err = {0};
    mf_gpu_solver *solver = NULL;
    if (mf_gpu_solver_create(0, &solver, &err) != MF_OK) {
        printf("skipped: %s\n", err.message);
        return 0;
    }
    mf_graph *g = calloc((size_t)count, sizeof *g);
    mf_result *alone = calloc((size_t)count, sizeof *alone), *many = calloc((size_t)count, sizeof *many);
    const mf_graph **parts = calloc((size_t)count, sizeof *parts);
    double *t = calloc((size_t)repeats, sizeof *t);
    if (!g || !alone || !many || !parts || !t)
        return 1;
    int64_t vertices = 0;
    for (int i = 0; i < count; i++) {
        mf_arclist list;
        if (mf_read_dimacs(argv[first + i], &list, &err) != MF_OK) {
            fprintf(stderr, "%s: %s\n", argv[first + i], err.message);
            return 1;
        }
        terminals_last(&list);
        if (mf_graph_from_arcs(&list, NULL, &g[i], &err) != MF_OK) {
            fprintf(stderr, "%s: %s\n", argv[first + i], err.message);
            return 1;
        }
        mf_arclist_free(&list);
        parts[i] = &g[i];
        vertices += g[i].num_vertices;
    }
    mf_options opt;
    mf_options_default(&opt);
    opt.cut_only = 1;
    /* warm up: the device, its buffers at the largest union */
    for (int i = 0; i < count; i++) {
        if (mf_gpu_solve(solver, &g[i], &opt, &alone[i], &err) != MF_OK) {
            fprintf(stderr, "%s: %s\n", argv[first + i], err.message);
            return 1;
        }
    }
    printf("%d networks, %.3f Mpx on average, %d repeats (median)\n", count, 1e-6 * (double)vertices / count,
           repeats);
    for (int r = 0; r < repeats; r++) {
        const double t0 = bench_now();
        for (int i = 0; i < count; i++) {
            mf_result x;
            if (mf_gpu_solve(solver, &g[i], &opt, &x, &err) != MF_OK)
                return 1;
            mf_result_free(&x);
        }
        t[r] = bench_now() - t0;
    }
    const double base = bench_median(t, repeats) / count;
    printf("%-6s %10s %10s %8s | per network, ms: %6s %6s %6s | per launch: %5s %6s %6s\n", "group", "ms/network",
           "networks/s", "speed-up", "upload", "solve", "BFS", "BFSs", "levels", "rounds");
    print_row(1, count, base, base, sum_launches(alone, count, 1));
    int bad = 0;
    launch_sums sums = {0, 0, 0, 0, 0, 0};
    for (int j = 0; j < ngroups; j++) {
        const int k = groups[j];
        if (k < 1 || k > MF_GPU_MANY_MAX)
            continue;
        for (int r = 0; r < repeats; r++) {
            const double t0 = bench_now();
            for (int i = 0; i < count; i += k) {
                const int kk = count - i < k ? count - i : k;
                if (mf_gpu_solve_many(solver, parts + i, kk, &opt, many + i, &err) != MF_OK) {
                    fprintf(stderr, "union of %d: %s\n", kk, err.message);
                    return 1;
                }
            }
            t[r] = bench_now() - t0;
            sums = sum_launches(many, count, k);
            for (int i = 0; i < count; i++) {
                if (many[i].flow_value != alone[i].flow_value ||
                    memcmp(many[i].source_side, alone[i].source_side, (size_t)g[i].num_vertices)) {
                    fprintf(stderr, "%s: union of %d differs from the solve alone\n", argv[first + i], k);
                    bad = 1;
                }
                mf_result_free(&many[i]);
            }
        }
        print_row(k, count, bench_median(t, repeats) / count, base, sums);
    }
    printf(bad ? "MISMATCH\n" : "all union results equal the solves alone\n");
    for (int i = 0; i < count; i++) {
        mf_result_free(&alone[i]);
        mf_graph_free(&g[i]);
    }
    mf_gpu_solver_destroy(solver);
    free(g), free(alone), free(many), free(parts), free(t);
    return bad;
}
