/* flowcut generate: DIMACS instances of the classic max-flow families. */
#include "cli.h"
#include "seg_output.h"

#include "flowcut/maxflow.h"

#include <getopt.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flowcut generate FAMILY [options] [-o FILE]\n"
            "families:\n"
            "  genrmf -a A -b B [--c1 100] [--c2 10000]   b frames of a x a grids\n"
            "  washington-rlg --rows R --cols C [--maxcap 10000]   C levels of R vertices\n"
            "  acyclic-dense -n N                           complete DAG on N vertices\n"
            "  grid --width W --height H [--connectivity 4|8]   segmentation-like grid\n"
            "  rmat --scale S [--edge-factor 16] [--terminals 8] [--maxcap 10000]\n"
            "                  Graph500 R-MAT, 2^S vertices (power-law degrees), super source\n"
            "                  and sink at the two ends of a breadth-first search\n"
            "  rmat-pair --scale S [--edge-factor 8] [--probabilities 45,15,15] [--pair 1]\n"
            "                  [--maxcap 10000]   undirected R-MAT (each edge both ways, no\n"
            "                  loops or repeats), source and sink the vertices of degree ranks\n"
            "                  2K-1 and 2K for --pair K: ECL-MaxFlow's protocol; quadrant\n"
            "                  probabilities in percent (45,15,15: rmat22.sym's kind;\n"
            "                  57,19,19: Graph500's, its kron_g500 graphs)\n"
            "  matching --left L --right R [--degree 8]     bipartite matching, power-law\n"
            "                  degrees on the left, unit capacities\n"
            "options:\n"
            "  --seed S      random seed (default 1); output is deterministic from it\n"
            "  -o FILE       write there (atomically) instead of standard output\n"
            "  -f, --force   overwrite an existing FILE\n");
}

/* The option c as the user may have typed it: "-a" or "--width" (argv
 * holds the value when it was given as a separate argument, "-a -5"). */
static void option_name(int c, const struct option *longopts, char *buf, size_t size)
{
    if (c < 256) {
        snprintf(buf, size, "-%c", c);
        return;
    }
    for (const struct option *o = longopts; o->name; o++)
        if (o->val == c) {
            snprintf(buf, size, "--%s", o->name);
            return;
        }
    snprintf(buf, size, "an option");
}

int cmd_generate(int argc, char **argv)
{
    enum { O_C1 = 256, O_C2, O_ROWS, O_COLS, O_MAXCAP, O_WIDTH, O_HEIGHT, O_CONN, O_SEED, O_SCALE, O_EF, O_TERM,
           O_LEFT, O_RIGHT, O_DEGREE, O_PROB, O_PAIR };
    static const struct option longopts[] = {
        {"c1", required_argument, NULL, O_C1},        {"c2", required_argument, NULL, O_C2},
        {"rows", required_argument, NULL, O_ROWS},    {"cols", required_argument, NULL, O_COLS},
        {"maxcap", required_argument, NULL, O_MAXCAP}, {"width", required_argument, NULL, O_WIDTH},
        {"height", required_argument, NULL, O_HEIGHT},
        {"connectivity", required_argument, NULL, O_CONN},
        {"seed", required_argument, NULL, O_SEED},    {"output", required_argument, NULL, 'o'},
        {"scale", required_argument, NULL, O_SCALE},  {"edge-factor", required_argument, NULL, O_EF},
        {"terminals", required_argument, NULL, O_TERM}, {"left", required_argument, NULL, O_LEFT},
        {"right", required_argument, NULL, O_RIGHT},  {"degree", required_argument, NULL, O_DEGREE},
        {"probabilities", required_argument, NULL, O_PROB}, {"pair", required_argument, NULL, O_PAIR},
        {"force", no_argument, NULL, 'f'},            {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    const char *family = argv[1];
    int64_t a = -1, b = -1, c1 = 100, c2 = 10000, rows = -1, cols = -1, maxcap = 10000;
    int64_t n = -1, width = -1, height = -1, conn = 4, seed = 1;
    int64_t scale = -1, edge_factor = -1, terminals = 8, left = -1, right = -1, degree = 8, pair = 1;
    int32_t prob[3] = {45, 15, 15};
    const char *out_path = NULL;
    int force = 0;
    optind = 2;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "a:b:n:o:fh", longopts, NULL)) != -1) {
        int64_t *target = NULL, lo = 1, hi = INT32_MAX;
        switch (c) {
        case 'a': target = &a; break;
        case 'b': target = &b; break;
        case 'n': target = &n; lo = 2; break;
        case O_C1: target = &c1; lo = 0; break;
        case O_C2: target = &c2; lo = 0; break;
        case O_ROWS: target = &rows; break;
        case O_COLS: target = &cols; break;
        case O_MAXCAP: target = &maxcap; hi = INT32_MAX / 3; break;
        case O_WIDTH: target = &width; lo = 2; break;
        case O_HEIGHT: target = &height; lo = 2; break;
        case O_CONN: target = &conn; lo = 4; hi = 8; break;
        case O_SEED: target = &seed; lo = 0; hi = INT64_MAX; break;
        case O_SCALE: target = &scale; lo = 2; hi = 28; break;
        case O_EF: target = &edge_factor; hi = 1024; break;
        case O_TERM: target = &terminals; hi = 1 << 20; break;
        case O_LEFT: target = &left; break;
        case O_RIGHT: target = &right; break;
        case O_DEGREE: target = &degree; hi = 1 << 20; break;
        case O_PAIR: target = &pair; hi = MF_GEN_PAIR_MAX; break;
        case O_PROB: {
            int64_t v[3];
            char part[3][24] = {{0}};
            if (sscanf(optarg, "%23[^,],%23[^,],%23s", part[0], part[1], part[2]) != 3 ||
                parse_i64(part[0], 0, 100, &v[0]) || parse_i64(part[1], 0, 100, &v[1]) ||
                parse_i64(part[2], 0, 100, &v[2]) || v[0] + v[1] + v[2] > 100) {
                DISPLAYLEVEL(1, "flowcut generate: bad value '%s' for --probabilities (A,B,C in percent, sum at most 100)\n",
                             optarg);
                return EXIT_USAGE;
            }
            for (int i = 0; i < 3; i++)
                prob[i] = (int32_t)v[i];
            break;
        }
        case 'o': out_path = optarg; break;
        case 'f': force = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default:
            DISPLAYLEVEL(1, "flowcut generate: unknown or incomplete option '%s'\n", argv[optind - 1]);
            return EXIT_USAGE;
        }
        if (target && parse_i64(optarg, lo, hi, target)) {
            char name[64];
            option_name(c, longopts, name, sizeof name);
            DISPLAYLEVEL(1, "flowcut generate: bad value '%s' for %s: needs a whole number from %lld to %lld\n",
                         optarg, name, (long long)lo, (long long)hi);
            return EXIT_USAGE;
        }
    }
    if (optind != argc) {
        DISPLAYLEVEL(1, "flowcut generate: unexpected argument '%s'\n", argv[optind]);
        return EXIT_USAGE;
    }
    mf_arclist list;
    char comment[512];
    int rc;
    if (!strcmp(family, "genrmf")) {
        if (a < 0 || b < 0) {
            DISPLAYLEVEL(1, "flowcut generate genrmf: -a and -b are required\n");
            return EXIT_USAGE;
        }
        rc = mf_gen_genrmf((int32_t)a, (int32_t)b, (int32_t)c1, (int32_t)c2, (uint64_t)seed, &list);
        snprintf(comment, sizeof comment, "flowcut generate genrmf -a %lld -b %lld --c1 %lld --c2 %lld --seed %lld",
                 (long long)a, (long long)b, (long long)c1, (long long)c2, (long long)seed);
    } else if (!strcmp(family, "washington-rlg")) {
        if (rows < 0 || cols < 0) {
            DISPLAYLEVEL(1, "flowcut generate washington-rlg: --rows and --cols are required\n");
            return EXIT_USAGE;
        }
        rc = mf_gen_washington_rlg((int32_t)rows, (int32_t)cols, (int32_t)maxcap, (uint64_t)seed, &list);
        snprintf(comment, sizeof comment, "flowcut generate washington-rlg --rows %lld --cols %lld --maxcap %lld --seed %lld",
                 (long long)rows, (long long)cols, (long long)maxcap, (long long)seed);
    } else if (!strcmp(family, "acyclic-dense")) {
        if (n < 0) {
            DISPLAYLEVEL(1, "flowcut generate acyclic-dense: -n is required\n");
            return EXIT_USAGE;
        }
        rc = mf_gen_acyclic_dense((int32_t)n, (uint64_t)seed, &list);
        snprintf(comment, sizeof comment, "flowcut generate acyclic-dense -n %lld --seed %lld",
                 (long long)n, (long long)seed);
    } else if (!strcmp(family, "grid")) {
        if (width < 0 || height < 0 || (conn != 4 && conn != 8)) {
            DISPLAYLEVEL(1, "flowcut generate grid: --width and --height are required, --connectivity is 4 or 8\n");
            return EXIT_USAGE;
        }
        rc = mf_gen_grid((int32_t)width, (int32_t)height, (int)conn, (uint64_t)seed, &list);
        snprintf(comment, sizeof comment, "flowcut generate grid --width %lld --height %lld --connectivity %lld --seed %lld",
                 (long long)width, (long long)height, (long long)conn, (long long)seed);
    } else if (!strcmp(family, "rmat")) {
        if (scale < 0) {
            DISPLAYLEVEL(1, "flowcut generate rmat: --scale is required\n");
            return EXIT_USAGE;
        }
        edge_factor = edge_factor < 0 ? 16 : edge_factor;
        rc = mf_gen_rmat((int32_t)scale, (int32_t)edge_factor, (int32_t)terminals, (int32_t)maxcap, (uint64_t)seed,
                         &list);
        snprintf(comment, sizeof comment,
                 "flowcut generate rmat --scale %lld --edge-factor %lld --terminals %lld --maxcap %lld --seed %lld",
                 (long long)scale, (long long)edge_factor, (long long)terminals, (long long)maxcap, (long long)seed);
    } else if (!strcmp(family, "rmat-pair")) {
        if (scale < 0) {
            DISPLAYLEVEL(1, "flowcut generate rmat-pair: --scale is required\n");
            return EXIT_USAGE;
        }
        edge_factor = edge_factor < 0 ? 8 : edge_factor;
        int32_t ranks[10];
        rc = mf_gen_rmat_pair((int32_t)scale, (int32_t)edge_factor, prob, (int32_t)pair, (int32_t)maxcap,
                              (uint64_t)seed, &list, ranks, 10);
        /* the ranks let a benchmark make pairs 1-5 from one file (tests/bench/ecl_pairs.sh) */
        int len = snprintf(comment, sizeof comment,
                           "flowcut generate rmat-pair --scale %lld --edge-factor %lld --probabilities %d,%d,%d "
                           "--pair %lld --maxcap %lld --seed %lld\nvertices of degree ranks 1-10:",
                           (long long)scale, (long long)edge_factor, prob[0], prob[1], prob[2], (long long)pair,
                           (long long)maxcap, (long long)seed);
        for (int k = 0; rc == MF_OK && k < 10 && len > 0 && len < (int)sizeof comment; k++)
            len += snprintf(comment + len, sizeof comment - (size_t)len, " %d", ranks[k] + 1);
    } else if (!strcmp(family, "matching")) {
        if (left < 0 || right < 0) {
            DISPLAYLEVEL(1, "flowcut generate matching: --left and --right are required\n");
            return EXIT_USAGE;
        }
        rc = mf_gen_matching((int32_t)left, (int32_t)right, (int32_t)degree, (uint64_t)seed, &list);
        snprintf(comment, sizeof comment, "flowcut generate matching --left %lld --right %lld --degree %lld --seed %lld",
                 (long long)left, (long long)right, (long long)degree, (long long)seed);
    } else {
        DISPLAYLEVEL(1, "flowcut generate: unknown family '%s'\n", family);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (rc) {
        DISPLAYLEVEL(1, "flowcut generate: %s\n", mf_strerror(rc));
        return EXIT_FAIL;
    }
    int status = EXIT_OK;
    if (out_path) {
        seg_out o;
        char msg[512];
        int wrc = MF_OK;
        if (cli_out_open(&o, out_path, force, msg, sizeof msg)) {
            DISPLAYLEVEL(1, "flowcut: %s\n", msg);
            status = EXIT_FAIL;
        } else if ((wrc = mf_write_dimacs(o.f, &list, comment)) != MF_OK && !ferror(o.f)) {
            DISPLAYLEVEL(1, "flowcut: %s: cannot write: %s\n", out_path, mf_strerror(wrc));
            seg_out_abort(&o);
            status = EXIT_FAIL;
        } else if (seg_out_commit(&o, msg, sizeof msg)) { /* a stream error is reported here, with its reason */
            DISPLAYLEVEL(1, "flowcut: %s\n", msg);
            status = EXIT_FAIL;
        }
    } else if (mf_write_dimacs(stdout, &list, comment) || fflush(stdout)) {
        DISPLAYLEVEL(1, "flowcut: cannot write to standard output\n");
        status = EXIT_FAIL;
    }
    mf_arclist_free(&list);
    return status;
}
