/* flowcut maxflow library: CSR flow networks, DIMACS I/O, CPU and CUDA
 * push-relabel engines, canonical minimum cut and certificate check.
 *
 * Conventions: functions return 0 on success and a negative MF_ERR_* code
 * on failure (mf_strerror() names it); where an mf_error is passed, it
 * receives the file, line and a message. The library never prints and
 * never exits. */
#ifndef FLOWCUT_MAXFLOW_H
#define FLOWCUT_MAXFLOW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything declared here is the interface: exported from the shared
 * library, which is built with all else hidden. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define FLOWCUT_VERSION "0.1.0"

/* Status codes: 0, or negative. Each module has a range of its own
 * (maxflow -1..-99, graphbuild -100.., images -200.., segment -300..), so
 * a code names its module and its error whichever function passed it on,
 * and the module's strerror never misreads another's. */
enum {
    MF_OK = 0,
    MF_ERR_NOMEM = -1,
    MF_ERR_IO = -2,
    MF_ERR_PARSE = -3,
    MF_ERR_INVALID = -4,     /* bad argument or inconsistent graph */
    MF_ERR_TOO_LARGE = -5,   /* over a size limit of the representation */
    MF_ERR_NO_DEVICE = -6,   /* GPU engine asked for, none usable */
    MF_ERR_DEVICE = -7,      /* CUDA runtime failure */
    MF_ERR_DEVICE_MEMORY = -8, /* graph does not fit in device memory */
    MF_ERR_VERIFY = -9,      /* certificate check failed */
    MF_ERR_INTERNAL = -10
};

const char *mf_strerror(int code);

/* Error detail for the caller: where (file, line; line 0 when not tied to
 * a line) and what. */
typedef struct mf_error {
    int code;
    int64_t line;
    char file[256];
    char message[256];
} mf_error;

/* Formats "FILE:LINE: message" (or "FILE: message", or "message") into buf. */
void mf_error_format(const mf_error *err, char *buf, size_t size);

/* ---------------------------------------------------------------------
 * Arc lists: the input form (DIMACS, generators, tests).
 * Vertices are numbered 0..num_vertices-1 here (DIMACS ids minus one). */
typedef struct mf_arclist {
    int32_t num_vertices;
    int32_t num_arcs;
    int32_t capacity;   /* allocated arcs */
    int32_t source, sink;
    int32_t *tail, *head, *cap;
} mf_arclist;

int mf_arclist_init(mf_arclist *list, int32_t num_vertices, int32_t reserve);
int mf_arclist_add(mf_arclist *list, int32_t tail, int32_t head, int32_t cap);
void mf_arclist_free(mf_arclist *list);

/* What the DIMACS reader accepts, checked on the problem line before
 * anything is allocated: a declared size over a limit is MF_ERR_TOO_LARGE
 * ("node count N over the limit of L vertices", "arc count M over the
 * limit of L arcs"). The graph and the engines take tens of bytes a
 * vertex and an arc, so a 40-byte file must not declare billions. The
 * defaults, 2^27 vertices and 2^29 arcs, take the largest instances in use
 * (10-100 M vertices, up to 500 M arcs); a caller raises them up to what
 * the representation holds (INT32_MAX - 1 vertices, 2^30 - 1 arcs). 0 in
 * a field: its default. */
typedef struct mf_dimacs_limits {
    int64_t max_vertices;
    int64_t max_arcs;
    int threads; /* threads a large file's parse may use; 0: every core */
} mf_dimacs_limits;
#define MF_DIMACS_MAX_VERTICES_DEFAULT ((int64_t)1 << 27)
#define MF_DIMACS_MAX_ARCS_DEFAULT ((int64_t)1 << 29)
void mf_dimacs_limits_default(mf_dimacs_limits *lim);

/* Reads a DIMACS max-flow problem. path "-" reads standard input. Strict:
 * every malformed line is an MF_ERR_PARSE with its line in err. Regular
 * files are mapped; standard input, pipes and devices are parsed as a
 * stream, a block at a time (a line there must end within 1 MiB, but a
 * comment). Binary data is refused where it is met: a NUL byte anywhere,
 * or a first line (after comments) that starts with a byte that is not
 * printable text, is "not a DIMACS max-flow file (binary data at byte N)"
 * (line 0); a first line of text of another kind is "not a DIMACS max-flow
 * file (line L starts with 'x')". Memory follows the arc lines read: the
 * list grows with them, never past the problem line's count (an arc line
 * more is an error at its line). lim NULL: the defaults. */
int mf_read_dimacs(const char *path, mf_arclist *out, mf_error *err);
int mf_read_dimacs_limited(const char *path, const mf_dimacs_limits *lim,
                           mf_arclist *out, mf_error *err);
/* Parses an in-memory DIMACS text; name is used in error messages. */
int mf_parse_dimacs(const char *text, size_t length, const char *name,
                    mf_arclist *out, mf_error *err);
int mf_parse_dimacs_limited(const char *text, size_t length, const char *name,
                            const mf_dimacs_limits *lim, mf_arclist *out, mf_error *err);
/* Capacity updates for the warm re-solve, in batches. Text format:
 *   c comment
 *   b            starts a batch
 *   u K CAP      input arc K (1-based, order of the problem's 'a' lines)
 *                gets capacity CAP (0..INT32_MAX)
 * Strict: every malformed line is an MF_ERR_PARSE with its line in err.
 * Batch b holds changes batch_start[b] .. batch_start[b + 1] - 1
 * (arc 0-based). */
typedef struct mf_updates {
    int32_t num_batches;
    int64_t *batch_start; /* num_batches + 1 */
    int64_t count;
    int32_t *arc, *cap;
    int64_t *line; /* count: the line of each change, for error messages */
} mf_updates;

int mf_read_updates(const char *path, int32_t num_arcs, mf_updates *out, mf_error *err);
int mf_parse_updates(const char *text, size_t length, const char *name, int32_t num_arcs,
                     mf_updates *out, mf_error *err);
void mf_updates_free(mf_updates *u);
/* Whether every change of u can be applied to g (built from the problem's
 * arc list), replayed in order as mf_dynamic_set_input_arc applies them:
 * a merged antiparallel pair holds both directions' capacities in one
 * stored arc, whose sum may not pass INT32_MAX. MF_ERR_TOO_LARGE with the
 * change's line (file: name) for the first that would; call it before
 * solving, so that a script is refused before any result is out. */
struct mf_graph;
int mf_updates_check(const struct mf_graph *g, const mf_updates *u, const char *name, mf_error *err);

/* Writes the problem in DIMACS form (1-based ids); comment may be NULL or
 * hold several lines, each written behind "c ". */
int mf_write_dimacs(FILE *f, const mf_arclist *list, const char *comment);

/* ---------------------------------------------------------------------
 * The flow network: forward CSR (arcs grouped by tail) plus reverse CSR
 * (arc ids grouped by head), one flow value per arc (ecl-maxflow layout).
 *
 * A stored arc a = (u -> v) has capacity cap[a] from u to v and rcap[a]
 * from v to u, and one flow value f in [-rcap[a], cap[a]]: positive means
 * u to v. DIMACS arcs have rcap 0; grid n-links and merged antiparallel
 * pairs use both directions, halving the arcs an engine touches.
 * Residual capacity u->v is cap - f, v->u is rcap + f. cap + rcap never
 * exceeds INT32_MAX, so every residual and flow fits an int32_t. */
typedef struct mf_graph {
    int32_t num_vertices, num_arcs, source, sink;
    int32_t *out_start;  /* num_vertices + 1 */
    int32_t *arc_head;   /* num_arcs */
    int32_t *arc_cap;    /* num_arcs */
    int32_t *arc_rcap;   /* num_arcs */
    int32_t *in_start;   /* num_vertices + 1 */
    int32_t *in_arc;     /* num_arcs: arc ids by head */
    int32_t *in_tail;    /* num_arcs: tail of in_arc[i], kept for locality */
    /* Input arc i maps to stored arc input_map[i] >> 1, in its own
     * direction when the low bit is 0 and against it when 1; -1 for a
     * dropped self-loop. NULL when the graph was not built from a list. */
    int32_t *input_map;
    int32_t num_input_arcs;
    /* Flow already routed outside the arcs (pre-cancelled terminal
     * capacity of grid networks); added to the value engines find. */
    int64_t flow_offset;
} mf_graph;

typedef struct mf_build_options {
    int merge_antiparallel; /* pair u->v with v->u into one stored arc */
    int threads;            /* threads a large graph's build may use; 0: every core */
} mf_build_options;

/* Builds the CSR graph from an arc list. Self-loops are dropped, parallel
 * arcs kept. opt may be NULL (merging on). */
int mf_graph_from_arcs(const mf_arclist *list, const mf_build_options *opt,
                       mf_graph *g, mf_error *err);

/* Builds the graph of num_nodes nodes (0 .. num_nodes - 1) plus a source
 * (vertex num_nodes) and a sink (num_nodes + 1) from pairs: pair i joins
 * tail[i] to head[i] with capacity cap[i] along and rcap[i] against (one
 * stored arc each, in order; self-loops dropped). source_cap[v] and
 * sink_cap[v] (either array may be NULL) are node v's terminal
 * capacities: what both give is pre-cancelled into flow_offset, the rest
 * becomes one terminal arc. The form of PyMaxflow's add_edge/add_tedge. */
int mf_graph_from_pairs(int32_t num_nodes, int64_t num_pairs, const int32_t *tail, const int32_t *head,
                        const int32_t *cap, const int32_t *rcap, const int64_t *source_cap,
                        const int64_t *sink_cap, mf_graph *g, mf_error *err);

/* For builders that know the degree structure (graphbuild): allocates the
 * arrays for n vertices and m arcs; the caller fills out_start, arc_head,
 * arc_cap and arc_rcap, then calls mf_graph_finish() to derive the
 * reverse CSR. */
int mf_graph_alloc(mf_graph *g, int32_t num_vertices, int32_t num_arcs);
int mf_graph_finish(mf_graph *g, mf_error *err);
void mf_graph_free(mf_graph *g);

/* Memory for a large array that is about to be written in full (the
 * graph's arrays, a builder's per-pixel arrays): from 64 KiB up it is
 * page-aligned and its pages are mapped in one call; from 2 MiB up it is
 * on transparent huge pages where the OS has them: page faults one page at a
 * time are a large part of a small photo's segment run, above all on a
 * virtual machine. NULL when out of memory; release with
 * mf_free_big() (free() is also safe, but bypasses the cache).
 * mf_calloc_big also zeroes it (NULL when count * size overflows). */
void *mf_alloc_big(size_t bytes);
void *mf_calloc_big(size_t count, size_t size);
void mf_free_big(void *p);
/* Keeps up to `bytes` of blocks released by mf_free_big for later
 * mf_alloc_big calls of a size they fit (default 0: none kept; 0 also
 * releases what is kept). For processes that build and solve many networks
 * one after another (flowcut batch): a reused block costs no page faults,
 * where fresh memory is zeroed by the kernel page by page. Thread-safe. */
void mf_alloc_cache_limit(size_t bytes);

/* A deep copy of src (input_map included). */
int mf_graph_copy(const mf_graph *src, mf_graph *dst);

/* Tail of arc a, by binary search on out_start (O(log n)). */
int32_t mf_arc_tail(const mf_graph *g, int32_t a);

/* ---------------------------------------------------------------------
 * Solving */
typedef enum { MF_ENGINE_AUTO = 0, MF_ENGINE_CPU, MF_ENGINE_GPU } mf_engine;

/* The CPU engine's algorithm. Push-relabel has a polynomial bound on any
 * graph; Boykov-Kolmogorov has none but is several times faster on the grid
 * networks of photos; IBFS (incremental breadth-first search) has one and
 * suits networks whose vertices lie near the source. Auto picks BK where
 * at least every other vertex has a terminal arc (photos, grids, dense
 * DAGs) unless every capacity is 1 (matchings: IBFS), else IBFS when the
 * mean breadth-first distance from the source is at most 4 (R-MAT) and
 * neither terminal is a hub, else push-relabel (genrmf, Washington RLG,
 * hub terminals); cpu_solve.c gives the reasons. */
typedef enum { MF_CPU_PUSH_RELABEL = 0, MF_CPU_BK, MF_CPU_AUTO, MF_CPU_IBFS } mf_cpu_algorithm;

typedef struct mf_options {
    mf_engine engine;
    int phase2;          /* 1: make a valid flow on every arc */
    int device;          /* CUDA device ordinal for the GPU engine */
    int verbose_notice;  /* unused by the library; reserved for callers */
    mf_cpu_algorithm cpu_algorithm; /* default MF_CPU_PUSH_RELABEL */
    int cut_only;        /* 1: value and cut only, result flow stays NULL (segmentation
                          * needs no flows; skipping them saves memory and time) */
    int threads;         /* CPU threads for one solve (BK: bottom-up merging of vertex
                          * blocks); 0: every core. The cut is the same for any count. */
} mf_options;

void mf_options_default(mf_options *opt);

/* Names as the CLI takes them: auto, cpu, gpu; auto, bk, ibfs,
 * push-relabel. 0 on success, MF_ERR_INVALID for another name. */
int mf_engine_parse(const char *name, mf_engine *e);
int mf_cpu_algorithm_parse(const char *name, mf_cpu_algorithm *a);
/* The name of a, as parse takes it (e.g. for mf_stats.cpu_algorithm); NULL
 * for a value that names none (-1: the GPU engine ran). */
const char *mf_cpu_algorithm_name(int a);

typedef struct mf_stats {
    double solve_seconds;       /* engine time, both phases */
    double phase1_seconds, phase2_seconds;
    double upload_seconds;      /* GPU: host to device copy and setup */
    double download_seconds;    /* GPU: results back */
    int64_t pushes, relabels, global_relabels, rounds;
    int64_t bfs_levels;         /* GPU: levels over all global relabels */
    int64_t visits;             /* GPU: active-vertex visits over all rounds; BK: the
                                 * vertices on its paths (pushes: the paths) */
    double relabel_seconds;     /* GPU: time in global relabels */
    int engine_used;            /* MF_ENGINE_CPU or MF_ENGINE_GPU */
    /* Warm re-solve (mf_dynamic): 1 when the solve started from the
     * previous state, 0 for a cold solve (the first one, or a batch too
     * heavy to be worth repairing); arcs changed in the batch and the
     * vertices whose excess the changes turned into a deficit. */
    int warm;
    int64_t changed_arcs, deficits;
    char device_name[128];
    /* CPU: the part of solve_seconds spent building the engine's residual
     * graph and terminal residuals from g (what the reference solvers call
     * init), so that the search alone can be compared with theirs */
    double setup_seconds;
    /* CPU: the algorithm that ran (an mf_cpu_algorithm, auto resolved);
     * -1 for the GPU engine */
    int cpu_algorithm;
    /* BK on blocks (rounds of them): the blocks' and merges' search
     * seconds summed (work), the longest chain of them that waited for
     * each other (critical: no thread count goes below it), and the
     * longest one; on one block all three are its search. 0 elsewhere. */
    double work_seconds, critical_seconds, longest_task_seconds;
    /* 1 when engine auto tried the GPU, the device could not hold the
     * network and the CPU solved it (mf_engine_falls_back) */
    int fell_back;
} mf_stats;

/* Result of a solve. flow[a] is the flow on stored arc a: after phase 2 a
 * valid flow; after phase 1 alone a maximum preflow; NULL with cut_only. source_side[v] is 1
 * for vertices of the canonical minimum cut's source side: the vertices
 * that cannot reach the sink in the final residual graph. That set is the
 * same for every maximum flow, so all correct engines agree bit for bit. */
typedef struct mf_result {
    int64_t flow_value;   /* includes the graph's flow_offset */
    int32_t *flow;        /* num_arcs */
    uint8_t *source_side; /* num_vertices */
    int32_t num_arcs, num_vertices;
    mf_stats stats;
} mf_result;

void mf_result_free(mf_result *r);

/* The engine decision, one place for every front end (the CLI's commands,
 * batch, the session, Python): opt->engine (NULL: auto) on this machine.
 * cpu: the CPU, without starting CUDA; gpu: the GPU, or MF_ERR_NO_DEVICE
 * with the reason when this build or machine has none; auto: the GPU when
 * a CUDA device is usable, else the CPU. devices (may be NULL) gets the
 * usable device count when the GPU is picked, else 0. */
int mf_engine_pick(const mf_options *opt, mf_engine *engine, int *devices, mf_error *err);

/* The fallback, decided once: 1 when a GPU solve that returned rc is to be
 * redone on the CPU, which is when the device could not hold the network
 * (MF_ERR_DEVICE_MEMORY) and opt's engine is auto. */
int mf_engine_falls_back(const mf_options *opt, int rc);

/* Solves with the engine mf_engine_pick gives for opt (NULL: defaults),
 * falling back as mf_engine_falls_back says (stats.fell_back). */
int mf_solve(const mf_graph *g, const mf_options *opt, mf_result *res,
             mf_error *err);

/* Solves k networks, res[i] for g[i] (res is cleared first; all freed on
 * failure). On the GPU, in launches of networks grouped by
 * mf_gpu_launch_takes, each launch one union solve (mf_gpu_solve_many: cut
 * only) when its networks have their terminals as their last two vertices,
 * a network alone as mf_solve would; a launch the device cannot hold is
 * solved network by network, falling back as mf_solve does. On the CPU,
 * side by side, one thread each, on every core; opt->threads > 0: in turn,
 * that many threads each. Every network gets the canonical cut it gets
 * alone. */
int mf_solve_many(const mf_graph *const *g, int32_t k, const mf_options *opt, mf_result *res, mf_error *err);

/* The CPU engine, by opt->cpu_algorithm: highest-label push-relabel with
 * global relabeling and the gap heuristic (Cherkassky & Goldberg's hi_pr
 * design), or Boykov-Kolmogorov (always a valid flow, as after phase 2). */
int mf_solve_cpu(const mf_graph *g, const mf_options *opt, mf_result *res,
                 mf_error *err);

/* Whether mf_solve_cpu of g with opt reads g's in-lists (in_arc and
 * in_tail; in_start is always read). 0 for a cut-only solve by BK or IBFS
 * (opt's or auto's pick) that sets up on one thread, streaming the arcs by
 * tail: a builder that leaves the lists unset (graphbuild's in_lists 0)
 * may then skip mf_graph_finish(). */
int mf_cpu_reads_in_lists(const mf_graph *g, const mf_options *opt);

/* GPU engine: a reusable solver object keeps device buffers between solves
 * so that batches do not reallocate. Without CUDA support or a device,
 * create returns MF_ERR_NO_DEVICE. */
typedef struct mf_gpu_solver mf_gpu_solver;
int mf_gpu_available(int *device_count);
int mf_gpu_solver_create(int device, mf_gpu_solver **out, mf_error *err);
/* How host threads wait for device (the CUDA runtime's scheduling flag
 * of its primary context, so every solver of it): spin (least latency, a
 * core busy for each waiting thread; CUDA's choice for a process with
 * fewer contexts than cores), yield, or block (no core while waiting).
 * batch blocks: its stream threads would otherwise spin on the cores that
 * decode and build the next photos. May be called after solvers exist. */
typedef enum { MF_GPU_WAIT_AUTO = 0, MF_GPU_WAIT_SPIN = 1, MF_GPU_WAIT_YIELD = 2, MF_GPU_WAIT_BLOCK = 3 } mf_gpu_wait;
int mf_gpu_set_wait(int device, mf_gpu_wait mode, mf_error *err);
/* Bytes of device memory a solve of g needs (estimate, before allocating). */
size_t mf_gpu_memory_needed(const mf_graph *g);
/* Free device memory on the solver's device. */
int mf_gpu_memory_free(mf_gpu_solver *s, size_t *free_bytes);
int mf_gpu_solve(mf_gpu_solver *s, const mf_graph *g, const mf_options *opt,
                 mf_result *res, mf_error *err);
/* Solves k networks at once (1 <= k <= MF_GPU_MANY_MAX) as one: their
 * disjoint union, the sources joined into one source and the sinks into
 * one sink. Flow cannot pass from one network to another, so each keeps
 * its own maximum flow and canonical cut, but one BFS level or push round
 * serves them all: a 0.4 Mpx photo alone leaves most of a large GPU idle
 * between its level barriers. Each network must have its source and sink
 * as its last two vertices (as mf_graph_from_pairs builds them); only
 * in_start of the reverse CSR is read (the in-lists are built on the
 * device, so builders may leave in_arc and in_tail unset). Cut only:
 * res[i] gets network i's value and source side, no flows; the stats are
 * the union's. */
#define MF_GPU_MANY_MAX 64
/* The vertices one such launch packs (mf_gpu_launch_takes, used by
 * mf_solve_many and the batch scheduler): networks join a launch until
 * together they would pass this; a larger one goes alone. */
#define MF_GPU_LAUNCH_VERTICES ((int64_t)4 << 20)
int mf_gpu_solve_many(mf_gpu_solver *s, const mf_graph *const *networks, int k, const mf_options *opt,
                      mf_result *res, mf_error *err);
/* The one grouping rule of union launches: 1 when a network of
 * next_vertices joins a launch that holds taken networks of taken_vertices
 * in all; at most max_networks (and MF_GPU_MANY_MAX) networks and
 * MF_GPU_LAUNCH_VERTICES vertices, and always the first. */
int mf_gpu_launch_takes(int32_t taken, int64_t taken_vertices, int64_t next_vertices, int32_t max_networks);
void mf_gpu_solver_destroy(mf_gpu_solver *s);
/* 1 when this library was built with the CUDA engine. */
int mf_gpu_compiled(void);
/* Grid networks in compact form, for the device: flowcut/maxflow_grid.h. */

/* ---------------------------------------------------------------------
 * Warm re-solve after capacity changes (dynamic max-flow, after Kannappan,
 * Kumar & Nasre, PVLDB 2026). The solver owns a copy of the graph and
 * keeps the last maximum preflow (on the device for the GPU engine).
 * Changes are queued with mf_dynamic_set_arc / _set_input_arc and applied
 * by the next mf_dynamic_solve, which repairs the preflow locally: a
 * capacity below the current flow clamps the flow, leaving an excess at
 * one end and a deficit at the other; deficits are pulled back from the
 * terminals or from stranded excess (a push phase on the reversed residual
 * graph), then excess is pushed to the sink as usual. Labels come from a
 * fresh BFS at each phase. Every solve returns the same value and the
 * bit-identical canonical cut as a cold solve of the updated graph.
 *
 *   mf_dynamic *d;
 *   mf_dynamic_create(&g, &opt, &d, &err);
 *   mf_dynamic_solve(d, &res, &err);              // cold
 *   mf_dynamic_set_arc(d, a, new_cap, new_rcap, &err);
 *   mf_dynamic_solve(d, &res, &err);              // warm
 *   mf_dynamic_destroy(d);
 */
typedef struct mf_dynamic mf_dynamic;

/* opt: engine (AUTO: the GPU when usable and the graph fits), device,
 * cut_only, phase2 (a valid flow in every result), cpu_algorithm (for the
 * cold solve). The graph is copied; g may be freed after the call. */
int mf_dynamic_create(const mf_graph *g, const mf_options *opt, mf_dynamic **out, mf_error *err);
/* The same, taking g's arrays instead of copying them (a large grid's graph
 * is hundreds of megabytes): whatever the outcome g is left empty (its
 * arrays now the solver's, or freed on failure), and mf_graph_free on it
 * does nothing. */
int mf_dynamic_adopt(mf_graph *g, const mf_options *opt, mf_dynamic **out, mf_error *err);
/* New capacities of stored arc a: cap along it, rcap against it (both
 * >= 0, cap + rcap <= INT32_MAX). Applied at the next solve, in order. */
int mf_dynamic_set_arc(mf_dynamic *d, int32_t a, int32_t cap, int32_t rcap, mf_error *err);
/* New capacity of input arc i (0-based, in the order of the arc list the
 * graph was built from); the other direction of a merged pair keeps its
 * capacity. MF_ERR_INVALID for a dropped self-loop's arc (nothing to do:
 * returns MF_OK) or an index out of range. */
int mf_dynamic_set_input_arc(mf_dynamic *d, int32_t i, int32_t cap, mf_error *err);
/* Adds delta to the flow already routed outside the arcs (pre-cancelled
 * terminal capacity of grid networks). */
void mf_dynamic_add_offset(mf_dynamic *d, int64_t delta);
/* The flow arc a carries in the last solve's state (0 before the first),
 * pending changes not applied: what a caller needs to reparameterise a
 * vertex's two terminal arcs without cutting into their flow (Kohli and
 * Torr: raising both by the same amount changes no cut). CPU state only:
 * MF_ERR_INVALID on the GPU. */
int mf_dynamic_arc_flow(const mf_dynamic *d, int32_t a, int32_t *flow);
/* Solves: cold the first time, warm after. Heavy batches solve cold: more
 * than cold_fraction of the arcs changed (mf_dynamic_set_cold_fraction),
 * or the new bounds cut off more than half of the last flow (repairing
 * that undoes most of the previous solve and costs more than a cold
 * one). stats.warm tells. */
int mf_dynamic_solve(mf_dynamic *d, mf_result *res, mf_error *err);
/* Fraction of the arcs above which a batch is solved cold (default 0.5;
 * 2 or more: never cold, whatever the batch; 0: always, and on the CPU
 * with cut_only no warm state is kept, so each solve costs what a fresh
 * cut-only solve of the graph does). */
void mf_dynamic_set_cold_fraction(mf_dynamic *d, double fraction);
/* CPU: fraction of the vertices from which a warm batch routes the new
 * flow by augmenting paths over the whole residual network instead of
 * repairing it locally by push-relabel (default 0.02: update batches of
 * general networks; a session, whose prior edits change many terminals
 * that a local repair settles faster, sets 0.5). */
void mf_dynamic_set_paths_fraction(mf_dynamic *d, double fraction);
/* The graph with every applied change (pending ones are not in it). */
const mf_graph *mf_dynamic_graph(const mf_dynamic *d);
/* The graph to edit in place, for a change of most of its capacities at
 * once (a session's re-fitted terminals): the pending changes are applied
 * first and the next solve is cold, as a batch of that size would be,
 * without a change recorded per arc. Only arc_cap, arc_rcap (within
 * mf_dynamic_set_arc's bounds, which are not checked here) and
 * flow_offset may be written; the arcs themselves stay. */
mf_graph *mf_dynamic_edit_cold(mf_dynamic *d);
/* MF_ENGINE_CPU or MF_ENGINE_GPU: the engine this solver runs on. */
int mf_dynamic_engine(const mf_dynamic *d);
void mf_dynamic_destroy(mf_dynamic *d);

/* Canonical min cut from a maximum (pre)flow: backward BFS from the sink
 * over residual arcs; source_side[v] = 1 for vertices not reached. */
int mf_min_cut(const mf_graph *g, const int32_t *flow, uint8_t *source_side);

/* Certificate check, O(n + m): every flow within its bounds; conservation
 * at every vertex but source and sink when phase2 (a flow), non-negative
 * excess when not (a preflow); the cut is a cut (source in, sink out) with
 * no residual arc leaving it; and cut capacity == flow value. */
int mf_verify(const mf_graph *g, const mf_result *res, int phase2,
              mf_error *err);

/* Flow on input arc i of the list the graph was built from (phase 2). */
int32_t mf_input_arc_flow(const mf_graph *g, const int32_t *flow, int32_t i);

/* ---------------------------------------------------------------------
 * Generators of the classic families (ecl-maxflow section V-C); all
 * deterministic from the seed. */
int mf_gen_genrmf(int32_t a, int32_t b, int32_t c1, int32_t c2,
                  uint64_t seed, mf_arclist *out);
int mf_gen_washington_rlg(int32_t rows, int32_t cols, int32_t maxcap,
                          uint64_t seed, mf_arclist *out);
int mf_gen_acyclic_dense(int32_t n, uint64_t seed, mf_arclist *out);
int mf_gen_grid(int32_t width, int32_t height, int connectivity,
                uint64_t seed, mf_arclist *out);
/* Skewed degrees: Graph500 R-MAT (2^scale vertices, edge_factor * 2^scale
 * arcs, capacities in [1, maxcap]) with a super source joined to
 * `terminals` vertices at one end of a breadth-first search and a super
 * sink to `terminals` at its far end (the wbpr paper's set-up). */
int mf_gen_rmat(int32_t scale, int32_t edge_factor, int32_t terminals, int32_t maxcap, uint64_t seed,
                mf_arclist *out);
/* ECL-MaxFlow's protocol on undirected graphs: R-MAT with the quadrant
 * probabilities prob[0..2] in percent (the fourth is the rest), each edge
 * once and both ways with one capacity in [1, maxcap], no loops; source
 * and sink are the vertices of degree ranks 2 pair - 1 and 2 pair
 * (1 <= pair <= MF_GEN_PAIR_MAX). ranks, when nranks > 0 (at most
 * 2 MF_GEN_PAIR_MAX), gets the first nranks vertices in that order. */
#define MF_GEN_PAIR_MAX 64
int mf_gen_rmat_pair(int32_t scale, int32_t edge_factor, const int32_t prob[3], int32_t pair, int32_t maxcap,
                     uint64_t seed, mf_arclist *out, int32_t *ranks, int32_t nranks);
/* Bipartite matching with power-law degrees on the left side (mean
 * mean_degree), unit capacities: the value is a maximum matching's size. */
int mf_gen_matching(int32_t left, int32_t right, int32_t mean_degree, uint64_t seed, mf_arclist *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif
