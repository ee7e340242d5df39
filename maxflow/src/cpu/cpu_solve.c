/* CPU engine dispatch. All three algorithms are exact and the canonical cut
 * does not depend on which maximum flow was found, so the choice changes
 * the time, never the answer. */
#include "cpu_engines.h"

#include <string.h>

/* Which algorithm wins depends on the network as much as on its size.
 * Where at least every other vertex has a terminal arc (photos, grids,
 * dense DAGs) BK wins at every size: its trees are reused after each
 * augmentation and the s-t paths are short, and its blocks merge on
 * several threads where push-relabel has none.
 *
 * Elsewhere the terminals touch a few vertices or one face, and what
 * decides is how far the vertices lie from the source: the mean
 * breadth-first distance over the vertices it reaches (one pass over the
 * arcs). Far networks (mean above NEAR_MEAN_DISTANCE: genrmf, long RLG)
 * take push-relabel, whose labels do not care how long the paths are, and
 * on which BK's paths grow without bound; near ones (R-MAT, whose mean
 * stays between 2 and 3 at every scale) take IBFS, which keeps BK's reuse
 * of trees but bounds their depth. Unit-capacity networks (bipartite
 * matchings) take IBFS too: each augmentation saturates its whole path
 * and orphans every vertex on it, so BK's trees are rebuilt rather than
 * reused. Racing two algorithms on two threads, and BK with a work budget
 * before push-relabel, were tried and lost (each slowed the other). The
 * measurements behind each threshold are in docs/benchmarks.md and the
 * history of this file. */
#define NEAR_MEAN_DISTANCE 4.0

/* A terminal that is a hub: its degree above this many times the mean.
 * ECL-MaxFlow's protocol on undirected graphs puts source and sink on the
 * vertices of the highest degrees. There IBFS, whose trees hang from the
 * terminal and re-scan its neighbours as they adopt orphans, loses to
 * push-relabel once the terminal holds hundreds of times the mean degree;
 * below this ratio (tens of times) IBFS stays the best. */
#define HUB_TERMINAL_RATIO 128.0

static int32_t degree(const mf_graph *g, int32_t v)
{
    return (g->out_start[v + 1] - g->out_start[v]) + (g->in_start[v + 1] - g->in_start[v]);
}

/* Arcs the distance pass may scan. The whole pass costs a sizeable part
 * of IBFS's own solve on large R-MAT networks, and the first 4 million
 * arcs decide as well: the vertices met first are the nearest, so the mean
 * over them can only understate the mean over all, and on networks whose
 * first 4 million arcs lie within 4 steps of the source most of the rest
 * does too. The budget keeps the pass to a few hundredths of a second
 * and picks as the whole pass did on every family tried. */
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
