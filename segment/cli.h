/* Shared pieces of the flowcut command line: display levels, atomic output
 * files, JSON strings, option value parsing. */
#ifndef FLOWCUT_CLI_H
#define FLOWCUT_CLI_H

#include "flowcut/maxflow.h"

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

/* An output written under a temporary name in the same folder and renamed
 * into place on commit, so a failure never leaves a partial file. */
typedef struct out_file {
    FILE *f;
    char path[4096];
    char tmp[4096];
} out_file;

/* Fails (returns -1 and fills msg) when path exists and !force. */
int out_open(out_file *o, const char *path, int force, char *msg, size_t msg_size);
int out_commit(out_file *o, char *msg, size_t msg_size);
void out_abort(out_file *o);
/* Removes every temporary file still open (signal-safe enough for exit). */
void out_abort_all(void);

void json_string(FILE *f, const char *s);

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
