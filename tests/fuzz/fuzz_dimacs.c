/* libFuzzer harness of the DIMACS reader: any bytes, small limits. What
 * parses is solved by every CPU algorithm, merged and unmerged; all must
 * agree on the value and, bit for bit, on the canonical cut, and pass the
 * certificate check. Any disagreement aborts (libFuzzer reports it). */
#include "flowcut/maxflow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* small enough that every input solves in milliseconds */
#define FUZZ_MAX_VERTICES 4096
#define FUZZ_MAX_ARCS 65536

static void check(int ok) /* the condition holds, or libFuzzer reports */
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mf_dimacs_limits lim = {.max_vertices = FUZZ_MAX_VERTICES, .max_arcs = FUZZ_MAX_ARCS};
    mf_arclist list;
    mf_error err = {0};
    int rc = mf_parse_dimacs_limited((const char *)data, size, "fuzz.max", &lim, &list, &err);
    if (rc) {
        /* a refusal says why and leaves nothing allocated */
        check(rc == MF_ERR_PARSE || rc == MF_ERR_TOO_LARGE);
        check(err.message[0] != 0);
        check(list.tail == NULL && list.head == NULL && list.cap == NULL);
        return 0;
    }
    check(list.num_vertices >= 2 && list.num_vertices <= FUZZ_MAX_VERTICES);
    check(list.num_arcs >= 0 && list.num_arcs <= FUZZ_MAX_ARCS);
    check(list.source >= 0 && list.source < list.num_vertices && list.sink >= 0 &&
          list.sink < list.num_vertices && list.source != list.sink);
    for (int32_t i = 0; i < list.num_arcs; i++)
        check(list.tail[i] >= 0 && list.tail[i] < list.num_vertices && list.head[i] >= 0 &&
              list.head[i] < list.num_vertices && list.cap[i] >= 0);

    const mf_cpu_algorithm algs[] = {MF_CPU_PUSH_RELABEL, MF_CPU_BK, MF_CPU_IBFS};
    int64_t value = -1;
    uint8_t *side = NULL;
    for (int merge = 0; merge < 2; merge++) {
        mf_graph g;
        mf_build_options bopt = {.merge_antiparallel = merge};
        if (mf_graph_from_arcs(&list, &bopt, &g, &err) != MF_OK)
            abort(); /* a list the reader accepted always builds */
        for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++) {
            for (int phase2 = 0; phase2 < 2; phase2++) {
                mf_options opt;
                mf_options_default(&opt);
                opt.engine = MF_ENGINE_CPU;
                opt.cpu_algorithm = algs[a];
                opt.phase2 = phase2;
                opt.threads = 1;
                mf_result res;
                check(mf_solve_cpu(&g, &opt, &res, &err) == MF_OK);
                check(mf_verify(&g, &res, phase2 || algs[a] == MF_CPU_BK, &err) == MF_OK);
                if (value < 0) {
                    value = res.flow_value;
                    side = malloc((size_t)list.num_vertices);
                    check(side != NULL);
                    memcpy(side, res.source_side, (size_t)list.num_vertices);
                } else {
                    check(res.flow_value == value);
                    check(memcmp(side, res.source_side, (size_t)list.num_vertices) == 0);
                }
                mf_result_free(&res);
            }
        }
        mf_graph_free(&g);
    }
    free(side);
    mf_arclist_free(&list);
    return 0;
}
