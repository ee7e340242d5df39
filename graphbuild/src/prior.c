/* Every pixel's terminal capacities for new seeds, as gb_build would set
 * them, without building a network: what an interactive session needs
 * after each edit when the geodesic prior is on (the distances, and with
 * them every unseeded pixel's terminals, depend on every seed). The photo's
 * part (beta, the similarity table) is computed once. */
#include "flowcut/graphbuild.h"
#include "gb_internal.h"

#include <stdlib.h>
#include <string.h>

struct gb_prior {
    const uint8_t *rgb;
    int32_t width, height;
    gb_params p;
    double *similarity;
    float *dist_fg, *dist_bg;
};

/* beta as gb_build estimates it: over every pixel's forward pairs (E, S,
 * and SE, SW with 8 neighbours), in integers, so the same on any split. */
static double estimate_beta(const uint8_t *rgb, int32_t w, int32_t h, int connectivity)
{
    static const int DX[4] = {1, 0, 1, -1}, DY[4] = {0, 1, 1, 1};
    const int nd = connectivity == 4 ? 2 : 4;
    int64_t sum = 0, pairs = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            for (int d = 0; d < nd; d++) {
                int32_t qx = x + DX[d], qy = y + DY[d];
                if (qx < 0 || qx >= w || qy >= h)
                    continue;
                sum += gb_colour_dist2(rgb + 3 * ((int64_t)y * w + x), rgb + 3 * ((int64_t)qy * w + qx));
                pairs++;
            }
    return pairs && sum > 0 ? 1.0 / (2.0 * (double)sum / (double)pairs) : 0.0;
}

int gb_prior_new(const uint8_t *rgb, int32_t width, int32_t height, const gb_params *p, gb_prior **out)
{
    *out = NULL;
    if (!rgb || !p || width < 1 || height < 1 || (p->connectivity != 4 && p->connectivity != 8) ||
        (int64_t)width * height > INT32_MAX / 4)
        return GB_ERR_INVALID;
    gb_prior *pr = calloc(1, sizeof *pr);
    if (!pr)
        return GB_ERR_NOMEM;
    pr->rgb = rgb;
    pr->width = width;
    pr->height = height;
    pr->p = *p;
    int rc = GB_OK;
    if (p->geodesic > 0) {
        size_t npx = (size_t)width * (size_t)height;
        pr->similarity = gb_similarity_table(estimate_beta(rgb, width, height, p->connectivity), gb_threads(p));
        pr->dist_fg = malloc(sizeof(float) * npx);
        pr->dist_bg = malloc(sizeof(float) * npx);
        if (!pr->similarity || !pr->dist_fg || !pr->dist_bg)
            rc = GB_ERR_NOMEM;
    }
    if (rc) {
        gb_prior_free(pr);
        return rc;
    }
    *out = pr;
    return GB_OK;
}

void gb_prior_free(gb_prior *pr)
{
    if (!pr)
        return;
    mf_free_big(pr->similarity);
    free(pr->dist_fg);
    free(pr->dist_bg);
    free(pr);
}

int gb_prior_terminals(gb_prior *pr, const uint8_t *seeds, const gb_models *models, int32_t seed_cap, int32_t *cs,
                       int32_t *ct)
{
    if (!pr || !seeds || !models || !cs || !ct)
        return GB_ERR_INVALID;
    const int64_t npx = (int64_t)pr->width * pr->height;
    const int prior = pr->p.geodesic > 0;
    if (prior) {
        int rc = gb_geodesic_with(pr->rgb, pr->width, pr->height, seeds, pr->p.connectivity, pr->similarity, NULL,
                                  pr->p.border, gb_threads(&pr->p), pr->dist_fg, pr->dist_bg, NULL);
        if (rc)
            return rc;
    }
    for (int64_t i = 0; i < npx; i++) {
        gb_pixel_terminals(pr->rgb + 3 * i, seeds[i], models, seed_cap, &cs[i], &ct[i]);
        if (prior && seeds[i] == GB_UNMARKED)
            gb_add_prior(pr->p.geodesic, pr->dist_fg[i], pr->dist_bg[i], &cs[i], &ct[i]);
    }
    return GB_OK;
}
