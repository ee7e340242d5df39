/* Parsing of the options shared by segment, graph and batch. */
#include "seg_args.h"

#include "cli.h"

#include <stdio.h>
#include <string.h>

/* The library's name for each shared option (seg_options_set), from the
 * table of seg_args.h. */
static const char *option_name(int c)
{
#define SEG_OPTION_NAME(id, name, has_arg, help) \
    case id: return name;
    switch (c) {
        SEG_SHARED_OPTIONS(SEG_OPTION_NAME)
    default: return NULL;
    }
#undef SEG_OPTION_NAME
}

/* --clicks TEXT or @FILE, --box X,Y,W,H: into the prompts o points to. */
static int parse_prompt(int c, const char *arg, seg_options *o, const char *cmd)
{
    seg_error err = {0};
    seg_prompts *p = (seg_prompts *)o->prompts; /* made here, so ours to fill */
    if (!p && !(p = seg_prompts_new())) {
        DISPLAYLEVEL(1, "%s: out of memory\n", cmd);
        return -1;
    }
    o->prompts = p;
    int rc;
    int32_t box[4];
    const int32_t before = seg_prompts_count(p) + seg_prompts_get_box(p, box);
    if (c == SO_BOX) {
        /* four numbers and three commas, so that the prompt parser's
         * message (which lists the clicks' forms too) is left for ranges */
        size_t commas = 0, i = 0;
        for (; arg[i] && strchr("0123456789,-", arg[i]); i++)
            commas += arg[i] == ',';
        char text[256];
        if (seg_prompts_get_box(p, box)) {
            snprintf(err.message, sizeof err.message, "--box: one box only (given twice)");
            rc = SEG_ERR_INVALID;
        } else if (arg[i] || commas != 3 || i > 200 || strstr(arg, ",,") || arg[0] == ',' || arg[i - 1] == ',') {
            snprintf(err.message, sizeof err.message,
                     "--box: expected X,Y,W,H (the top-left pixel, the width and the height), not '%.60s'", arg);
            rc = SEG_ERR_INVALID;
        } else if (strchr(arg, '-')) {
            snprintf(err.message, sizeof err.message, "--box %.60s: x and y must be >= 0, width and height > 0", arg);
            rc = SEG_ERR_INVALID;
        } else {
            snprintf(text, sizeof text, "box %s", arg);
            rc = seg_prompts_parse(p, text, "--box", &err);
        }
    } else if (arg[0] == '@') {
        rc = seg_prompts_read_file(p, arg + 1, &err);
    } else {
        rc = seg_prompts_parse(p, arg, "--clicks", &err);
        if (!rc && seg_prompts_count(p) + seg_prompts_get_box(p, box) == before) { /* clicks or a box */
            snprintf(err.message, sizeof err.message, "--clicks: no click in '%.60s' (X,Y on the object, -X,Y on the background)", arg);
            rc = SEG_ERR_INVALID;
        }
    }
    if (rc) {
        DISPLAYLEVEL(1, "%s: %s\n", cmd, err.message);
        return -1;
    }
    return 1;
}

void seg_args_done(seg_options *o)
{
    seg_prompts_free((seg_prompts *)o->prompts);
    o->prompts = NULL;
}

int seg_parse_option(int c, const char *arg, seg_options *o, const char **seed_path, const char *cmd)
{
    seg_error err = {0};
    switch (c) {
    case SO_CLICKS:
    case SO_BOX:
        return parse_prompt(c, arg, o, cmd);
    case SO_SEEDS:
    case SO_TRIMAP:
        if (*seed_path) { /* one image holds the seeds: which would win is a guess */
            DISPLAYLEVEL(1, "%s: --seeds and --trimap: give one seed image, once\n", cmd);
            return -1;
        }
        *seed_path = arg;
        if (c == SO_SEEDS) {
            if (o->seeds == SEG_SEEDS_TRIMAP)
                o->seeds = SEG_SEEDS_LABELS;
            return 1;
        }
        o->seeds = SEG_SEEDS_TRIMAP;
        return 1;
    case SO_SCRIBBLE:
        if (!arg) { /* the default colours */
            o->seeds = SEG_SEEDS_SCRIBBLE;
            return 1;
        }
        break;
    default:
        if (!option_name(c))
            return 0;
    }
    if (seg_options_set(o, option_name(c), arg, &err)) {
        DISPLAYLEVEL(1, "%s: --%s\n", cmd, err.message);
        return -1;
    }
    return 1;
}

int seg_next_option(int argc, char **argv, const char *shortopts, const struct option *longopts,
                    seg_options *o, const char **seed_path, const char *cmd)
{
    int c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        int handled = seg_parse_option(c, optarg, o, seed_path, cmd);
        if (handled < 0)
            return SEG_BAD_OPTION;
        /* --scribble-colors red,blue: the value of an optional argument
         * must follow '=', so getopt leaves it as an operand; a next word
         * that is two colours is taken as the value instead */
        if (c == SO_SCRIBBLE && !optarg && optind < argc && argv[optind][0] != '-' && strchr(argv[optind], ',')) {
            seg_error err = {0};
            if (seg_options_set(o, "scribble-colors", argv[optind], &err) == SEG_OK)
                optind++;
        }
        if (!handled)
            return c;
    }
    return -1;
}

/* --previous: a mask as `segment` writes it (or any grey image: a pixel of
 * 128 or more, or 1 in a 0 / 1 label image, is foreground). */
int seg_load_previous(const char *path, seg_options *o, img_image *img, const char *cmd, char *msg, size_t msg_size)
{
    img_error e = {0};
    char why[600], line[700];
    if (img_load_labels(path, o->max_pixels, img, &e)) {
        img_error_format(&e, why, sizeof why);
        snprintf(line, sizeof line, "--previous %s", why);
        goto fail;
    }
    const int64_t n = (int64_t)img->width * img->height;
    for (int64_t i = 0; img->channels >= 3 && i < n; i++) {
        const uint8_t *px = img->data + i * img->channels;
        if (px[0] != px[1] || px[0] != px[2]) { /* a photo given for the mask, most likely */
            snprintf(line, sizeof line,
                     "--previous %.500s: a mask is grey (0 background, 255 or 1 foreground), not a colour image", path);
            img_free(img);
            goto fail;
        }
    }
    int binary = 1; /* 0 / 1 labels rather than a 0 / 255 mask */
    for (int64_t i = 0; i < n * img->channels && binary; i++)
        binary = img->data[i] <= 1;
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *px = img->data + i * img->channels;
        img->data[i] = binary ? px[0] : px[0] >= 128; /* grey: its channels are equal */
    }
    seg_options_set_previous(o, img->data, img->width, img->height);
    return 0;
fail:
    DISPLAYLEVEL(1, "%s: %s\n", cmd, line);
    if (msg)
        snprintf(msg, msg_size, "%s", line);
    return -1;
}
