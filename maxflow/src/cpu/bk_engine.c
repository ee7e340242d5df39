/* CPU engine for image networks: Boykov & Kolmogorov's augmenting paths
 * ("An Experimental Comparison of Min-Cut/Max-Flow Algorithms for Energy
 * Minimization in Vision", PAMI 2004). A source tree and a sink tree grow
 * toward each other and are reused after each augmentation, which is why
 * it beats push-relabel on grids whose s-t paths are short. It has no
 * polynomial bound on general graphs, so the library's default
 * (mf_options_default) stays push-relabel, and auto (cpu_solve.c, what
 * `flowcut maxflow` and segment use) takes BK only for photo-like
 * networks.
 *
 * On several threads the blocks merge bottom-up (bk_blocks.c); the search
 * of one block is bk_search.c. This file is the entry: the set-up (the
 * residual graph and one signed terminal residual per vertex), the solve
 * and the cut.
 *
 * The terminals are not tree nodes: each vertex keeps one signed terminal
 * residual (positive: from the source, negative: to the sink) after
 * pre-cancelling its two terminal capacities. The result is a valid flow
 * (conservation holds), mapped back onto the stored arcs at the end; a
 * cut-only solve lets paths leave excesses instead (augment), which keep
 * the value and the cut but not conservation. */
#include "bk.h"
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Blocks planned before the set-up (block_count, or one for scattered
 * arcs), and whether the set-up runs on one thread: the residual graph
 * and the terminal residuals in two passes over the arcs (mf_cut_setup,
 * which streams the arcs once where the threaded passes look up every
 * vertex's in-arcs), for a graph that is one block (one thread among
 * them) and below 131,072 vertices, which the threaded passes (grain
 * 65,536) would not split. Otherwise the threaded passes, which on 2
 * threads won as often as they lost (mf_bk_tuning.setup can force
 * either). A cut-only solve alone can take it (the flows come from
 * the threaded layout). */
static int bk_set_up_plan(const mf_graph *g, const mf_options *opt, int threads, int *planned)
{
    int setup = mf_bk_tuning_get()->setup;
    int32_t n = g->num_vertices;
    *planned = mf_bk_block_count(n, threads);
    if (*planned > 1 && mf_bk_crosses_blocks(g, *planned))
        *planned = 1;
    if (setup != MF_BK_SETUP_AUTO)
        return opt->cut_only && setup == MF_BK_SETUP_FUSED;
    return opt->cut_only && (*planned == 1 || n < 131072);
}

int mf_bk_streams_arcs(const mf_graph *g, const mf_options *opt)
{
    int planned;
    return g->num_vertices >= 2 && bk_set_up_plan(g, opt, mf_cpu_threads(opt), &planned);
}

/* The O(n) passes before and after the search, on every thread (on a
 * large photo each is a serial stretch the blocks wait for, or the caller
 * does). */
typedef struct bk_pass {
    bk_node *v;
    uint8_t *source_side;
} bk_pass;

static void clear_nodes(void *arg, int32_t lo, int32_t hi)
{
    bk_node *v = ((bk_pass *)arg)->v;
    memset(v + lo, 0, sizeof(bk_node) * (size_t)(hi - lo));
    for (int32_t u = lo; u < hi; u++)
        v[u].parent = NO_PARENT;
}

static void read_cut(void *arg, int32_t lo, int32_t hi)
{
    const bk_pass *p = arg;
    for (int32_t u = lo; u < hi; u++)
        p->source_side[u] = p->v[u].tree != SNK_TREE;
}

int mf_bk(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err)
{
    int32_t n = g->num_vertices;
    if (n < 2)
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "CPU engine (BK): graph has %d vertices", n);
    mf_residual r = {0};
    bk_node *v = mf_alloc_big(sizeof(bk_node) * (size_t)n);
    int32_t *up = mf_alloc_big(sizeof(int32_t) * (size_t)n);
    int64_t *tr = mf_alloc_big(sizeof(int64_t) * (size_t)n);
    int64_t flow = 0, augmentations = 0, walked = 0;
    memset(res, 0, sizeof *res);
    double t0 = mf_now();
    int threads = mf_cpu_threads(opt);
    int rc = v && up && tr ? MF_OK : MF_ERR_NOMEM;
    int planned, fused = bk_set_up_plan(g, opt, threads, &planned), blocks = 1;
    if (rc == MF_OK && fused) {
        rc = mf_cut_setup(g, &r, tr, &flow);
    } else if (rc == MF_OK) {
        /* a cut-only solve never maps flows back onto the terminal arcs */
        rc = opt->cut_only ? mf_residual_init_interior(&r, g, threads) : mf_residual_init_threads(&r, g, threads);
        if (rc == MF_OK)
            rc = mf_terminal_residuals(g, tr, &flow, threads);
    }
    if (rc == MF_OK)
        rc = mf_result_alloc(res, g, !opt->cut_only);
    res->stats.setup_seconds = mf_now() - t0;
    if (rc == MF_OK) {
        bk_pass pass = {.v = v};
        mf_parallel_for(threads, n, 65536, clear_nodes, &pass);
        v[g->source].tree = v[g->sink].tree = TERMINAL_VERTEX;
        /* Excesses only where no flow is read back, and only where the
         * graph is one block: there they shorten the search, but merged
         * blocks gain nothing from them (a merge's time goes into its
         * adoptions more than its walks); solve_blocks applies the rule. */
        int excess = opt->cut_only;
        bk_times times = {0};
        rc = mf_bk_solve_blocks(g, &r, v, up, tr, threads, planned, excess, &flow, &augmentations, &walked, &blocks,
                          &times);
        res->stats.work_seconds = times.work;
        res->stats.critical_seconds = times.critical;
        res->stats.longest_task_seconds = times.longest;
    }
    if (rc == MF_OK) {
        if (res->flow)
            rc = mf_terminal_flows(g, &r, tr, res->flow);
    }
    if (rc == MF_OK) {
        /* the cut: the vertices that still reach the sink, which here are
         * the sink tree's. Each of its vertices reaches the sink along its
         * tree path; a source-tree vertex that did would close an augmenting
         * path. A free vertex has no residual arc into the sink tree: it
         * left the source tree with none (such an arc is a path, augmented
         * until saturated), or left the sink tree, which activates every
         * sink-tree neighbour it has room into to take it back (adopt);
         * while it is free no flow moves across its arcs, and a neighbour
         * that joins the sink tree later takes it in when it grows (a merge
         * activates every tree vertex at its seam). The
         * tests check this cut against Edmonds-Karp's on every family and
         * thread count. */
        bk_pass pass = {.v = v, .source_side = res->source_side};
        mf_parallel_for(threads, n, 65536, read_cut, &pass);
        res->source_side[g->sink] = 0;
    }
    double t1 = mf_now();
    res->flow_value = flow + g->flow_offset;
    res->stats.phase1_seconds = res->stats.solve_seconds = t1 - t0;
    res->stats.pushes = augmentations;
    res->stats.visits = walked; /* the vertices of those paths */
    res->stats.rounds = blocks; /* blocks the graph was solved in */
    res->stats.engine_used = MF_ENGINE_CPU;
    res->stats.cpu_algorithm = MF_CPU_BK;
    snprintf(res->stats.device_name, sizeof res->stats.device_name, "CPU");
    mf_residual_free(&r);
    mf_free_big(v);
    mf_free_big(up);
    mf_free_big(tr);
    if (rc) {
        mf_result_free(res);
        return mf_fail(err, rc, NULL, 0, "CPU engine (BK): %s", mf_strerror(rc));
    }
    return MF_OK;
}
