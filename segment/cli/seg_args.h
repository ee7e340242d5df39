/* Options shared by segment, graph and batch: seeds, model, engine. */
#ifndef FLOWCUT_SEG_ARGS_H
#define FLOWCUT_SEG_ARGS_H

#include "pipeline.h"

#include <getopt.h>

/* The model and engine options every command that segments shares, one
 * row each: X(ID, NAME, HAS_ARG, HELP). NAME is the long option and the
 * name seg_options_set takes (it parses and checks the value: the CLI,
 * the Python keywords and the library read every value alike); HELP is
 * the option's lines of --help. The getopt entries, the name each id
 * passes to seg_options_set and the help text all come from this table,
 * so an option added to seg_options_set needs one row here and nothing
 * else in the CLI. */
#define SEG_SHARED_OPTIONS(X)                                                                       \
    X(SO_SCRIBBLE, "scribble-colors", optional_argument,                                          \
      "  --scribble-colors[=FG,BG]  seeds are RGB scribbles (default red,blue); colours by\n"     \
      "                        name (red, green, blue, yellow, cyan, magenta, orange, purple,\n" \
      "                        white, black) or #RRGGBB; a pixel within RGB distance 96 of a\n"  \
      "                        colour, and clearly nearer to it than to the other, is its seed\n") \
    X(SO_LAMBDA, "lambda", required_argument, "  --lambda X            smoothness weight (default 70)\n") \
    X(SO_CONN, "connectivity", required_argument,                                                 \
      "  --connectivity 4|8    pixel neighbourhood (default 8)\n")                                   \
    X(SO_MODEL, "model", required_argument,                                                       \
      "  --model gmm|hist      colour model (default gmm: 5-component Gaussian mixtures)\n")         \
    X(SO_UNIFORM, "uniform-mix", required_argument,                                               \
      "  --uniform-mix E       blend a uniform colour density of weight E into both models,\n"   \
      "                        so colours the seeds missed keep a bounded cost (default 0.01)\n") \
    X(SO_ITER, "iterations", required_argument,                                                   \
      "  --iterations N        GrabCut-style re-fits of the models (default 0)\n")                   \
    X(SO_GEODESIC, "geodesic", required_argument,                                                 \
      "  --geodesic W          prior of weight W (nats) toward the region whose seeds are\n"      \
      "                        geodesically nearer (default 14; 0: off)\n")                      \
    X(SO_BORDER, "border", required_argument,                                                     \
      "  --border D|off        the photo's border counts as a background stroke at geodesic\n"  \
      "                        distance D, in colour edges crossed (default 0.2), except on\n"  \
      "                        the sides a foreground seed touches\n")                          \
    X(SO_KEEP, "keep", required_argument,                                                         \
      "  --keep W              a click that corrects an answer (segment's --previous, the ui's\n" \
      "                        clicks): a pixel away from it keeps its label unless the photo\n"  \
      "                        argues by over W nats (default 4; 0: off)\n")                     \
    X(SO_STAR, "star", required_argument,                                                         \
      "  --star on|off         geodesic star convexity: every foreground pixel joins a\n"       \
      "                        foreground seed by its shortest path (default off)\n")          \
    X(SO_ENGINE, "engine", required_argument, "  --engine auto|cpu|gpu solver engine (default auto)\n") \
    X(SO_CPUALG, "cpu-algorithm", required_argument,                                              \
      "  --cpu-algorithm A     CPU solver: auto (default: Boykov-Kolmogorov, the fastest on\n" \
      "                        photos at every size), bk, ibfs or push-relabel\n")             \
    X(SO_THREADS, "threads", required_argument,                                                   \
      "  --threads N           CPU threads for the network and the solve (default 0: every\n" \
      "                        core); the mask does not depend on N\n")                      \
    X(SO_DEVICE, "device", required_argument, "  --device N            CUDA device (default 0)\n") \
    X(SO_MAXPX, "max-pixels", required_argument,                                                  \
      "  --max-pixels N        refuse larger images (default " SEG_MAX_PIXELS_TEXT ")\n")

/* IMG_DEFAULT_MAX_PIXELS (images.h: the one definition) as the help
 * writes it; the build fails here when the two disagree. */
#define SEG_MAX_PIXELS_TEXT "268435456"
_Static_assert(IMG_DEFAULT_MAX_PIXELS == 268435456, "SEG_MAX_PIXELS_TEXT must state IMG_DEFAULT_MAX_PIXELS");

#define SEG_OPTION_ID(id, name, has_arg, help) id,
#define SEG_OPTION_LONG(id, name, has_arg, help) {name, has_arg, NULL, id},
#define SEG_OPTION_HELP(id, name, has_arg, help) help

enum { SO_SEEDS = 300, SO_TRIMAP, SO_CLICKS, SO_BOX, SEG_SHARED_OPTIONS(SEG_OPTION_ID) SO_END };

/* The getopt entries of the shared options above and of the seed
 * options; a command's longopts begin with it. */
#define SEG_LONG_OPTIONS                                                                          \
    SEG_SHARED_OPTIONS(SEG_OPTION_LONG)                                                           \
    {"seeds", required_argument, NULL, SO_SEEDS}, {"trimap", required_argument, NULL, SO_TRIMAP}, \
    {"clicks", required_argument, NULL, SO_CLICKS}, {"box", required_argument, NULL, SO_BOX}

/* The seed options of segment and graph, then the model and engine options
 * every command that segments takes (batch has folders for seeds). */
#define SEG_OPTIONS_HELP SEG_SEED_OPTIONS_HELP SEG_MODEL_OPTIONS_HELP
#define SEG_SEED_OPTIONS_HELP                                                                     \
    "  --seeds FILE          seed image: 1 = foreground, 2 = background, 0 = unmarked\n"          \
    "                        (grey value or palette index; a colour image, not grey\n"    \
    "                        throughout, is read as scribbles)\n"                       \
    "  --trimap FILE         trimap instead: 255 foreground, 0 background, else unknown\n"        \
    "  --clicks 'X,Y -X,Y'   clicks: X,Y on the object, -X,Y on the background (or @FILE;\n"    \
    "                        one click is enough: the border stands in for the background;\n"  \
    "                        X,Y,R: a disc of radius R, else a fortieth of the shorter side)\n" \
    "  --box X,Y,W,H         everything outside this rectangle is background; the inside is\n"  \
    "                        cut as GrabCut cuts it, clicks and seeds refining that cut\n"
#define SEG_MODEL_OPTIONS_HELP SEG_SHARED_OPTIONS(SEG_OPTION_HELP)

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

/* --previous: a mask as `segment` writes it (or any grey image: a pixel of
 * 128 or more, or 1 in a 0 / 1 label image, is foreground; a colour image is
 * refused) into img, which o then points to (free img after o's last use);
 * -1 with the message printed (cmd its first word) and, when msg is not
 * NULL, copied there. */
int seg_load_previous(const char *path, seg_options *o, img_image *img, const char *cmd, char *msg, size_t msg_size);

#endif
