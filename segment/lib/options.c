/* Options of the one-shot segmentation: defaults and parsing by name, so
 * that the CLI and the Python module check values the same way. */
#define _POSIX_C_SOURCE 200809L /* strncasecmp */
#include "seg_internal.h"

#include "flowcut/images.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void seg_options_default(seg_options *o)
{
    memset(o, 0, sizeof *o);
    o->seeds = SEG_SEEDS_LABELS;
    o->fg_rgb[0] = 255;
    o->bg_rgb[2] = 255;
    gb_params_default(&o->graph);
    o->iterations = 0;
    mf_options_default(&o->solve);
    /* auto: BK for a photo's network at every size (cpu_solve.c) */
    o->solve.cpu_algorithm = MF_CPU_AUTO;
    o->solve.cut_only = 1; /* a mask needs the cut, not the flows */
    o->max_pixels = IMG_DEFAULT_MAX_PIXELS;
}

seg_options *seg_options_new(void)
{
    seg_options *o = malloc(sizeof *o);
    if (o)
        seg_options_default(o);
    return o;
}

void seg_options_free(seg_options *o)
{
    free(o);
}

void seg_options_set_prompts(seg_options *o, const seg_prompts *p)
{
    if (o)
        o->prompts = p;
}

void seg_options_set_previous(seg_options *o, const uint8_t *previous, int32_t width, int32_t height)
{
    if (o) {
        o->previous = previous;
        o->previous_width = width;
        o->previous_height = height;
    }
}

void seg_free(void *p)
{
    free(p);
}

/* A whole decimal number in [lo, hi] (an integer when integer is set). */
static int parse_number(const char *s, double lo, double hi, int integer, double *out)
{
    char *end;
    errno = 0;
    double v;
    if (integer) {
        long long i = strtoll(s, &end, 10);
        v = (double)i;
    } else {
        v = strtod(s, &end);
    }
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* The names --scribble-colors takes, with the CSS/X11 values a paint
 * program's palette gives them. */
static const struct {
    const char *name;
    uint8_t rgb[3];
} colour_names[] = {
    {"red", {255, 0, 0}},       {"green", {0, 128, 0}},     {"blue", {0, 0, 255}},
    {"yellow", {255, 255, 0}},  {"cyan", {0, 255, 255}},    {"magenta", {255, 0, 255}},
    {"orange", {255, 165, 0}},  {"purple", {128, 0, 128}},  {"white", {255, 255, 255}},
    {"black", {0, 0, 0}},       {"lime", {0, 255, 0}},      {"pink", {255, 192, 203}},
};

const char *seg_colour_name(const uint8_t rgb[3])
{
    for (size_t i = 0; i < sizeof colour_names / sizeof colour_names[0]; i++)
        if (!memcmp(colour_names[i].rgb, rgb, 3))
            return colour_names[i].name;
    return NULL;
}

/* A colour by name (any case), #RRGGBB or RRGGBB. */
static int parse_colour(const char *s, size_t len, uint8_t *rgb)
{
    for (size_t i = 0; i < sizeof colour_names / sizeof colour_names[0]; i++)
        if (strlen(colour_names[i].name) == len && !strncasecmp(s, colour_names[i].name, len)) {
            memcpy(rgb, colour_names[i].rgb, 3);
            return 0;
        }
    if (len && s[0] == '#')
        s++, len--;
    if (len != 6)
        return -1;
    unsigned v = 0;
    for (size_t i = 0; i < 6; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v << 4 | (unsigned)d;
    }
    rgb[0] = (uint8_t)(v >> 16);
    rgb[1] = (uint8_t)(v >> 8);
    rgb[2] = (uint8_t)v;
    return 0;
}

int seg_options_set(seg_options *o, const char *name, const char *value, seg_error *err)
{
    double v;
    if (!o || !name || !value)
        return seg_fail(err, SEG_ERR_INVALID, "seg_options_set: NULL argument");
    if (!strcmp(name, "seeds")) {
        if (!strcmp(value, "labels"))
            o->seeds = SEG_SEEDS_LABELS;
        else if (!strcmp(value, "trimap"))
            o->seeds = SEG_SEEDS_TRIMAP;
        else if (!strcmp(value, "scribble"))
            o->seeds = SEG_SEEDS_SCRIBBLE;
        else
            return seg_fail(err, SEG_ERR_INVALID, "seeds is labels, trimap or scribble");
    } else if (!strcmp(name, "scribble-colors")) {
        static const char names[] = "names (red, green, blue, yellow, cyan, magenta, orange, purple, white, "
                                    "black) or #RRGGBB";
        const char *comma = strchr(value, ',');
        uint8_t fg[3], bg[3];
        if (!comma || strchr(comma + 1, ','))
            return seg_fail(err, SEG_ERR_INVALID, "scribble-colors: '%.60s' is not FG,BG: give two colours as %s",
                            value, names);
        size_t fg_len = (size_t)(comma - value);
        if (parse_colour(value, fg_len, fg))
            return seg_fail(err, SEG_ERR_INVALID, "scribble-colors: '%.*s' is not a colour: give FG,BG as %s",
                            (int)(fg_len < 60 ? fg_len : 60), value, names);
        if (parse_colour(comma + 1, strlen(comma + 1), bg))
            return seg_fail(err, SEG_ERR_INVALID, "scribble-colors: '%.60s' is not a colour: give FG,BG as %s",
                            comma + 1, names);
        if (!memcmp(fg, bg, 3))
            return seg_fail(err, SEG_ERR_INVALID, "scribble-colors: the foreground and background colours are the same");
        memcpy(o->fg_rgb, fg, 3);
        memcpy(o->bg_rgb, bg, 3);
        o->seeds = SEG_SEEDS_SCRIBBLE;
    } else if (!strcmp(name, "lambda")) {
        if (parse_number(value, 0, SEG_LAMBDA_MAX, 0, &v))
            return seg_fail(err, SEG_ERR_INVALID, "lambda needs a number in [0, %d]", SEG_LAMBDA_MAX);
        o->graph.lambda = v;
    } else if (!strcmp(name, "connectivity")) {
        if (parse_number(value, 4, 8, 1, &v) || (v != 4 && v != 8))
            return seg_fail(err, SEG_ERR_INVALID, "connectivity is 4 or 8");
        o->graph.connectivity = (int)v;
    } else if (!strcmp(name, "model")) {
        if (!strcmp(value, "gmm"))
            o->graph.model = GB_MODEL_GMM;
        else if (!strcmp(value, "hist"))
            o->graph.model = GB_MODEL_HIST;
        else
            return seg_fail(err, SEG_ERR_INVALID, "model is gmm or hist");
    } else if (!strcmp(name, "uniform-mix")) {
        if (parse_number(value, 0, 0.5, 0, &v))
            return seg_fail(err, SEG_ERR_INVALID, "uniform-mix needs a number in [0, 0.5]");
        o->graph.uniform_mix = v;
    } else if (!strcmp(name, "geodesic")) {
        if (parse_number(value, 0, 40, 0, &v))
            return seg_fail(err, SEG_ERR_INVALID, "geodesic needs a weight in [0, 40] (nats; 0: off)");
        o->graph.geodesic = v;
    } else if (!strcmp(name, "keep")) {
        if (parse_number(value, 0, 40, 0, &v))
            return seg_fail(err, SEG_ERR_INVALID, "keep needs a weight in [0, 40] (nats; 0: off)");
        o->graph.keep = v;
    } else if (!strcmp(name, "border")) {
        if (!strcmp(value, "off"))
            o->graph.border = -1.0;
        else if (parse_number(value, 0, 1000, 0, &v))
            return seg_fail(err, SEG_ERR_INVALID, "border needs a distance in [0, 1000] or off");
        else
            o->graph.border = v;
    } else if (!strcmp(name, "star")) {
        if (!strcmp(value, "on") || !strcmp(value, "1"))
            o->graph.star = 1;
        else if (!strcmp(value, "off") || !strcmp(value, "0"))
            o->graph.star = 0;
        else
            return seg_fail(err, SEG_ERR_INVALID, "star is on or off");
    } else if (!strcmp(name, "iterations")) {
        if (parse_number(value, 0, 100, 1, &v))
            return seg_fail(err, SEG_ERR_INVALID, "iterations needs 0..100");
        o->iterations = (int)v;
    } else if (!strcmp(name, "engine")) {
        if (mf_engine_parse(value, &o->solve.engine))
            return seg_fail(err, SEG_ERR_INVALID, "engine must be auto, cpu or gpu");
    } else if (!strcmp(name, "cpu-algorithm")) {
        if (mf_cpu_algorithm_parse(value, &o->solve.cpu_algorithm))
            return seg_fail(err, SEG_ERR_INVALID, "cpu-algorithm must be auto, bk, ibfs or push-relabel");
    } else if (!strcmp(name, "threads")) {
        if (parse_number(value, 0, 1024, 1, &v))
            return seg_fail(err, SEG_ERR_INVALID, "threads needs 0..1024 (0: every core)");
        o->solve.threads = (int)v;
        o->graph.threads = (int)v;
    } else if (!strcmp(name, "device")) {
        if (parse_number(value, 0, 1024, 1, &v))
            return seg_fail(err, SEG_ERR_INVALID, "device needs a device ordinal");
        o->solve.device = (int)v;
    } else if (!strcmp(name, "max-pixels")) {
        if (parse_number(value, 1, 9.2e18, 1, &v))
            return seg_fail(err, SEG_ERR_INVALID, "max-pixels needs a positive number");
        o->max_pixels = (int64_t)v;
    } else {
        return seg_fail(err, SEG_ERR_INVALID, "unknown option '%s'", name);
    }
    return SEG_OK;
}
