/* Random graph families, the Edmonds-Karp reference and the CPU solve
 * check shared by the engine tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int32_t range(uint64_t *s, int32_t lo, int32_t hi)
{
    return lo + (int32_t)(next(s) % (uint64_t)((int64_t)hi - lo + 1));
}

int random_graph(int family, int32_t n, uint64_t seed, mf_arclist *out)
{
    uint64_t s = seed * 7919 + (uint64_t)family;
    if (n < 2)
        n = 2;
    int rc = mf_arclist_init(out, n, 16);
    if (rc)
        return rc;
    int source_last = (int)(next(&s) & 1);
    out->source = source_last ? n - 1 : 0;
    out->sink = source_last ? 0 : n - 1;
    int32_t m;
    switch (family) {
    case FAMILY_DENSE:
        for (int32_t u = 0; u < n && !rc; u++)
            for (int32_t v = 0; v < n && !rc; v++)
                if (u != v && (next(&s) % 4) != 0)
                    rc = mf_arclist_add(out, u, v, range(&s, 0, 50));
        break;
    case FAMILY_PARALLEL:
        m = 4 * n;
        for (int32_t i = 0; i < m && !rc; i++) {
            int32_t u = range(&s, 0, n - 1), v = range(&s, 0, n - 1);
            int copies = range(&s, 1, 3);
            for (int k = 0; k < copies && !rc; k++) {
                rc = mf_arclist_add(out, u, v, range(&s, 0, 20));
                if (!rc && (next(&s) & 1))
                    rc = mf_arclist_add(out, v, u, range(&s, 0, 20));
            }
        }
        break;
    case FAMILY_UNREACHABLE: {
        /* two halves; arcs only lead from the sink's half to the source's */
        int32_t half = n / 2;
        m = 3 * n;
        for (int32_t i = 0; i < m && !rc; i++) {
            int32_t u = range(&s, 0, n - 1), v = range(&s, 0, n - 1);
            int su = (u < half) == (out->source < half), sv = (v < half) == (out->source < half);
            if (su && !sv)
                continue;
            rc = mf_arclist_add(out, u, v, range(&s, 1, 30));
        }
        break;
    }
    case FAMILY_HUGE_CAPS:
        m = 3 * n;
        for (int32_t i = 0; i < m && !rc; i++)
            rc = mf_arclist_add(out, range(&s, 0, n - 1), range(&s, 0, n - 1),
                                range(&s, INT32_MAX - 1000, INT32_MAX));
        for (int32_t v = 0; v < n && !rc; v++)
            if (v != out->source && v != out->sink) {
                rc = mf_arclist_add(out, out->source, v, INT32_MAX);
                if (!rc)
                    rc = mf_arclist_add(out, v, out->sink, INT32_MAX);
            }
        break;
    case FAMILY_ZERO_CAPS:
    case FAMILY_SPARSE:
    default:
        m = range(&s, n, 3 * n);
        for (int32_t i = 0; i < m && !rc; i++) {
            int32_t cap = range(&s, 0, 100);
            if (family == FAMILY_ZERO_CAPS && (next(&s) & 1))
                cap = 0;
            rc = mf_arclist_add(out, range(&s, 0, n - 1), range(&s, 0, n - 1), cap);
        }
        break;
    }
    if (rc)
        mf_arclist_free(out);
    return rc;
}

/* Arc pairs in a plain adjacency structure, residual capacities in int64. */
int64_t reference_max_flow(const mf_arclist *list, uint8_t *source_side)
{
    int32_t n = list->num_vertices, m = list->num_arcs;
    int32_t *start = calloc((size_t)n + 1, sizeof(int32_t));
    int32_t *to = malloc(sizeof(int32_t) * (2 * (size_t)m + 1));
    int64_t *res = malloc(sizeof(int64_t) * (2 * (size_t)m + 1));
    int32_t *pair = malloc(sizeof(int32_t) * (2 * (size_t)m + 1));
    int32_t *fill = malloc(sizeof(int32_t) * ((size_t)n + 1));
    int32_t *parent = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)n);
    for (int32_t i = 0; i < m; i++) {
        start[list->tail[i] + 1]++;
        start[list->head[i] + 1]++;
    }
    for (int32_t v = 0; v < n; v++)
        start[v + 1] += start[v];
    memcpy(fill, start, sizeof(int32_t) * (size_t)n);
    for (int32_t i = 0; i < m; i++) {
        int32_t a = fill[list->tail[i]]++, b = fill[list->head[i]]++;
        to[a] = list->head[i];
        res[a] = list->cap[i];
        to[b] = list->tail[i];
        res[b] = 0;
        pair[a] = b;
        pair[b] = a;
    }
    int64_t total = 0;
    for (;;) {
        for (int32_t v = 0; v < n; v++)
            parent[v] = -1;
        int32_t qh = 0, qt = 0;
        queue[qt++] = list->source;
        parent[list->source] = -2;
        while (qh < qt && parent[list->sink] == -1) {
            int32_t u = queue[qh++];
            for (int32_t a = start[u]; a < start[u + 1]; a++)
                if (res[a] > 0 && parent[to[a]] == -1) {
                    parent[to[a]] = a;
                    queue[qt++] = to[a];
                }
        }
        if (parent[list->sink] == -1)
            break;
        int64_t bottleneck = INT64_MAX;
        for (int32_t v = list->sink; v != list->source; v = to[pair[parent[v]]])
            if (res[parent[v]] < bottleneck)
                bottleneck = res[parent[v]];
        for (int32_t v = list->sink; v != list->source; v = to[pair[parent[v]]]) {
            res[parent[v]] -= bottleneck;
            res[pair[parent[v]]] += bottleneck;
        }
        total += bottleneck;
    }
    if (source_side) {
        /* backward search from the sink: x reaches w if res(x->w) > 0 */
        memset(source_side, 1, (size_t)n);
        int32_t qh = 0, qt = 0;
        queue[qt++] = list->sink;
        source_side[list->sink] = 0;
        while (qh < qt) {
            int32_t w = queue[qh++];
            for (int32_t a = start[w]; a < start[w + 1]; a++) {
                int32_t x = to[a];
                if (source_side[x] && res[pair[a]] > 0) {
                    source_side[x] = 0;
                    queue[qt++] = x;
                }
            }
        }
    }
    free(start); free(to); free(res); free(pair); free(fill); free(parent); free(queue);
    return total;
}

const char *test_data_path(const char *name)
{
    static char buf[4096];
    const char *dir = getenv("FLOWCUT_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : FLOWCUT_TEST_DATA_DIR, name);
    return buf;
}

void check_cpu_solve(const mf_arclist *list, int merge, int phase2, mf_cpu_algorithm algorithm,
                     const char *what)
{
    mf_graph g;
    mf_result r;
    mf_error err = {0};
    mf_build_options bopt = {.merge_antiparallel = merge};
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.phase2 = phase2;
    opt.cpu_algorithm = algorithm;
    uint8_t *ref_side = malloc((size_t)list->num_vertices);
    int64_t ref = reference_max_flow(list, ref_side);
    assert_int_equal(mf_graph_from_arcs(list, &bopt, &g, &err), MF_OK);
    assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
    if (r.flow_value != ref)
        fail_msg("%s: flow %lld, reference %lld", what, (long long)r.flow_value, (long long)ref);
    if (mf_verify(&g, &r, phase2, &err) != MF_OK)
        fail_msg("%s: certificate: %s", what, err.message);
    if (memcmp(r.source_side, ref_side, (size_t)list->num_vertices) != 0)
        fail_msg("%s: cut differs from the reference's canonical cut", what);
    if (phase2) {
        /* flows reported per input arc must conserve too */
        int64_t *net = calloc((size_t)list->num_vertices, sizeof(int64_t));
        for (int32_t i = 0; i < list->num_arcs; i++) {
            int32_t f = mf_input_arc_flow(&g, r.flow, i);
            assert_true(f >= 0 && f <= list->cap[i]);
            net[list->tail[i]] -= f;
            net[list->head[i]] += f;
        }
        for (int32_t v = 0; v < list->num_vertices; v++)
            if (v != list->source && v != list->sink && net[v] != 0)
                fail_msg("%s: input-arc flows do not conserve at %d", what, v);
        assert_int_equal(net[list->sink], ref);
        free(net);
    }
    /* value and cut alone: the same answer, no flows */
    mf_result c;
    opt.cut_only = 1;
    assert_int_equal(mf_solve(&g, &opt, &c, &err), MF_OK);
    assert_null(c.flow);
    assert_true(c.flow_value == ref);
    if (memcmp(c.source_side, ref_side, (size_t)list->num_vertices) != 0)
        fail_msg("%s: cut-only cut differs from the reference's canonical cut", what);
    mf_result_free(&c);
    free(ref_side);
    mf_result_free(&r);
    mf_graph_free(&g);
}

void check_known_instances(mf_cpu_algorithm algorithm, int flow_always)
{
    FILE *f = fopen(test_data_path("EXPECTED.tsv"), "r");
    assert_non_null(f);
    char line[1024];
    int count = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char name[256];
        long long nodes, arcs, s, t, value;
        if (sscanf(line, "%255s %lld %lld %lld %lld %lld", name, &nodes, &arcs, &s, &t, &value) != 6)
            continue;
        mf_arclist list;
        mf_error err = {0};
        if (mf_read_dimacs(test_data_path(name), &list, &err) != MF_OK)
            fail_msg("%s: %s", name, err.message);
        assert_int_equal(list.num_vertices, nodes);
        assert_int_equal(list.num_arcs, arcs);
        assert_int_equal(reference_max_flow(&list, NULL), value);
        for (int merge = 0; merge < 2; merge++)
            for (int phase2 = flow_always; phase2 < 2; phase2++)
                check_cpu_solve(&list, merge, phase2, algorithm, name);
        mf_arclist_free(&list);
        count++;
    }
    fclose(f);
    assert_true(count >= 12);
}

void check_random_graphs(mf_cpu_algorithm algorithm, int flow_always)
{
    int solved = 0;
    for (int family = 0; family < FAMILY_COUNT; family++) {
        for (uint64_t seed = 1; seed <= 60; seed++) {
            int32_t n = 2 + (int32_t)(seed * 37 % (family == FAMILY_DENSE ? 24 : 70));
            mf_arclist list;
            assert_int_equal(random_graph(family, n, seed, &list), MF_OK);
            char what[64];
            snprintf(what, sizeof what, "family %d seed %llu", family, (unsigned long long)seed);
            int phase2 = flow_always ? 1 : (int)((seed >> 1) & 1);
            check_cpu_solve(&list, (int)(seed & 1), phase2, algorithm, what);
            mf_arclist_free(&list);
            solved++;
        }
    }
    assert_true(solved >= 300);
}

void check_value_beyond_32_bits(mf_cpu_algorithm algorithm)
{
    mf_arclist list;
    assert_int_equal(mf_arclist_init(&list, 12, 32), MF_OK);
    list.source = 0;
    list.sink = 11;
    for (int32_t v = 1; v <= 10; v++) {
        assert_int_equal(mf_arclist_add(&list, 0, v, INT32_MAX), MF_OK);
        assert_int_equal(mf_arclist_add(&list, 0, v, INT32_MAX), MF_OK);
        assert_int_equal(mf_arclist_add(&list, v, 11, INT32_MAX), MF_OK);
        if (v > 1)
            assert_int_equal(mf_arclist_add(&list, v - 1, v, INT32_MAX / 2), MF_OK);
    }
    mf_graph g;
    mf_result r;
    mf_error err = {0};
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    mf_options opt;
    mf_options_default(&opt);
    opt.engine = MF_ENGINE_CPU;
    opt.cpu_algorithm = algorithm;
    opt.phase2 = 1;
    assert_int_equal(mf_solve(&g, &opt, &r, &err), MF_OK);
    assert_true(r.flow_value == 10LL * INT32_MAX);
    assert_int_equal(mf_verify(&g, &r, 1, &err), MF_OK);
    mf_result_free(&r);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

/* ------------------------------------------------------------------ */
/* Warm re-solve checks                                                */

enum { BATCH_INCREASE, BATCH_DECREASE, BATCH_MIXED, BATCH_KINDS };

/* New capacity for input arc i of a batch of kind; arcs at the terminals
 * are picked more often by the caller. */
static int32_t new_capacity(uint64_t *s, int kind, int32_t old, int32_t top)
{
    if (kind == BATCH_MIXED)
        kind = (int)(next(s) & 1) ? BATCH_INCREASE : BATCH_DECREASE;
    if (kind == BATCH_INCREASE) {
        int64_t c = (int64_t)old + range(s, 1, top);
        return c > INT32_MAX / 4 ? old : (int32_t)c;
    }
    /* decrease: often to 0 (below any flow it carried) */
    return (next(s) % 3) == 0 ? 0 : range(s, 0, old);
}

/* Picks an input arc, at a terminal with probability 1/2 when one exists. */
static int32_t pick_arc(uint64_t *s, const mf_arclist *list)
{
    for (int tries = 0; tries < 8 && (next(s) & 1); tries++) {
        int32_t i = range(s, 0, list->num_arcs - 1);
        if (list->tail[i] == list->source || list->head[i] == list->sink ||
            list->head[i] == list->source || list->tail[i] == list->sink)
            return i;
    }
    return range(s, 0, list->num_arcs - 1);
}

static void compare_to_reference(const mf_dynamic *d, const mf_arclist *list, const mf_result *r,
                                 int phase2, const char *what, int batch)
{
    mf_error err = {0};
    const mf_graph *g = mf_dynamic_graph(d);
    uint8_t *side = calloc((size_t)list->num_vertices, 1);
    assert_non_null(side);
    int64_t want = reference_max_flow(list, side);
    if (r->flow_value != want)
        fail_msg("%s batch %d: warm value %lld, Edmonds-Karp %lld", what, batch,
                 (long long)r->flow_value, (long long)want);
    if (memcmp(side, r->source_side, (size_t)list->num_vertices) != 0)
        fail_msg("%s batch %d: warm cut differs from Edmonds-Karp's", what, batch);
    if (r->flow && mf_verify(g, r, phase2, &err) != MF_OK)
        fail_msg("%s batch %d: certificate: %s", what, batch, err.message);
    free(side);
}

void check_dynamic_random(mf_engine engine)
{
    static const int32_t sizes[] = {6, 20, 60};
    int solves = 0, warm = 0, with_deficits = 0;
    for (int family = 0; family < FAMILY_COUNT; family++)
        for (int si = 0; si < 3; si++)
            for (uint64_t seed = 1; seed <= 4; seed++) {
                mf_arclist list;
                mf_graph g;
                mf_error err = {0};
                char what[128];
                assert_int_equal(random_graph(family, sizes[si], seed, &list), MF_OK);
                if (list.num_arcs == 0) {
                    mf_arclist_free(&list);
                    continue;
                }
                int merge = (int)(seed & 1), phase2 = (int)((seed >> 1) & 1);
                mf_build_options bo = {.merge_antiparallel = merge};
                assert_int_equal(mf_graph_from_arcs(&list, &bo, &g, &err), MF_OK);
                mf_options opt;
                mf_options_default(&opt);
                opt.engine = engine;
                opt.phase2 = phase2;
                opt.cut_only = 0;
                mf_dynamic *d = NULL;
                if (mf_dynamic_create(&g, &opt, &d, &err) != MF_OK)
                    fail_msg("dynamic create: %s", err.message);
                mf_graph_free(&g);
                snprintf(what, sizeof what, "family %d n %d seed %d merge %d phase2 %d", family,
                         sizes[si], (int)seed, merge, phase2);
                mf_result r;
                if (mf_dynamic_solve(d, &r, &err) != MF_OK)
                    fail_msg("%s: first solve: %s", what, err.message);
                compare_to_reference(d, &list, &r, phase2, what, 0);
                mf_result_free(&r);
                uint64_t s = seed * 104729 + (uint64_t)family * 31 + (uint64_t)si;
                int32_t top = 40;
                for (int batch = 1; batch <= 9; batch++) {
                    int kind = (batch - 1) % BATCH_KINDS;
                    /* every fourth batch solved cold whatever it changes (the
                     * pending changes written straight into the network, on
                     * the GPU only the capacities uploaded again), the next
                     * one repaired warm from that state */
                    mf_dynamic_set_cold_fraction(d, batch % 4 == 0 ? 0 : 0.5);
                    /* 1% to 30% of the arcs, at least one */
                    int32_t count = 1 + (int32_t)(next(&s) % (uint64_t)(1 + list.num_arcs * (1 + batch % 3 * 14) / 100));
                    for (int32_t k = 0; k < count; k++) {
                        int32_t i = pick_arc(&s, &list);
                        /* huge capacities only shrink: merged pairs keep cap + rcap in range */
                        int32_t c = new_capacity(&s, family == FAMILY_HUGE_CAPS ? BATCH_DECREASE : kind,
                                                 list.cap[i], top);
                        list.cap[i] = c;
                        if (mf_dynamic_set_input_arc(d, i, c, &err) != MF_OK)
                            fail_msg("%s: set arc %d: %s", what, i, err.message);
                    }
                    if (mf_dynamic_solve(d, &r, &err) != MF_OK)
                        fail_msg("%s batch %d: %s", what, batch, err.message);
                    compare_to_reference(d, &list, &r, phase2, what, batch);
                    solves++;
                    warm += r.stats.warm;
                    with_deficits += r.stats.deficits > 0;
                    mf_result_free(&r);
                }
                mf_dynamic_destroy(d);
                mf_arclist_free(&list);
            }
    /* the cold fallback must not have swallowed the test, and decreases
     * below the flow must have left deficits to repair */
    if (!(warm * 2 > solves && with_deficits * 10 > solves))
        fail_msg("%d solves, %d warm, %d with deficits", solves, warm, with_deficits);
    printf("dynamic: %d batches, %d warm, %d repaired deficits\n", solves, warm, with_deficits);
}

void check_dynamic_generators(mf_engine engine)
{
    /* the first, cold solve by each CPU algorithm in turn (BK's and IBFS's
     * flows then seed push-relabel's state) */
    static const mf_cpu_algorithm algorithms[] = {MF_CPU_PUSH_RELABEL, MF_CPU_BK, MF_CPU_IBFS, MF_CPU_AUTO};
    for (int family = 0; family < 4; family++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            mf_arclist list;
            mf_graph g;
            mf_error err = {0};
            int rc = family == 0   ? mf_gen_grid(40, 30, seed == 2 ? 8 : 4, seed, &list)
                     : family == 1 ? mf_gen_genrmf(6, 5, 1, 100, seed, &list)
                     : family == 2 ? mf_gen_washington_rlg(16, 16, 1000, seed, &list)
                                   : mf_gen_rmat(9, 8, 4, 1000, seed, &list);
            assert_int_equal(rc, MF_OK);
            assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
            mf_options opt;
            mf_options_default(&opt);
            opt.engine = engine;
            opt.cpu_algorithm = algorithms[(family * 3 + (int)seed) % 4];
            opt.cut_only = seed == 3; /* the segmentation mode too */
            mf_dynamic *d = NULL;
            if (mf_dynamic_create(&g, &opt, &d, &err) != MF_OK)
                fail_msg("dynamic create: %s", err.message);
            mf_dynamic_set_cold_fraction(d, 2.0); /* every batch warm: the repair is under test */
            uint64_t s = seed * 7 + (uint64_t)family;
            for (int batch = 0; batch <= 6; batch++) {
                if (batch > 0) {
                    /* stored arcs, both directions, terminals more often */
                    int32_t count = 1 + (int32_t)(next(&s) % (uint64_t)(g.num_arcs / 20 + 1));
                    const mf_graph *cur = mf_dynamic_graph(d);
                    for (int32_t k = 0; k < count; k++) {
                        int32_t a;
                        if (next(&s) & 1) {
                            int32_t lo = cur->out_start[cur->source], hi = cur->out_start[cur->source + 1];
                            a = hi > lo ? range(&s, lo, hi - 1) : range(&s, 0, g.num_arcs - 1);
                        } else {
                            a = range(&s, 0, g.num_arcs - 1);
                        }
                        int kind = batch % BATCH_KINDS;
                        int32_t c = new_capacity(&s, kind, cur->arc_cap[a], 500);
                        int32_t rc2 = cur->arc_rcap[a] ? new_capacity(&s, kind, cur->arc_rcap[a], 500) : 0;
                        assert_int_equal(mf_dynamic_set_arc(d, a, c, rc2, &err), MF_OK);
                    }
                }
                mf_result warm_r, cold_r;
                if (mf_dynamic_solve(d, &warm_r, &err) != MF_OK)
                    fail_msg("generator %d seed %d batch %d: %s", family, (int)seed, batch, err.message);
                mf_options copt;
                mf_options_default(&copt);
                copt.engine = MF_ENGINE_CPU;
                assert_int_equal(mf_solve_cpu(mf_dynamic_graph(d), &copt, &cold_r, &err), MF_OK);
                if (warm_r.flow_value != cold_r.flow_value)
                    fail_msg("generator %d seed %d batch %d: warm %lld, cold %lld", family, (int)seed, batch,
                             (long long)warm_r.flow_value, (long long)cold_r.flow_value);
                if (memcmp(warm_r.source_side, cold_r.source_side, (size_t)g.num_vertices) != 0)
                    fail_msg("generator %d seed %d batch %d: warm cut differs", family, (int)seed, batch);
                if (warm_r.flow && mf_verify(mf_dynamic_graph(d), &warm_r, 0, &err) != MF_OK)
                    fail_msg("generator %d seed %d batch %d: certificate: %s", family, (int)seed, batch,
                             err.message);
                if (batch > 0 && !warm_r.stats.warm)
                    fail_msg("generator %d seed %d batch %d: solved cold", family, (int)seed, batch);
                mf_result_free(&warm_r);
                mf_result_free(&cold_r);
            }
            mf_dynamic_destroy(d);
            mf_graph_free(&g);
            mf_arclist_free(&list);
        }
}

/* Terminal capacity of pixel v after pre-cancellation: positive toward the
 * source, negative toward the sink, whichever way the arc is stored. */
int64_t graph_terminal_term(const mf_graph *g, int32_t v)
{
    int64_t term = 0;
    for (int32_t u = 0; u < g->num_vertices; u++)
        for (int32_t a = g->out_start[u]; a < g->out_start[u + 1]; a++) {
            int32_t w = g->arc_head[a];
            if (u == g->source && w == v)
                term += g->arc_cap[a];
            else if (u == v && w == g->source)
                term += g->arc_rcap[a];
            else if (u == v && w == g->sink)
                term -= g->arc_cap[a];
            else if (u == g->sink && w == v)
                term -= g->arc_rcap[a];
        }
    return term;
}
