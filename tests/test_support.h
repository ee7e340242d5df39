/* Test helpers shared by the engine tests: random graph families and an
 * independent Edmonds-Karp reference solver. */
#ifndef FLOWCUT_TEST_SUPPORT_H
#define FLOWCUT_TEST_SUPPORT_H

#include "flowcut/maxflow.h"

#include <stdint.h>

enum {
    FAMILY_SPARSE,
    FAMILY_DENSE,
    FAMILY_PARALLEL,      /* many parallel and antiparallel arcs */
    FAMILY_ZERO_CAPS,     /* half the capacities zero */
    FAMILY_UNREACHABLE,   /* sink cut off from the source */
    FAMILY_HUGE_CAPS,     /* capacities near INT32_MAX: value beyond 2^31 */
    FAMILY_COUNT
};

/* Builds a random instance of family on about n vertices; the source is
 * vertex 0 or the last one depending on the seed. */
int random_graph(int family, int32_t n, uint64_t seed, mf_arclist *out);

/* Edmonds-Karp on the arc list: value and, when source_side is not NULL,
 * the set of vertices that cannot reach the sink in its final residual. */
int64_t reference_max_flow(const mf_arclist *list, uint8_t *source_side);

/* Solves list on the CPU engine with algorithm and fails the test unless
 * the value and the canonical cut equal Edmonds-Karp's and the certificate
 * holds (a flow when phase2, else a preflow); with phase2 the flows per
 * input arc must conserve too; a cut_only solve must give the same value
 * and cut without flows. */
void check_cpu_solve(const mf_arclist *list, int merge, int phase2, mf_cpu_algorithm algorithm,
                     const char *what);

/* Every instance of tests/data/EXPECTED.tsv (known values) with and
 * without merged arcs, as a preflow and as a flow unless flow_always. */
void check_known_instances(mf_cpu_algorithm algorithm, int flow_always);
/* 360 random graphs of every family against Edmonds-Karp. */
void check_random_graphs(mf_cpu_algorithm algorithm, int flow_always);
/* Parallel INT32_MAX arcs: a value and per-vertex sums beyond 2^31. */
void check_value_beyond_32_bits(mf_cpu_algorithm algorithm);

/* Warm re-solve differential checks on engine (CPU or GPU): random graphs
 * of every family with random batches of increases, decreases (to 0 and
 * below the flow) and mixed changes, every batch against Edmonds-Karp on
 * the rewritten arc list (value and bit-identical cut) and the
 * certificate; then generator families (grid, genrmf, Washington RLG)
 * against a cold CPU solve of the updated graph. */
void check_dynamic_random(mf_engine engine);
void check_dynamic_generators(mf_engine engine);

/* Path of a file in tests/data. */
const char *test_data_path(const char *name);

/* Terminal capacity of vertex v after pre-cancellation: positive toward
 * the source, negative toward the sink, whichever way the arc is stored. */
int64_t graph_terminal_term(const mf_graph *g, int32_t v);

#endif
