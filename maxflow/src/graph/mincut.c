/* Canonical minimum cut and the certificate check. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int mf_min_cut(const mf_graph *g, const int32_t *flow, uint8_t *source_side)
{
    int32_t n = g->num_vertices;
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)n);
    if (!queue)
        return MF_ERR_NOMEM;
    memset(source_side, 1, (size_t)n);
    int32_t qh = 0, qt = 0;
    source_side[g->sink] = 0;
    queue[qt++] = g->sink;
    while (qh < qt) {
        int32_t w = queue[qh++];
        /* x reaches w through stored arc x->w (residual cap - f) ... */
        for (int32_t i = g->in_start[w]; i < g->in_start[w + 1]; i++) {
            int32_t a = g->in_arc[i], x = g->in_tail[i];
            if (source_side[x] && (int64_t)g->arc_cap[a] - flow[a] > 0) {
                source_side[x] = 0;
                queue[qt++] = x;
            }
        }
        /* ... or against stored arc w->x (residual rcap + f). */
        for (int32_t a = g->out_start[w]; a < g->out_start[w + 1]; a++) {
            int32_t x = g->arc_head[a];
            if (source_side[x] && (int64_t)g->arc_rcap[a] + flow[a] > 0) {
                source_side[x] = 0;
                queue[qt++] = x;
            }
        }
    }
    free(queue);
    return MF_OK;
}

int mf_verify(const mf_graph *g, const mf_result *res, int phase2, mf_error *err)
{
    int32_t n = g->num_vertices, m = g->num_arcs;
    const int32_t *f = res->flow;
    const uint8_t *side = res->source_side;
    int64_t *net = calloc((size_t)n, sizeof(int64_t));
    int rc = MF_OK;
    if (!net)
        return mf_fail(err, MF_ERR_NOMEM, NULL, 0, "out of memory");
    if (!side[g->source] || side[g->sink]) {
        rc = mf_fail(err, MF_ERR_VERIFY, NULL, 0,
                     "cut does not separate source from sink");
        goto done;
    }
    int64_t cut = g->flow_offset;
    for (int32_t u = 0; u < n; u++) {
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t v = g->arc_head[a];
            if (f[a] > g->arc_cap[a] || f[a] < -(int64_t)g->arc_rcap[a]) {
                rc = mf_fail(err, MF_ERR_VERIFY, NULL, 0,
                             "flow %d on arc %d->%d outside [-%d, %d]", f[a],
                             u + 1, v + 1, g->arc_rcap[a], g->arc_cap[a]);
                goto done;
            }
            net[u] -= f[a];
            net[v] += f[a];
            if (side[u] && !side[v]) {
                if (f[a] != g->arc_cap[a]) {
                    rc = mf_fail(err, MF_ERR_VERIFY, NULL, 0,
                                 "cut arc %d->%d not saturated", u + 1, v + 1);
                    goto done;
                }
                cut += g->arc_cap[a];
            } else if (!side[u] && side[v]) {
                if (f[a] != -(int64_t)g->arc_rcap[a]) {
                    rc = mf_fail(err, MF_ERR_VERIFY, NULL, 0,
                                 "cut arc %d->%d not saturated", v + 1, u + 1);
                    goto done;
                }
                cut += g->arc_rcap[a];
            }
        }
    }
    for (int32_t v = 0; v < n; v++) {
        if (v == g->source || v == g->sink)
            continue;
        if (phase2 ? net[v] != 0 : net[v] < 0) {
            rc = mf_fail(err, MF_ERR_VERIFY, NULL, 0,
                         "%s violated at vertex %d (net inflow %lld)",
                         phase2 ? "conservation" : "preflow condition", v + 1,
                         (long long)net[v]);
            goto done;
        }
    }
    if (net[g->sink] + g->flow_offset != res->flow_value) {
        rc = mf_fail(err, MF_ERR_VERIFY, NULL, 0,
                     "flow into the sink %lld differs from the value %lld",
                     (long long)(net[g->sink] + g->flow_offset), (long long)res->flow_value);
        goto done;
    }
    if (cut != res->flow_value) {
        rc = mf_fail(err, MF_ERR_VERIFY, NULL, 0,
                     "cut capacity %lld differs from the flow value %lld",
                     (long long)cut, (long long)res->flow_value);
        goto done;
    }
    (void)m;
done:
    free(net);
    return rc;
}
