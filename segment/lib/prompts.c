/* Click and box prompts: the text form every front end reads, and their
 * translation into seed labels for the segmentation pipeline.
 *
 * A click is a hard seed where it lands: a disc of seg_prompts_radius()
 * pixels around it takes its label, so the clicked pixel is always on the
 * clicked side; a click that corrects a previous answer stays inside the
 * region it corrects (seg_click_radius). A box is GrabCut's rectangle:
 * every pixel outside it is a hard background seed. Later prompts win over
 * earlier ones where they overlap (a click outside the box stays the
 * user's click). */
#include "pipeline.h"
#include "seg_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seg_prompts {
    seg_click *clicks;
    int32_t nclicks, cap;
    int has_box;
    int32_t box[4]; /* x, y, w, h */
};

seg_prompts *seg_prompts_new(void)
{
    return calloc(1, sizeof(seg_prompts));
}

void seg_prompts_free(seg_prompts *p)
{
    if (p) {
        free(p->clicks);
        free(p);
    }
}

void seg_prompts_clear(seg_prompts *p)
{
    if (p) {
        p->nclicks = 0;
        p->has_box = 0;
    }
}

int32_t seg_prompts_count(const seg_prompts *p)
{
    return p ? p->nclicks : 0;
}

int seg_prompts_click(const seg_prompts *p, int32_t i, seg_click *out)
{
    if (!p || !out || i < 0 || i >= p->nclicks)
        return SEG_ERR_INVALID;
    *out = p->clicks[i];
    return SEG_OK;
}

int seg_prompts_get_box(const seg_prompts *p, int32_t box[4])
{
    if (!p || !p->has_box)
        return 0;
    memcpy(box, p->box, sizeof p->box);
    return 1;
}

int seg_prompts_add_click(seg_prompts *p, int32_t x, int32_t y, uint8_t label, seg_error *err)
{
    if (!p || x < 0 || y < 0 || (label != GB_FOREGROUND && label != GB_BACKGROUND))
        return seg_fail(err, SEG_ERR_INVALID, "click %d,%d: coordinates must be >= 0 and the label 1 or 2", x,
                        y);
    if (p->nclicks >= SEG_MAX_CLICKS)
        return seg_fail(err, SEG_ERR_INVALID, "more than %d clicks", SEG_MAX_CLICKS);
    if (p->nclicks == p->cap) {
        int32_t cap = p->cap ? 2 * p->cap : 16;
        seg_click *c = realloc(p->clicks, (size_t)cap * sizeof *c);
        if (!c)
            return seg_fail(err, SEG_ERR_NOMEM, "out of memory for clicks");
        p->clicks = c;
        p->cap = cap;
    }
    p->clicks[p->nclicks++] = (seg_click){x, y, label, 0};
    return SEG_OK;
}

int seg_prompts_set_radius(seg_prompts *p, int32_t i, int32_t radius, seg_error *err)
{
    if (!p || i < 0 || i >= p->nclicks || radius < 0 || radius > SEG_CLICK_MAX_RADIUS)
        return seg_fail(err, SEG_ERR_INVALID, "a click's radius must be 1 to %d pixels (0: the default)",
                        SEG_CLICK_MAX_RADIUS);
    p->clicks[i].radius = radius;
    return SEG_OK;
}

int seg_prompts_set_box(seg_prompts *p, int32_t x, int32_t y, int32_t w, int32_t h, seg_error *err)
{
    if (!p || x < 0 || y < 0 || w <= 0 || h <= 0)
        return seg_fail(err, SEG_ERR_INVALID, "box %d,%d,%d,%d: x and y must be >= 0, width and height > 0", x, y,
                        w, h);
    p->has_box = 1;
    p->box[0] = x;
    p->box[1] = y;
    p->box[2] = w;
    p->box[3] = h;
    return SEG_OK;
}

/* Reads up to `max` comma-separated non-negative integers at *s (no
 * spaces inside); returns how many, -1 on anything else. */
static int read_numbers(const char **s, int32_t *v, int max)
{
    int n = 0;
    const char *q = *s;
    for (;;) {
        if (!isdigit((unsigned char)*q))
            return -1;
        errno = 0;
        char *end;
        long x = strtol(q, &end, 10);
        if (errno || x > 10000000 || n == max)
            return -1;
        v[n++] = (int32_t)x;
        q = end;
        if (*q != ',')
            break;
        q++;
    }
    *s = q;
    return n;
}

static int is_separator(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';';
}

int seg_prompts_parse(seg_prompts *p, const char *text, const char *where, seg_error *err)
{
    if (!p || !text)
        return seg_fail(err, SEG_ERR_INVALID, "seg_prompts_parse: NULL argument");
    const char *s = text;
    int line = 1;
    while (*s) {
        if (is_separator(*s)) {
            line += *s == '\n';
            s++;
            continue;
        }
        if (*s == '#') { /* a comment runs to the end of its line */
            while (*s && *s != '\n')
                s++;
            continue;
        }
        const char *token = s;
        uint8_t label = GB_FOREGROUND;
        int box = 0;
        if (!strncmp(s, "box", 3) && (s[3] == ' ' || s[3] == '\t')) {
            box = 1;
            s += 4;
        } else if ((!strncmp(s, "fg", 2) || !strncmp(s, "bg", 2)) && (s[2] == ' ' || s[2] == '\t')) {
            label = *s == 'f' ? GB_FOREGROUND : GB_BACKGROUND;
            s += 3;
        } else if (*s == '+' || *s == '-') {
            label = *s == '+' ? GB_FOREGROUND : GB_BACKGROUND;
            s++;
        }
        while (*s == ' ' || *s == '\t')
            s++;
        int32_t v[4];
        int n = read_numbers(&s, v, 4);
        if ((box ? n != 4 : n != 2 && n != 3) || (*s && !is_separator(*s) && *s != '#')) {
            int len = 0;
            while (token[len] && token[len] != '\n' && len < 40)
                len++;
            if (box) /* the word said what it is: only a box's form fits */
                return seg_fail(err, SEG_ERR_INVALID,
                                "%s:%d: cannot read '%.*s': expected box X,Y,W,H (whole numbers from 0: the "
                                "top-left pixel, the width and the height)",
                                where ? where : "prompts", line, len, token);
            return seg_fail(err, SEG_ERR_INVALID,
                            "%s:%d: cannot read '%.*s': expected X,Y (a foreground click), -X,Y (background), "
                            "fg X,Y, bg X,Y (each with ,R for a disc of radius R) or box X,Y,W,H",
                            where ? where : "prompts", line, len, token);
        }
        if (n == 3 && (v[2] < 1 || v[2] > SEG_CLICK_MAX_RADIUS))
            return seg_fail(err, SEG_ERR_INVALID, "%s:%d: click %d,%d: a radius must be 1 to %d pixels",
                            where ? where : "prompts", line, v[0], v[1], SEG_CLICK_MAX_RADIUS);
        int rc = box ? seg_prompts_set_box(p, v[0], v[1], v[2], v[3], err)
                     : seg_prompts_add_click(p, v[0], v[1], label, err);
        if (!rc && n == 3)
            rc = seg_prompts_set_radius(p, p->nclicks - 1, v[2], err);
        if (rc)
            return rc;
    }
    return SEG_OK;
}

int seg_prompts_read_file(seg_prompts *p, const char *path, seg_error *err)
{
    if (!p || !path)
        return seg_fail(err, SEG_ERR_INVALID, "seg_prompts_read_file: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f)
        return seg_fail(err, SEG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    /* a prompt file is a few lines; a large one is not a prompt file */
    enum { MAX_BYTES = 1 << 20 };
    char *text = malloc(MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        return seg_fail(err, SEG_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t n = fread(text, 1, MAX_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    int rc;
    if (bad)
        rc = seg_fail(err, SEG_ERR_IO, "%s: cannot read", path);
    else if (n > MAX_BYTES)
        rc = seg_fail(err, SEG_ERR_INVALID, "%s: larger than %d bytes, not a prompt file", path, MAX_BYTES);
    else if (memchr(text, 0, n))
        rc = seg_fail(err, SEG_ERR_INVALID, "%s: binary data, not a prompt file", path);
    else {
        text[n] = 0;
        rc = seg_prompts_parse(p, text, path, err);
    }
    free(text);
    return rc;
}

int seg_prompts_radius(int32_t width, int32_t height)
{
    /* a fortieth of the shorter side: large enough that the colour model
     * sees a sample of the clicked surface (the click robot's IoU after one
     * click is clearly higher than with a hundredth: docs/benchmarks.md),
     * small enough to stay inside most parts a user clicks */
    int32_t side = width < height ? width : height;
    int32_t r = side / 40;
    return r < SEG_CLICK_MIN_RADIUS ? SEG_CLICK_MIN_RADIUS : r;
}

int32_t seg_click_radius(const uint8_t *previous, int32_t width, int32_t height, int32_t x, int32_t y,
                         uint8_t label)
{
    const int32_t r = seg_prompts_radius(width, height);
    if (!previous || x < 0 || y < 0 || x >= width || y >= height)
        return r;
    /* the nearest pixel within r that the answer gives the click's label */
    const int fg = label == GB_FOREGROUND;
    int64_t best = INT64_MAX;
    for (int32_t dy = -r; dy <= r; dy++) {
        const int32_t py = y + dy;
        if (py < 0 || py >= height)
            continue;
        for (int32_t dx = -r; dx <= r; dx++) {
            const int32_t px = x + dx;
            const int64_t d2 = (int64_t)dx * dx + (int64_t)dy * dy;
            if (px >= 0 && px < width && d2 < best && (previous[(size_t)py * width + px] != 0) == fg)
                best = d2;
        }
    }
    if (best >= (int64_t)r * r)
        return r;
    const int32_t d = (int32_t)sqrt((double)best); /* exact on perfect squares: floor */
    return d < 2 ? 2 : d;
}

int seg_prompts_paint(const seg_prompts *p, int32_t width, int32_t height, uint8_t *labels, seg_error *err)
{
    return seg_prompts_paint_previous(p, width, height, NULL, labels, NULL, err);
}

int seg_prompts_paint_previous(const seg_prompts *p, int32_t width, int32_t height, const uint8_t *previous,
                               uint8_t *labels, int32_t *last_radius, seg_error *err)
{
    if (last_radius)
        *last_radius = 0;
    if (!p || !labels || width <= 0 || height <= 0)
        return seg_fail(err, SEG_ERR_INVALID, "seg_prompts_paint: NULL argument or bad size");
    for (int32_t i = 0; i < p->nclicks; i++)
        if (p->clicks[i].x >= width || p->clicks[i].y >= height)
            return seg_fail(err, SEG_ERR_INVALID, "click %d,%d lies outside the %dx%d photo", p->clicks[i].x,
                            p->clicks[i].y, width, height);
    if (p->has_box) {
        int64_t x0 = p->box[0], y0 = p->box[1], x1 = x0 + p->box[2], y1 = y0 + p->box[3];
        if (x0 >= width || y0 >= height)
            return seg_fail(err, SEG_ERR_INVALID, "box %d,%d,%d,%d lies outside the %dx%d photo", p->box[0],
                            p->box[1], p->box[2], p->box[3], width, height);
        for (int32_t y = 0; y < height; y++)
            for (int32_t x = 0; x < width; x++)
                if (x < x0 || x >= x1 || y < y0 || y >= y1)
                    labels[(size_t)y * width + x] = GB_BACKGROUND;
    }
    const int32_t r0 = seg_prompts_radius(width, height);
    for (int32_t i = 0; i < p->nclicks; i++) {
        const seg_click *c = &p->clicks[i];
        int32_t r = c->radius > 0 ? c->radius : r0;
        if (!c->radius && previous && i == p->nclicks - 1)
            r = seg_click_radius(previous, width, height, c->x, c->y, c->label);
        if (last_radius)
            *last_radius = r;
        /* the disc's rows within the photo: a given radius may be far
         * larger than the photo */
        const int32_t y0 = c->y - r < 0 ? 0 : c->y - r, y1 = c->y + r >= height ? height - 1 : c->y + r;
        for (int32_t y = y0, xa, xb; y <= y1; y++)
            if (seg_disc_row(c->x, c->y, r, y, width, &xa, &xb))
                memset(labels + (size_t)y * width + xa, c->label, (size_t)(xb - xa + 1));
    }
    return SEG_OK;
}

/* A fiftieth of the shorter side, at least 2 pixels: enough samples for
 * the background mixture at any size, thin enough to stay off most
 * objects. */
int32_t seg_border_band(int32_t width, int32_t height)
{
    int32_t side = width < height ? width : height;
    int32_t b = side / 50;
    return b < 2 ? 2 : b;
}

int seg_box_clip(const int32_t *box, int32_t width, int32_t height, int32_t out[4])
{
    const int64_t x0 = box[0] > 0 ? box[0] : 0, y0 = box[1] > 0 ? box[1] : 0;
    int64_t x1 = (int64_t)box[0] + box[2], y1 = (int64_t)box[1] + box[3];
    x1 = x1 < width ? x1 : width;
    y1 = y1 < height ? y1 : height;
    if (x1 <= x0 || y1 <= y0)
        return 0;
    out[0] = (int32_t)x0, out[1] = (int32_t)y0, out[2] = (int32_t)(x1 - x0), out[3] = (int32_t)(y1 - y0);
    return 1;
}

/* A box's first foreground sample leaves out this share of the box's
 * width and height on each side: a box drawn around an object holds
 * background mostly near its sides, and the re-fits on the cuts reach the
 * whole box. 15% gave the box's best mean IoU of 0 to 40% on both dev
 * sets (docs/benchmarks.md, "Box through --box"). */
#define SEG_BOX_SAMPLE_MARGIN 0.15

/* The box's rim, this share of its width and height inside each side, is
 * a background sample of the first fit (not a seed: a cut may keep it): a
 * box drawn around an object leaves some slack, so its rim holds
 * background far more often than foreground, and background colours met
 * only inside the box are otherwise explained by the foreground alone.
 * 5% raised the box's mean IoU by 0.004 (seg-dev) and 0.019 (Weizmann);
 * docs/benchmarks.md, "Box through --box". */
#define SEG_BOX_RIM 0.05

int seg_model_labels(const uint8_t *labels, int32_t width, int32_t height, const int32_t *box, uint8_t **out,
                     int *box_route)
{
    int64_t npx = (int64_t)width * height, nfg = 0, nbg = 0;
    *out = NULL;
    *box_route = 0;
    for (int64_t i = 0; i < npx; i++) {
        nfg += labels[i] == GB_FOREGROUND;
        nbg += labels[i] == GB_BACKGROUND;
    }
    if ((nfg && nbg && !box) || npx <= 0)
        return 0;
    uint8_t *m = malloc((size_t)npx);
    if (!m)
        return -1;
    memcpy(m, labels, (size_t)npx);
    if (!nbg) { /* the band along the sides no foreground seed touches */
        const int32_t b = seg_border_band(width, height);
        const unsigned open = ~gb_frame_sides(labels, width, height) & 15u;
        for (int32_t y = 0; y < height; y++)
            for (int32_t x = 0; x < width; x++)
                if (gb_on_sides(x, y, width, height, b, open) && m[(size_t)y * width + x] == GB_UNMARKED)
                    m[(size_t)y * width + x] = GB_BACKGROUND;
    }
    int32_t clipped[4];
    if (box && seg_box_clip(box, width, height, clipped))
        box = clipped; /* the rim and the sample are shares of the part of the box on the photo */
    if (box) {
        const int32_t rx = (int32_t)(box[2] * SEG_BOX_RIM), ry = (int32_t)(box[3] * SEG_BOX_RIM);
        const int64_t bx1 = (int64_t)box[0] + box[2], by1 = (int64_t)box[1] + box[3];
        for (int32_t y = box[1] > 0 ? box[1] : 0; y < height && y < by1; y++)
            for (int32_t x = box[0] > 0 ? box[0] : 0; x < width && x < bx1; x++)
                if ((x < (int64_t)box[0] + rx || x >= bx1 - rx || y < (int64_t)box[1] + ry || y >= by1 - ry) &&
                    m[(size_t)y * width + x] == GB_UNMARKED)
                    m[(size_t)y * width + x] = GB_BACKGROUND;
        const int32_t dx = (int32_t)(box[2] * SEG_BOX_SAMPLE_MARGIN), dy = (int32_t)(box[3] * SEG_BOX_SAMPLE_MARGIN);
        const int64_t x0 = (int64_t)box[0] + dx, x1 = (int64_t)box[0] + box[2] - dx;
        const int64_t y0 = (int64_t)box[1] + dy, y1 = (int64_t)box[1] + box[3] - dy;
        int64_t marked = 0;
        for (int64_t y = y0 > 0 ? y0 : 0; y < height && y < y1; y++)
            for (int64_t x = x0 > 0 ? x0 : 0; x < width && x < x1; x++)
                if (m[y * width + x] == GB_UNMARKED) {
                    m[y * width + x] = GB_FOREGROUND;
                    marked++;
                }
        /* background seeds over the whole middle: the rest of the inside */
        for (int64_t i = 0; i < npx && !marked; i++)
            if (m[i] == GB_UNMARKED)
                m[i] = GB_FOREGROUND;
        *box_route = 1;
    }
    if (!nbg && !memchr(m, GB_BACKGROUND, (size_t)npx)) {
        free(m); /* foreground seeds on every side or the whole band: nothing stands in */
        return 1;
    }
    *out = m;
    return 0;
}

int seg_keep_params(const seg_options *o, int32_t width, int32_t height, gb_params *gp, seg_error *err)
{
    gp->previous = NULL;
    int32_t box[4];
    if (!o->previous || (o->prompts && seg_prompts_get_box(o->prompts, box)))
        return SEG_OK; /* a box's route has an energy of its own */
    if (!o->prompts || !o->prompts->nclicks)
        return seg_fail(err, SEG_ERR_INVALID, "a previous answer needs the click that corrects it (--clicks)");
    if (o->previous_width != width || o->previous_height != height)
        return seg_fail(err, SEG_ERR_INVALID, "the previous answer is %dx%d, the photo %dx%d", o->previous_width,
                        o->previous_height, width, height);
    if (!(o->graph.keep > 0))
        return SEG_OK; /* a term of no weight: the clicks alone */
    const seg_click *c = &o->prompts->clicks[o->prompts->nclicks - 1];
    gp->previous = o->previous;
    gp->keep_x = c->x;
    gp->keep_y = c->y;
    return SEG_OK;
}
