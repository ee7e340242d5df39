/* Parsing of the options shared by segment, graph and batch. */
#include "seg_args.h"

#include "cli.h"

#include <stdio.h>
#include <string.h>

static int parse_hex_rgb(const char *s, uint8_t *rgb)
{
    unsigned v;
    char tail;
    if (s[0] == '#')
        s++;
    if (strlen(s) != 6 || sscanf(s, "%6x%c", &v, &tail) != 1)
        return -1;
    rgb[0] = (uint8_t)(v >> 16);
    rgb[1] = (uint8_t)(v >> 8);
    rgb[2] = (uint8_t)v;
    return 0;
}

int seg_parse_option(int c, const char *arg, seg_options *o, const char **seed_path, const char *cmd)
{
    int64_t iv;
    double dv;
    switch (c) {
    case SO_SEEDS:
        *seed_path = arg;
        if (o->seeds == SEEDS_TRIMAP)
            o->seeds = SEEDS_LABELS;
        return 1;
    case SO_TRIMAP:
        *seed_path = arg;
        o->seeds = SEEDS_TRIMAP;
        return 1;
    case SO_SCRIBBLE:
        o->seeds = SEEDS_SCRIBBLE;
        if (arg) {
            char fg[16], bg[16];
            const char *comma = strchr(arg, ',');
            if (!comma || comma - arg >= 16 || strlen(comma + 1) >= 16) {
                DISPLAYLEVEL(1, "%s: --scribble-colors takes FG,BG as hex RGB, e.g. ff0000,0000ff\n", cmd);
                return -1;
            }
            memcpy(fg, arg, (size_t)(comma - arg));
            fg[comma - arg] = 0;
            strcpy(bg, comma + 1);
            if (parse_hex_rgb(fg, o->fg_rgb) || parse_hex_rgb(bg, o->bg_rgb)) {
                DISPLAYLEVEL(1, "%s: --scribble-colors takes FG,BG as hex RGB, e.g. ff0000,0000ff\n", cmd);
                return -1;
            }
        }
        return 1;
    case SO_LAMBDA:
        if (parse_double(arg, 0, 1e5, &dv)) {
            DISPLAYLEVEL(1, "%s: --lambda needs a number in [0, 100000]\n", cmd);
            return -1;
        }
        o->graph.lambda = dv;
        return 1;
    case SO_CONN:
        if (parse_i64(arg, 4, 8, &iv) || (iv != 4 && iv != 8)) {
            DISPLAYLEVEL(1, "%s: --connectivity is 4 or 8\n", cmd);
            return -1;
        }
        o->graph.connectivity = (int)iv;
        return 1;
    case SO_MODEL:
        if (!strcmp(arg, "gmm"))
            o->graph.model = GB_MODEL_GMM;
        else if (!strcmp(arg, "hist"))
            o->graph.model = GB_MODEL_HIST;
        else {
            DISPLAYLEVEL(1, "%s: --model is gmm or hist\n", cmd);
            return -1;
        }
        return 1;
    case SO_UNIFORM:
        if (parse_double(arg, 0, 0.5, &dv)) {
            DISPLAYLEVEL(1, "%s: --uniform-mix needs a number in [0, 0.5]\n", cmd);
            return -1;
        }
        o->graph.uniform_mix = dv;
        return 1;
    case SO_ITER:
        if (parse_i64(arg, 0, 100, &iv)) {
            DISPLAYLEVEL(1, "%s: --iterations needs 0..100\n", cmd);
            return -1;
        }
        o->iterations = (int)iv;
        return 1;
    case SO_ENGINE:
        if (parse_engine(arg, &o->solve.engine)) {
            DISPLAYLEVEL(1, "%s: --engine must be auto, cpu or gpu\n", cmd);
            return -1;
        }
        return 1;
    case SO_CPUALG:
        if (parse_cpu_algorithm(arg, &o->solve.cpu_algorithm)) {
            DISPLAYLEVEL(1, "%s: --cpu-algorithm must be auto, bk or push-relabel\n", cmd);
            return -1;
        }
        return 1;
    case SO_DEVICE:
        if (parse_i64(arg, 0, 1024, &iv)) {
            DISPLAYLEVEL(1, "%s: --device needs a device ordinal\n", cmd);
            return -1;
        }
        o->solve.device = (int)iv;
        return 1;
    case SO_MAXPX:
        if (parse_i64(arg, 1, INT64_MAX, &iv)) {
            DISPLAYLEVEL(1, "%s: --max-pixels needs a positive number\n", cmd);
            return -1;
        }
        o->max_pixels = iv;
        return 1;
    default:
        return 0;
    }
}

int seg_next_option(int argc, char **argv, const char *shortopts, const struct option *longopts,
                    seg_options *o, const char **seed_path, const char *cmd)
{
    int c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        int handled = seg_parse_option(c, optarg, o, seed_path, cmd);
        if (handled < 0)
            return SEG_BAD_OPTION;
        if (!handled)
            return c;
    }
    return -1;
}
