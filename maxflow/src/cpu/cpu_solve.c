/* CPU engine dispatch. Both algorithms are exact and the canonical cut
 * does not depend on which maximum flow was found, so the choice changes
 * the time, never the answer. */
#include "cpu_engines.h"

#include <string.h>

/* Which algorithm wins depends on the network as much as on its size.
 * Where at least every other vertex has a terminal arc (photos, grids) BK
 * wins at every size: on the 102 default seg-dev networks 1.8x faster than
 * push-relabel in geometric mean (H100 host, session 9), on 500 x 500
 * grids 1.3-2.1x, on the sample at 12 Mpx 2.9 against 5.8 s on one thread
 * (session 13; level without the geodesic prior, where BK's blocks then
 * run 5x faster on 16 threads and push-relabel has no threads). It used to
 * hand over to push-relabel above 6 million vertices, when its paths were
 * longer and its set-up slower.
 *
 * Elsewhere the terminals touch a few vertices or one face, and what
 * decides is how far the vertices lie from the source: the mean
 * breadth-first distance over the vertices it reaches (one pass over the
 * arcs). Session 14, this 2-core VM, engine seconds of push-relabel / BK /
 * IBFS on one thread:
 *   genrmf a64 b4 (mean 22.6)     0.027 / 0.074 / 0.145
 *   genrmf a128 b8 (25.1)         0.41  / 11.8  / 5.78
 *   genrmf a48 b384 (193)         2.77  / over 100 s (BK, the old rule's pick above 0.35 M)
 *   RLG 512 x 16 (8.5)            0.0056 / 0.026 / 0.025
 *   genrmf a6 b8 (5.6)            0.00023 / 0.00041 / 0.00053
 *   RLG 64 x 8 (4.5)              0.00038 / 0.00041 / 0.00068
 *   R-MAT scale 17 (2.9)          0.138 / 0.054 / 0.036
 * and on the H100 host (session 8) R-MAT scale 20 2.53 / 0.70 / 0.88,
 * scale 22 10.6 / 3.11 / 4.04. R-MAT's mean is 2.2 to 3.0 from scale 8
 * to 20. Far networks (mean above 4) take push-relabel, whose labels do
 * not care how long the paths are; near ones IBFS, within 1.3x of the best
 * (push-relabel loses 3.4x on R-MAT).
 * Dense DAGs give every vertex a terminal arc and go to BK, the fastest on
 * acyclic-dense 1000 (0.024 / 0.0087 / 0.011). So do bipartite matchings,
 * but there every capacity is 1: each augmentation saturates its whole
 * path and orphans every vertex on it, so BK's trees are rebuilt rather
 * than reused, and BK falls behind as they grow: matching 200k x 200k
 * 0.720 / 0.746 / 0.657 (H100 host), 1M x 1M 4.58 / 6.05 / 4.76 (VM),
 * 2M x 2M 8.85 / 25.2 / 9.16 (H100 host). Unit-capacity networks take
 * IBFS, within 4% of the best at each size.
 *
 * Measured and dropped earlier: racing push-relabel against BK on two
 * threads (each slowed the other by 30% on a 2-vCPU machine) and BK with a
 * work budget before push-relabel. */
#define NEAR_MEAN_DISTANCE 4.0

/* A terminal that is a hub: its degree above this many times the mean.
 * ECL-MaxFlow's protocol on undirected graphs puts source and sink on the
 * vertices of the highest degrees. There IBFS, whose trees hang from the
 * terminal and re-scan its neighbours as they adopt orphans, lost 1.3-6x
 * on Graph500-quadrant R-MAT (scale 16-20, edge factors 8-48: a terminal
 * of 500-1,400 times the mean degree) and push-relabel was the best or
 * within 2x of BK, which can be far worse (12.0 s against 1.56 s on one
 * pair); on rmat22.sym's kind (a terminal of 23-34 times the mean) IBFS
 * stays the best, 1.3-2x ahead (session 22, 2-core VM). */
#define HUB_TERMINAL_RATIO 128.0

static int32_t degree(const mf_graph *g, int32_t v)
{
    return (g->out_start[v + 1] - g->out_start[v]) + (g->in_start[v + 1] - g->in_start[v]);
}

/* Arcs the distance pass may scan: the whole pass cost 0.35 s on R-MAT
 * scale 20 (34 million arcs; IBFS then solves in 0.60 s, H100 host), and
 * the first 4 million decide as well (the vertices met first are the
 * nearest, so the mean over them can only understate the mean over all;
 * on networks whose first 4 million arcs lie within 4 steps of the source
 * most of the rest does too). With it the pass takes 0.03 s at most on
 * the 2-core VM (R-MAT scale 17 whole: 0.032 s; scale 19: 0.028 s) and
 * picks as the whole pass did on every family. */
#define DISTANCE_ARC_BUDGET (1 << 22)

/* Mean breadth-first distance from the source over the vertices it
 * reaches at zero flow (a stored arc carries cap along and rcap against
 * itself), over the first DISTANCE_ARC_BUDGET arcs scanned; -1 when the
 * work arrays cannot be had. */
static double mean_source_distance(const mf_graph *g)
{
    int32_t n = g->num_vertices;
    int32_t *dist = mf_alloc_big(sizeof(int32_t) * (size_t)n);
    int32_t *queue = mf_alloc_big(sizeof(int32_t) * (size_t)n);
    double mean = -1;
    if (dist && queue) {
        for (int32_t v = 0; v < n; v++)
            dist[v] = -1;
        int32_t head = 0, tail = 0;
        int64_t sum = 0, scanned = 0;
        dist[g->source] = 0;
        queue[tail++] = g->source;
        while (head < tail && scanned < DISTANCE_ARC_BUDGET) {
            int32_t u = queue[head++], d = dist[u] + 1;
            sum += dist[u];
            scanned += degree(g, u);
            for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
                int32_t w = g->arc_head[a];
                if (g->arc_cap[a] > 0 && dist[w] < 0) {
                    dist[w] = d;
                    queue[tail++] = w;
                }
            }
            for (int32_t i = g->in_start[u]; i < g->in_start[u + 1]; i++) {
                int32_t w = g->in_tail[i];
                if (g->arc_rcap[g->in_arc[i]] > 0 && dist[w] < 0) {
                    dist[w] = d;
                    queue[tail++] = w;
                }
            }
        }
        mean = (double)sum / head; /* over the vertices scanned */
    }
    mf_free_big(dist);
    mf_free_big(queue);
    return mean;
}

/* Every capacity at most 1 (a matching); stops at the first larger one,
 * the first arc of a photo's network. */
static int unit_capacities(const mf_graph *g)
{
    for (int32_t a = 0; a < g->num_arcs; a++)
        if (g->arc_cap[a] > 1 || g->arc_rcap[a] > 1)
            return 0;
    return 1;
}

/* Terminal arcs for at least every other vertex: a photo, a grid. */
static int photo_like(const mf_graph *g)
{
    int64_t terminal_arcs = (int64_t)degree(g, g->source) + degree(g, g->sink);
    return 2 * terminal_arcs >= g->num_vertices;
}

mf_cpu_algorithm mf_cpu_auto(const mf_graph *g)
{
    if (photo_like(g))
        return unit_capacities(g) ? MF_CPU_IBFS : MF_CPU_BK;
    const double mean_degree = g->num_vertices > 0 ? 2.0 * g->num_arcs / g->num_vertices : 0;
    const int32_t terminal = degree(g, g->source) > degree(g, g->sink) ? degree(g, g->source) : degree(g, g->sink);
    if (terminal > HUB_TERMINAL_RATIO * mean_degree)
        return MF_CPU_PUSH_RELABEL;
    double mean = mean_source_distance(g);
    return mean >= 0 && mean <= NEAR_MEAN_DISTANCE ? MF_CPU_IBFS : MF_CPU_PUSH_RELABEL;
}

int mf_cpu_reads_in_lists(const mf_graph *g, const mf_options *opt)
{
    mf_options defaults;
    if (!opt) {
        mf_options_default(&defaults);
        opt = &defaults;
    }
    mf_cpu_algorithm a = opt->cpu_algorithm;
    if (a == MF_CPU_AUTO) {
        if (!photo_like(g))
            return 1; /* auto's distance pass walks them */
        a = unit_capacities(g) ? MF_CPU_IBFS : MF_CPU_BK;
    }
    if (a == MF_CPU_IBFS)
        return !opt->cut_only; /* cut only: mf_cut_setup */
    if (a == MF_CPU_BK)
        return !mf_bk_streams_arcs(g, opt);
    return 1;
}

int mf_solve_cpu(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    mf_options defaults;
    if (!opt) {
        mf_options_default(&defaults);
        opt = &defaults;
    }
    mf_cpu_algorithm a = opt->cpu_algorithm;
    if (a == MF_CPU_AUTO)
        a = mf_cpu_auto(g);
    if (a == MF_CPU_IBFS)
        return mf_ibfs(g, opt, res, err);
    return a == MF_CPU_BK ? mf_bk(g, opt, res, err) : mf_push_relabel(g, opt, res, err);
}

const char *mf_cpu_algorithm_name(int a)
{
    switch (a) {
    case MF_CPU_PUSH_RELABEL:
        return "push-relabel";
    case MF_CPU_BK:
        return "bk";
    case MF_CPU_IBFS:
        return "ibfs";
    case MF_CPU_AUTO:
        return "auto";
    default:
        return NULL;
    }
}

int mf_cpu_algorithm_parse(const char *name, mf_cpu_algorithm *a)
{
    if (name && !strcmp(name, "push-relabel"))
        *a = MF_CPU_PUSH_RELABEL;
    else if (name && !strcmp(name, "bk"))
        *a = MF_CPU_BK;
    else if (name && !strcmp(name, "ibfs"))
        *a = MF_CPU_IBFS;
    else if (name && !strcmp(name, "auto"))
        *a = MF_CPU_AUTO;
    else
        return MF_ERR_INVALID;
    return MF_OK;
}
