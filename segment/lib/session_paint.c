/* The session's seed edits: labels set directly, strokes painted with a
 * round brush, clicks and boxes painted as `flowcut segment --clicks` and
 * `--box` paint them. Each goes through session_set_label (the counts)
 * and session_mark_edit (the next cut's region and the undo step). */
#include "session_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int seg_session_set_all_labels(seg_session *s, const uint8_t *labels)
{
    for (int64_t i = 0; i < s->npx; i++)
        if (labels[i] > GB_BACKGROUND)
            return SEG_ERR_INVALID;
    memcpy(s->labels, labels, (size_t)s->npx);
    s->count[0] = s->count[1] = s->count[2] = 0;
    for (int64_t i = 0; i < s->npx; i++)
        s->count[labels[i]]++;
    session_mark_edit(s, 0, 0, s->width, s->height);
    return SEG_OK;
}

int seg_session_set_labels(seg_session *s, int32_t x, int32_t y, int32_t w, int32_t h, const uint8_t *patch,
                           int32_t stride)
{
    if (!patch || w < 0 || h < 0 || stride < w || x < 0 || y < 0 || (int64_t)x + w > s->width ||
        (int64_t)y + h > s->height)
        return SEG_ERR_INVALID;
    for (int32_t r = 0; r < h; r++)
        for (int32_t c = 0; c < w; c++)
            if (patch[(int64_t)r * stride + c] > GB_BACKGROUND)
                return SEG_ERR_INVALID;
    for (int32_t r = 0; r < h; r++)
        for (int32_t c = 0; c < w; c++)
            session_set_label(s, (int64_t)(y + r) * s->width + x + c, patch[(int64_t)r * stride + c]);
    session_mark_edit(s, x, y, x + w, y + h);
    return SEG_OK;
}

/* The exact rule of a pixel: its centre lies within r of the segment (the
 * page's preview applies the same test). */
static int in_capsule(double px, double py, double x0, double y0, double dx, double dy, double len2, double r)
{
    double t = len2 > 0 ? ((px - x0) * dx + (py - y0) * dy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double ex = x0 + t * dx - px, ey = y0 + t * dy - py;
    return ex * ex + ey * ey <= r * r;
}

static void hull_add(double *lo, double *hi, double a, double b)
{
    *lo = a < *lo ? a : *lo;
    *hi = b > *hi ? b : *hi;
}

/* The pixels [*xa, *xb] of row y (within [bx0, bx1]) that the capsule of
 * radius r around (x0, y0) - (x1, y1) covers; 0 when none. The capsule is
 * convex, so a row meets it in one interval: the hull of where the row
 * crosses the two end discs and the rectangle between them, computed with
 * a slightly larger radius and then trimmed to the exact per-pixel rule,
 * so a row costs O(1), not O(its width). */
static int capsule_row(double x0, double y0, double x1, double y1, double r, int32_t y, int32_t bx0, int32_t bx1,
                       int32_t *xa, int32_t *xb)
{
    double py = y + 0.5, dx = x1 - x0, dy = y1 - y0, len2 = dx * dx + dy * dy;
    double rc = r * (1 + 1e-9) + 1e-6, lo = INFINITY, hi = -INFINITY;
    for (int e = 0; e < 2; e++) {
        double ex = e ? x1 : x0, d = py - (e ? y1 : y0);
        if (fabs(d) <= rc) {
            double h = sqrt(fmax(0, rc * rc - d * d));
            hull_add(&lo, &hi, ex - h, ex + h);
        }
    }
    if (len2 > 0) {
        double len = sqrt(len2), nx = -dy / len * rc, ny = dx / len * rc;
        double cx[4] = {x0 + nx, x1 + nx, x1 - nx, x0 - nx}, cy[4] = {y0 + ny, y1 + ny, y1 - ny, y0 - ny};
        for (int k = 0; k < 4; k++) {
            double px = cx[k], pyy = cy[k], qx = cx[(k + 1) & 3], qy = cy[(k + 1) & 3];
            if ((pyy - py) * (qy - py) > 0)
                continue;
            if (pyy == qy)
                hull_add(&lo, &hi, fmin(px, qx), fmax(px, qx));
            else {
                double x = px + (py - pyy) * (qx - px) / (qy - pyy);
                hull_add(&lo, &hi, x, x);
            }
        }
    }
    if (!(lo <= hi))
        return 0;
    lo = fmax(lo, bx0 - 2.0);
    hi = fmin(hi, bx1 + 2.0);
    int32_t a = (int32_t)ceil(lo - 0.5) - 1, b = (int32_t)floor(hi - 0.5) + 1;
    a = a < bx0 ? bx0 : a;
    b = b > bx1 ? bx1 : b;
    while (a <= b && !in_capsule(a + 0.5, py, x0, y0, dx, dy, len2, r))
        a++;
    while (b >= a && !in_capsule(b + 0.5, py, x0, y0, dx, dy, len2, r))
        b--;
    if (a > b)
        return 0;
    while (a > bx0 && in_capsule(a - 0.5, py, x0, y0, dx, dy, len2, r))
        a--;
    while (b < bx1 && in_capsule(b + 1.5, py, x0, y0, dx, dy, len2, r))
        b++;
    *xa = a;
    *xb = b;
    return 1;
}

int seg_session_paint_stroke(seg_session *s, uint8_t label, const double *xy, int32_t npoints, double radius)
{
    if (label > GB_BACKGROUND || !(radius >= 0) || radius > SEG_STROKE_MAX_RADIUS || !xy || npoints < 1)
        return SEG_ERR_INVALID;
    for (int64_t i = 0; i < 2 * (int64_t)npoints; i++)
        if (!isfinite(xy[i]) || fabs(xy[i]) > 1e7)
            return SEG_ERR_INVALID;
    /* pixels whose centre lies within radius of the polyline (at least the
     * pixel under each point: radius 0 paints a 1-pixel line) */
    double r = radius < 0.5 ? 0.5 : radius, minx = xy[0], maxx = xy[0], miny = xy[1], maxy = xy[1];
    for (int32_t i = 1; i < npoints; i++) {
        minx = fmin(minx, xy[2 * i]), maxx = fmax(maxx, xy[2 * i]);
        miny = fmin(miny, xy[2 * i + 1]), maxy = fmax(maxy, xy[2 * i + 1]);
    }
    int32_t bx0 = (int32_t)floor(minx - r), bx1 = (int32_t)ceil(maxx + r);
    int32_t by0 = (int32_t)floor(miny - r), by1 = (int32_t)ceil(maxy + r);
    bx0 = bx0 < 0 ? 0 : bx0;
    by0 = by0 < 0 ? 0 : by0;
    bx1 = bx1 > s->width - 1 ? s->width - 1 : bx1;
    by1 = by1 > s->height - 1 ? s->height - 1 : by1;
    if (bx0 > bx1 || by0 > by1)
        return SEG_OK; /* wholly outside */
    /* per row, +1 where a segment's span starts and -1 after it ends: the
     * union of the spans is painted once however many segments overlap */
    int32_t *cover = calloc((size_t)s->width + 1, sizeof *cover);
    if (!cover)
        return SEG_ERR_NOMEM;
    int32_t nseg = npoints > 1 ? npoints - 1 : 1;
    for (int32_t y = by0; y <= by1; y++) {
        double py = y + 0.5;
        int32_t lo = INT32_MAX, hi = -1;
        for (int32_t k = 0; k < nseg; k++) {
            const double *p = xy + 2 * k, *q = npoints > 1 ? p + 2 : p;
            if (py < fmin(p[1], q[1]) - r - 1 || py > fmax(p[1], q[1]) + r + 1)
                continue;
            int32_t a, b;
            if (!capsule_row(p[0], p[1], q[0], q[1], r, y, bx0, bx1, &a, &b))
                continue;
            cover[a]++;
            cover[b + 1]--;
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
        int32_t run = 0;
        for (int32_t x = lo; x <= hi; x++) {
            run += cover[x];
            cover[x] = 0;
            if (run > 0)
                session_set_label(s, (int64_t)y * s->width + x, label);
        }
        if (hi >= 0)
            cover[hi + 1] = 0;
    }
    free(cover);
    session_mark_edit(s, bx0, by0, bx1 + 1, by1 + 1);
    return SEG_OK;
}

int seg_session_paint_line(seg_session *s, uint8_t label, double x0, double y0, double x1, double y1,
                           double radius)
{
    double xy[4] = {x0, y0, x1, y1};
    return seg_session_paint_stroke(s, label, xy, 2, radius);
}

int seg_session_click(seg_session *s, int32_t x, int32_t y, uint8_t label)
{
    const int rc = seg_session_click_disc(s, x, y, label, 0);
    return rc < 0 ? rc : SEG_OK;
}

int seg_session_click_disc(seg_session *s, int32_t x, int32_t y, uint8_t label, int32_t radius)
{
    if (x < 0 || y < 0 || x >= s->width || y >= s->height || (label != GB_FOREGROUND && label != GB_BACKGROUND) ||
        radius < 0 || radius > SEG_CLICK_MAX_RADIUS)
        return SEG_ERR_INVALID;
    /* the mask answers every edit so far: this click corrects it, with the
     * previous answer's term where one applies (seg_session_get_previous
     * decides) */
    const int stroke = s->stroke_edit;
    if (s->cut_valid && s->dirty[0] >= s->dirty[2])
        session_keep_click(s, x, y, label);
    else
        s->keep_on = 0;
    const int keep = s->keep_on;
    /* the disc of seg_prompts_paint, pixel for pixel: a click that corrects
     * the answer stays inside the region it corrects */
    int32_t r = radius;
    if (!r) {
        const uint8_t *previous = seg_session_get_previous(s, NULL);
        r = previous ? seg_click_radius(previous, s->width, s->height, x, y, label)
                     : seg_prompts_radius(s->width, s->height);
    }
    const int32_t x0 = x - r < 0 ? 0 : x - r, x1 = x + r >= s->width ? s->width - 1 : x + r;
    const int32_t y0 = y - r < 0 ? 0 : y - r, y1 = y + r >= s->height ? s->height - 1 : y + r;
    for (int32_t py = y0, xa, xb; py <= y1; py++)
        if (seg_disc_row(x, y, r, py, s->width, &xa, &xb))
            for (int32_t px = xa; px <= xb; px++)
                session_set_label(s, (int64_t)py * s->width + px, label);
    session_mark_edit(s, x0, y0, x1 + 1, y1 + 1); /* ends any term, as every other edit does */
    s->stroke_edit = stroke;
    s->keep_on = keep; /* but this click's */
    return r;
}

int seg_session_box(seg_session *s, int32_t x, int32_t y, int32_t w, int32_t h)
{
    int32_t b[4];
    if (x < 0 || y < 0 || w <= 0 || h <= 0 || !seg_box_clip((const int32_t[4]){x, y, w, h}, s->width, s->height, b))
        return SEG_ERR_INVALID;
    w = b[2], h = b[3]; /* the session keeps the part on the photo (seg_box_clip) */
    const int64_t bx1 = (int64_t)x + w, by1 = (int64_t)y + h;
    for (int32_t py = 0; py < s->height; py++)
        for (int32_t px = 0; px < s->width; px++)
            if (px < x || px >= bx1 || py < y || py >= by1)
                session_set_label(s, (int64_t)py * s->width + px, GB_BACKGROUND);
    s->has_box = 1;
    s->box[0] = x, s->box[1] = y, s->box[2] = w, s->box[3] = h;
    session_mark_edit(s, 0, 0, s->width, s->height);
    return SEG_OK;
}
