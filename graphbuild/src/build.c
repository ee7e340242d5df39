/* Grid network construction straight into CSR: the degree of every pixel
 * is known from the grid, so there is no edge list and no sort. */
#include "flowcut/graphbuild.h"
#include "gb_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* forward neighbour offsets: E, S, SE, SW (a pixel stores the arcs to its
 * forward neighbours; each arc carries both directions) */
static const int FDX[4] = {1, 0, 1, -1}, FDY[4] = {0, 1, 1, 1};


static double colour_dist2(const uint8_t *a, const uint8_t *b)
{
    double d0 = (double)a[0] - b[0], d1 = (double)a[1] - b[1], d2 = (double)a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* Quantised n-link weight between pixel pi and its d-th forward neighbour qi. */
static int32_t nlink_weight(const uint8_t *rgb, int64_t pi, int64_t qi, int d, double wscale, double beta)
{
    double dist = (FDX[d] && FDY[d]) ? M_SQRT2 : 1.0;
    return (int32_t)(wscale * exp(-beta * colour_dist2(rgb + 3 * pi, rgb + 3 * qi)) / dist + 0.5);
}

int gb_build(const uint8_t *rgb, int32_t width, int32_t height, const uint8_t *seeds,
             const gb_models *models, const gb_params *p, mf_graph *g, int32_t *cancelled)
{
    memset(g, 0, sizeof *g);
    if (!rgb || !models || !p || width < 1 || height < 1 ||
        (p->connectivity != 4 && p->connectivity != 8) || !(p->lambda >= 0))
        return GB_ERR_INVALID;
    const int nd = p->connectivity == 4 ? 2 : 4;
    const int64_t npx = (int64_t)width * height;
    if (npx + 2 > INT32_MAX / 2 || npx * (nd + 1) > (INT32_MAX >> 1))
        return GB_ERR_TOO_LARGE;
    int32_t *term = malloc(sizeof(int32_t) * (size_t)npx);
    int32_t *wsum = calloc((size_t)npx, sizeof(int32_t));
    if (!term || !wsum) {
        free(term);
        free(wsum);
        return GB_ERR_NOMEM;
    }
    /* beta from the mean squared colour difference of neighbours */
    double sum = 0;
    int64_t pairs = 0;
    for (int32_t y = 0; y < height; y++)
        for (int32_t x = 0; x < width; x++)
            for (int d = 0; d < nd; d++) {
                int32_t qx = x + FDX[d], qy = y + FDY[d];
                if (qx < 0 || qx >= width || qy >= height)
                    continue;
                sum += colour_dist2(rgb + 3 * ((int64_t)y * width + x), rgb + 3 * ((int64_t)qy * width + qx));
                pairs++;
            }
    const double beta = pairs && sum > 0 ? 1.0 / (2.0 * sum / (double)pairs) : 0.0;
    const double wscale = GB_SCALE * p->lambda;
    /* pass 1: n-link weight sums (for K) */
    int32_t kmax = 0;
    for (int32_t y = 0; y < height; y++)
        for (int32_t x = 0; x < width; x++) {
            int64_t pi = (int64_t)y * width + x;
            for (int d = 0; d < nd; d++) {
                int32_t qx = x + FDX[d], qy = y + FDY[d];
                if (qx < 0 || qx >= width || qy >= height)
                    continue;
                int64_t qi = (int64_t)qy * width + qx;
                int32_t w = nlink_weight(rgb, pi, qi, d, wscale, beta);
                wsum[pi] += w;
                wsum[qi] += w;
            }
        }
    for (int64_t i = 0; i < npx; i++)
        kmax = wsum[i] > kmax ? wsum[i] : kmax;
    const int32_t K = kmax + 1;
    free(wsum);
    /* pass 2: terminal capacities, pre-cancelled */
    int64_t offset = 0, source_arcs = 0, sink_arcs = 0;
    const int32_t cap_max = (int32_t)(GB_SCALE * GB_MAX_DATA_COST);
    for (int64_t i = 0; i < npx; i++) {
        int32_t cs, ct;
        uint8_t s = seeds ? seeds[i] : GB_UNMARKED;
        if (s == GB_FOREGROUND) {
            cs = K;
            ct = 0;
        } else if (s == GB_BACKGROUND) {
            cs = 0;
            ct = K;
        } else {
            int li = gb_lut_index(rgb + 3 * i);
            double dbg = models->cost_bg[li], dfg = models->cost_fg[li];
            cs = (int32_t)fmin(GB_SCALE * dbg + 0.5, cap_max); /* cost of labelling p background */
            ct = (int32_t)fmin(GB_SCALE * dfg + 0.5, cap_max);
        }
        int32_t m = cs < ct ? cs : ct;
        offset += m;
        if (cancelled)
            cancelled[i] = m;
        term[i] = cs - ct;
        source_arcs += term[i] > 0;
        sink_arcs += term[i] < 0;
    }
    /* CSR: pixels' forward n-links (+ sink arc), then the source's arcs */
    int64_t nlinks = 0;
    for (int d = 0; d < nd; d++) {
        int64_t cols = width - (FDX[d] != 0 ? 1 : 0), rows = height - FDY[d];
        nlinks += cols * rows;
    }
    int64_t m = nlinks + source_arcs + sink_arcs;
    int rc = mf_graph_alloc(g, (int32_t)(npx + 2), (int32_t)m);
    if (rc) {
        free(term);
        return rc == MF_ERR_TOO_LARGE ? GB_ERR_TOO_LARGE : GB_ERR_NOMEM;
    }
    const int32_t src = (int32_t)npx, snk = (int32_t)npx + 1;
    g->source = src;
    g->sink = snk;
    g->flow_offset = offset;
    int32_t a = 0;
    for (int32_t y = 0; y < height; y++)
        for (int32_t x = 0; x < width; x++) {
            int64_t pi = (int64_t)y * width + x;
            g->out_start[pi] = a;
            for (int d = 0; d < nd; d++) {
                int32_t qx = x + FDX[d], qy = y + FDY[d];
                if (qx < 0 || qx >= width || qy >= height)
                    continue;
                int64_t qi = (int64_t)qy * width + qx;
                int32_t w = nlink_weight(rgb, pi, qi, d, wscale, beta);
                g->arc_head[a] = (int32_t)qi;
                g->arc_cap[a] = w;
                g->arc_rcap[a] = w;
                a++;
            }
            if (term[pi] < 0) {
                g->arc_head[a] = snk;
                g->arc_cap[a] = -term[pi];
                g->arc_rcap[a] = 0;
                a++;
            }
        }
    g->out_start[src] = a;
    for (int64_t i = 0; i < npx; i++)
        if (term[i] > 0) {
            g->arc_head[a] = (int32_t)i;
            g->arc_cap[a] = term[i];
            g->arc_rcap[a] = 0;
            a++;
        }
    g->out_start[snk] = a;
    g->out_start[snk + 1] = a;
    free(term);
    if (mf_graph_finish(g, NULL) != MF_OK) {
        mf_graph_free(g);
        return GB_ERR_INVALID;
    }
    return GB_OK;
}

int gb_to_arclist(const mf_graph *g, const int32_t *cancelled, mf_arclist *out)
{
    int32_t npx = g->num_vertices - 2, src = g->source, snk = g->sink;
    int64_t m = 0;
    for (int32_t a = 0; a < g->num_arcs; a++)
        m += g->arc_rcap[a] > 0 ? 2 : 1;
    m += 2 * (int64_t)npx;
    if (m > (INT32_MAX >> 1))
        return GB_ERR_TOO_LARGE;
    int rc = mf_arclist_init(out, g->num_vertices, (int32_t)m);
    if (rc)
        return GB_ERR_NOMEM;
    out->source = src;
    out->sink = snk;
    int32_t *to_src = calloc((size_t)npx, sizeof(int32_t)), *to_snk = calloc((size_t)npx, sizeof(int32_t));
    if (!to_src || !to_snk) {
        free(to_src);
        free(to_snk);
        mf_arclist_free(out);
        return GB_ERR_NOMEM;
    }
    for (int32_t u = 0; u < g->num_vertices && !rc; u++)
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1] && !rc; a++) {
            int32_t v = g->arc_head[a];
            if (u == src) {
                to_src[v] += g->arc_cap[a];
            } else if (v == snk) {
                to_snk[u] += g->arc_cap[a];
            } else {
                rc = mf_arclist_add(out, u, v, g->arc_cap[a]);
                if (!rc && g->arc_rcap[a] > 0)
                    rc = mf_arclist_add(out, v, u, g->arc_rcap[a]);
            }
        }
    for (int32_t p = 0; p < npx && !rc; p++) {
        int32_t c = cancelled ? cancelled[p] : 0;
        if (to_src[p] + c > 0)
            rc = mf_arclist_add(out, src, p, to_src[p] + c);
        if (!rc && to_snk[p] + c > 0)
            rc = mf_arclist_add(out, p, snk, to_snk[p] + c);
    }
    free(to_src);
    free(to_snk);
    if (rc) {
        mf_arclist_free(out);
        return GB_ERR_NOMEM;
    }
    return GB_OK;
}
