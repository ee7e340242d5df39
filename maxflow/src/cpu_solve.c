/* CPU engine dispatch. Both algorithms are exact and the canonical cut
 * does not depend on which maximum flow was found, so the choice changes
 * the time, never the answer. */
#include "cpu_engines.h"

#include <string.h>

/* Which algorithm wins depends on the photo as much as on its size: on
 * the 0.19 Mpx PASCAL photos of seg-dev push-relabel was faster on 79 of
 * 99 (1.3x on average), on the alpha-matting photos BK was 2-10x faster at
 * any size. Upscaling one photo (coffee) from 0.25 to 12 Mpx, BK won by
 * 3x at 1 Mpx, 2x at 3 Mpx, tied at 6 Mpx and lost by 1.7x at 12 Mpx: BK's
 * augmenting paths lengthen with the resolution, push-relabel's labels do
 * not care. Size is the signal we have before solving. Also measured and
 * dropped: racing both on two threads (each slows the other by 30% on a
 * 2-vCPU machine) and BK with a work budget before push-relabel. */
#define BK_FROM_VERTICES 350000
#define BK_UNTIL_VERTICES 6000000

int mf_solve_cpu(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    mf_options defaults;
    if (!opt) {
        mf_options_default(&defaults);
        opt = &defaults;
    }
    mf_cpu_algorithm a = opt->cpu_algorithm;
    if (a == MF_CPU_AUTO)
        a = g->num_vertices >= BK_FROM_VERTICES && g->num_vertices < BK_UNTIL_VERTICES
                ? MF_CPU_BK
                : MF_CPU_PUSH_RELABEL;
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
