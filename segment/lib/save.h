#ifndef FLOWCUT_SEG_SAVE_H
#define FLOWCUT_SEG_SAVE_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

/* The one way flowcut saves a file, for the library (seg_session_save)
 * and every front end (the CLI's outputs through seg_output.h): atomically
 * and durably. Internal to the segmentation library and its front ends; not
 * installed.
 *
 * A file is written under a hidden temporary name beside its final one,
 * ".NAME.tmp-XXXXXX" (6 letters or digits), created with mode 0666 less the
 * umask, held under an exclusive flock while it is written, fsynced, renamed
 * into place and its folder fsynced. So a final name only ever holds a
 * complete file, also after a crash or a power loss, and a temporary file
 * that nobody holds locked is a dead writer's leftover
 * (seg_remove_stale_temps). Messages are one line: "PATH: what: why".
 *
 * A save that overwrite 0 refuses because the file exists returns
 * SEG_SAVE_EXISTS with msg "PATH: already exists": a front end adds how its
 * users allow overwriting (the CLI: -f), which the library cannot know. */
enum { SEG_SAVE_EXISTS = -2 };

/* Saves size bytes as path. overwrite 0: fails when path exists. Returns 0,
 * or -1 (SEG_SAVE_EXISTS) with msg filled; nothing is left under either
 * name on failure.
 * data NULL fails as out of memory: glibc's fclose of an open_memstream
 * stream returns 0 and leaves the buffer NULL when its last realloc fails. */
int seg_save_file(const char *path, const void *data, size_t size, int overwrite, char *msg, size_t msg_size);

/* Saves n files all or none: each is written and synced under its
 * temporary name, and only once all of them are complete are they renamed
 * into place. A rename that still fails (the temporary files lie beside
 * their final names, so only a race can make it) removes the files already
 * renamed; with overwrite, the older files those replaced are gone too.
 * Returns 0, or -1 with msg naming the file that failed. */
int seg_save_files(size_t n, const char *const *paths, const void *const *data, const size_t *sizes, int overwrite,
                   char *msg, size_t msg_size);

/* The same as a stream, for outputs written piecewise (DIMACS files). */
typedef struct seg_out {
    FILE *f; /* write here between open and commit */
    int fd, error; /* the temporary file; the first write's errno */
    char path[4096];
    char tmp[4096];
} seg_out;
int seg_out_open(seg_out *o, const char *path, int overwrite, char *msg, size_t msg_size);
int seg_out_commit(seg_out *o, char *msg, size_t msg_size); /* closes o either way */
void seg_out_abort(seg_out *o);
/* Unlinks every temporary file being written (for a signal handler that
 * then exits: no locks, no allocation). */
void seg_out_abort_all(void);

/* mkdir -p of the folder part of path (mode 0777 less the umask): 0, or
 * -1 with errno set. */
int seg_make_parent_dirs(const char *path);

/* 1 when name (no folder part) is one of the temporary names above. */
int seg_is_temp_name(const char *name);

/* Removes the temporary files in dir (not below it) whose names are exactly
 * ours for a NAME ending in ext (NULL: any), that are regular files, were
 * last modified before `before` (CLOCK_REALTIME) and that no process holds
 * locked: the leftovers of writers that were killed. Returns how many it
 * removed (0 when dir cannot be read). */
size_t seg_remove_stale_temps(const char *dir, const char *ext, const struct timespec *before);

#endif
