/* libFuzzer harness of the update-script parser and the warm re-solve.
 * The first bytes make a small graph (a byte of options, a byte of
 * vertices, a byte of arcs, then three bytes an arc: tail, head, a
 * capacity class), the rest is an update script. A script the parser and
 * mf_updates_check accept is applied batch by batch, warm, and every
 * result must equal a cold solve of the updated arc list (value and, bit
 * for bit, the canonical cut) and pass the certificate check; a script
 * mf_updates_check refuses must be one that mf_dynamic_set_input_arc
 * refuses too. Any disagreement aborts (libFuzzer reports it). */
#include "flowcut/maxflow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check(int ok)
{
    if (!ok)
        abort();
}

/* Capacities around the edges that matter: 0, small ones, and values
 * whose antiparallel sums reach past INT32_MAX. */
static int32_t capacity_of(uint8_t b)
{
    switch (b & 7) {
    case 0: return 0;
    case 1: return INT32_MAX;
    case 2: return INT32_MAX - (b >> 3);
    case 3: return (int32_t)1 << 30;
    default: return b >> 3;
    }
}

static int64_t cold_solve(const mf_arclist *list, int merge, uint8_t *side)
{
    mf_graph g;
    mf_error err = {0};
    mf_build_options bopt = {.merge_antiparallel = merge};
    check(mf_graph_from_arcs(list, &bopt, &g, &err) == MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.threads = 1;
    mf_result r;
    check(mf_solve_cpu(&g, &opt, &r, &err) == MF_OK);
    int64_t value = r.flow_value;
    memcpy(side, r.source_side, (size_t)list->num_vertices);
    mf_result_free(&r);
    mf_graph_free(&g);
    return value;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    const int options = data[0], merge = options & 1;
    const int32_t n = 2 + data[1] % 24;
    int32_t m = data[2] % 48;
    size_t pos = 3;
    if (size - pos < (size_t)m * 3)
        m = (int32_t)((size - pos) / 3);
    mf_arclist list;
    check(mf_arclist_init(&list, n, m) == MF_OK);
    list.source = 0;
    list.sink = n - 1;
    for (int32_t i = 0; i < m; i++, pos += 3)
        check(mf_arclist_add(&list, data[pos] % n, data[pos + 1] % n, capacity_of(data[pos + 2])) == MF_OK);

    mf_updates upd;
    mf_error err = {0};
    int rc = mf_parse_updates((const char *)data + pos, size - pos, "fuzz.u", list.num_arcs, &upd, &err);
    if (rc) {
        check(rc == MF_ERR_PARSE || rc == MF_ERR_NOMEM || rc == MF_ERR_TOO_LARGE);
        check(upd.arc == NULL && upd.batch_start == NULL);
        mf_arclist_free(&list);
        return 0;
    }
    check(upd.batch_start[0] == 0 && upd.batch_start[upd.num_batches] == upd.count);
    mf_graph g;
    mf_build_options bopt = {.merge_antiparallel = merge};
    check(mf_graph_from_arcs(&list, &bopt, &g, &err) == MF_OK);
    const int accepted = mf_updates_check(&g, &upd, "fuzz.u", &err) == MF_OK;

    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.threads = 1;
    opt.phase2 = (options >> 1) & 1;
    mf_dynamic *d = NULL;
    check(mf_dynamic_create(&g, &opt, &d, &err) == MF_OK);
    if ((options >> 2) & 1)
        mf_dynamic_set_cold_fraction(d, 2.0); /* warm whatever the batch */
    uint8_t *side = malloc((size_t)n);
    check(side != NULL);
    mf_result r;
    check(mf_dynamic_solve(d, &r, &err) == MF_OK);
    check(r.flow_value == cold_solve(&list, merge, side));
    check(memcmp(side, r.source_side, (size_t)n) == 0);
    mf_result_free(&r);
    int refused = 0;
    for (int32_t b = 0; b < upd.num_batches && !refused; b++) {
        for (int64_t k = upd.batch_start[b]; k < upd.batch_start[b + 1]; k++) {
            if (mf_dynamic_set_input_arc(d, upd.arc[k], upd.cap[k], &err) != MF_OK) {
                refused = 1;
                break;
            }
            list.cap[upd.arc[k]] = upd.cap[k];
        }
        if (refused)
            break;
        check(mf_dynamic_solve(d, &r, &err) == MF_OK);
        check(mf_verify(mf_dynamic_graph(d), &r, opt.phase2, &err) == MF_OK);
        check(r.flow_value == cold_solve(&list, merge, side));
        check(memcmp(side, r.source_side, (size_t)n) == 0);
        mf_result_free(&r);
    }
    /* the check and the solver agree on what a merged pair can hold */
    check(refused == !accepted);
    free(side);
    mf_dynamic_destroy(d);
    mf_graph_free(&g);
    mf_updates_free(&upd);
    mf_arclist_free(&list);
    return 0;
}
