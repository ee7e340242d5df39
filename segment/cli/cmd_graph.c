/* flowcut graph: the segmentation network of a photo as a DIMACS file. */
#include "cli.h"
#include "seg_args.h"
#include "seg_output.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flowcut graph IMAGE --seeds SEEDS|--clicks 'X,Y ...'|--box X,Y,W,H -o FILE.max\n"
            "Writes the network `flowcut segment` solves as DIMACS, from the same seeds, clicks,\n"
            "box and options. Vertex ids: pixel (x, y) is y*W + x + 1, the source W*H + 1, the\n"
            "sink W*H + 2. `flowcut maxflow FILE.max` gives segment's flow value; its --cut\n"
            "lists the foreground pixels (and the source, W*H + 1).\n" SEG_OPTIONS_HELP
            "  --previous MASK       the mask the last click corrects (as `flowcut segment`)\n"
            "  -o, --output FILE     the DIMACS file (- for standard output)\n"
            "  -f, --force           overwrite an existing file\n"
            "  -q, --quiet           errors only\n");
}

int cmd_graph(int argc, char **argv)
{
    enum { O_PREVIOUS = 256 };
    static const struct option longopts[] = {SEG_LONG_OPTIONS,
                                             {"previous", required_argument, NULL, O_PREVIOUS},
                                             {"output", required_argument, NULL, 'o'},
                                             {"force", no_argument, NULL, 'f'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    seg_options o;
    seg_options_default(&o);
    const char *seeds = NULL, *out = NULL, *previous = NULL;
    int force = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = seg_next_option(argc, argv, ":o:fqh", longopts, &o, &seeds, "flowcut graph")) != -1) {
        switch (c) {
        case SEG_BAD_OPTION: seg_args_done(&o); return EXIT_USAGE;
        case 'o': out = optarg; break;
        case O_PREVIOUS: previous = optarg; break;
        case 'f': force = 1; break;
        case 'q': g_display_level = 1; break;
        case 'h': usage(stdout); seg_args_done(&o); return EXIT_OK;
        default:
            cli_option_error("flowcut graph", longopts, argv, c);
            seg_args_done(&o);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1 || (!seeds && !o.prompts) || !out) {
        cli_usage_error("flowcut graph", "needs IMAGE, --seeds (or --trimap, --clicks, --box) and -o FILE.max");
        seg_args_done(&o);
        return EXIT_USAGE;
    }
    if (strcmp(out, "-") && cli_check_output_name("flowcut graph", "-o", out, "graph.max", 0)) {
        seg_args_done(&o);
        return EXIT_USAGE;
    }
    img_image prev = {0};
    if (previous && seg_load_previous(previous, &o, &prev, "flowcut graph", NULL, 0)) {
        seg_args_done(&o);
        return EXIT_FAIL;
    }
    /* the network segment builds first: a box's route has made its re-fits
     * at half size by then, on photos of 128 pixels a side or more */
    if (o.iterations)
        DISPLAYLEVEL(2, "flowcut graph: notice: --iterations ignored; the network of the first fit is written\n");
    seg_job j;
    mf_arclist list;
    int32_t *cancelled = NULL;
    int status = EXIT_FAIL;
    memset(&j, 0, sizeof j);
    memset(&list, 0, sizeof list);
    if (seg_job_load(&j, argv[optind], seeds, &o)) {
        DISPLAYLEVEL(1, "flowcut: %s\n", j.r.error);
        goto done;
    }
    cancelled = malloc(sizeof(int32_t) * (size_t)j.r.photo.width * (size_t)j.r.photo.height);
    if (!cancelled) {
        DISPLAYLEVEL(1, "flowcut: %s: out of memory\n", argv[optind]);
        goto done;
    }
    j.cancelled = cancelled;
    if (seg_job_begin(&j, argv[optind], &j.r.photo, j.labels, &o)) {
        DISPLAYLEVEL(1, "flowcut: %s\n", j.r.error);
        goto done;
    }
    if (j.box_route && j.iteration < SEG_BOX_ITERATIONS)
        DISPLAYLEVEL(2, "flowcut graph: notice: a box on a photo under %d pixels a side: the network of "
                        "its first fit is written\n", SEG_BOX_COARSE_MIN_SIDE);
    int rc = gb_to_arclist(&j.graph, cancelled, &list);
    if (rc) {
        DISPLAYLEVEL(1, "flowcut: %s: %s\n", argv[optind], gb_strerror(rc));
        goto done;
    }
    /* the energy the network holds: a box's route has its own */
    gb_params energy = o.graph;
    if (j.box_route)
        seg_box_params(&o.graph, &energy);
    char msg[768];
    char comment[512];
    snprintf(comment, sizeof comment,
             "flowcut graph %s: %dx%d pixels, lambda %g, geodesic %g%s, %d-connected\n"
             "pixel (x,y) = y*%d + x + 1; source %d (foreground side), sink %d",
             argv[optind], j.r.photo.width, j.r.photo.height, energy.lambda, energy.geodesic,
             j.box_route ? " (a box's route)" : "", energy.connectivity, j.r.photo.width, list.source + 1,
             list.sink + 1);
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
    mf_arclist_free(&list);
    seg_job_free(&j);
    seg_result_free(&j.r);
    img_free(&prev);
    seg_args_done(&o);
    return status;
}
