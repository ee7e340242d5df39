/* Classic max-flow instance families, built from the descriptions in the
 * ecl-maxflow paper (section V-C), plus an image-segmentation-like grid. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRY(expr)                 \
    do {                          \
        int rc_ = (expr);         \
        if (rc_) {                \
            mf_arclist_free(out); \
            return rc_;           \
        }                         \
    } while (0)

/* b frames of a x a grids; in-frame neighbours both ways with capacity
 * c2*a*a; frame k connects one-to-one to frame k+1 through a random
 * permutation with capacities in [c1, c2]. Source: corner of the first
 * frame; sink: opposite corner of the last. */
int mf_gen_genrmf(int32_t a, int32_t b, int32_t c1, int32_t c2, uint64_t seed,
                  mf_arclist *out)
{
    memset(out, 0, sizeof *out);
    if (a < 1 || b < 1 || c1 < 0 || c2 < c1)
        return MF_ERR_INVALID;
    int64_t frame = (int64_t)a * a, n = frame * b;
    int64_t m = 4 * (int64_t)a * (a - 1) * b + frame * (b - 1);
    if (n < 2 || n > INT32_MAX || m > (INT32_MAX >> 1) || (int64_t)c2 * frame > INT32_MAX)
        return MF_ERR_TOO_LARGE;
    int32_t inner = (int32_t)((int64_t)c2 * frame);
    uint64_t rng = seed;
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)frame);
    if (!perm)
        return MF_ERR_NOMEM;
    int rc = mf_arclist_init(out, (int32_t)n, (int32_t)m);
    for (int32_t k = 0; rc == MF_OK && k < b; k++) {
        int32_t base = (int32_t)(k * frame);
        for (int32_t r = 0; r < a && rc == MF_OK; r++) {
            for (int32_t c = 0; c < a && rc == MF_OK; c++) {
                int32_t v = base + r * a + c;
                if (c + 1 < a) {
                    rc = mf_arclist_add(out, v, v + 1, inner);
                    if (!rc) rc = mf_arclist_add(out, v + 1, v, inner);
                }
                if (r + 1 < a && !rc) {
                    rc = mf_arclist_add(out, v, v + a, inner);
                    if (!rc) rc = mf_arclist_add(out, v + a, v, inner);
                }
            }
        }
        if (k + 1 < b && rc == MF_OK) {
            for (int32_t i = 0; i < frame; i++)
                perm[i] = i;
            for (int32_t i = (int32_t)frame - 1; i > 0; i--) {
                int32_t j = mf_rng_range(&rng, 0, i);
                int32_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;
            }
            for (int32_t i = 0; i < frame && rc == MF_OK; i++)
                rc = mf_arclist_add(out, base + i, base + (int32_t)frame + perm[i],
                                    mf_rng_range(&rng, c1, c2));
        }
    }
    free(perm);
    if (rc) {
        mf_arclist_free(out);
        return rc;
    }
    out->source = 0;
    out->sink = (int32_t)(n - 1);
    return MF_OK;
}

/* cols levels of rows vertices; each vertex links to three random vertices
 * of the next level (capacities in [1, maxcap]); the source feeds the first
 * level and the last level drains to the sink at 3*maxcap. */
int mf_gen_washington_rlg(int32_t rows, int32_t cols, int32_t maxcap, uint64_t seed,
                          mf_arclist *out)
{
    memset(out, 0, sizeof *out);
    if (rows < 1 || cols < 1 || maxcap < 1 || (int64_t)maxcap * 3 > INT32_MAX)
        return MF_ERR_INVALID;
    int64_t n = (int64_t)rows * cols + 2;
    int64_t m = 3 * (int64_t)rows * (cols - 1) + 2 * (int64_t)rows;
    if (n > INT32_MAX || m > (INT32_MAX >> 1))
        return MF_ERR_TOO_LARGE;
    int32_t s = (int32_t)(n - 2), t = (int32_t)(n - 1);
    uint64_t rng = seed;
    TRY(mf_arclist_init(out, (int32_t)n, (int32_t)m));
    for (int32_t i = 0; i < rows; i++)
        TRY(mf_arclist_add(out, s, i, 3 * maxcap));
    for (int32_t j = 0; j + 1 < cols; j++)
        for (int32_t i = 0; i < rows; i++)
            for (int k = 0; k < 3; k++)
                TRY(mf_arclist_add(out, j * rows + i, (j + 1) * rows + mf_rng_range(&rng, 0, rows - 1),
                                   mf_rng_range(&rng, 1, maxcap)));
    for (int32_t i = 0; i < rows; i++)
        TRY(mf_arclist_add(out, (cols - 1) * rows + i, t, 3 * maxcap));
    out->source = s;
    out->sink = t;
    return MF_OK;
}

/* Complete DAG: i -> j for every i < j, capacities in [1, 10000]. */
int mf_gen_acyclic_dense(int32_t n, uint64_t seed, mf_arclist *out)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return MF_ERR_INVALID;
    int64_t m = (int64_t)n * (n - 1) / 2;
    if (m > (INT32_MAX >> 1))
        return MF_ERR_TOO_LARGE;
    uint64_t rng = seed;
    TRY(mf_arclist_init(out, n, (int32_t)m));
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = i + 1; j < n; j++)
            TRY(mf_arclist_add(out, i, j, mf_rng_range(&rng, 1, 10000)));
    out->source = 0;
    out->sink = n - 1;
    return MF_OK;
}

/* Image-segmentation-like grid: a smooth random image (bilinear value
 * noise plus grain), contrast-weighted n-links lambda*exp(-beta*dI^2)/dist,
 * one pre-cancelled terminal arc per pixel from two intensity models, and
 * hard seeds (a centre patch to the source, the border to the sink).
 * Pixels are vertices 0..W*H-1 in row-major order; source W*H, sink W*H+1. */
int mf_gen_grid(int32_t width, int32_t height, int connectivity, uint64_t seed,
                mf_arclist *out)
{
    memset(out, 0, sizeof *out);
    if (width < 2 || height < 2 || (connectivity != 4 && connectivity != 8))
        return MF_ERR_INVALID;
    int64_t px = (int64_t)width * height;
    int64_t per = connectivity == 4 ? 4 : 8;
    int64_t m = px * per + px;
    if (px + 2 > INT32_MAX || m > (INT32_MAX >> 1))
        return MF_ERR_TOO_LARGE;
    uint64_t rng = seed;
    const int cell = 32;
    int32_t gw = width / cell + 2, gh = height / cell + 2;
    float *lattice = malloc(sizeof(float) * (size_t)gw * (size_t)gh);
    float *img = malloc(sizeof(float) * (size_t)px);
    if (!lattice || !img) {
        free(lattice);
        free(img);
        return MF_ERR_NOMEM;
    }
    for (int32_t i = 0; i < gw * gh; i++)
        lattice[i] = (float)(mf_rng_next(&rng) >> 40) / (float)(1 << 24);
    for (int32_t y = 0; y < height; y++) {
        for (int32_t x = 0; x < width; x++) {
            float fx = (float)x / cell, fy = (float)y / cell;
            int32_t ix = (int32_t)fx, iy = (int32_t)fy;
            float tx = fx - ix, ty = fy - iy;
            float v00 = lattice[iy * gw + ix], v01 = lattice[iy * gw + ix + 1];
            float v10 = lattice[(iy + 1) * gw + ix], v11 = lattice[(iy + 1) * gw + ix + 1];
            float v = (1 - ty) * ((1 - tx) * v00 + tx * v01) + ty * ((1 - tx) * v10 + tx * v11);
            float grain = ((float)(mf_rng_next(&rng) >> 40) / (float)(1 << 24) - 0.5f) * 0.1f;
            img[(int64_t)y * width + x] = v + grain;
        }
    }
    static const int dx8[4] = {1, 0, 1, -1}, dy8[4] = {0, 1, 1, 1};
    int nd = connectivity == 4 ? 2 : 4;
    double sum = 0;
    int64_t cnt = 0;
    for (int32_t y = 0; y < height; y++)
        for (int32_t x = 0; x < width; x++)
            for (int d = 0; d < nd; d++) {
                int32_t qx = x + dx8[d], qy = y + dy8[d];
                if (qx < 0 || qx >= width || qy >= height)
                    continue;
                double diff = img[(int64_t)y * width + x] - img[(int64_t)qy * width + qx];
                sum += diff * diff;
                cnt++;
            }
    double beta = cnt && sum > 0 ? 1.0 / (2.0 * sum / (double)cnt) : 1.0;
    const double lambda = 50.0;
    int32_t s = (int32_t)px, t = (int32_t)px + 1;
    int32_t hard = (int32_t)(lambda * 8 + 1);
    int rc = mf_arclist_init(out, (int32_t)px + 2, (int32_t)m);
    for (int32_t y = 0; y < height && rc == MF_OK; y++) {
        for (int32_t x = 0; x < width && rc == MF_OK; x++) {
            int32_t p = y * width + x;
            float ip = img[p];
            for (int d = 0; d < nd && rc == MF_OK; d++) {
                int32_t qx = x + dx8[d], qy = y + dy8[d];
                if (qx < 0 || qx >= width || qy >= height)
                    continue;
                int32_t q = qy * width + qx;
                double diff = ip - img[q];
                double dist = (dx8[d] && dy8[d]) ? 1.41421356 : 1.0;
                int32_t w = (int32_t)(lambda * exp(-beta * diff * diff) / dist + 0.5);
                rc = mf_arclist_add(out, p, q, w);
                if (!rc)
                    rc = mf_arclist_add(out, q, p, w);
            }
            if (rc)
                break;
            /* t-links: negative log-likelihoods of two intensity Gaussians */
            double dfg = (ip - 0.7) * (ip - 0.7) / (2 * 0.04);
            double dbg = (ip - 0.3) * (ip - 0.3) / (2 * 0.04);
            int32_t to_src = (int32_t)(10.0 * dbg + 0.5), to_snk = (int32_t)(10.0 * dfg + 0.5);
            int centre = x > width * 7 / 16 && x < width * 9 / 16 && y > height * 7 / 16 &&
                         y < height * 9 / 16;
            int border = x == 0 || y == 0 || x == width - 1 || y == height - 1;
            if (centre)
                rc = mf_arclist_add(out, s, p, hard);
            else if (border)
                rc = mf_arclist_add(out, p, t, hard);
            else if (to_src > to_snk)
                rc = mf_arclist_add(out, s, p, to_src - to_snk);
            else if (to_snk > to_src)
                rc = mf_arclist_add(out, p, t, to_snk - to_src);
        }
    }
    free(lattice);
    free(img);
    if (rc) {
        mf_arclist_free(out);
        return rc;
    }
    out->source = s;
    out->sink = t;
    return MF_OK;
}

/* Graph500's R-MAT: 2^scale vertices, edge_factor * 2^scale arcs, each
 * placed by descending scale levels of the adjacency matrix into the
 * quadrants with probabilities 0.57, 0.19, 0.19, 0.05, so a few hubs get
 * most arcs (power-law degrees); vertex ids permuted so the hubs are
 * spread. Capacities uniform in [1, maxcap]. As in the wbpr paper, a super
 * source joins `terminals` vertices near one end of a breadth-first search
 * and a super sink `terminals` vertices at its far end, with capacities no
 * graph cut below them can match. */
int mf_gen_rmat(int32_t scale, int32_t edge_factor, int32_t terminals, int32_t maxcap, uint64_t seed,
                mf_arclist *out)
{
    memset(out, 0, sizeof *out);
    if (scale < 2 || scale > 28 || edge_factor < 1 || terminals < 1 || maxcap < 1)
        return MF_ERR_INVALID;
    int64_t nv = (int64_t)1 << scale, m = nv * edge_factor;
    if (nv + 2 > INT32_MAX || m + 2 * (int64_t)terminals > (INT32_MAX >> 1) || 2 * (int64_t)terminals > nv)
        return MF_ERR_TOO_LARGE;
    int32_t n = (int32_t)nv, s = n, t = n + 1;
    uint64_t rng = seed;
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *deg = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t *adj = NULL, *dist = NULL, *queue = NULL;
    if (!perm || !deg) {
        free(perm);
        free(deg);
        return MF_ERR_NOMEM;
    }
    for (int32_t i = 0; i < n; i++)
        perm[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = mf_rng_range(&rng, 0, i);
        int32_t x = perm[i]; perm[i] = perm[j]; perm[j] = x;
    }
    int rc = mf_arclist_init(out, n + 2, (int32_t)(m + 2 * terminals));
    for (int64_t e = 0; rc == MF_OK && e < m; e++) {
        int32_t u = 0, v = 0;
        for (int32_t level = 0; level < scale; level++) {
            uint64_t r = mf_rng_next(&rng) % 100;
            int bit_u = r >= 76, bit_v = (r >= 57 && r < 76) || r >= 95; /* a 57, b 19, c 19, d 5 */
            u = u << 1 | bit_u;
            v = v << 1 | bit_v;
        }
        u = perm[u];
        v = perm[v];
        if (u != v)
            rc = mf_arclist_add(out, u, v, mf_rng_range(&rng, 1, maxcap));
    }
    /* breadth-first distances over the arcs in both directions, from a
     * random vertex of the largest degree class */
    if (rc == MF_OK) {
        for (int32_t i = 0; i < out->num_arcs; i++) {
            deg[out->tail[i] + 1]++;
            deg[out->head[i] + 1]++;
        }
        for (int32_t i = 0; i < n; i++)
            deg[i + 1] += deg[i];
        adj = malloc(sizeof(int32_t) * ((size_t)deg[n] + 1));
        dist = malloc(sizeof(int32_t) * (size_t)n);
        queue = malloc(sizeof(int32_t) * (size_t)n);
        if (!adj || !dist || !queue)
            rc = MF_ERR_NOMEM;
    }
    if (rc == MF_OK) {
        int32_t *fill = queue; /* borrowed until the search */
        memcpy(fill, deg, sizeof(int32_t) * (size_t)n);
        for (int32_t i = 0; i < out->num_arcs; i++) {
            adj[fill[out->tail[i]]++] = out->head[i];
            adj[fill[out->head[i]]++] = out->tail[i];
        }
        int32_t start = 0;
        for (int32_t v = 1; v < n; v++)
            if (deg[v + 1] - deg[v] > deg[start + 1] - deg[start])
                start = v;
        for (int32_t v = 0; v < n; v++)
            dist[v] = -1;
        int32_t qh = 0, qt = 0;
        dist[start] = 0;
        queue[qt++] = start;
        while (qh < qt) {
            int32_t v = queue[qh++];
            for (int32_t k = deg[v]; k < deg[v + 1]; k++)
                if (dist[adj[k]] < 0) {
                    dist[adj[k]] = dist[v] + 1;
                    queue[qt++] = adj[k];
                }
        }
        /* sources: the first reached (the hub side); sinks: the last reached */
        int64_t big = (int64_t)maxcap * edge_factor * 64;
        int32_t tcap = big > INT32_MAX / 2 ? INT32_MAX / 2 : (int32_t)big;
        int32_t k = terminals < qt / 2 ? terminals : qt / 2;
        for (int32_t i = 0; rc == MF_OK && i < k; i++) {
            rc = mf_arclist_add(out, s, queue[i], tcap);
            if (rc == MF_OK)
                rc = mf_arclist_add(out, queue[qt - 1 - i], t, tcap);
        }
        out->source = s;
        out->sink = t;
    }
    free(perm);
    free(deg);
    free(adj);
    free(dist);
    free(queue);
    if (rc)
        mf_arclist_free(out);
    return rc;
}

/* Sorts 64-bit keys by least-significant-digit radix passes of 16 bits
 * (tmp: as large as keys); a pass whose digit is the same in every key
 * is skipped. */
static int sort_keys(uint64_t *keys, uint64_t *tmp, int64_t count)
{
    enum { bits = 16 };
    int64_t *bucket = malloc(sizeof(int64_t) << bits);
    if (!bucket)
        return MF_ERR_NOMEM;
    for (int shift = 0; shift < 64; shift += bits) {
        memset(bucket, 0, sizeof(int64_t) << bits);
        for (int64_t i = 0; i < count; i++)
            bucket[(keys[i] >> shift) & 0xffff]++;
        if (count && bucket[(keys[0] >> shift) & 0xffff] == count)
            continue;
        int64_t sum = 0;
        for (int d = 0; d < 1 << bits; d++) {
            int64_t c = bucket[d];
            bucket[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < count; i++)
            tmp[bucket[(keys[i] >> shift) & 0xffff]++] = keys[i];
        memcpy(keys, tmp, sizeof *keys * (size_t)count);
    }
    free(bucket);
    return MF_OK;
}

/* ECL-MaxFlow's protocol on undirected graphs: an R-MAT graph with the
 * quadrant probabilities prob[0..2] (percent; the fourth is the rest),
 * each edge once (loops and repeats dropped) and in both directions with
 * one capacity, and as source and sink the vertices of degree ranks
 * 2 pair - 1 and 2 pair (highest degree first, lower id first on ties);
 * ranks (when nranks > 0) gets the first nranks vertices by that order, so
 * that the other pairs' instances differ only in their terminals.
 * prob 45, 15, 15 with edge factor 8 is the kind of the paper's
 * rmat22.sym; 57, 19, 19 (Graph500) of its kron_g500 graphs. */
int mf_gen_rmat_pair(int32_t scale, int32_t edge_factor, const int32_t prob[3], int32_t pair, int32_t maxcap,
                     uint64_t seed, mf_arclist *out, int32_t *ranks, int32_t nranks)
{
    memset(out, 0, sizeof *out);
    if (scale < 2 || scale > 28 || edge_factor < 1 || pair < 1 || pair > MF_GEN_PAIR_MAX || maxcap < 1 || !prob ||
        prob[0] < 0 || prob[1] < 0 || prob[2] < 0 || prob[0] + prob[1] + prob[2] > 100 || nranks < 0 ||
        nranks > 2 * MF_GEN_PAIR_MAX || (nranks && !ranks))
        return MF_ERR_INVALID;
    const int64_t nv = (int64_t)1 << scale, m = nv * edge_factor;
    if (nv > INT32_MAX / 2 || 2 * m > (INT32_MAX >> 1) || 2 * (int64_t)pair > nv)
        return MF_ERR_TOO_LARGE;
    const int32_t n = (int32_t)nv, ab = prob[0] + prob[1], abc = ab + prob[2];
    uint64_t rng = seed;
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *deg = calloc((size_t)n, sizeof(int32_t));
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)m), *tmp = malloc(sizeof(uint64_t) * (size_t)m);
    int rc = perm && deg && keys && tmp ? MF_OK : MF_ERR_NOMEM;
    int64_t count = 0, unique = 0;
    if (rc == MF_OK) {
        for (int32_t i = 0; i < n; i++)
            perm[i] = i;
        for (int32_t i = n - 1; i > 0; i--) {
            int32_t j = mf_rng_range(&rng, 0, i);
            int32_t x = perm[i]; perm[i] = perm[j]; perm[j] = x;
        }
        for (int64_t e = 0; e < m; e++) {
            uint32_t u = 0, v = 0;
            uint64_t bits = 0;
            for (int32_t level = 0; level < scale; level++) {
                /* a level from 16 random bits (four a draw): a percent
                 * r = floor(100 x / 2^16), quadrants a (0,0), b (0,1), c (1,0), d (1,1) */
                if (level % 4 == 0)
                    bits = mf_rng_next(&rng);
                const int r = (int)(((bits & 0xffff) * 100) >> 16);
                bits >>= 16;
                u = u << 1 | (r >= ab);
                v = v << 1 | ((r >= prob[0] && r < ab) || r >= abc);
            }
            u = (uint32_t)perm[u];
            v = (uint32_t)perm[v];
            if (u != v)
                keys[count++] = u < v ? (uint64_t)u << 32 | v : (uint64_t)v << 32 | u;
        }
        rc = sort_keys(keys, tmp, count);
    }
    if (rc == MF_OK) {
        for (int64_t i = 0; i < count; i++)
            if (!unique || keys[i] != keys[unique - 1])
                keys[unique++] = keys[i];
        for (int64_t i = 0; i < unique; i++) {
            deg[keys[i] >> 32]++;
            deg[keys[i] & 0xffffffffu]++;
        }
        rc = mf_arclist_init(out, n, (int32_t)(2 * unique));
    }
    for (int64_t i = 0; rc == MF_OK && i < unique; i++) {
        const int32_t u = (int32_t)(keys[i] >> 32), v = (int32_t)(keys[i] & 0xffffffffu);
        const int32_t cap = mf_rng_range(&rng, 1, maxcap);
        rc = mf_arclist_add(out, u, v, cap);
        if (rc == MF_OK)
            rc = mf_arclist_add(out, v, u, cap);
    }
    if (rc == MF_OK) { /* the degree ranks, by repeated scans: pair is small */
        int32_t rank[2 * MF_GEN_PAIR_MAX];
        const int32_t want = 2 * pair > nranks ? 2 * pair : nranks;
        for (int32_t k = 0; k < want; k++) {
            int32_t best = -1;
            for (int32_t v = 0; v < n; v++) {
                if (deg[v] < 0 || (best >= 0 && deg[v] <= deg[best]))
                    continue;
                best = v;
            }
            rank[k] = best;
            deg[best] = -1; /* taken */
        }
        out->source = rank[2 * pair - 2];
        out->sink = rank[2 * pair - 1];
        for (int32_t k = 0; k < nranks; k++)
            ranks[k] = rank[k];
    }
    free(perm);
    free(deg);
    free(keys);
    free(tmp);
    if (rc)
        mf_arclist_free(out);
    return rc;
}

/* Bipartite matching as max-flow: left vertices with power-law degrees
 * (a Zipf-like draw with the given mean, capped at the right side's size),
 * right endpoints uniform; every arc capacity 1, source -> left and
 * right -> sink capacity 1: the value is the size of a maximum matching. */
int mf_gen_matching(int32_t left, int32_t right, int32_t mean_degree, uint64_t seed, mf_arclist *out)
{
    memset(out, 0, sizeof *out);
    if (left < 1 || right < 1 || mean_degree < 1)
        return MF_ERR_INVALID;
    int64_t nv = (int64_t)left + right + 2;
    int64_t expect = (int64_t)left * mean_degree * 2 + left + right;
    if (nv > INT32_MAX || expect > (INT32_MAX >> 1))
        return MF_ERR_TOO_LARGE;
    int32_t s = left + right, t = left + right + 1;
    uint64_t rng = seed;
    int rc = mf_arclist_init(out, (int32_t)nv, (int32_t)expect);
    for (int32_t u = 0; rc == MF_OK && u < left; u++) {
        /* Pareto tail with shape 2: mean 2 * x_min, x_min = mean / 2 */
        double r = ((double)(mf_rng_next(&rng) >> 11) + 1.0) / 9007199254740993.0;
        double d = (mean_degree / 2.0) / sqrt(r);
        int64_t deg = (int64_t)d < 1 ? 1 : (int64_t)d;
        if (deg > right)
            deg = right;
        rc = mf_arclist_add(out, s, u, 1);
        for (int64_t k = 0; rc == MF_OK && k < deg; k++)
            rc = mf_arclist_add(out, u, left + mf_rng_range(&rng, 0, right - 1), 1);
    }
    for (int32_t v = 0; rc == MF_OK && v < right; v++)
        rc = mf_arclist_add(out, left + v, t, 1);
    out->source = s;
    out->sink = t;
    if (rc)
        mf_arclist_free(out);
    return rc;
}
