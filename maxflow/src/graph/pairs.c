/* Graphs from arrays of node pairs with capacities both ways plus per-node
 * terminal capacities: the form of grid and graph-cut APIs (PyMaxflow's
 * add_edge / add_tedge), built straight into the CSR without an arc list. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int mf_graph_from_pairs(int32_t num_nodes, int64_t num_pairs, const int32_t *tail, const int32_t *head,
                        const int32_t *cap, const int32_t *rcap, const int64_t *source_cap,
                        const int64_t *sink_cap, mf_graph *g, mf_error *err)
{
    memset(g, 0, sizeof *g);
    if (num_nodes < 0 || num_nodes > INT32_MAX - 2 || num_pairs < 0 ||
        (num_pairs && (!tail || !head || !cap || !rcap)))
        return mf_fail(err, MF_ERR_INVALID, NULL, 0, "graph: bad node count or NULL pair arrays");
    int32_t n = num_nodes, s = n, t = n + 1;
    int64_t m = 0, offset = 0;
    for (int64_t i = 0; i < num_pairs; i++) {
        if (tail[i] < 0 || tail[i] >= n || head[i] < 0 || head[i] >= n)
            return mf_fail(err, MF_ERR_INVALID, NULL, 0, "graph: edge %lld joins %d and %d, nodes are 0..%d",
                           (long long)i, tail[i], head[i], n - 1);
        if (cap[i] < 0 || rcap[i] < 0 || (int64_t)cap[i] + rcap[i] > INT32_MAX)
            return mf_fail(err, MF_ERR_INVALID, NULL, 0,
                           "graph: edge %lld has capacities %d and %d (each >= 0, sum <= 2147483647)",
                           (long long)i, cap[i], rcap[i]);
        m += tail[i] != head[i]; /* self-loops carry no flow */
    }
    for (int32_t v = 0; v < n; v++) {
        int64_t cs = source_cap ? source_cap[v] : 0, ct = sink_cap ? sink_cap[v] : 0;
        if (cs < 0 || ct < 0)
            return mf_fail(err, MF_ERR_INVALID, NULL, 0, "graph: node %d has a negative terminal capacity", v);
        /* what both terminals give is flow s -> v -> t already */
        int64_t both = cs < ct ? cs : ct;
        if (cs - both > INT32_MAX || ct - both > INT32_MAX)
            return mf_fail(err, MF_ERR_TOO_LARGE, NULL, 0,
                           "graph: node %d's terminal capacity exceeds 2147483647", v);
        if (offset > INT64_MAX - both)
            return mf_fail(err, MF_ERR_TOO_LARGE, NULL, 0, "graph: terminal capacities overflow 64 bits");
        offset += both;
        m += cs != ct;
    }
    if (m > (INT32_MAX >> 1))
        return mf_fail(err, MF_ERR_TOO_LARGE, NULL, 0, "graph: %lld arcs, at most %d", (long long)m,
                       INT32_MAX >> 1);
    int rc = mf_graph_alloc(g, n + 2, (int32_t)m);
    if (rc)
        return mf_fail(err, rc, NULL, 0, "graph: %s", mf_strerror(rc));
    g->source = s;
    g->sink = t;
    g->flow_offset = offset;
    /* counting sort by tail, pairs first and in their order, then the
     * terminal arc of each node */
    int32_t *start = g->out_start;
    for (int64_t i = 0; i < num_pairs; i++)
        if (tail[i] != head[i])
            start[tail[i] + 1]++;
    for (int32_t v = 0; v < n; v++) {
        int64_t cs = source_cap ? source_cap[v] : 0, ct = sink_cap ? sink_cap[v] : 0;
        if (cs != ct)
            start[(cs > ct ? s : v) + 1]++;
    }
    for (int32_t v = 0; v < n + 2; v++)
        start[v + 1] += start[v];
    int32_t *fill = malloc(sizeof(int32_t) * ((size_t)n + 2));
    if (!fill) {
        mf_graph_free(g);
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "graph: out of memory");
    }
    memcpy(fill, start, sizeof(int32_t) * ((size_t)n + 2));
    for (int64_t i = 0; i < num_pairs; i++) {
        if (tail[i] == head[i])
            continue;
        int32_t a = fill[tail[i]]++;
        g->arc_head[a] = head[i];
        g->arc_cap[a] = cap[i];
        g->arc_rcap[a] = rcap[i];
    }
    for (int32_t v = 0; v < n; v++) {
        int64_t cs = source_cap ? source_cap[v] : 0, ct = sink_cap ? sink_cap[v] : 0;
        if (cs == ct)
            continue;
        int32_t a = fill[cs > ct ? s : v]++;
        g->arc_head[a] = cs > ct ? v : t;
        g->arc_cap[a] = (int32_t)(cs > ct ? cs - ct : ct - cs);
        g->arc_rcap[a] = 0;
    }
    free(fill);
    rc = mf_graph_finish(g, err);
    if (rc)
        mf_graph_free(g);
    return rc;
}
