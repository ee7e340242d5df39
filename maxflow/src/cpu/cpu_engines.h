/* The CPU algorithms behind mf_solve_cpu (opt is never NULL here), and the
 * push-relabel engine's state, which the warm re-solve (dynamic.c) keeps
 * alive between solves. */
#ifndef FLOWCUT_CPU_ENGINES_H
#define FLOWCUT_CPU_ENGINES_H

#include "internal.h"

int mf_push_relabel(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err);
int mf_bk(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err);
/* Whether mf_bk sets up on one thread (mf_cut_setup), reading no in-lists. */
int mf_bk_streams_arcs(const mf_graph *g, const mf_options *opt);
/* What MF_CPU_AUTO runs on g (cpu_solve.c). */
mf_cpu_algorithm mf_cpu_auto(const mf_graph *g);
int mf_ibfs(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err);

/* Terminal arcs as one signed residual per vertex (terminals.c): tr[v] > 0
 * is capacity left from the source, < 0 to the sink; adds the flow the
 * pre-cancelling and the source -> sink arcs carry to *flow. Reads the
 * in-lists; vertex ranges on `threads`. */
int mf_terminal_residuals(const mf_graph *g, int64_t *tr, int64_t *flow, int threads);
/* Both for a cut-only solve on one thread, in fewer passes: the residual
 * graph of mf_residual_init_interior and the terminal residuals. */
int mf_cut_setup(const mf_graph *g, mf_residual *r, int64_t *tr, int64_t *flow);
/* Flow of every stored arc from the residual graph (interior arcs) and the
 * terminal residuals left (terminal arcs, shared out in arc order). */
int mf_terminal_flows(const mf_graph *g, const mf_residual *r, const int64_t *left_tr, int32_t *flow);

/* Highest-label push-relabel state: residual arcs, excess and labels. */
typedef struct mf_pr {
    int32_t n;
    mf_residual resid;
    int32_t *first;    /* resid.first */
    mf_rarc *arcs;     /* resid.arcs */
    int64_t *excess;
    int32_t *label;
    int32_t *current;
    int32_t *anext;    /* active lists, singly linked */
    int32_t *inext, *iprev; /* inactive lists, doubly linked */
    int32_t *active_head, *inactive_head; /* per label */
    int32_t *queue;
    int32_t target, blocked;
    int multi;         /* absorbing mode: see mf_pr_run_phase */
    int32_t amax, dmax;
    int64_t work, threshold;
    int64_t pushes, relabels, global_relabels;
} mf_pr;

/* The residual graph of g at zero flow, zero excess. */
int mf_pr_init(mf_pr *e, const mf_graph *g);
void mf_pr_free(mf_pr *e);
/* Pushes every residual arc out of s to its head. */
void mf_pr_saturate(mf_pr *e, int32_t s);
/* Discharges every vertex with positive excess toward target until none
 * can reach it; blocked is never entered. With multi, also s = blocked
 * and every non-terminal vertex with negative excess absorb excess (they
 * start at label 0): the deficit phase of the warm re-solve, run on the
 * reversed residual graph. */
void mf_pr_run_phase(mf_pr *e, int32_t target, int32_t blocked, int multi);
/* Reverses every residual arc and negates every excess: deficits become
 * excesses that the same push loop can move. Self-inverse. */
void mf_pr_reverse(mf_pr *e);

#endif
