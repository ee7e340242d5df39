#define _POSIX_C_SOURCE 200809L
/* flowcut segment: photo + seeds -> foreground mask (and overlay, cut-out). */
#include "cli.h"
#include "seg_args.h"
#include "seg_output.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flowcut segment IMAGE --seeds SEEDS|--clicks 'X,Y ...'|--box X,Y,W,H -o MASK.png\n"
            "Segments IMAGE (PNG, JPEG, BMP, TGA, GIF, PNM) with a minimum cut; writes the\n"
            "foreground mask (255 foreground, 0 background) as an 8-bit grey PNG.\n"
            "Seeds in any paint program: on a white layer or a copy of the photo, paint strokes\n"
            "on the object in red and on the background in blue (any brush), save as PNG.\n" SEG_OPTIONS_HELP
            "  --previous MASK       the mask the last click corrects (255 or 1 foreground): near\n"
            "                        that click the cut may change it, away from it less so\n"
            "                        (--keep), and that click's disc stays inside the region it\n"
            "                        corrects; what `flowcut ui` does at each click\n"
            "  -o, --output FILE     the mask\n"
            "  --overlay FILE        the photo with the background dimmed and the boundary drawn\n"
            "  --cutout FILE         RGBA PNG, background transparent\n"
            "  --time                per-stage times on stderr\n"
            "  --json                one JSON object on stdout\n"
            "  -f, --force           overwrite existing outputs\n"
            "  -q, --quiet           errors only\n");
}

static int segment_one(const char *image, const char *seeds, const char *out, const char *overlay,
                       const char *cutout, int force, int show_time, int json, const seg_options *po);
static void report_failure_json(const char *image, const char *msg);

int cmd_segment(int argc, char **argv)
{
    enum { O_OVERLAY = 256, O_CUTOUT, O_TIME, O_JSON, O_PREVIOUS };
    static const struct option longopts[] = {
        SEG_LONG_OPTIONS,
        {"output", required_argument, NULL, 'o'},  {"overlay", required_argument, NULL, O_OVERLAY},
        {"cutout", required_argument, NULL, O_CUTOUT}, {"time", no_argument, NULL, O_TIME},
        {"json", no_argument, NULL, O_JSON},        {"force", no_argument, NULL, 'f'},
        {"previous", required_argument, NULL, O_PREVIOUS},
        {"quiet", no_argument, NULL, 'q'},          {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    seg_options o;
    seg_options_default(&o);
    const char *seeds = NULL, *out = NULL, *overlay = NULL, *cutout = NULL, *previous = NULL;
    int force = 0, show_time = 0, json = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = seg_next_option(argc, argv, ":o:fqh", longopts, &o, &seeds, "flowcut segment")) != -1) {
        switch (c) {
        case SEG_BAD_OPTION: seg_args_done(&o); return EXIT_USAGE;
        case 'o': out = optarg; break;
        case O_OVERLAY: overlay = optarg; break;
        case O_CUTOUT: cutout = optarg; break;
        case O_TIME: show_time = 1; break;
        case O_JSON: json = 1; break;
        case O_PREVIOUS: previous = optarg; break;
        case 'f': force = 1; break;
        case 'q': g_display_level = 1; break;
        case 'h': usage(stdout); seg_args_done(&o); return EXIT_OK;
        default:
            cli_option_error("flowcut segment", longopts, argv, c);
            seg_args_done(&o);
            return EXIT_USAGE;
        }
    }
    if (optind < argc - 1) {
        cli_usage_error("flowcut segment", "one IMAGE at a time (for many, `flowcut batch`)");
        seg_args_done(&o);
        return EXIT_USAGE;
    }
    if (optind != argc - 1 || (!seeds && !o.prompts) || !out) {
        cli_usage_error("flowcut segment", "needs IMAGE, --seeds (or --trimap, --clicks, --box) and -o MASK");
        seg_args_done(&o);
        return EXIT_USAGE;
    }
    /* output names that cannot work, before any work */
    if (cli_check_output_name("flowcut segment", "-o", out, "mask.png", 1) ||
        (overlay && cli_check_output_name("flowcut segment", "--overlay", overlay, "overlay.png", 1)) ||
        (cutout && cli_check_output_name("flowcut segment", "--cutout", cutout, "cutout.png", 1)) ||
        cli_check_distinct("flowcut segment", (const char *const[]){out, overlay, cutout},
                           (const char *const[]){"-o", "--overlay", "--cutout"}, 3,
                           (const char *const[]){argv[optind], seeds}, 2)) {
        seg_args_done(&o);
        return EXIT_USAGE;
    }
    img_image prev = {0};
    char why[700];
    if (previous && seg_load_previous(previous, &o, &prev, "flowcut segment", why, sizeof why)) {
        if (json) /* the message is on stderr already */
            report_failure_json(argv[optind], why);
        seg_args_done(&o);
        return EXIT_FAIL;
    }
    int rc = segment_one(argv[optind], seeds, out, overlay, cutout, force, show_time, json, &o);
    img_free(&prev);
    seg_args_done(&o);
    return rc;
}

/* With --json, a failure as batch's error object on stdout (a script
 * reads one form either way). */
static void report_failure_json(const char *image, const char *msg)
{
    printf("{\"file\": ");
    json_string(stdout, image);
    printf(", \"status\": \"error\", \"error\": ");
    json_string(stdout, msg);
    printf("}\n");
}

/* A failure: the one-line message on stderr, and the JSON object with --json. */
static int fail_one(const char *image, int json, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    DISPLAYLEVEL(1, "flowcut: %s\n", msg);
    if (json)
        report_failure_json(image, msg);
    return EXIT_FAIL;
}

static int segment_one(const char *image, const char *seeds, const char *out, const char *overlay,
                       const char *cutout, int force, int show_time, int json, const seg_options *po)
{
    seg_options o = *po;
    /* refuse before any work when an output exists */
    const char *outs[3] = {out, overlay, cutout};
    for (int i = 0; i < 3; i++) {
        FILE *f;
        if (outs[i] && !force && (f = fopen(outs[i], "rb"))) {
            fclose(f);
            return fail_one(image, json, "%s: already exists (use -f to overwrite)", outs[i]);
        }
    }
    /* a folder given as a file: the decoders would say only "read error" */
    const char *ins[2] = {image, seeds};
    for (int i = 0; i < 2 && ins[i]; i++) {
        struct stat st;
        if (stat(ins[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            return fail_one(image, json, "%s: is a folder, not %s", ins[i],
                            i == 0 ? "an image" : o.seeds == SEG_SEEDS_TRIMAP ? "a trimap image" : "a seed image");
        }
    }
    seg_result r;
    if (seg_run(image, seeds, &o, NULL, &r)) {
        fail_one(image, json, "%s", r.error);
        seg_result_free(&r);
        return EXIT_FAIL;
    }
    char msg[768];
    int status = EXIT_OK;
    const double t0 = cli_now();
    /* the outputs of one run are one result: rendered first, then written
     * all or none (seg_write_pngs) */
    img_image ov = {0}, co = {0};
    const char *paths[3] = {out};
    const img_image *imgs[3] = {&r.mask};
    size_t n = 1;
    if (overlay && seg_overlay(&r, &ov)) {
        snprintf(msg, sizeof msg, "%s: out of memory", overlay);
        status = EXIT_FAIL;
    } else if (overlay) {
        paths[n] = overlay;
        imgs[n++] = &ov;
    }
    if (status == EXIT_OK && cutout && seg_cutout(&r, &co)) {
        snprintf(msg, sizeof msg, "%s: out of memory", cutout);
        status = EXIT_FAIL;
    } else if (cutout) {
        paths[n] = cutout;
        imgs[n++] = &co;
    }
    if (status == EXIT_OK && seg_write_pngs(n, paths, imgs, force, msg, sizeof msg))
        status = EXIT_FAIL;
    img_free(&ov);
    img_free(&co);
    r.times.encode = cli_now() - t0;
    if (status != EXIT_OK) {
        fail_one(image, json, "%s", msg);
        seg_result_free(&r);
        return status;
    }
    const char *engine = r.engine_used == MF_ENGINE_GPU ? "gpu" : "cpu";
    if (json) {
        printf("{\"file\": ");
        json_string(stdout, image);
        printf(", \"status\": \"ok\", \"mask\": ");
        json_string(stdout, out);
        if (r.click_radius) /* the last click's disc: a replay gives it as X,Y,R */
            printf(", \"click_radius\": %d", r.click_radius);
        printf(", ");
        seg_json_result(stdout, &r);
    } else {
        DISPLAYLEVEL(2, "%s: %dx%d, %lld foreground pixels (%.1f%%), flow %lld -> %s\n", image, r.photo.width,
                     r.photo.height, (long long)r.foreground_pixels,
                     100.0 * (double)r.foreground_pixels / ((double)r.photo.width * r.photo.height),
                     (long long)r.flow_value, out);
    }
    if (show_time)
        DISPLAYLEVEL(1, "time: decode %.3f s, model %.3f s, build %.3f s, solve %.3f s (%s), encode %.3f s\n",
                     r.times.decode, r.times.model, r.times.build, r.times.solve, engine, r.times.encode);
    seg_result_free(&r);
    return EXIT_OK;
}
