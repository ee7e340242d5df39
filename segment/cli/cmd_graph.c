/* flowcut graph: the segmentation network of a photo as a DIMACS file. */
#include "cli.h"
#include "seg_args.h"
#include "seg_output.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flowcut graph IMAGE --seeds SEEDS -o FILE.max [options]\n"
            "Writes the network `flowcut segment` solves as DIMACS. Vertex ids: pixel (x, y)\n"
            "is y*W + x + 1, the source W*H + 1, the sink W*H + 2. `flowcut maxflow FILE.max`\n"
            "gives segment's flow value; its --cut lists the foreground pixels.\n" SEG_OPTIONS_HELP
            "  -o, --output FILE     the DIMACS file (- for standard output)\n"
            "  -f, --force           overwrite an existing file\n");
}

int cmd_graph(int argc, char **argv)
{
    static const struct option longopts[] = {SEG_LONG_OPTIONS,
                                             {"output", required_argument, NULL, 'o'},
                                             {"force", no_argument, NULL, 'f'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    seg_options o;
    seg_options_default(&o);
    const char *seeds = NULL, *out = NULL;
    int force = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = seg_next_option(argc, argv, ":o:fh", longopts, &o, &seeds, "flowcut graph")) != -1) {
        switch (c) {
        case SEG_BAD_OPTION: seg_args_done(&o); return EXIT_USAGE;
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'h': usage(stdout); seg_args_done(&o); return EXIT_OK;
        default:
            cli_option_error("flowcut graph", longopts, argv, c);
            seg_args_done(&o);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1 || !seeds || !out) {
        cli_usage_error("flowcut graph", "needs IMAGE, --seeds (or --trimap) and -o FILE.max");
        seg_args_done(&o);
        return EXIT_USAGE;
    }
    if (strcmp(out, "-") && cli_check_output_name("flowcut graph", "-o", out, "graph.max", 0)) {
        seg_args_done(&o);
        return EXIT_USAGE;
    }
    if (o.iterations)
        DISPLAYLEVEL(2, "flowcut graph: notice: --iterations ignored; the network of the first fit is written\n");
    seg_result r;
    uint8_t *labels = NULL;
    mf_graph g;
    mf_arclist list;
    int32_t *cancelled = NULL;
    int status = EXIT_FAIL;
    memset(&r, 0, sizeof r);
    memset(&g, 0, sizeof g);
    memset(&list, 0, sizeof list);
    char msg[768];
    if (seg_load(argv[optind], seeds, &o, &r, &labels)) {
        DISPLAYLEVEL(1, "flowcut: %s\n", r.error);
        goto done;
    }
    cancelled = malloc(sizeof(int32_t) * (size_t)r.photo.width * (size_t)r.photo.height);
    if (!cancelled || seg_build(&r, labels, labels, &o, &g, cancelled, NULL, msg, sizeof msg) ||
        gb_to_arclist(&g, cancelled, &list)) {
        DISPLAYLEVEL(1, "flowcut: %s: %s\n", argv[optind], cancelled ? msg : "out of memory");
        goto done;
    }
    char comment[512];
    snprintf(comment, sizeof comment,
             "flowcut graph %s: %dx%d pixels, lambda %g, %d-connected\n"
             "pixel (x,y) = y*%d + x + 1; source %d (foreground side), sink %d",
             argv[optind], r.photo.width, r.photo.height, o.graph.lambda, o.graph.connectivity,
             r.photo.width, list.source + 1, list.sink + 1);
    if (!strcmp(out, "-")) {
        if (mf_write_dimacs(stdout, &list, comment) || fflush(stdout)) {
            DISPLAYLEVEL(1, "flowcut: cannot write to standard output\n");
            goto done;
        }
    } else {
        seg_out of;
        if (cli_out_open(&of, out, force, msg, sizeof msg)) {
            DISPLAYLEVEL(1, "flowcut: %s\n", msg);
            goto done;
        }
        /* a failed write shows in the commit, with its errno */
        if (mf_write_dimacs(of.f, &list, comment) == MF_ERR_NOMEM) {
            seg_out_abort(&of);
            DISPLAYLEVEL(1, "flowcut: %s: out of memory\n", out);
            goto done;
        }
        if (seg_out_commit(&of, msg, sizeof msg)) {
            DISPLAYLEVEL(1, "flowcut: %s\n", msg);
            goto done;
        }
    }
    status = EXIT_OK;
done:
    free(cancelled);
    free(labels);
    mf_arclist_free(&list);
    mf_graph_free(&g);
    seg_result_free(&r);
    seg_args_done(&o);
    return status;
}
