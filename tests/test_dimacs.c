/* DIMACS reader: every malformed case names its line; tolerated quirks. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "test_support.h"
#include "flowcut/maxflow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Inputs of 16 MiB and more are parsed on every core (a chunk of lines a
 * thread); they must give the serial parser's list, and its errors with
 * their line numbers, wherever in the file the fault lies. */
enum { BIG_ARCS = 1000000, BIG_NODES = 300000, BIG_HEADER = 4 };

static int32_t big_value(int64_t i, int which)
{
    uint64_t x = (uint64_t)i * 2654435761u + (uint64_t)which * 40503u;
    return which == 2 ? (int32_t)(x % 100000) : (int32_t)(x % BIG_NODES) + 1;
}

/* The text, with line `bad_line` (1-based, 0: none) replaced by `bad` and
 * the problem line declaring `declared` arcs. */
static char *big_text(int64_t bad_line, const char *bad, int64_t declared, const char *eol, size_t *len)
{
    size_t cap = (size_t)BIG_ARCS * 32 + 1024, n = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    char header[BIG_HEADER][64] = {"c big", "", "n 1 s", "n 2 t"};
    snprintf(header[1], sizeof header[1], "p max %d %lld", BIG_NODES, (long long)declared);
    for (int64_t h = 0; h < BIG_HEADER; h++)
        n += (size_t)snprintf(t + n, cap - n, "%s%s", h + 1 == bad_line ? bad : header[h], eol);
    for (int64_t i = 0; i < BIG_ARCS; i++) {
        if (BIG_HEADER + 1 + i == bad_line)
            n += (size_t)snprintf(t + n, cap - n, "%s%s", bad, eol);
        else
            n += (size_t)snprintf(t + n, cap - n, "a %d  %d\t%d%s", big_value(i, 0), big_value(i, 1),
                                  big_value(i, 2), eol);
    }
    *len = n;
    return t;
}

static void test_large_inputs_parse_in_parallel(void **state)
{
    (void)state;
    size_t len;
    mf_arclist list;
    mf_error err = {0};
    for (int crlf = 0; crlf < 2; crlf++) {
        char *t = big_text(0, NULL, BIG_ARCS, crlf ? "\r\n" : "\n", &len);
        assert_true(len >= (16u << 20));
        assert_int_equal(mf_parse_dimacs(t, len, "big.max", &list, &err), MF_OK);
        assert_int_equal(list.num_arcs, BIG_ARCS);
        assert_int_equal(list.source, 0);
        assert_int_equal(list.sink, 1);
        for (int64_t i = 0; i < BIG_ARCS; i++)
            if (list.tail[i] != big_value(i, 0) - 1 || list.head[i] != big_value(i, 1) - 1 ||
                list.cap[i] != big_value(i, 2))
                fail_msg("arc %lld differs", (long long)i);
        mf_arclist_free(&list);
        free(t);
    }
    /* the thread count a caller gives (1: the serial parser; 3) parses alike */
    {
        char *t = big_text(0, NULL, BIG_ARCS, "\n", &len);
        mf_arclist all;
        assert_int_equal(mf_parse_dimacs(t, len, "big.max", &all, &err), MF_OK);
        for (int threads = 1; threads <= 3; threads += 2) {
            mf_dimacs_limits lim;
            mf_dimacs_limits_default(&lim);
            assert_int_equal(lim.threads, 0);
            lim.threads = threads;
            assert_int_equal(mf_parse_dimacs_limited(t, len, "big.max", &lim, &list, &err), MF_OK);
            assert_int_equal(list.num_arcs, all.num_arcs);
            assert_memory_equal(list.tail, all.tail, sizeof(int32_t) * (size_t)all.num_arcs);
            assert_memory_equal(list.head, all.head, sizeof(int32_t) * (size_t)all.num_arcs);
            assert_memory_equal(list.cap, all.cap, sizeof(int32_t) * (size_t)all.num_arcs);
            mf_arclist_free(&list);
        }
        mf_arclist_free(&all);
        free(t);
    }
    /* forms only the serial parser takes: the same list */
    const int64_t mid = BIG_HEADER + 1 + BIG_ARCS / 2;
    const char *quirks[] = {"a +7 9 +11", "a7 9 11"};
    for (int q = 0; q < 2; q++) {
        char *t = big_text(mid, quirks[q], BIG_ARCS, "\n", &len);
        assert_int_equal(mf_parse_dimacs(t, len, "big.max", &list, &err), MF_OK);
        const int64_t i = mid - BIG_HEADER - 1;
        assert_int_equal(list.tail[i], 6);
        assert_int_equal(list.head[i], 8);
        assert_int_equal(list.cap[i], 11);
        assert_int_equal(list.tail[i + 1], big_value(i + 1, 0) - 1);
        mf_arclist_free(&list);
        free(t);
    }
    /* faults anywhere: the serial parser's message and line */
    const struct {
        int64_t line;
        const char *text;
        int64_t declared;
        int64_t want_line;
        const char *message_part;
    } faults[] = {
        {mid, "a 1 2 -5", BIG_ARCS, mid, "negative capacity"},
        {mid + 7, "a 1 300001 5", BIG_ARCS, mid + 7, "out of range"},
        {BIG_HEADER + 2, "a 1 2 2147483648", BIG_ARCS, BIG_HEADER + 2, "exceeds"},
        {mid, "x 1 2 5", BIG_ARCS, mid, "unknown line type"},
        {mid, "n 3 s", BIG_ARCS, mid, "duplicate source"},
        {BIG_HEADER + BIG_ARCS, "a 1 2 5 7", BIG_ARCS, BIG_HEADER + BIG_ARCS, "extra field"},
        {0, NULL, BIG_ARCS - 1, BIG_HEADER + BIG_ARCS, "more arcs"},
        {BIG_HEADER, "c the sink line moved", BIG_ARCS, BIG_HEADER + BIG_ARCS, "missing sink"},
        {3, "n 1 x", BIG_ARCS, 3, "neither s nor t"},
        {0, NULL, BIG_ARCS + 1, BIG_HEADER + BIG_ARCS, "fewer arcs"},
    };
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++) {
        char *t = big_text(faults[f].line, faults[f].text, faults[f].declared, "\n", &len);
        memset(&err, 0, sizeof err);
        int rc = mf_parse_dimacs(t, len, "big.max", &list, &err);
        if (rc != MF_ERR_PARSE || err.line != faults[f].want_line || !strstr(err.message, faults[f].message_part))
            fail_msg("fault %zu: rc %d line %lld message '%s' (want line %lld, '%s')", f, rc, (long long)err.line,
                     err.message, (long long)faults[f].want_line, faults[f].message_part);
        free(t);
    }
}


/* Limits from the problem line, before anything is allocated: a 40-byte
 * file declaring two billion vertices is refused, naming the limit. */
static void test_declared_sizes_over_the_limits_are_refused(void **state)
{
    (void)state;
    const struct {
        const char *text;
        int rc;
        const char *message_part;
    } cases[] = {
        {"p max 2147483646 1\nn 1 s\nn 2 t\na 1 2 5\n", MF_ERR_TOO_LARGE, "limit of 134217728 vertices"},
        {"p max 134217729 1\nn 1 s\nn 2 t\na 1 2 5\n", MF_ERR_TOO_LARGE, "limit of 134217728 vertices"},
        {"p max 4 536870913\nn 1 s\nn 2 t\na 1 2 5\n", MF_ERR_TOO_LARGE, "limit of 536870912 arcs"},
        {"p max 2147483648 1\n", MF_ERR_PARSE, "out of range"},
        {"p max 4 1073741824\n", MF_ERR_PARSE, "out of range"},
        {"p max 4 -1\n", MF_ERR_PARSE, "out of range"},
        {"p max -4 1\n", MF_ERR_PARSE, "out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mf_arclist list;
        mf_error err = {0};
        int rc = mf_parse_dimacs(cases[i].text, strlen(cases[i].text), "big.max", &list, &err);
        if (rc != cases[i].rc || err.line != 1 || !strstr(err.message, cases[i].message_part))
            fail_msg("case %zu: rc %d line %lld '%s' (want rc %d, '%s')", i, rc, (long long)err.line, err.message,
                     cases[i].rc, cases[i].message_part);
    }
    /* the caller's limits, either way */
    mf_dimacs_limits lim;
    mf_dimacs_limits_default(&lim);
    assert_int_equal(lim.max_vertices, MF_DIMACS_MAX_VERTICES_DEFAULT);
    assert_int_equal(lim.max_arcs, MF_DIMACS_MAX_ARCS_DEFAULT);
    lim.max_vertices = 3;
    lim.max_arcs = 2;
    const char *ok = "p max 3 2\nn 1 s\nn 3 t\na 1 2 5\na 2 3 4\n";
    mf_arclist list;
    mf_error err = {0};
    assert_int_equal(mf_parse_dimacs_limited(ok, strlen(ok), "ok.max", &lim, &list, &err), MF_OK);
    mf_arclist_free(&list);
    lim.max_arcs = 1;
    assert_int_equal(mf_parse_dimacs_limited(ok, strlen(ok), "ok.max", &lim, &list, &err), MF_ERR_TOO_LARGE);
    assert_non_null(strstr(err.message, "arc count 2 over the limit of 1 arcs"));
    lim.max_arcs = 2;
    lim.max_vertices = 2;
    assert_int_equal(mf_parse_dimacs_limited(ok, strlen(ok), "ok.max", &lim, &list, &err), MF_ERR_TOO_LARGE);
    assert_non_null(strstr(err.message, "node count 3 over the limit of 2 vertices"));
    /* raised past the default: the representation still bounds it */
    const char *big = "p max 200000000 1\nn 1 s\nn 2 t\na 1 2 5\n";
    lim.max_vertices = INT32_MAX;
    assert_int_equal(mf_parse_dimacs_limited(big, strlen(big), "ok.max", &lim, &list, &err), MF_OK);
    assert_int_equal(list.num_vertices, 200000000);
    mf_arclist_free(&list);
}

/* Binary data is not read on as if it were lines: a NUL byte anywhere, or
 * a first line that is no DIMACS line, names the input as not DIMACS. */
static void test_binary_input_is_refused_at_once(void **state)
{
    (void)state;
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    static const char nul_comment[] = "c ab\0cd\np max 3 1\nn 1 s\nn 3 t\na 1 2 5\n";
    static const char nul_word[] = "p max 3 1\nn 1 s\0\nn 3 t\na 1 2 5\n";
    static const char nul_problem[] = "p max\0 3 1\nn 1 s\nn 3 t\na 1 2 5\n";
    static const char nul_arc[] = "p max 3 1\nn 1 s\nn 3 t\na 1 2 5\0\n";
    static const char nul_line[] = "p max 3 1\n\0\nn 1 s\nn 3 t\na 1 2 5\n";
    static const char ctrl_first[] = "c x\n\x01\x02\x03";
    const struct {
        const char *text;
        size_t len;
        int64_t line;
        const char *message;
    } cases[] = {
        {png, sizeof png - 1, 0, "not a DIMACS max-flow file (binary data at byte 0)"},
        {nul_comment, sizeof nul_comment - 1, 0, "not a DIMACS max-flow file (binary data at byte 4)"},
        {nul_word, sizeof nul_word - 1, 0, "not a DIMACS max-flow file (binary data at byte 15)"},
        {nul_problem, sizeof nul_problem - 1, 0, "not a DIMACS max-flow file (binary data at byte 5)"},
        {nul_arc, sizeof nul_arc - 1, 0, "not a DIMACS max-flow file (binary data at byte 29)"},
        {nul_line, sizeof nul_line - 1, 0, "not a DIMACS max-flow file (binary data at byte 10)"},
        {ctrl_first, sizeof ctrl_first - 1, 0, "not a DIMACS max-flow file (binary data at byte 4)"},
        {"hello world\n", 12, 1, "not a DIMACS max-flow file (line 1 starts with 'h')"},
        {"c x\n\n  print(1)\n", 16, 3, "not a DIMACS max-flow file (line 3 starts with 'p')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mf_arclist list;
        mf_error err = {0};
        int rc = mf_parse_dimacs(cases[i].text, cases[i].len, "x.max", &list, &err);
        if (rc != MF_ERR_PARSE || err.line != cases[i].line || strcmp(err.message, cases[i].message) != 0)
            fail_msg("case %zu: rc %d line %lld '%s' (want line %lld '%s')", i, rc, (long long)err.line,
                     err.message, (long long)cases[i].line, cases[i].message);
    }
}

/* Standard input, pipes and devices are parsed as a stream, a block at a
 * time: the same list as the whole text gives, and no more memory than
 * the lines allow. */
static void read_via_stdin(const char *path, mf_arclist *out, mf_error *err, int want)
{
    assert_non_null(freopen(path, "rb", stdin));
    assert_int_equal(mf_read_dimacs("-", out, err), want);
}

static void test_streamed_input_parses_as_the_whole_text(void **state)
{
    (void)state;
    const char *files[] = {"max_flow.dat", "max_flow3.dat", "max_flow7.dat", "gl1.max", "wlm3.max"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        mf_arclist a, b;
        mf_error err = {0};
        assert_int_equal(mf_read_dimacs(test_data_path(files[i]), &a, &err), MF_OK);
        read_via_stdin(test_data_path(files[i]), &b, &err, MF_OK);
        assert_int_equal(a.num_vertices, b.num_vertices);
        assert_int_equal(a.num_arcs, b.num_arcs);
        assert_int_equal(a.source, b.source);
        assert_int_equal(a.sink, b.sink);
        assert_memory_equal(a.tail, b.tail, sizeof(int32_t) * (size_t)a.num_arcs);
        assert_memory_equal(a.head, b.head, sizeof(int32_t) * (size_t)a.num_arcs);
        assert_memory_equal(a.cap, b.cap, sizeof(int32_t) * (size_t)a.num_arcs);
        mf_arclist_free(&a);
        mf_arclist_free(&b);
    }
    /* lines across block ends, a comment longer than any block, errors with
     * their line: written to a file, read as a stream */
    char path[] = "/tmp/flowcut-test-dimacs-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f, "c ");
    for (int k = 0; k < 3 << 20; k++)
        fputc('x', f);
    fprintf(f, "\np max 1000 300000\nn 1 s\nn 1000 t\n");
    for (int64_t i = 0; i < 300000; i++)
        fprintf(f, "a %d %d %d\n", big_value(i, 0) % 1000 + 1, big_value(i, 1) % 1000 + 1, big_value(i, 2));
    fclose(f);
    mf_arclist list;
    mf_error err = {0};
    read_via_stdin(path, &list, &err, MF_OK);
    assert_int_equal(list.num_arcs, 300000);
    for (int64_t i = 0; i < 300000; i++)
        if (list.tail[i] != big_value(i, 0) % 1000 || list.head[i] != big_value(i, 1) % 1000 ||
            list.cap[i] != big_value(i, 2))
            fail_msg("streamed arc %lld differs", (long long)i);
    mf_arclist_free(&list);
    /* an arc line too many: refused at its line, not read on */
    f = fopen(path, "a");
    assert_non_null(f);
    fprintf(f, "a 1 2 3\n");
    fclose(f);
    read_via_stdin(path, &list, &err, MF_ERR_PARSE);
    assert_int_equal(err.line, 300005);
    assert_non_null(strstr(err.message, "more arcs"));
    /* a data line longer than a block */
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "p max 3 1\nn 1 s\nn 3 t\na 1 2 ");
    for (int k = 0; k < 3 << 20; k++)
        fputc('0', f);
    fprintf(f, "5\n");
    fclose(f);
    read_via_stdin(path, &list, &err, MF_ERR_PARSE);
    assert_int_equal(err.line, 4);
    assert_non_null(strstr(err.message, "line longer than"));
    unlink(path);
    freopen("/dev/null", "rb", stdin);
}

/* A device of endless zeros: refused at the first block. */
static void test_endless_binary_stream_is_refused(void **state)
{
    (void)state;
    mf_arclist list;
    mf_error err = {0};
    assert_int_equal(mf_read_dimacs("/dev/zero", &list, &err), MF_ERR_PARSE);
    assert_string_equal(err.message, "not a DIMACS max-flow file (binary data at byte 0)");
    assert_string_equal(err.file, "/dev/zero");
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
        cmocka_unit_test(test_large_inputs_parse_in_parallel),
        cmocka_unit_test(test_missing_file_is_io_error),
        cmocka_unit_test(test_declared_sizes_over_the_limits_are_refused),
        cmocka_unit_test(test_binary_input_is_refused_at_once),
        cmocka_unit_test(test_streamed_input_parses_as_the_whole_text),
        cmocka_unit_test(test_endless_binary_stream_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
