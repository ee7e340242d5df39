/* DIMACS reader: every malformed case names its line; tolerated quirks. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/maxflow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bad_case {
    const char *text;
    int64_t line;
    const char *message_part;
} bad_case;

static const bad_case bad_cases[] = {
    {"a 1 2 3\n", 1, "before the problem line"},
    {"c only comments\n", 1, "missing problem line"},
    {"p max 3 1\np max 3 1\n", 2, "duplicate problem line"},
    {"p min 3 1\n", 1, "p max NODES ARCS"},
    {"p max 3\n", 1, "missing field: arc count"},
    {"p max x 1\n", 1, "not a number"},
    {"p max 3 1 9\n", 1, "extra field"},
    {"p max 1 0\n", 1, "node count"},
    {"p max 3 1\nn 1 s\na 1 3 5\n", 3, "missing sink"},
    {"p max 3 1\nn 3 t\na 1 3 5\n", 3, "missing source"},
    {"p max 3 1\nn 1 s\nn 1 t\na 1 3 5\n", 3, "same node"},
    {"p max 3 1\nn 1 s\nn 1 s\n", 3, "duplicate source"},
    {"p max 3 1\nn 1 s\nn 3 t\nn 2 t\n", 4, "duplicate sink"},
    {"p max 3 1\nn 1 x\n", 2, "neither s nor t"},
    {"p max 3 1\nn 4 s\n", 2, "out of range"},
    {"p max 3 1\nn 1 s\nn 3 t\na 1 4 5\n", 4, "out of range"},
    {"p max 3 1\nn 1 s\nn 3 t\na 0 2 5\n", 4, "out of range"},
    {"p max 3 1\nn 1 s\nn 3 t\na 1 2 -5\n", 4, "negative capacity"},
    {"p max 3 1\nn 1 s\nn 3 t\na 1 2 2147483648\n", 4, "exceeds"},
    {"p max 3 1\nn 1 s\nn 3 t\na 1 2 5\na 2 3 5\n", 5, "more arcs"},
    {"p max 3 2\nn 1 s\nn 3 t\na 1 2 5\n", 4, "fewer arcs"},
    {"p max 3 1\nn 1 s\nn 3 t\na 1 2\n", 4, "missing field: arc capacity"},
    {"p max 3 1\nn 1 s\nn 3 t\na 1 2 5x\n", 4, "not a number"},
    {"p max 3 1\nn 1 s\nn 3 t\na 1 2 5 7\n", 4, "extra field"},
    {"p max 3 1\nn 1 s\nn 3 t\nx 1 2 5\n", 4, "unknown line type"},
    {"p max 3 1\nn 1 s\nn 3 t\na 1 2 99999999999999999999999\n", 4, "too large"},
};

static void test_malformed_inputs_name_their_line(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        mf_arclist list;
        mf_error err = {0};
        int rc = mf_parse_dimacs(bad_cases[i].text, strlen(bad_cases[i].text), "bad.max", &list, &err);
        if (rc != MF_ERR_PARSE || err.line != bad_cases[i].line ||
            !strstr(err.message, bad_cases[i].message_part))
            fail_msg("case %zu: rc %d line %lld message '%s' (want line %lld, '%s')", i, rc,
                     (long long)err.line, err.message, (long long)bad_cases[i].line,
                     bad_cases[i].message_part);
        char buf[512];
        mf_error_format(&err, buf, sizeof buf);
        char want[64];
        snprintf(want, sizeof want, "bad.max:%lld: ", (long long)bad_cases[i].line);
        assert_true(strncmp(buf, want, strlen(want)) == 0);
    }
}

static void test_tolerates_crlf_spaces_and_no_final_newline(void **state)
{
    (void)state;
    const char *text = "c comment\r\n\r\n  p   max  4\t3 \r\nn 1 s\r\nn  4 t\r\n"
                       "a 1 2 5\r\n\ta 2 4 3  \r\na 1 4 +2";
    mf_arclist list;
    mf_error err = {0};
    assert_int_equal(mf_parse_dimacs(text, strlen(text), "ok.max", &list, &err), MF_OK);
    assert_int_equal(list.num_vertices, 4);
    assert_int_equal(list.num_arcs, 3);
    assert_int_equal(list.source, 0);
    assert_int_equal(list.sink, 3);
    assert_int_equal(list.cap[2], 2);
    mf_graph g;
    mf_result r;
    assert_int_equal(mf_graph_from_arcs(&list, NULL, &g, &err), MF_OK);
    assert_int_equal(mf_solve_cpu(&g, NULL, &r, &err), MF_OK);
    assert_int_equal(r.flow_value, 5);
    mf_result_free(&r);
    mf_graph_free(&g);
    mf_arclist_free(&list);
}

static void test_write_then_read_round_trip(void **state)
{
    (void)state;
    mf_arclist a, b;
    mf_error err = {0};
    assert_int_equal(mf_gen_genrmf(4, 3, 1, 100, 7, &a), MF_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(mf_write_dimacs(f, &a, "two\nlines"), MF_OK);
    fclose(f);
    assert_int_equal(mf_parse_dimacs(buf, len, "mem", &b, &err), MF_OK);
    assert_int_equal(a.num_arcs, b.num_arcs);
    assert_int_equal(a.source, b.source);
    assert_int_equal(a.sink, b.sink);
    assert_memory_equal(a.tail, b.tail, sizeof(int32_t) * (size_t)a.num_arcs);
    assert_memory_equal(a.head, b.head, sizeof(int32_t) * (size_t)a.num_arcs);
    assert_memory_equal(a.cap, b.cap, sizeof(int32_t) * (size_t)a.num_arcs);
    free(buf);
    mf_arclist_free(&a);
    mf_arclist_free(&b);
}

static void test_missing_file_is_io_error(void **state)
{
    (void)state;
    mf_arclist list;
    mf_error err = {0};
    assert_int_equal(mf_read_dimacs("/nonexistent/x.max", &list, &err), MF_ERR_IO);
    assert_string_equal(err.file, "/nonexistent/x.max");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed_inputs_name_their_line),
        cmocka_unit_test(test_tolerates_crlf_spaces_and_no_final_newline),
        cmocka_unit_test(test_write_then_read_round_trip),
        cmocka_unit_test(test_missing_file_is_io_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
