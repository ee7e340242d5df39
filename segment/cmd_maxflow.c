/* flowcut maxflow: solve a DIMACS file and print the DIMACS solution. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "flowcut/maxflow.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flowcut maxflow [options] FILE.max|-\n"
            "Solves a DIMACS max-flow problem and prints 's VALUE'.\n"
            "  --flow            also print 'f U V X' for every arc (valid flow, phase 2)\n"
            "  --cut FILE        write the source-side vertex ids of the canonical min cut\n"
            "  --engine E        auto (default), cpu or gpu\n"
            "  --cpu-algorithm A push-relabel (default), bk (Boykov-Kolmogorov: fast on image\n"
            "                    grids, no polynomial bound on general graphs) or auto (bk from\n"
            "                    0.35 to 6 million vertices)\n"
            "  --device N        CUDA device ordinal (default 0)\n"
            "  --verify          check the certificate (bounds, conservation, cut = flow)\n"
            "  --time            print parse, build and solve times on stderr\n"
            "  --json            print one JSON object instead of DIMACS lines\n"
            "  --no-merge        keep antiparallel arcs as separate stored arcs\n"
            "  -f, --force       overwrite an existing --cut file\n"
            "  -q, --quiet       no notices on stderr\n"
            "  -h, --help\n");
}

static int write_cut(const char *path, int force, const mf_graph *g, const uint8_t *side)
{
    out_file o;
    char msg[512];
    if (out_open(&o, path, force, msg, sizeof msg)) {
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        return -1;
    }
    for (int32_t v = 0; v < g->num_vertices; v++)
        if (side[v])
            fprintf(o.f, "%d\n", v + 1);
    if (out_commit(&o, msg, sizeof msg)) {
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        return -1;
    }
    return 0;
}

int cmd_maxflow(int argc, char **argv)
{
    enum { O_FLOW = 256, O_CUT, O_ENGINE, O_VERIFY, O_TIME, O_JSON, O_NOMERGE, O_DEVICE, O_CPUALG };
    static const struct option longopts[] = {
        {"flow", no_argument, NULL, O_FLOW},     {"cut", required_argument, NULL, O_CUT},
        {"engine", required_argument, NULL, O_ENGINE},
        {"cpu-algorithm", required_argument, NULL, O_CPUALG},
        {"device", required_argument, NULL, O_DEVICE},
        {"verify", no_argument, NULL, O_VERIFY}, {"time", no_argument, NULL, O_TIME},
        {"json", no_argument, NULL, O_JSON},     {"no-merge", no_argument, NULL, O_NOMERGE},
        {"force", no_argument, NULL, 'f'},       {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    int want_flow = 0, verify = 0, show_time = 0, json = 0, force = 0, merge = 1;
    const char *cut_path = NULL;
    mf_options opt;
    mf_options_default(&opt);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "fqh", longopts, NULL)) != -1) {
        switch (c) {
        case O_FLOW: want_flow = 1; break;
        case O_CUT: cut_path = optarg; break;
        case O_ENGINE:
            if (parse_engine(optarg, &opt.engine)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --engine must be auto, cpu or gpu\n");
                return EXIT_USAGE;
            }
            break;
        case O_CPUALG:
            if (parse_cpu_algorithm(optarg, &opt.cpu_algorithm)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --cpu-algorithm must be push-relabel, bk or auto\n");
                return EXIT_USAGE;
            }
            break;
        case O_DEVICE: {
            int64_t d;
            if (parse_i64(optarg, 0, 1024, &d)) {
                DISPLAYLEVEL(1, "flowcut maxflow: --device needs a device ordinal\n");
                return EXIT_USAGE;
            }
            opt.device = (int)d;
            break;
        }
        case O_VERIFY: verify = 1; break;
        case O_TIME: show_time = 1; break;
        case O_JSON: json = 1; break;
        case O_NOMERGE: merge = 0; break;
        case 'f': force = 1; break;
        case 'q': g_display_level = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default:
            DISPLAYLEVEL(1, "flowcut maxflow: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        DISPLAYLEVEL(1, "flowcut maxflow: expected exactly one input file (or -)\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    opt.phase2 = want_flow;

    mf_arclist list;
    mf_graph g;
    mf_result res;
    mf_error err = {0};
    char msg[768];
    int status = EXIT_FAIL;
    memset(&g, 0, sizeof g);
    memset(&res, 0, sizeof res);

    double t0 = now();
    if (mf_read_dimacs(path, &list, &err)) {
        mf_error_format(&err, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        return EXIT_FAIL;
    }
    double t1 = now();
    mf_build_options bopt = {merge};
    if (mf_graph_from_arcs(&list, &bopt, &g, &err)) {
        mf_error_format(&err, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s: %s\n", path, msg);
        goto done;
    }
    double t2 = now();
    if (mf_solve(&g, &opt, &res, &err)) {
        mf_error_format(&err, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s: %s\n", path, msg);
        goto done;
    }
    double t3 = now();
    if (opt.engine == MF_ENGINE_AUTO && mf_gpu_compiled() && res.stats.engine_used == MF_ENGINE_CPU) {
        int count = 0;
        if (mf_gpu_available(&count) == MF_OK && count > 0)
            DISPLAYLEVEL(2, "flowcut: notice: the graph does not fit in device memory; solved on the CPU\n");
    }
    int verified = 0;
    if (verify) {
        if (mf_verify(&g, &res, want_flow, &err)) {
            mf_error_format(&err, msg, sizeof msg);
            DISPLAYLEVEL(1, "flowcut: %s: verification FAILED: %s\n", path, msg);
            goto done;
        }
        verified = 1;
    }
    if (cut_path && write_cut(cut_path, force, &g, res.source_side))
        goto done;
    if (json) {
        int64_t cut_size = 0;
        for (int32_t v = 0; v < g.num_vertices; v++)
            cut_size += res.source_side[v];
        printf("{\"file\": ");
        json_string(stdout, path);
        printf(", \"vertices\": %d, \"arcs\": %d, \"flow\": %lld, \"engine\": \"%s\", \"device\": ",
               list.num_vertices, list.num_arcs, (long long)res.flow_value,
               res.stats.engine_used == MF_ENGINE_GPU ? "gpu" : "cpu");
        json_string(stdout, res.stats.device_name);
        printf(", \"source_side\": %lld, \"verified\": %s", (long long)cut_size,
               verify ? (verified ? "true" : "false") : "null");
        printf(", \"times\": {\"parse\": %.6f, \"build\": %.6f, \"solve\": %.6f, \"engine\": %.6f, "
               "\"upload\": %.6f, \"phase1\": %.6f, \"phase2\": %.6f}",
               t1 - t0, t2 - t1, t3 - t2, res.stats.solve_seconds, res.stats.upload_seconds,
               res.stats.phase1_seconds, res.stats.phase2_seconds);
        if (want_flow) {
            printf(", \"arc_flows\": [");
            for (int32_t i = 0; i < list.num_arcs; i++)
                printf(i ? ", %d" : "%d", mf_input_arc_flow(&g, res.flow, i));
            printf("]");
        }
        printf("}\n");
    } else {
        printf("s %lld\n", (long long)res.flow_value);
        if (want_flow) {
            for (int32_t i = 0; i < list.num_arcs; i++)
                printf("f %d %d %d\n", list.tail[i] + 1, list.head[i] + 1,
                       mf_input_arc_flow(&g, res.flow, i));
        }
    }
    if (fflush(stdout) != 0) {
        DISPLAYLEVEL(1, "flowcut: cannot write the solution\n");
        goto done;
    }
    if (show_time)
        DISPLAYLEVEL(1, "time: parse %.3f s, build %.3f s, solve %.3f s (%s engine %.3f s, phase 1 %.3f s, phase 2 %.3f s)\n",
                     t1 - t0, t2 - t1, t3 - t2, res.stats.engine_used == MF_ENGINE_GPU ? "gpu" : "cpu",
                     res.stats.solve_seconds, res.stats.phase1_seconds, res.stats.phase2_seconds);
    status = EXIT_OK;
done:
    mf_result_free(&res);
    mf_graph_free(&g);
    mf_arclist_free(&list);
    return status;
}
