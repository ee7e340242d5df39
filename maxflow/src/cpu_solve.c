/* CPU engine dispatch. Both algorithms are exact and the canonical cut
 * does not depend on which maximum flow was found, so the choice changes
 * the time, never the answer. */
#include "cpu_engines.h"

/* Below this many vertices push-relabel was faster on most seg-dev photos
 * (0.19 Mpx, 79 of 99); above it BK was 3-5x faster (0.4-3 Mpx). Racing
 * both on two threads was measured too: on a 2-vCPU machine the two slow
 * each other by 30%, which cancels the gain. */
#define BK_FROM_VERTICES 350000

int mf_solve_cpu(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    mf_options defaults;
    if (!opt) {
        mf_options_default(&defaults);
        opt = &defaults;
    }
    mf_cpu_algorithm a = opt->cpu_algorithm;
    if (a == MF_CPU_AUTO)
        a = g->num_vertices >= BK_FROM_VERTICES ? MF_CPU_BK : MF_CPU_PUSH_RELABEL;
    return a == MF_CPU_BK ? mf_bk(g, opt, res, err) : mf_push_relabel(g, opt, res, err);
}

int mf_solve_bk(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    return mf_bk(g, opt, res, err);
}
