/* The box's route (GrabCut's loop: fit the colour models, cut, re-fit on
 * the cut) with its first cuts at half resolution.
 *
 * The first cuts of a box are the slow ones: their models come from the
 * box's middle and rim, a poor guess, and the solver pushes much flow
 * through a network whose terminals say little. They only have to give
 * the next fit its samples, and a photo at half the width and height (a
 * quarter of the pixels) gives nearly the same samples. So the route's
 * SEG_BOX_ITERATIONS first cuts run there, and the photo itself is cut
 * once, on models fitted in full on the last of them. The half-size fits
 * take half the mixtures' passes (quick_fit): the photo's fit refines
 * them. Together about twice as fast as cutting the photo every time
 * (2.2 times, against grabCut's time in the same runs), the mean box IoU
 * within 0.009 of it on both dev sets (docs/benchmarks.md, "Box through
 * --box"). */
#include "pipeline.h"
#include "seg_internal.h"

#include <stdlib.h>
#include <string.h>

/* SEG_BOX_COARSE_MIN_SIDE: a coarse grid of at least 64 pixels a side
 * still holds the object's colours. Smaller photos are cut at full size
 * every time (they are fast anyway). */

/* The coarse cuts' share of the box's smoothness weight. A coarse pixel
 * stands for four and its sides for two: the same energy is lambda / 2
 * there, but the averaged colours are smoother than the photo's. Of 0.6
 * to 1, 0.7 to 0.8 gave the best mean box IoU of the two dev sets (within
 * 0.001 of each other; 0.6 and 1 lost about 0.01): the middle is kept. */
#define BOX_COARSE_LAMBDA 0.75

void seg_box_params(const gb_params *p, gb_params *box)
{
    *box = *p;
    box->geodesic = 0;
    box->lambda *= SEG_BOX_LAMBDA_SHARE;
}

/* The photo at half size: 2x2 blocks averaged; the seeds a block's when
 * every pixel of it is a background seed or one is a foreground seed and
 * none a background one (a click stays a click); the model labels its
 * first pixel's (nearest-neighbour decimation) where it is no seed. */
static void halve(const uint8_t *rgb, const uint8_t *labels, const uint8_t *model_labels, int32_t width, int32_t w,
                  int32_t h, uint8_t *rgb2, uint8_t *seeds2, uint8_t *ml2)
{
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            const int64_t q = (int64_t)y * w + x, p = (int64_t)(2 * y) * width + 2 * x;
            const int64_t c[4] = {p, p + 1, p + width, p + width + 1};
            int nf = 0, nb = 0;
            for (int a = 0; a < 3; a++)
                rgb2[3 * q + a] = (uint8_t)((rgb[3 * c[0] + a] + rgb[3 * c[1] + a] + rgb[3 * c[2] + a] +
                                             rgb[3 * c[3] + a] + 2) / 4);
            for (int k = 0; k < 4; k++) {
                nf += labels[c[k]] == GB_FOREGROUND;
                nb += labels[c[k]] == GB_BACKGROUND;
            }
            seeds2[q] = nf && !nb ? GB_FOREGROUND : nb == 4 ? GB_BACKGROUND : GB_UNMARKED;
            ml2[q] = seeds2[q] != GB_UNMARKED ? seeds2[q] : model_labels[c[0]];
        }
}

/* One coarse cut: the models fitted on ml2, the network built and solved
 * on the CPU; ml2 becomes the cut unless a region vanished. */
static int coarse_cut(const uint8_t *rgb2, const uint8_t *seeds2, uint8_t *ml2, int32_t w, int32_t h,
                      const gb_params *gp, const mf_options *so, seg_times *times, seg_error *err)
{
    mf_graph g;
    gb_models *models = NULL;
    double t0 = seg_now(), fit = 0;
    int rc = gb_build_fitting(rgb2, w, h, seeds2, ml2, gp, &g, NULL, NULL, &models, &fit);
    gb_models_free(models);
    if (rc)
        return seg_fail(err, rc == GB_ERR_NOMEM ? SEG_ERR_NOMEM : SEG_ERR_MODEL, "box, at half size: %s",
                        gb_strerror(rc));
    double t1 = seg_now();
    times->model += fit;
    times->build += t1 - t0 - fit;
    mf_result res = {0};
    mf_error e = {0};
    rc = mf_solve(&g, so, &res, &e);
    mf_graph_free(&g);
    if (rc) {
        char msg[512];
        mf_error_format(&e, msg, sizeof msg);
        mf_result_free(&res);
        return seg_fail(err, SEG_ERR_SOLVE, "box, at half size: solve: %s", msg);
    }
    times->solve += seg_now() - t1;
    const int64_t n = (int64_t)w * h;
    if (seg_cut_has_both(res.source_side, n)) /* else keep the last samples, as seg_job_next does */
        seg_labels_from_cut(res.source_side, n, ml2);
    mf_result_free(&res);
    return SEG_OK;
}

int seg_box_coarse(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *labels, uint8_t *model_labels,
                   const seg_options *o, seg_times *times, int *done, seg_error *err)
{
    *done = 0;
    if (width < SEG_BOX_COARSE_MIN_SIDE || height < SEG_BOX_COARSE_MIN_SIDE)
        return SEG_OK;
    const int32_t w = width / 2, h = height / 2; /* an odd last row or column joins the one before */
    const int64_t n = (int64_t)w * h;
    uint8_t *rgb2 = malloc((size_t)n * 3), *seeds2 = malloc((size_t)n), *ml2 = malloc((size_t)n);
    int rc = SEG_OK;
    if (!rgb2 || !seeds2 || !ml2) {
        rc = seg_fail(err, SEG_ERR_NOMEM, "out of memory");
        goto out;
    }
    halve(rgb, labels, model_labels, width, w, h, rgb2, seeds2, ml2);
    if (!memchr(ml2, GB_FOREGROUND, (size_t)n) || !memchr(ml2, GB_BACKGROUND, (size_t)n))
        goto out; /* a box or sample too small to survive the halving: the cuts at full size alone */
    gb_params gp;
    seg_box_params(&o->graph, &gp);
    gp.lambda = o->graph.lambda * (SEG_BOX_LAMBDA_SHARE * BOX_COARSE_LAMBDA);
    gp.in_lists = 1;
    gp.quick_fit = 1; /* the photo's fit refines these models: about 13% of a box's time, the same IoU */
    mf_options so = o->solve;
    so.engine = MF_ENGINE_CPU; /* small networks: not worth a device launch */
    for (int it = 0; it < SEG_BOX_ITERATIONS && !rc; it++)
        rc = coarse_cut(rgb2, seeds2, ml2, w, h, &gp, &so, times, err);
    if (rc)
        goto out;
    for (int32_t y = 0; y < height; y++) {
        const int32_t yy = y / 2 < h ? y / 2 : h - 1;
        for (int32_t x = 0; x < width; x++)
            model_labels[(int64_t)y * width + x] = ml2[(int64_t)yy * w + (x / 2 < w ? x / 2 : w - 1)];
    }
    *done = 1;
out:
    free(rgb2);
    free(seeds2);
    free(ml2);
    return rc;
}
