/* Options shared by segment, graph and batch: seeds, model, engine. */
#ifndef FLOWCUT_SEG_ARGS_H
#define FLOWCUT_SEG_ARGS_H

#include "pipeline.h"

#include <getopt.h>

enum {
    SO_SEEDS = 300, SO_TRIMAP, SO_SCRIBBLE, SO_LAMBDA, SO_CONN, SO_MODEL, SO_ITER, SO_ENGINE,
    SO_DEVICE, SO_MAXPX, SO_CPUALG, SO_UNIFORM, SO_THREADS, SO_GEODESIC, SO_BORDER, SO_STAR, SO_CLICKS, SO_BOX
};

#define SEG_LONG_OPTIONS                                                                     \
    {"seeds", required_argument, NULL, SO_SEEDS}, {"trimap", required_argument, NULL, SO_TRIMAP}, \
    {"clicks", required_argument, NULL, SO_CLICKS}, {"box", required_argument, NULL, SO_BOX},      \
    {"scribble-colors", optional_argument, NULL, SO_SCRIBBLE},                                   \
    {"lambda", required_argument, NULL, SO_LAMBDA},                                              \
    {"connectivity", required_argument, NULL, SO_CONN},                                          \
    {"model", required_argument, NULL, SO_MODEL},                                                \
    {"uniform-mix", required_argument, NULL, SO_UNIFORM},                                        \
    {"iterations", required_argument, NULL, SO_ITER},                                            \
    {"geodesic", required_argument, NULL, SO_GEODESIC},                                          \
    {"border", required_argument, NULL, SO_BORDER},                                              \
    {"star", required_argument, NULL, SO_STAR},                                                  \
    {"engine", required_argument, NULL, SO_ENGINE},                                              \
    {"cpu-algorithm", required_argument, NULL, SO_CPUALG},                                       \
    {"device", required_argument, NULL, SO_DEVICE},                                              \
    {"max-pixels", required_argument, NULL, SO_MAXPX},                                           \
    {"threads", required_argument, NULL, SO_THREADS}

/* The seed options of segment and graph, then the model and engine options
 * every command that segments takes (batch has folders for seeds). */
#define SEG_OPTIONS_HELP SEG_SEED_OPTIONS_HELP SEG_MODEL_OPTIONS_HELP
#define SEG_SEED_OPTIONS_HELP                                                                     \
    "  --seeds FILE          seed image: 1 = foreground, 2 = background, 0 = unmarked\n"          \
    "                        (grey value or palette index; a colour image is read as scribbles)\n" \
    "  --trimap FILE         trimap instead: 255 foreground, 0 background, else unknown\n"        \
    "  --clicks 'X,Y -X,Y'   clicks: X,Y on the object, -X,Y on the background (or @FILE;\n"    \
    "                        one click is enough: the border stands in for the background)\n"  \
    "  --box X,Y,W,H         everything outside this rectangle is background\n"
#define SEG_MODEL_OPTIONS_HELP                                                                    \
    "  --scribble-colors[=FG,BG]  seeds are RGB scribbles (default red,blue); colours by\n"     \
    "                        name (red, green, blue, yellow, cyan, magenta, orange, purple,\n" \
    "                        white, black) or #RRGGBB; a pixel within RGB distance 96 of a\n"  \
    "                        colour, and clearly nearer to it than to the other, is its seed\n" \
    "  --lambda X            smoothness weight (default 70)\n"                                    \
    "  --connectivity 4|8    pixel neighbourhood (default 8)\n"                                   \
    "  --model gmm|hist      colour model (default gmm: 5-component Gaussian mixtures)\n"         \
    "  --uniform-mix E       blend a uniform colour density of weight E into both models,\n"   \
    "                        so colours the seeds missed keep a bounded cost (default 0.01)\n" \
    "  --iterations N        GrabCut-style re-fits of the models (default 0)\n"                   \
    "  --geodesic W          prior of weight W (nats) toward the region whose seeds are\n"      \
    "                        geodesically nearer (default 14; 0: off)\n"                      \
    "  --border D|off        the photo's border counts as a background stroke at geodesic\n"  \
    "                        distance D, in colour edges crossed (default 0.2)\n"            \
    "  --star on|off         geodesic star convexity: every foreground pixel joins a\n"       \
    "                        foreground seed by its shortest path (default off)\n"          \
    "  --engine auto|cpu|gpu solver engine (default auto)\n"                                      \
    "  --cpu-algorithm A     CPU solver: auto (default: Boykov-Kolmogorov, the fastest on\n" \
    "                        photos at every size measured), bk, ibfs or push-relabel\n"    \
    "  --threads N           CPU threads for the network and the solve (default 0: every\n" \
    "                        core); the mask does not depend on N\n"                      \
    "  --device N            CUDA device (default 0)\n"                                           \
    "  --max-pixels N        refuse larger images (default 268435456)\n"

/* Handles one shared option; returns 1 when c was one of them, 0 when not,
 * -1 on a bad value (message printed). seed_path receives --seeds/--trimap;
 * --clicks and --box go into prompts that o->prompts then points to (free
 * them with seg_args_done). */
int seg_parse_option(int c, const char *arg, seg_options *o, const char **seed_path, const char *cmd);

/* getopt_long that handles the shared options itself: returns the next
 * other option (as getopt_long does), -1 at the end, or SEG_BAD_OPTION
 * once a shared option had a bad value (message printed). */
#define SEG_BAD_OPTION (-2)
/* Frees what parsing allocated for o (the prompts). */
void seg_args_done(seg_options *o);
int seg_next_option(int argc, char **argv, const char *shortopts, const struct option *longopts,
                    seg_options *o, const char **seed_path, const char *cmd);

#endif
