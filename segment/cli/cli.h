/* Shared pieces of the flowcut command line: display levels, the clock,
 * JSON strings, option value parsing. Files are saved through save.h. */
#ifndef FLOWCUT_CLI_H
#define FLOWCUT_CLI_H

#include "flowcut/maxflow.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

/* 0: silent, 1: errors, 2: notices (default), 3: verbose */
extern int g_display_level;
#define DISPLAY(...) fprintf(stderr, __VA_ARGS__)
#define DISPLAYLEVEL(level, ...)            \
    do {                                    \
        if (g_display_level >= (level))     \
            DISPLAY(__VA_ARGS__);           \
    } while (0)

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Seconds on the monotonic clock (the CLI's timings). */
double cli_now(void);

/* s as a JSON string, quotes included. */
void json_string(FILE *f, const char *s);
/* s escaped for inside a JSON string (no quotes) into dst, cut at a whole
 * escape to fit size; the length written. The same rule as json_string:
 * a front end writing JSON into a buffer uses this one. */
size_t cli_json_escape(char *dst, size_t size, const char *src);

/* ---- command-line errors: one line each, naming what is wrong, a near
 * name when there is one and where the help is; never the whole help text,
 * which would bury the line that matters. cmd is "flowcut segment". */

/* Levenshtein distance between a and b, a swap of two neighbours counting
 * as one edit (optimal string alignment). */
int cli_edit_distance(const char *a, const char *b);
/* The name of names[0..n) nearest to s, at distance 2 or less, else NULL. */
const char *cli_nearest(const char *s, const char *const *names, size_t n);
/* Prints "CMD: MESSAGE (see `CMD --help`)". */
void cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The report of what getopt_long returned as c after the last option it
 * took ('?': unknown option, ':': missing value, when shortopts begins with
 * ':'); longopts' names are the candidates of "did you mean". */
void cli_option_error(const char *cmd, const struct option *longopts, char **argv, int c);
/* Checks an output file name before any work: not a folder (an existing
 * one, or a name ending in '/'), and with png set, ending in .png in any
 * case, since every image flowcut writes is a PNG. option ("-o") and
 * example ("mask.png") shape the message. Returns 0, or prints and
 * returns -1. */
int cli_check_output_name(const char *cmd, const char *option, const char *path, const char *example, int png);
/* Appends " word" to buf (NUL-terminated, size bytes), single-quoted where
 * a shell would split or expand it (an empty word as ''): a command line a
 * user can paste. -1, buf unchanged, when it does not fit. */
int cli_shell_word(char *buf, size_t size, const char *word);
/* Usage error (message, -1) when two outputs name one file, or an output
 * names an input: the later write would replace the earlier output, or the
 * photo itself. NULL entries are skipped; out_opts are the options' names. */
int cli_check_distinct(const char *cmd, const char *const *outs, const char *const *out_opts, int nout,
                       const char *const *ins, int nin);

/* Parses a whole decimal integer in [lo, hi]; returns 0 on success. */
int parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
int parse_double(const char *s, double lo, double hi, double *out);

int cmd_maxflow(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_segment(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_ui(int argc, char **argv);

#endif
