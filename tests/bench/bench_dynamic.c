/* Warm re-solve benchmark (the dynamic-maxflow paper's protocol): batches
 * of 1%, 5% and 10% of the arcs, incremental, decremental and mixed, half
 * of each batch on arcs at the source or the sink; warm re-solve against a
 * cold solve of the updated graph on the same engine. Every warm result is
 * checked before it counts: the certificate (mf_verify on its preflow) and
 * the value and bit-identical cut of the cold solve. Times are medians of
 * the repeats, engine time (CUDA events on the GPU) and wall time with the
 * change upload.
 *
 * The default policy may solve a batch cold (the mode column says which);
 * --force-warm repairs every batch.
 *
 * usage: bench_dynamic [--engine cpu|gpu] [--suite small|large] [--repeats R] [--only SUBSTRING]
 *                      [--force-warm] */
#define _POSIX_C_SOURCE 200809L
#include "flowcut/maxflow.h"

#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct instance {
    const char *name;
    char family; /* r genrmf, w rlg, g grid */
    int32_t p1, p2;
} instance;

static const instance large_suite[] = {
    {"genrmf-wide a128 b128 (2.1 M)", 'r', 128, 128},
    {"rlg 2048x2048 (4.2 M)", 'w', 2048, 2048},
    {"grid 16 Mpx (4000x4000, 4-conn)", 'g', 4000, 4000},
};
static const instance small_suite[] = {
    {"genrmf-wide a64 b64 (0.26 M)", 'r', 64, 64},
    {"rlg 512x1024 (0.5 M)", 'w', 512, 1024},
    {"grid 1 Mpx (1000x1000, 4-conn)", 'g', 1000, 1000},
};

static uint64_t rng_state = 42;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A batch of count changes of kind (0 increase, 1 decrease, 2 mixed); half
 * on the arcs out of the source or into the sink. */
static int make_batch(mf_dynamic *d, const int32_t *terminal_arcs, int32_t nterm, int32_t count, int kind)
{
    const mf_graph *g = mf_dynamic_graph(d);
    mf_error err = {0};
    for (int32_t k = 0; k < count; k++) {
        int32_t a = (rnd() & 1) && nterm ? terminal_arcs[rnd() % (uint64_t)nterm]
                                        : (int32_t)(rnd() % (uint64_t)g->num_arcs);
        int up = kind == 0 || (kind == 2 && (rnd() & 1));
        int64_t c = g->arc_cap[a], r = g->arc_rcap[a];
        if (up) {
            c = c + 1 + (int64_t)(rnd() % 10000);
        } else {
            c = (rnd() % 3) == 0 ? 0 : (int64_t)(rnd() % (uint64_t)(c + 1));
        }
        if (c + r > INT32_MAX)
            c = INT32_MAX - r;
        if (mf_dynamic_set_arc(d, a, (int32_t)c, (int32_t)r, &err))
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    mf_engine engine = MF_ENGINE_GPU;
    const instance *suite = large_suite;
    int nsuite = 3, repeats = 3;
    const char *only = NULL;
    int force_warm = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--force-warm")) {
            force_warm = 1;
            continue;
        }
        if (!strcmp(argv[i], "--engine") && i + 1 < argc) {
            engine = !strcmp(argv[++i], "cpu") ? MF_ENGINE_CPU : MF_ENGINE_GPU;
        } else if (!strcmp(argv[i], "--suite") && i + 1 < argc) {
            suite = !strcmp(argv[++i], "small") ? small_suite : large_suite;
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_dynamic [--engine cpu|gpu] [--suite small|large] [--repeats R] [--only S]\n");
            return 2;
        }
    }
    if (repeats < 1 || repeats > 50)
        repeats = 3;
    int count = 0;
    if (engine == MF_ENGINE_GPU && (!mf_gpu_compiled() || mf_gpu_available(&count) != MF_OK || count == 0)) {
        printf("skipped: no CUDA device\n");
        return 0;
    }
    printf("%-34s %-9s %8s %10s %10s %10s %8s %-6s %s\n", "instance (vertices)", "batch", "arcs", "cold s",
           "re-solve", "wall", "speedup", "mode", "checks");
    int failures = 0;
    for (int si = 0; si < nsuite; si++) {
        const instance *in = &suite[si];
        if (only && !strstr(in->name, only))
            continue;
        mf_arclist list;
        mf_graph g;
        mf_error err = {0};
        int rc = in->family == 'r'   ? mf_gen_genrmf(in->p1, in->p2, 100, 10000, 1, &list)
                 : in->family == 'w' ? mf_gen_washington_rlg(in->p1, in->p2, 10000, 1, &list)
                                     : mf_gen_grid(in->p1, in->p2, 4, 1, &list);
        if (rc || mf_graph_from_arcs(&list, NULL, &g, &err)) {
            fprintf(stderr, "%s: cannot build\n", in->name);
            return 1;
        }
        mf_arclist_free(&list);
        int32_t nterm = 0;
        int32_t *term = malloc(sizeof(int32_t) * ((size_t)g.out_start[g.source + 1] - g.out_start[g.source] +
                                                  (size_t)g.in_start[g.sink + 1] - g.in_start[g.sink] + 1));
        for (int32_t a = g.out_start[g.source]; a < g.out_start[g.source + 1]; a++)
            term[nterm++] = a;
        for (int32_t i = g.in_start[g.sink]; i < g.in_start[g.sink + 1]; i++)
            term[nterm++] = g.in_arc[i];
        static const char *kinds[] = {"inc", "dec", "mixed"};
        static const double fracs[] = {0.01, 0.05, 0.10};
        for (int k = 0; k < 3; k++)
            for (int f = 0; f < 3; f++) {
                mf_options opt;
                mf_options_default(&opt);
                opt.engine = engine;
                opt.cut_only = 0; /* flows for the certificate */
                mf_dynamic *d = NULL;
                if (mf_dynamic_create(&g, &opt, &d, &err)) {
                    fprintf(stderr, "%s: %s\n", in->name, err.message);
                    return 1;
                }
                if (force_warm)
                    mf_dynamic_set_cold_fraction(d, 2.0);
                mf_result r;
                if (mf_dynamic_solve(d, &r, &err)) {
                    fprintf(stderr, "%s: %s\n", in->name, err.message);
                    return 1;
                }
                mf_result_free(&r);
                double warm[50], wall[50], cold[50];
                int32_t batch = (int32_t)(fracs[f] * g.num_arcs);
                int ok = 1, nwarm = 0;
                for (int rep = 0; rep < repeats; rep++) {
                    make_batch(d, term, nterm, batch, k);
                    double t0 = bench_now();
                    if (mf_dynamic_solve(d, &r, &err)) {
                        fprintf(stderr, "%s: warm: %s\n", in->name, err.message);
                        return 1;
                    }
                    wall[rep] = bench_now() - t0 - r.stats.download_seconds;
                    warm[rep] = r.stats.solve_seconds;
                    nwarm += r.stats.warm;
                    if (mf_verify(mf_dynamic_graph(d), &r, 0, &err) != MF_OK) {
                        printf("  CERTIFICATE FAILED: %s\n", err.message);
                        ok = 0;
                    }
                    mf_result c;
                    mf_options co = opt;
                    co.cut_only = 1;
                    if (mf_solve(mf_dynamic_graph(d), &co, &c, &err)) {
                        fprintf(stderr, "%s: cold: %s\n", in->name, err.message);
                        return 1;
                    }
                    cold[rep] = c.stats.solve_seconds;
                    if (c.flow_value != r.flow_value ||
                        memcmp(c.source_side, r.source_side, (size_t)g.num_vertices) != 0) {
                        printf("  WARM AND COLD DIFFER: %lld vs %lld\n", (long long)r.flow_value,
                               (long long)c.flow_value);
                        ok = 0;
                    }
                    mf_result_free(&c);
                    mf_result_free(&r);
                }
                failures += !ok;
                char label[32];
                snprintf(label, sizeof label, "%s %g%%", kinds[k], 100 * fracs[f]);
                double mc = bench_median(cold, repeats), mw = bench_median(warm, repeats), mwl = bench_median(wall, repeats);
                printf("%-34s %-9s %8d %10.4f %10.4f %10.4f %7.1fx %-6s %s\n", in->name, label, batch, mc, mw, mwl,
                       mc / (mwl > 0 ? mwl : 1e-9), nwarm == repeats ? "warm" : nwarm ? "mixed" : "cold",
                       ok ? "ok" : "FAILED");
                fflush(stdout);
                mf_dynamic_destroy(d);
            }
        free(term);
        mf_graph_free(&g);
    }
    return failures ? 1 : 0;
}
