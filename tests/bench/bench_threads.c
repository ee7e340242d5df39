/* One solve on many threads against the same solve on one (the goal: never
 * slower than the serial engine). Each network is read once; the CPU
 * engine's BK then solves it (cut only, as segment asks) on 1 thread and on
 * N, alternating, R times each in the same process (warm: the allocation
 * cache keeps the arrays, as in a batch or a session). Prints the best time
 * of each and their ratio per network, checks that value and cut agree, and
 * ends with the geometric mean of the ratios and how many networks were
 * slower on N threads by more than 2%.
 *
 *   bench_threads [--threads N] [--repeats R] [--bk-tuning KEY=VALUE,...] FILE.max ...
 *
 * --bk-tuning sets BK's tuning (tuning.h, mf_bk_tuning's keys), e.g.
 * min_block=40000 to calibrate the smallest block.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_util.h"
#include "flowcut/maxflow.h"
#include "tuning.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int solve(const mf_graph *g, int threads, mf_result *r, double *seconds)
{
    mf_options opt;
    mf_error err = {0};
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.cpu_algorithm = MF_CPU_BK;
    opt.threads = threads;
    opt.cut_only = 1;
    double t0 = bench_now();
    int rc = mf_solve(g, &opt, r, &err);
    *seconds = bench_now() - t0;
    if (rc != MF_OK)
        fprintf(stderr, "bench_threads: %s\n", err.message);
    return rc;
}

int main(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cores > 1 ? (int)cores : 2, repeats = 5, first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--threads") && first + 1 < argc) {
            threads = atoi(argv[++first]);
        } else if (!strcmp(argv[first], "--repeats") && first + 1 < argc) {
            repeats = atoi(argv[++first]);
        } else if (!strcmp(argv[first], "--bk-tuning") && first + 1 < argc) {
            mf_bk_tuning tuning = *mf_bk_tuning_get();
            char msg[200];
            if (mf_bk_tuning_parse(&tuning, argv[++first], msg, sizeof msg)) {
                fprintf(stderr, "bench_threads: %s\n", msg);
                return 2;
            }
            mf_bk_tuning_set(&tuning);
        } else {
            fprintf(stderr, "usage: bench_threads [--threads N] [--repeats R] [--bk-tuning KEY=VALUE,...] "
                            "FILE.max ...\n");
            return 2;
        }
    }
    if (first == argc || threads < 2 || repeats < 1) {
        fprintf(stderr, "usage: bench_threads [--threads N>1] [--repeats R>0] FILE.max ...\n");
        return 2;
    }
    mf_alloc_cache_limit((size_t)4 << 30);
    printf("%-32s %10s %10s %10s %8s\n", "network", "vertices", "1 thread", "threads", "ratio");
    double log_sum = 0;
    int count = 0, slower = 0, failed = 0;
    for (int i = first; i < argc; i++) {
        mf_arclist list;
        mf_graph g;
        mf_error err = {0};
        if (mf_read_dimacs(argv[i], &list, &err) != MF_OK ||
            mf_graph_from_arcs(&list, NULL, &g, &err) != MF_OK) {
            fprintf(stderr, "bench_threads: %s: %s\n", argv[i], err.message);
            return 1;
        }
        mf_arclist_free(&list);
        double best1 = INFINITY, bestn = INFINITY;
        for (int r = 0; r < repeats && !failed; r++) {
            mf_result one, many;
            double t1, tn;
            if (solve(&g, 1, &one, &t1)) {
                failed = 1;
                break;
            }
            if (solve(&g, threads, &many, &tn)) {
                mf_result_free(&one);
                failed = 1;
                break;
            }
            if (one.flow_value != many.flow_value ||
                memcmp(one.source_side, many.source_side, (size_t)g.num_vertices)) {
                fprintf(stderr, "bench_threads: %s: %d threads give another value or cut\n", argv[i], threads);
                failed = 1;
            }
            best1 = t1 < best1 ? t1 : best1;
            bestn = tn < bestn ? tn : bestn;
            mf_result_free(&one);
            mf_result_free(&many);
        }
        if (failed) {
            mf_graph_free(&g);
            return 1;
        }
        const char *name = strrchr(argv[i], '/');
        name = name ? name + 1 : argv[i];
        double ratio = bestn / best1;
        printf("%-32s %10d %10.4f %10.4f %8.3f\n", name, g.num_vertices, best1, bestn, ratio);
        log_sum += log(ratio);
        count++;
        slower += ratio > 1.02;
        mf_graph_free(&g);
    }
    printf("%d networks, %d threads against 1: geometric mean %.3f, %d slower by more than 2%%\n", count,
           threads, exp(log_sum / count), slower);
    return 0;
}
