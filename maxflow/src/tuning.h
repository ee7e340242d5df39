/* The engines' tuning parameters: one structure per engine, its defaults
 * in one place (tuning.c), read by the engines at each solve. Internal
 * (not installed): tests and benchmarks set them to reach a code path on
 * small graphs or to measure another value; the library reads no
 * environment variable. The values are process-wide: set them before a
 * solve and never while one runs (on any thread). */
#ifndef FLOWCUT_TUNING_H
#define FLOWCUT_TUNING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How BK builds its residual graph in a cut-only solve (bk_set_up_plan). */
enum { MF_BK_SETUP_AUTO = 0, MF_BK_SETUP_FUSED = 1, MF_BK_SETUP_PARALLEL = 2 };

/* Boykov-Kolmogorov (bk_engine.c). Keys for mf_bk_tuning_parse in (). */
typedef struct mf_bk_tuning {
    int blocks_per_thread;  /* (blocks_per_thread) blocks planned per solve thread */
    int32_t min_block;      /* (min_block) fewest vertices a block may have */
    double max_crossing;    /* (max_crossing) arcs crossing blocks, as a fraction of the walked arcs,
                             * above which the graph is solved as one block */
    int32_t spine_length;   /* (spine_length) mean path length (vertices) that turns spines on;
                             * 0: on from the first path */
    int setup;              /* (setup) MF_BK_SETUP_*: auto, fused or parallel */
} mf_bk_tuning;

/* The push-relabel engine on the GPU (gpu_engine.cu). Fields of -1 (0 for
 * group, work and interval) are chosen per graph; keys for
 * mf_gpu_tuning_parse in (). */
typedef struct mf_gpu_tuning {
    int group;          /* (group) threads that scan one vertex's arcs: 1, 4, 8, 16 or 32; 0: by degree */
    int blocks_per_sm;  /* (blocks_per_sm) push blocks per multiprocessor */
    int batch;          /* (batch) rounds queued between checks of the active count */
    int cycles;         /* (cycles) push-relabel cycles per round and vertex */
    int small_bfs;      /* (small_bfs) BFS levels of fewer than this x 1024/group vertices run in one block;
                         * 0: never */
    int small_push;     /* (small_push) rounds with fewer active vertices than this x 1024/group run in one
                         * block; 0: never */
    int hub_degree;     /* (hub_degree) degree above which a vertex gets a block of its own; 0: none,
                         * -1: 32 x group */
    int bfs_hops;       /* (bfs_hops) BFS levels per grid barrier; 0: level by level; -1: by size */
    int bfs_direct;     /* (bfs_direct) frontier size below which the BFS labels by atomicMin alone;
                         * 0: never; -1: by degree */
    int coop;           /* (coop) cooperative whole-grid launches; 0: not */
    int coop_per_sm;    /* (coop_per_sm) cooperative blocks per multiprocessor */
    double work;        /* (work) vertex visits between global relabels, times n; 0: by arc direction */
    int32_t interval;   /* (interval) rounds between global relabels; 0: by size */
} mf_gpu_tuning;

/* The defaults (what every solve uses unless a test or benchmark set
 * other values). */
mf_bk_tuning mf_bk_tuning_default(void);
mf_gpu_tuning mf_gpu_tuning_default(void);

/* The values in force; the engines read them at each solve. */
const mf_bk_tuning *mf_bk_tuning_get(void);
const mf_gpu_tuning *mf_gpu_tuning_get(void);

/* Sets the values in force (NULL: the defaults). Not while a solve runs. */
void mf_bk_tuning_set(const mf_bk_tuning *t);
void mf_gpu_tuning_set(const mf_gpu_tuning *t);

/* Applies "key=value[,key=value...]" (keys as above; setup takes auto,
 * fused or parallel) to *t. Returns 0, or -1 with a message in msg. */
int mf_bk_tuning_parse(mf_bk_tuning *t, const char *spec, char *msg, size_t len);
int mf_gpu_tuning_parse(mf_gpu_tuning *t, const char *spec, char *msg, size_t len);

#ifdef __cplusplus
}
#endif

#endif
