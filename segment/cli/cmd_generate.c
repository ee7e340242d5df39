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

/* The families, as usage() lists them; FAMILY_LIST is the same list for
 * the one-line messages that name them all. */
static const char *const families[] = {"genrmf", "washington-rlg", "acyclic-dense", "grid",
                                       "rmat",   "rmat-pair",      "matching"};
#define FAMILY_LIST "genrmf, washington-rlg, acyclic-dense, grid, rmat, rmat-pair or matching"

/* The command line, parsed: the family, then every family's sizes (-1:
 * not given) and the options all share. */
typedef struct gen_args {
    const char *family, *out_path;
    int64_t a, b, c1, c2, rows, cols, maxcap, n, width, height, conn, seed;
    int64_t scale, edge_factor, terminals, left, right, degree, pair;
    int32_t prob[3];
    int force;
} gen_args;

/* --probabilities A,B,C: three percentages, their sum at most 100; 0 or -1. */
static int parse_probabilities(const char *s, int32_t prob[3])
{
    int64_t v[3];
    char part[3][24] = {{0}};
    if (sscanf(s, "%23[^,],%23[^,],%23s", part[0], part[1], part[2]) != 3 || parse_i64(part[0], 0, 100, &v[0]) ||
        parse_i64(part[1], 0, 100, &v[1]) || parse_i64(part[2], 0, 100, &v[2]) || v[0] + v[1] + v[2] > 100)
        return -1;
    for (int i = 0; i < 3; i++)
        prob[i] = (int32_t)v[i];
    return 0;
}

/* The first word names the family; one that names none is reported with
 * the nearest family, or with the list when none is near. */
static int check_family(const char *family)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (!strcmp(family, families[i]))
            return 0;
    const char *near = cli_nearest(family, families, sizeof families / sizeof families[0]);
    if (family[0] == '-')
        cli_usage_error("flowcut generate", "expected a FAMILY first, not the option '%s': " FAMILY_LIST, family);
    else if (near)
        cli_usage_error("flowcut generate", "unknown family '%s'; did you mean %s?", family, near);
    else
        cli_usage_error("flowcut generate", "unknown family '%s': " FAMILY_LIST, family);
    return -1;
}

/* Parses argv into g; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, gen_args *g)
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
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return EXIT_OK;
    }
    if (argc < 2) {
        cli_usage_error("flowcut generate", "needs a FAMILY: " FAMILY_LIST);
        return EXIT_USAGE;
    }
    /* before the options: they are read as the family's */
    if (check_family(argv[1]))
        return EXIT_USAGE;
    *g = (gen_args){.family = argv[1], .a = -1, .b = -1, .c1 = 100, .c2 = 10000, .rows = -1, .cols = -1,
                    .maxcap = 10000, .n = -1, .width = -1, .height = -1, .conn = 4, .seed = 1, .scale = -1,
                    .edge_factor = -1, .terminals = 8, .left = -1, .right = -1, .degree = 8, .pair = 1,
                    .prob = {45, 15, 15}};
    optind = 2;
    opterr = 0;
    int c;
    /* shortopts begin with ':': a missing value is told apart (':') from an unknown option */
    while ((c = getopt_long(argc, argv, ":a:b:n:o:fh", longopts, NULL)) != -1) {
        int64_t *target = NULL, lo = 1, hi = INT32_MAX;
        switch (c) {
        case 'a': target = &g->a; break;
        case 'b': target = &g->b; break;
        case 'n': target = &g->n; lo = 2; break;
        case O_C1: target = &g->c1; lo = 0; break;
        case O_C2: target = &g->c2; lo = 0; break;
        case O_ROWS: target = &g->rows; break;
        case O_COLS: target = &g->cols; break;
        case O_MAXCAP: target = &g->maxcap; hi = INT32_MAX / 3; break;
        case O_WIDTH: target = &g->width; lo = 2; break;
        case O_HEIGHT: target = &g->height; lo = 2; break;
        case O_CONN: target = &g->conn; lo = 4; hi = 8; break;
        case O_SEED: target = &g->seed; lo = 0; hi = INT64_MAX; break;
        case O_SCALE: target = &g->scale; lo = 2; hi = 28; break;
        case O_EF: target = &g->edge_factor; hi = 1024; break;
        case O_TERM: target = &g->terminals; hi = 1 << 20; break;
        case O_LEFT: target = &g->left; break;
        case O_RIGHT: target = &g->right; break;
        case O_DEGREE: target = &g->degree; hi = 1 << 20; break;
        case O_PAIR: target = &g->pair; hi = MF_GEN_PAIR_MAX; break;
        case O_PROB:
            if (parse_probabilities(optarg, g->prob)) {
                DISPLAYLEVEL(1, "flowcut generate: bad value '%s' for --probabilities (A,B,C in percent, sum at most 100)\n",
                             optarg);
                return EXIT_USAGE;
            }
            break;
        case 'o': g->out_path = optarg; break;
        case 'f': g->force = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default:
            cli_option_error("flowcut generate", longopts, argv, c);
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
        cli_usage_error("flowcut generate", "unexpected argument '%s'", argv[optind]);
        return EXIT_USAGE;
    }
    return -1;
}

/* Generates g's instance into list, with the command that remakes it in
 * comment; returns -1 to go on, else the exit status (a size the family
 * needs was not given, the generator failed). */
static int make_instance(gen_args *g, mf_arclist *list, char *comment, size_t size)
{
    int rc;
    if (!strcmp(g->family, "genrmf")) {
        if (g->a < 0 || g->b < 0) {
            cli_usage_error("flowcut generate genrmf", "-a and -b are required");
            return EXIT_USAGE;
        }
        rc = mf_gen_genrmf((int32_t)g->a, (int32_t)g->b, (int32_t)g->c1, (int32_t)g->c2, (uint64_t)g->seed, list);
        snprintf(comment, size, "flowcut generate genrmf -a %lld -b %lld --c1 %lld --c2 %lld --seed %lld",
                 (long long)g->a, (long long)g->b, (long long)g->c1, (long long)g->c2, (long long)g->seed);
    } else if (!strcmp(g->family, "washington-rlg")) {
        if (g->rows < 0 || g->cols < 0) {
            cli_usage_error("flowcut generate washington-rlg", "--rows and --cols are required");
            return EXIT_USAGE;
        }
        rc = mf_gen_washington_rlg((int32_t)g->rows, (int32_t)g->cols, (int32_t)g->maxcap, (uint64_t)g->seed, list);
        snprintf(comment, size, "flowcut generate washington-rlg --rows %lld --cols %lld --maxcap %lld --seed %lld",
                 (long long)g->rows, (long long)g->cols, (long long)g->maxcap, (long long)g->seed);
    } else if (!strcmp(g->family, "acyclic-dense")) {
        if (g->n < 0) {
            cli_usage_error("flowcut generate acyclic-dense", "-n is required");
            return EXIT_USAGE;
        }
        rc = mf_gen_acyclic_dense((int32_t)g->n, (uint64_t)g->seed, list);
        snprintf(comment, size, "flowcut generate acyclic-dense -n %lld --seed %lld", (long long)g->n,
                 (long long)g->seed);
    } else if (!strcmp(g->family, "grid")) {
        if (g->width < 0 || g->height < 0 || (g->conn != 4 && g->conn != 8)) {
            cli_usage_error("flowcut generate grid", "--width and --height are required, --connectivity is 4 or 8");
            return EXIT_USAGE;
        }
        rc = mf_gen_grid((int32_t)g->width, (int32_t)g->height, (int)g->conn, (uint64_t)g->seed, list);
        snprintf(comment, size, "flowcut generate grid --width %lld --height %lld --connectivity %lld --seed %lld",
                 (long long)g->width, (long long)g->height, (long long)g->conn, (long long)g->seed);
    } else if (!strcmp(g->family, "rmat")) {
        if (g->scale < 0) {
            cli_usage_error("flowcut generate rmat", "--scale is required");
            return EXIT_USAGE;
        }
        g->edge_factor = g->edge_factor < 0 ? 16 : g->edge_factor;
        rc = mf_gen_rmat((int32_t)g->scale, (int32_t)g->edge_factor, (int32_t)g->terminals, (int32_t)g->maxcap,
                         (uint64_t)g->seed, list);
        snprintf(comment, size,
                 "flowcut generate rmat --scale %lld --edge-factor %lld --terminals %lld --maxcap %lld --seed %lld",
                 (long long)g->scale, (long long)g->edge_factor, (long long)g->terminals, (long long)g->maxcap,
                 (long long)g->seed);
    } else if (!strcmp(g->family, "rmat-pair")) {
        if (g->scale < 0) {
            cli_usage_error("flowcut generate rmat-pair", "--scale is required");
            return EXIT_USAGE;
        }
        g->edge_factor = g->edge_factor < 0 ? 8 : g->edge_factor;
        int32_t ranks[10];
        rc = mf_gen_rmat_pair((int32_t)g->scale, (int32_t)g->edge_factor, g->prob, (int32_t)g->pair,
                              (int32_t)g->maxcap, (uint64_t)g->seed, list, ranks, 10);
        /* the ranks let a benchmark make pairs 1-5 from one file (tests/bench/ecl_pairs.sh) */
        int len = snprintf(comment, size,
                           "flowcut generate rmat-pair --scale %lld --edge-factor %lld --probabilities %d,%d,%d "
                           "--pair %lld --maxcap %lld --seed %lld\nvertices of degree ranks 1-10:",
                           (long long)g->scale, (long long)g->edge_factor, g->prob[0], g->prob[1], g->prob[2],
                           (long long)g->pair, (long long)g->maxcap, (long long)g->seed);
        for (int k = 0; rc == MF_OK && k < 10 && len > 0 && len < (int)size; k++)
            len += snprintf(comment + len, size - (size_t)len, " %d", ranks[k] + 1);
    } else { /* matching: parse_args took only the families above */
        if (g->left < 0 || g->right < 0) {
            cli_usage_error("flowcut generate matching", "--left and --right are required");
            return EXIT_USAGE;
        }
        rc = mf_gen_matching((int32_t)g->left, (int32_t)g->right, (int32_t)g->degree, (uint64_t)g->seed, list);
        snprintf(comment, size, "flowcut generate matching --left %lld --right %lld --degree %lld --seed %lld",
                 (long long)g->left, (long long)g->right, (long long)g->degree, (long long)g->seed);
    }
    if (rc) {
        DISPLAYLEVEL(1, "flowcut generate: %s\n", mf_strerror(rc));
        return EXIT_FAIL;
    }
    return -1;
}

/* Writes the instance to -o FILE (atomically) or standard output; the exit status. */
static int write_instance(const gen_args *g, const mf_arclist *list, const char *comment)
{
    if (!g->out_path) {
        if (mf_write_dimacs(stdout, list, comment) || fflush(stdout)) {
            DISPLAYLEVEL(1, "flowcut: cannot write to standard output\n");
            return EXIT_FAIL;
        }
        return EXIT_OK;
    }
    seg_out o;
    char msg[512];
    int wrc = MF_OK;
    if (cli_out_open(&o, g->out_path, g->force, msg, sizeof msg)) {
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        return EXIT_FAIL;
    }
    if ((wrc = mf_write_dimacs(o.f, list, comment)) != MF_OK && !ferror(o.f)) {
        DISPLAYLEVEL(1, "flowcut: %s: cannot write: %s\n", g->out_path, mf_strerror(wrc));
        seg_out_abort(&o);
        return EXIT_FAIL;
    }
    if (seg_out_commit(&o, msg, sizeof msg)) { /* a stream error is reported here, with its reason */
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

int cmd_generate(int argc, char **argv)
{
    gen_args g;
    mf_arclist list;
    char comment[512];
    int status = parse_args(argc, argv, &g);
    if (status < 0)
        status = make_instance(&g, &list, comment, sizeof comment);
    if (status >= 0)
        return status;
    status = write_instance(&g, &list, comment);
    mf_arclist_free(&list);
    return status;
}
