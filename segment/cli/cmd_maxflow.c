/* flowcut maxflow: solve a DIMACS file and print the DIMACS solution. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "seg_output.h"

#include "flowcut/maxflow.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flowcut maxflow [options] FILE.max|-\n"
            "Solves a DIMACS max-flow problem and prints 's VALUE'.\n"
            "  --flow            also print 'f U V X' for every arc (valid flow, phase 2)\n"
            "  --cut FILE        write the source-side vertex ids of the canonical min cut\n"
            "  --engine E        auto (default), cpu or gpu\n"
            "  --cpu-algorithm A auto (default: bk when most vertices have a terminal arc,\n"
            "                    ibfs for unit capacities or vertices near the source, else\n"
            "                    push-relabel), push-relabel, bk (Boykov-Kolmogorov: fast on\n"
            "                    image grids, no polynomial bound on general graphs) or ibfs\n"
            "                    (incremental BFS trees); each gives the same value and cut\n"
            "  --threads N       CPU threads for the reading, the build and the solve (default:\n"
            "                    every core; bk merges blocks of vertices bottom-up; the cut\n"
            "                    does not depend on N)\n"
            "  --device N        CUDA device ordinal (default 0)\n"
            "  --verify          check the certificate (bounds, conservation, cut = flow)\n"
            "  --time            print parse, build and solve times on stderr\n"
            "  --json            print one JSON object instead of DIMACS lines\n"
            "  --no-merge        keep antiparallel arcs as separate stored arcs\n"
            "  --updates FILE    after the solve, apply each batch of capacity changes in FILE\n"
            "                    ('b' starts a batch, 'u K CAP' sets input arc K to CAP) and\n"
            "                    re-solve warm from the previous flow: one 's' line for the\n"
            "                    first solve, then one per batch\n"
            "  --max-vertices N  refuse a problem line declaring more than N vertices\n"
            "                    (default 134217728 = 2^27; checked before memory is taken)\n"
            "  --max-arcs N      refuse a problem line declaring more than N arcs\n"
            "                    (default 536870912 = 2^29)\n"
            "  -f, --force       overwrite an existing --cut file\n"
            "  -q, --quiet       no notices on stderr\n"
            "  -h, --help\n");
}

static int write_cut(const char *path, int force, const mf_graph *g, const uint8_t *side)
{
    seg_out o;
    char msg[512];
    if (cli_out_open(&o, path, force, msg, sizeof msg)) {
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        return -1;
    }
    for (int32_t v = 0; v < g->num_vertices; v++)
        if (side[v])
            fprintf(o.f, "%d\n", v + 1);
    if (seg_out_commit(&o, msg, sizeof msg)) { /* a stream error is reported here, with its reason */
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        return -1;
    }
    return 0;
}

typedef struct report_opts {
    int want_flow, verify, show_time, json, updates;
} report_opts;

/* Prints one solve: 's VALUE' (and flows), or a JSON object; batch is -1
 * without --updates, 0 for the first solve and k for batch k. Returns 0,
 * or -1 after printing why (verification failed, stdout unwritable). */
static int report(const char *path, const mf_arclist *list, const mf_graph *g, const mf_result *res,
                  const report_opts *ro, int batch, double parse_s, double build_s, double solve_s)
{
    mf_error err = {0};
    char msg[768];
    int verified = 0;
    if (ro->verify) {
        if (mf_verify(g, res, ro->want_flow, &err)) {
            mf_error_format(&err, msg, sizeof msg);
            if (batch > 0)
                DISPLAYLEVEL(1, "flowcut: %s: batch %d: verification FAILED: %s\n", path, batch, msg);
            else
                DISPLAYLEVEL(1, "flowcut: %s: verification FAILED: %s\n", path, msg);
            return -1;
        }
        verified = 1;
        /* on stderr: stdout stays the DIMACS answer scripts read */
        if (!ro->json) {
            if (batch > 0)
                DISPLAYLEVEL(2, "flowcut: %s: batch %d: certificate holds (capacities, conservation, cut = flow)\n",
                             path, batch);
            else
                DISPLAYLEVEL(2, "flowcut: %s: certificate holds (capacities, conservation, cut = flow)\n", path);
        }
    }
    if (ro->json) {
        int64_t cut_size = 0;
        for (int32_t v = 0; v < g->num_vertices; v++)
            cut_size += res->source_side[v];
        printf("{\"file\": ");
        json_string(stdout, path);
        if (batch >= 0)
            printf(", \"batch\": %d, \"warm\": %s, \"changed_arcs\": %lld, \"deficits\": %lld", batch,
                   res->stats.warm ? "true" : "false", (long long)res->stats.changed_arcs,
                   (long long)res->stats.deficits);
        printf(", \"vertices\": %d, \"arcs\": %d, \"flow\": %lld, \"engine\": \"%s\", \"device\": ",
               list->num_vertices, list->num_arcs, (long long)res->flow_value,
               res->stats.engine_used == MF_ENGINE_GPU ? "gpu" : "cpu");
        json_string(stdout, res->stats.device_name);
        const char *alg = mf_cpu_algorithm_name(res->stats.cpu_algorithm); /* what auto chose */
        if (alg)
            printf(", \"cpu_algorithm\": \"%s\"", alg);
        else
            printf(", \"cpu_algorithm\": null");
        printf(", \"source_side\": %lld, \"verified\": %s", (long long)cut_size,
               ro->verify ? (verified ? "true" : "false") : "null");
        printf(", \"times\": {\"parse\": %.6f, \"build\": %.6f, \"solve\": %.6f, \"engine\": %.6f, "
               "\"upload\": %.6f, \"setup\": %.6f, \"phase1\": %.6f, \"phase2\": %.6f}",
               parse_s, build_s, solve_s, res->stats.solve_seconds, res->stats.upload_seconds,
               res->stats.setup_seconds, res->stats.phase1_seconds, res->stats.phase2_seconds);
        /* where an engine's time went: the GPU's rounds and global relabels
         * (BFS levels, seconds), the CPU's pushes or augmentations */
        printf(", \"stats\": {\"pushes\": %lld, \"relabels\": %lld, \"global_relabels\": %lld, "
               "\"rounds\": %lld, \"bfs_levels\": %lld, \"visits\": %lld, \"relabel_seconds\": %.6f, "
               "\"work_seconds\": %.6f, \"critical_seconds\": %.6f, \"longest_task_seconds\": %.6f}",
               (long long)res->stats.pushes, (long long)res->stats.relabels,
               (long long)res->stats.global_relabels, (long long)res->stats.rounds,
               (long long)res->stats.bfs_levels, (long long)res->stats.visits, res->stats.relabel_seconds,
               res->stats.work_seconds, res->stats.critical_seconds, res->stats.longest_task_seconds);
        if (ro->want_flow) {
            printf(", \"arc_flows\": [");
            for (int32_t i = 0; i < list->num_arcs; i++)
                printf(i ? ", %d" : "%d", mf_input_arc_flow(g, res->flow, i));
            printf("]");
        }
        printf("}\n");
    } else {
        printf("s %lld\n", (long long)res->flow_value);
        if (ro->want_flow) {
            for (int32_t i = 0; i < list->num_arcs; i++)
                printf("f %d %d %d\n", list->tail[i] + 1, list->head[i] + 1,
                       mf_input_arc_flow(g, res->flow, i));
        }
    }
    if (fflush(stdout) != 0) {
        DISPLAYLEVEL(1, "flowcut: cannot write the solution\n");
        return -1;
    }
    if (ro->show_time) {
        const char *eng = res->stats.engine_used == MF_ENGINE_GPU ? "gpu" : "cpu";
        if (batch > 0)
            DISPLAYLEVEL(1, "time: batch %d: %s %.6f s, %lld arcs changed (%s engine %.6f s, %lld deficits)\n",
                         batch, res->stats.warm ? "warm" : "cold", solve_s, (long long)res->stats.changed_arcs,
                         eng, res->stats.solve_seconds, (long long)res->stats.deficits);
        else if (res->stats.engine_used == MF_ENGINE_GPU)
            DISPLAYLEVEL(1, "time: parse %.3f s, build %.3f s, solve %.3f s (%s engine %.3f s, phase 1 %.3f s, phase 2 %.3f s)\n",
                         parse_s, build_s, solve_s, eng, res->stats.solve_seconds, res->stats.phase1_seconds,
                         res->stats.phase2_seconds);
        else { /* the engine's own set-up apart, as the reference solvers report their init */
            const char *alg = mf_cpu_algorithm_name(res->stats.cpu_algorithm);
            DISPLAYLEVEL(1, "time: parse %.3f s, build %.3f s, solve %.3f s (%s engine, %s, %.3f s: set-up %.3f s, search %.3f s",
                         parse_s, build_s, solve_s, eng, alg ? alg : "?", res->stats.solve_seconds,
                         res->stats.setup_seconds, res->stats.solve_seconds - res->stats.setup_seconds);
            if (res->stats.phase2_seconds > 0) /* push-relabel's two phases */
                DISPLAYLEVEL(1, "; phase 1 %.3f s, phase 2 %.3f s", res->stats.phase1_seconds,
                             res->stats.phase2_seconds);
            DISPLAYLEVEL(1, ")\n");
        }
    }
    return 0;
}

/* The command line, parsed. */
typedef struct maxflow_args {
    const char *path, *cut_path, *updates_path;
    int want_flow, verify, show_time, json, force, merge;
    mf_options opt;
    mf_dimacs_limits lim;
} maxflow_args;

/* Parses argv into a; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, maxflow_args *a)
{
    enum { O_FLOW = 256, O_CUT, O_ENGINE, O_VERIFY, O_TIME, O_JSON, O_NOMERGE, O_DEVICE, O_CPUALG, O_UPDATES, O_THREADS, O_MAXV, O_MAXA };
    static const struct option longopts[] = {
        {"flow", no_argument, NULL, O_FLOW},     {"cut", required_argument, NULL, O_CUT},
        {"engine", required_argument, NULL, O_ENGINE},
        {"cpu-algorithm", required_argument, NULL, O_CPUALG},
        {"device", required_argument, NULL, O_DEVICE},
        {"verify", no_argument, NULL, O_VERIFY}, {"time", no_argument, NULL, O_TIME},
        {"json", no_argument, NULL, O_JSON},     {"no-merge", no_argument, NULL, O_NOMERGE},
        {"updates", required_argument, NULL, O_UPDATES}, {"threads", required_argument, NULL, O_THREADS},
        {"max-vertices", required_argument, NULL, O_MAXV}, {"max-arcs", required_argument, NULL, O_MAXA},
        {"force", no_argument, NULL, 'f'},       {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->merge = 1;
    mf_options_default(&a->opt);
    mf_dimacs_limits_default(&a->lim);
    /* the fastest of the three for each kind of graph (cpu_solve.c);
     * the library's default stays push-relabel, the one with a bound */
    a->opt.cpu_algorithm = MF_CPU_AUTO;
    optind = 1;
    opterr = 0;
    int c;
    int64_t v;
    /* shortopts begin with ':': a missing value is told apart (':') from an unknown option */
    while ((c = getopt_long(argc, argv, ":fqh", longopts, NULL)) != -1) {
        switch (c) {
        case O_FLOW: a->want_flow = 1; break;
        case O_CUT: a->cut_path = optarg; break;
        case O_ENGINE:
            if (mf_engine_parse(optarg, &a->opt.engine)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --engine must be auto, cpu or gpu\n");
                return EXIT_USAGE;
            }
            break;
        case O_CPUALG:
            if (mf_cpu_algorithm_parse(optarg, &a->opt.cpu_algorithm)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --cpu-algorithm must be push-relabel, bk, ibfs or auto\n");
                return EXIT_USAGE;
            }
            break;
        case O_DEVICE:
            if (parse_i64(optarg, 0, 1024, &v)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --device needs a device ordinal\n");
                return EXIT_USAGE;
            }
            a->opt.device = (int)v;
            break;
        case O_THREADS:
            if (parse_i64(optarg, 1, 1024, &v)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --threads needs 1..1024\n");
                return EXIT_USAGE;
            }
            a->opt.threads = (int)v;
            break;
        case O_MAXV:
            if (parse_i64(optarg, 2, INT32_MAX - 1, &a->lim.max_vertices)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --max-vertices needs 2..%d\n", INT32_MAX - 1);
                return EXIT_USAGE;
            }
            break;
        case O_MAXA:
            if (parse_i64(optarg, 1, INT32_MAX >> 1, &a->lim.max_arcs)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --max-arcs needs 1..%d\n", INT32_MAX >> 1);
                return EXIT_USAGE;
            }
            break;
        case O_VERIFY: a->verify = 1; break;
        case O_TIME: a->show_time = 1; break;
        case O_JSON: a->json = 1; break;
        case O_NOMERGE: a->merge = 0; break;
        case O_UPDATES: a->updates_path = optarg; break;
        case 'f': a->force = 1; break;
        case 'q': g_display_level = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default:
            cli_option_error("flowcut maxflow", longopts, argv, c);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        cli_usage_error("flowcut maxflow", "expected exactly one input file (or -)");
        return EXIT_USAGE;
    }
    a->path = argv[optind];
    if (a->cut_path && !strcmp(a->cut_path, "-")) {
        DISPLAYLEVEL(1, "flowcut maxflow: --cut -: give a file name (standard output holds the solution)\n");
        return EXIT_USAGE;
    }
    FILE *existing;
    if (a->cut_path && !a->force && (existing = fopen(a->cut_path, "rb"))) { /* refused before the solve */
        fclose(existing);
        DISPLAYLEVEL(1, "flowcut: %s: already exists (use -f to overwrite)\n", a->cut_path);
        return EXIT_FAIL;
    }
    a->opt.phase2 = a->want_flow;
    /* the value and the cut need no flows: the CPU engines skip mapping
     * them back onto the arcs (and IBFS may stop at a pseudoflow) */
    a->opt.cut_only = !a->want_flow && !a->verify && !a->updates_path;
    if (a->updates_path && !strcmp(a->path, "-") && !strcmp(a->updates_path, "-")) {
        DISPLAYLEVEL(1, "flowcut maxflow: the problem and --updates cannot both be standard input\n");
        return EXIT_USAGE;
    }
    return -1;
}

int cmd_maxflow(int argc, char **argv)
{
    maxflow_args a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    const char *path = a.path, *updates_path = a.updates_path;
    report_opts ro = {a.want_flow, a.verify, a.show_time, a.json, updates_path != NULL};

    mf_arclist list;
    mf_graph g;
    mf_updates upd;
    mf_dynamic *dyn = NULL;
    mf_result res;
    mf_error err = {0};
    char msg[768];
    status = EXIT_FAIL;
    memset(&g, 0, sizeof g);
    memset(&res, 0, sizeof res);
    memset(&upd, 0, sizeof upd);

    double t0 = cli_now();
    /* --threads bounds every stage, the reading and the build as the solve */
    a.lim.threads = a.opt.threads;
    if (mf_read_dimacs_limited(path, &a.lim, &list, &err)) {
        mf_error_format(&err, msg, sizeof msg);
        /* a declared size over a limit: name the flag that raises it */
        const char *hint = err.code != MF_ERR_TOO_LARGE        ? ""
                           : strstr(err.message, " vertices") ? " (--max-vertices N raises the limit)"
                           : strstr(err.message, " arcs")     ? " (--max-arcs N raises the limit)"
                                                               : "";
        DISPLAYLEVEL(1, "flowcut: %s%s\n", msg, hint);
        return EXIT_FAIL;
    }
    /* the whole update file is checked before anything is solved or printed */
    if (updates_path && mf_read_updates(updates_path, list.num_arcs, &upd, &err)) {
        mf_error_format(&err, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        goto done;
    }
    double t1 = cli_now();
    mf_build_options bopt = {.merge_antiparallel = a.merge, .threads = a.opt.threads};
    if (mf_graph_from_arcs(&list, &bopt, &g, &err)) {
        mf_error_format(&err, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s: %s\n", path, msg);
        goto done;
    }
    /* a change the graph cannot hold is refused here, before any output */
    if (updates_path && mf_updates_check(&g, &upd, strcmp(updates_path, "-") ? updates_path : "<stdin>", &err)) {
        mf_error_format(&err, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s%s\n", msg,
                     err.code == MF_ERR_TOO_LARGE && a.merge ? " (--no-merge keeps antiparallel arcs apart)" : "");
        goto done;
    }
    double t2 = cli_now();
    /* the solver takes the graph's arrays (no second copy of a large graph);
     * gr is the graph from here on, the solver's when there is one */
    int rc = updates_path ? mf_dynamic_adopt(&g, &a.opt, &dyn, &err) : MF_OK;
    const mf_graph *gr = dyn ? mf_dynamic_graph(dyn) : &g;
    if (rc == MF_OK)
        rc = dyn ? mf_dynamic_solve(dyn, &res, &err) : mf_solve(&g, &a.opt, &res, &err);
    if (rc) {
        mf_error_format(&err, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s: %s\n", path, msg);
        goto done;
    }
    double t3 = cli_now();
    if (res.stats.fell_back)
        DISPLAYLEVEL(2, "flowcut: notice: the graph does not fit in device memory; solved on the CPU\n");
    if (report(path, &list, gr, &res, &ro, dyn ? 0 : -1, t1 - t0, t2 - t1, t3 - t2))
        goto done;
    for (int32_t b = 0; b < upd.num_batches; b++) {
        for (int64_t k = upd.batch_start[b]; k < upd.batch_start[b + 1]; k++)
            if (mf_dynamic_set_input_arc(dyn, upd.arc[k], upd.cap[k], &err)) {
                mf_error_format(&err, msg, sizeof msg);
                DISPLAYLEVEL(1, "flowcut: %s: batch %d: %s\n", updates_path, b + 1, msg);
                goto done;
            }
        mf_result_free(&res);
        double tb = cli_now();
        if (mf_dynamic_solve(dyn, &res, &err)) {
            mf_error_format(&err, msg, sizeof msg);
            DISPLAYLEVEL(1, "flowcut: %s: batch %d: %s\n", updates_path, b + 1, msg);
            goto done;
        }
        double te = cli_now();
        if (report(path, &list, mf_dynamic_graph(dyn), &res, &ro, b + 1, 0, 0, te - tb))
            goto done;
    }
    if (a.cut_path && write_cut(a.cut_path, a.force, gr, res.source_side))
        goto done;
    status = EXIT_OK;
done:
    mf_dynamic_destroy(dyn);
    mf_updates_free(&upd);
    mf_result_free(&res);
    mf_graph_free(&g);
    mf_arclist_free(&list);
    return status;
}
