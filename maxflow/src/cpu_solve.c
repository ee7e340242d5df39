/* CPU engine dispatch. Both algorithms are exact and the canonical cut
 * does not depend on which maximum flow was found, so the choice changes
 * the time, never the answer. */
#include "cpu_engines.h"

#include <string.h>

/* Which algorithm wins depends on the network as much as on its size.
 * Measured in session 3 on photos without the geodesic prior: below 0.35
 * Mpx push-relabel won on 79 of 99 seg-dev photos, BK won by 3x at 1 Mpx
 * and lost by 1.7x at 12 Mpx (BK's augmenting paths lengthen with the
 * resolution, push-relabel's labels do not care). Since BK's set-up got
 * cheaper (session 9: no terminal arcs in its residual graph, a two-pass
 * build, the cut read off its trees) it wins below 0.35 Mpx too wherever
 * most vertices hang on a terminal arc: on the 102 default seg-dev
 * networks on 97 (1.8x in geometric mean, H100 host), on 20 of them built
 * without the prior 1.3x (push-relabel faster on 9), on 500 x 500 grids
 * 1.3-2.1x, on dense DAGs 3x, on bipartite matchings 1.1x. Networks with
 * few terminal arcs (genrmf, Washington RLG, R-MAT: terminals on one face
 * or a few vertices) keep push-relabel below 0.35 Mpx: BK has no
 * polynomial bound and its paths there are long. Also measured and
 * dropped: racing both on two threads (each slows the other by 30% on a
 * 2-vCPU machine) and BK with a work budget before push-relabel. */
#define BK_FROM_VERTICES 350000
#define BK_UNTIL_VERTICES 6000000

static int32_t degree(const mf_graph *g, int32_t v)
{
    return (g->out_start[v + 1] - g->out_start[v]) + (g->in_start[v + 1] - g->in_start[v]);
}

mf_cpu_algorithm mf_cpu_auto(const mf_graph *g)
{
    int32_t n = g->num_vertices;
    if (n >= BK_UNTIL_VERTICES)
        return MF_CPU_PUSH_RELABEL;
    if (n >= BK_FROM_VERTICES)
        return MF_CPU_BK;
    /* terminal arcs for at least every other vertex: a photo, a grid */
    int64_t terminal_arcs = (int64_t)degree(g, g->source) + degree(g, g->sink);
    return 2 * terminal_arcs >= n ? MF_CPU_BK : MF_CPU_PUSH_RELABEL;
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
