/* flowcut: graph-cut segmentation and max-flow from the shell. */
#include "cli.h"

#include "flowcut/maxflow.h"

#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "flowcut %s: exact minimum cuts for image segmentation and max-flow\n"
            "\n"
            "usage: flowcut COMMAND [options]\n"
            "\n"
            "commands:\n"
            "  segment IMAGE --seeds SEEDS -o MASK   segment a photo from seeds, clicks (--clicks) or a box\n"
            "  batch IN_DIR -o OUT_DIR ...           segment whole folders\n"
            "  ui IMAGE [--seeds SEEDS]              click or paint in a local web page, the cut follows\n"
            "  graph IMAGE --seeds SEEDS -o FILE.max write segment's network (same prompts) as DIMACS\n"
            "  maxflow FILE.max|-                    solve a DIMACS max-flow problem\n"
            "  generate FAMILY ...                   write a DIMACS instance of a classic family\n"
            "\n"
            "Run 'flowcut COMMAND --help' for a command's options.\n"
            "Exit codes: 0 success, 1 failure, 2 usage error.\n",
            FLOWCUT_VERSION);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("flowcut %s (CUDA engine: %s)\n", FLOWCUT_VERSION,
               mf_gpu_compiled() ? "built" : "not built");
        return EXIT_OK;
    }
    if (!strcmp(cmd, "maxflow"))
        return cmd_maxflow(argc - 1, argv + 1);
    if (!strcmp(cmd, "generate"))
        return cmd_generate(argc - 1, argv + 1);
    if (!strcmp(cmd, "segment"))
        return cmd_segment(argc - 1, argv + 1);
    if (!strcmp(cmd, "graph"))
        return cmd_graph(argc - 1, argv + 1);
    if (!strcmp(cmd, "batch"))
        return cmd_batch(argc - 1, argv + 1);
    if (!strcmp(cmd, "ui"))
        return cmd_ui(argc - 1, argv + 1);
    static const char *const commands[] = {"segment", "batch", "ui", "graph", "maxflow", "generate", "help"};
    const char *near = cli_nearest(cmd, commands, sizeof commands / sizeof commands[0]);
    if (near)
        cli_usage_error("flowcut", "unknown command '%s'; did you mean '%s'?", cmd, near);
    else
        cli_usage_error("flowcut", "unknown command '%s'", cmd);
    return EXIT_USAGE;
}
