/* Boykov-Kolmogorov's internals, shared by its four files: the search
 * (bk_search.c: the trees' growth and adoptions, a run's set-up), the
 * augmentation (bk_augment.c: paths, pushes and their speed-ups), the
 * blocks (bk_blocks.c: the plan, the merge tree and the task pool that
 * runs it) and the entry point (bk_engine.c: set-up, solve, cut). */
#ifndef FLOWCUT_BK_H
#define FLOWCUT_BK_H

#include "cpu_engines.h"

#include <stdint.h>

enum { FREE = 0, SRC_TREE = 1, SNK_TREE = 2, TERMINAL_VERTEX = 3 };
/* bk_node.parent values besides an arc position */
#define NO_PARENT (-1)
#define TO_TERMINAL (-2)
#define ORPHAN (-3)
#define FAR_AWAY INT32_MAX

#define MAX_DEGREE_LEND 32 /* roots of more arcs gather nothing (no stack room) */

/* A vertex's search state in one struct: growth touches all of it for
 * each neighbour, so one cache line beats five arrays. The terminal
 * residual, which only roots and augmentations read, lives apart (bk_run.tr),
 * and so does the parent vertex, which walks up a tree chase (bk_run.up): a
 * node is 12 bytes. The distance cache only steers the choice of parents
 * (nearer ones keep paths short), so 16 bits that saturate are enough,
 * and a smaller node keeps more of the tree in cache. */
typedef struct bk_node {
    int32_t parent;   /* position, in the vertex's arcs, of the arc to its parent */
    int32_t stamp;    /* dist is valid at this time */
    uint16_t dist;    /* distance-to-terminal cache, saturating (a heuristic) */
    uint8_t tree, queued; /* bit 0: on the active queue; bit 1: on the discharge stack;
                           * ON_SPINE: on its tree's spine (dist - 1 is its depth there) */
} bk_node;

#define ON_SPINE 4u
#define SPINE_MAX 8192 /* positions a spine holds; a longer branch's far end is pushed directly */

/* The last augmenting path's branch on one side, root first, with the flow
 * that its arcs carry but do not show yet. In the merges without the prior
 * the paths come in hot spots: each next path shares most of its vertices
 * with the previous one, and walked both branches to their roots and
 * pushed each arc again. A path that meets the spine walks only down
 * to it: one prefix minimum gives the rest of the branch's bottleneck, and
 * the flow through the whole spine is one counter (every path through it
 * uses all of it: the spine is cut below the junction and the walked part
 * appended). An arc is written when its vertex leaves the spine (spine_cut):
 * a cut below a junction, a saturated arc, an orphan on the spine, a
 * growth that re-parents one, the end of the run. Nothing but augment reads
 * a spine arc meanwhile: growth and adoption only look at arcs to vertices
 * off the spine's path or in another tree, the spine holds no dry arc, and
 * ancestors of a spine vertex are on the spine. The walks fall by more
 * than half; the time by less, since the walk had also brought into cache
 * what adoption reads next. Spines turn on only where paths are long
 * (spine_switch). */
typedef struct bk_spine {
    int32_t len, cap;  /* vertices vert[0 .. len), vert[0] the root, each the parent of the next */
    int64_t sent;      /* flow sent through the whole spine so far */
    int32_t *vert, *arc; /* arc[i]: vert[i]'s parent arc (i >= 1) */
    int32_t *old_stamp, *old_dist; /* the vertex's stamp and dist before it joined */
    int64_t *val;      /* the arc's residual toward the terminal when appended, plus sent then */
    int64_t *at;       /* sent when appended */
    int64_t *lowest;   /* lowest[i]: the least val of positions 1 .. i */
} bk_spine;

#define DIST_MAX UINT16_MAX
static inline uint16_t dist_cap(int32_t d) { return d < DIST_MAX ? (uint16_t)d : DIST_MAX; }

/* One BK search over the vertices [lo, hi) and the arcs between them. */
typedef struct bk_run {
    const int32_t *first;
    mf_rarc *arcs;
    bk_node *v;
    int32_t *up;      /* the parent vertex itself (when parent is an arc), apart
                       * from the nodes: walks up a tree chase this array alone,
                       * 4 bytes a vertex, which stays in a core's L2 cache where
                       * the nodes do not, and load the
                       * node and the arc of each step independently */
    int64_t *tr;      /* terminal residual per vertex: > 0 from source, < 0 to sink */
    int32_t lo, size;
    int32_t *queue;   /* active vertices, ring of size slots */
    int32_t qhead, qlen;
    int32_t *orphans; /* FIFO, each vertex at most once */
    int32_t ohead, olen;
    int32_t time;
    int32_t *path;    /* (vertex, parent arc) pairs of the path being augmented */
    int32_t *pending; /* orphans re-adopted with an imbalance to discharge, a stack */
    int32_t npending;
    int32_t plen;
    int64_t flow;
    int64_t augmentations; /* paths, a discharge's too */
    int64_t walked;        /* their vertices */
    int excess;       /* a cut-only solve on one block: paths leave imbalances (augment) */
    int spines;       /* may cache the last path's branches (bk_spine): whenever there are no excesses */
    int spine_on;     /* does now: the paths are long (spine_switch) */
    int32_t spine_length; /* mean path length that turns them on (mf_bk_tuning; 0: from the first path) */
    int32_t last_length; /* the last path's vertices */
    int32_t window;   /* paths since the last switch decision, and their length */
    int64_t window_length;
    bk_spine spine[2]; /* SRC_TREE - 1, SNK_TREE - 1 */
} bk_run;

/* The run's own vertices are [lo, lo + size): another block's are not read. */
static inline int inside(const bk_run *b, int32_t w)
{
    return (uint32_t)(w - b->lo) < (uint32_t)b->size;
}

/* The residual of a vertex's arc q in its tree's direction, were q's head
 * its parent: into the vertex for the source tree (the parent sends), out
 * of it for the sink tree. */
static inline int32_t along_tree(const mf_rarc *arcs, int32_t q, uint8_t side)
{
    return side == SRC_TREE ? arcs[q].rres : arcs[q].res;
}

/* mf_bk_spine_cut's modes: the vertices cut keep their branch to the root (a
 * junction lower down, a shorter parent, the end); their branch breaks at
 * an orphan; it breaks at the arcs the last push dried (orphans made) */
enum { CUT_KEEP, CUT_BROKEN, CUT_DRIED };

/* The augmentation (bk_augment.c), called by the search (bk_search.c).
 * Drops the spine's positions [z, len) (mf_bk_spine_cut, in the mode
 * above); pushes flow along the path through arc xy of x, the source-tree
 * end (mf_bk_augment); sends a re-adopted sink-tree vertex's excess down
 * its new path (mf_bk_discharge). */
void mf_bk_spine_cut(bk_run *b, uint8_t side, int32_t z, int mode);
void mf_bk_augment(bk_run *b, int32_t x, int32_t xy);
void mf_bk_discharge(bk_run *b, int32_t v);

/* The vertices of a leaf block with an arc to another block (terminal
 * arcs aside), ascending: only they can have an arc across a seam. */
typedef struct bk_border {
    int32_t *v;
    int32_t count;
} bk_border;

typedef struct bk_job {
    bk_run run;
    int32_t mid;  /* seam of a merge, or -1 for a block's first run */
    const bk_border *leaves; /* a merge's leaf blocks, in order */
    int nleaves;
    int nomem;
} bk_job;

/* Where a search's time went (mf_stats): the tasks' seconds summed, the
 * longest chain of tasks that waited for each other (what more threads
 * cannot shorten), and the longest task. */
typedef struct bk_times {
    double work, critical, longest;
} bk_times;

/* The largest number of blocks a solve plans (mf_bk_tuning.blocks_per_thread
 * times the threads, capped here: the merge tree lives on the stack). */
#define MAX_BLOCKS 64

/* A search over the job's vertices: fields from the residual graph, the
 * node arrays and the tuning in force (bk_search.c). time is above every
 * stamp the levels before left; excess lets paths leave imbalances. */
void mf_bk_job_init(bk_job *j, mf_residual *r, bk_node *v, int32_t *up, int64_t *tr, int32_t lo, int32_t hi,
                    int32_t mid, int32_t time, int excess);
/* Runs one job (a block's first run, or a merge): seeds its trees or
 * activates its seam, searches to the end; sets nomem when its buffers
 * could not be had. A pthread entry point. */
void *mf_bk_job_run(void *job);

/* The blocks planned before the set-up (bk_blocks.c): block_count for n
 * vertices on `threads`, and whether g's arcs cross k blocks too often
 * for merging to pay. */
int mf_bk_block_count(int32_t n, int threads);
int mf_bk_crosses_blocks(const mf_graph *g, int k);
/* Solves in up to `blocks` blocks merged bottom-up on `threads`: the flow,
 * the paths and their vertices added to *flow, *augmentations, *walked;
 * the blocks used and where the time went. */
int mf_bk_solve_blocks(const mf_graph *g, mf_residual *r, bk_node *v, int32_t *up, int64_t *tr, int threads,
                       int blocks, int excess, int64_t *flow, int64_t *augmentations, int64_t *walked,
                       int *blocks_used, bk_times *times);

#endif
