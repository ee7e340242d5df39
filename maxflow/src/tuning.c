/* The engines' tuning parameters (tuning.h): the defaults, the values in
 * force, and the "key=value,..." parser the tests and benchmarks use.
 * docs/benchmarks.md has the measurements behind the defaults. */
#include "tuning.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const mf_bk_tuning bk_defaults = {
    /* merge-tree leaves per thread: a pool thread that finishes its
     * block takes another while a slow band (a photo's flow sits in a
     * few) holds the merge above it; 4 and 8 were faster on some
     * networks and slower on others */
    .blocks_per_thread = 2,
    /* smaller blocks cost a thread more in merging than they save, and
     * larger ones leave a small photo's one busy band to one thread on
     * many cores (tests/bench/thread_floor.sh calibrates it) */
    .min_block = 30000,
    /* a graph whose arcs cross the blocks more often (not a grid in row
     * order: R-MAT, a DIMACS file in random order) merges for longer than
     * one thread searches it (photos and DIMACS families) */
    .max_crossing = 0.05,
    /* spines pay where paths are long; photos' paths are shorter, and on
     * them the spines' appends and cuts cost what they save */
    .spine_length = 96,
    /* the per-graph rule of bk_set_up_plan */
    .setup = MF_BK_SETUP_AUTO,
};

static const mf_gpu_tuning gpu_defaults = {
    /* by average degree (4 lanes up to degree 3, 8 to 12, 16 to 24, then
     * 32): a vertex's arcs take one or two steps of its group */
    .group = 0,
    /* enough resident blocks to hide memory latency; 4 and 16 were level
     * on unions of photos */
    .blocks_per_sm = 8,
    /* rounds between the host's reads of the active count: fewer reads,
     * at most a few idle rounds at the end; 16 was level */
    .batch = 8,
    /* cycles a round before the grid syncs; 4, 16 and 32 were level */
    .cycles = 8,
    /* a photo's BFS has hundreds of narrow levels, which one block runs
     * without a grid barrier each */
    .small_bfs = 4,
    /* the tail of a photo's solve is hundreds of rounds of a few hundred
     * vertices, each round otherwise a launch of the whole grid */
    .small_push = 4,
    /* a vertex whose scan would take its group more than 32 steps (R-MAT
     * degrees reach 10^5); grids have none */
    .hub_degree = -1,
    /* 16 levels a grid barrier up to 8 M vertices, which shortens the BFS
     * where frontiers are narrow; beyond it the wider fronts are slower
     * that way, so level by level there */
    .bfs_hops = -1,
    /* atomicMin alone below 16,384 frontier vertices on graphs of group
     * 8 or less without hubs: one round trip fewer a level;
     * wide frontiers and dense graphs queue on the atomics instead */
    .bfs_direct = -1,
    /* one cooperative launch a BFS and a round instead of one a level */
    .coop = 1,
    /* cooperative blocks a multiprocessor: 4 and 8 shortened the BFS but
     * not the batch */
    .coop_per_sm = 2,
    /* global relabel after n visits where most arcs carry capacity both
     * ways (grids, photos), after 2n on one-way networks (n relabels too
     * often on Washington RLG) */
    .work = 0,
    /* rounds between global relabels: n^2 / (1000 m), within [100, 10^6] */
    .interval = 0,
};

/* What a test or benchmark set; the defaults until then (C does not take
 * another object as a static initialiser, hence the flags). */
static mf_bk_tuning bk_now;
static mf_gpu_tuning gpu_now;
static int bk_set, gpu_set;

mf_bk_tuning mf_bk_tuning_default(void)
{
    return bk_defaults;
}

mf_gpu_tuning mf_gpu_tuning_default(void)
{
    return gpu_defaults;
}

const mf_bk_tuning *mf_bk_tuning_get(void)
{
    return bk_set ? &bk_now : &bk_defaults;
}

const mf_gpu_tuning *mf_gpu_tuning_get(void)
{
    return gpu_set ? &gpu_now : &gpu_defaults;
}

void mf_bk_tuning_set(const mf_bk_tuning *t)
{
    bk_now = t ? *t : bk_defaults;
    bk_set = 1;
}

void mf_gpu_tuning_set(const mf_gpu_tuning *t)
{
    gpu_now = t ? *t : gpu_defaults;
    gpu_set = 1;
}

/* A field of a tuning structure by name: an int, int32_t or double at
 * offset off. */
typedef struct tuning_key {
    const char *name;
    size_t off;
    char type; /* 'i' int, 'l' int32_t, 'd' double */
} tuning_key;

#define KEY(s, f, t) {#f, offsetof(s, f), t}

static const tuning_key bk_keys[] = {
    KEY(mf_bk_tuning, blocks_per_thread, 'i'), KEY(mf_bk_tuning, min_block, 'l'),
    KEY(mf_bk_tuning, max_crossing, 'd'),      KEY(mf_bk_tuning, spine_length, 'l'),
    KEY(mf_bk_tuning, setup, 'i'),             {NULL, 0, 0},
};

static const tuning_key gpu_keys[] = {
    KEY(mf_gpu_tuning, group, 'i'),       KEY(mf_gpu_tuning, blocks_per_sm, 'i'), KEY(mf_gpu_tuning, batch, 'i'),
    KEY(mf_gpu_tuning, cycles, 'i'),      KEY(mf_gpu_tuning, small_bfs, 'i'),     KEY(mf_gpu_tuning, small_push, 'i'),
    KEY(mf_gpu_tuning, hub_degree, 'i'),  KEY(mf_gpu_tuning, bfs_hops, 'i'),      KEY(mf_gpu_tuning, bfs_direct, 'i'),
    KEY(mf_gpu_tuning, coop, 'i'),        KEY(mf_gpu_tuning, coop_per_sm, 'i'),   KEY(mf_gpu_tuning, work, 'd'),
    KEY(mf_gpu_tuning, interval, 'l'),    {NULL, 0, 0},
};

static int parse_spec(void *base, const tuning_key *keys, const char *spec, char *msg, size_t len)
{
    char buf[512];
    if (!spec || strlen(spec) >= sizeof buf) {
        snprintf(msg, len, "tuning: expected key=value[,key=value...]");
        return -1;
    }
    strcpy(buf, spec);
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(msg, len, "tuning: '%s' is not key=value", item);
            return -1;
        }
        *eq = '\0';
        const char *value = eq + 1;
        const tuning_key *k = keys;
        while (k->name && strcmp(k->name, item))
            k++;
        if (!k->name) {
            snprintf(msg, len, "tuning: unknown key '%s'", item);
            return -1;
        }
        char *end;
        double d = 0;
        long l = 0;
        if (keys == bk_keys && !strcmp(item, "setup")) { /* a name, not a number */
            l = !strcmp(value, "auto") ? MF_BK_SETUP_AUTO
                : !strcmp(value, "fused") ? MF_BK_SETUP_FUSED
                : !strcmp(value, "parallel") ? MF_BK_SETUP_PARALLEL : -1;
            end = l < 0 ? (char *)value : (char *)value + strlen(value);
        } else if (k->type == 'd') {
            d = strtod(value, &end);
        } else {
            l = strtol(value, &end, 10);
        }
        if (end == value || *end) {
            snprintf(msg, len, "tuning: bad value '%s' for %s", value, item);
            return -1;
        }
        char *field = (char *)base + k->off;
        if (k->type == 'd')
            *(double *)field = d;
        else if (k->type == 'l')
            *(int32_t *)field = (int32_t)l;
        else
            *(int *)field = (int)l;
    }
    return 0;
}

int mf_bk_tuning_parse(mf_bk_tuning *t, const char *spec, char *msg, size_t len)
{
    return parse_spec(t, bk_keys, spec, msg, len);
}

int mf_gpu_tuning_parse(mf_gpu_tuning *t, const char *spec, char *msg, size_t len)
{
    return parse_spec(t, gpu_keys, spec, msg, len);
}
