/* What the CLI writes of a segmentation result (segment, batch), and the
 * one way every flowcut front end saves a file: atomically and durably. */
#ifndef FLOWCUT_SEG_OUTPUT_H
#define FLOWCUT_SEG_OUTPUT_H

#include "pipeline.h"

#include <stdio.h>
#include <time.h>

/* The fields of a finished result that close a JSON line of segment and
 * batch: size, flow, foreground, engine, device, stage times, then "}\n". */
void seg_json_result(FILE *f, const seg_result *r);

/* Overlay (background dimmed, boundary drawn) and RGBA cut-out images. */
int seg_overlay(const seg_result *r, img_image *out);
int seg_cutout(const seg_result *r, img_image *out);

/* Writes an image as PNG through seg_save_file. */
int seg_write_png(const char *path, int force, const img_image *img, char *error, size_t error_size);

/* Writes n images as PNGs, all of them or none (seg_save_files): the
 * outputs of one photo (mask, overlay, cut-out) are one result. Every image
 * is encoded before the first file is created. */
int seg_write_pngs(size_t n, const char *const *paths, const img_image *const *imgs, int force, char *error,
                   size_t error_size);

/* ---- atomic, durable saves
 *
 * A file is written under a hidden temporary name beside its final one,
 * ".NAME.tmp-XXXXXX" (6 letters or digits), created with mode 0666 less the
 * umask, held under an exclusive flock while it is written, fsynced, renamed
 * into place and its folder fsynced. So a final name only ever holds a
 * complete file, also after a crash or a power loss, and a temporary file
 * that nobody holds locked is a dead writer's leftover
 * (seg_remove_stale_temps). Messages are one line: "PATH: what: why". */

/* Saves size bytes as path. overwrite 0: fails when path exists. Returns 0,
 * or -1 with msg filled; nothing is left under either name on failure.
 * data NULL fails as out of memory: glibc's fclose of an open_memstream
 * stream returns 0 and leaves the buffer NULL when its last realloc fails.
 * This is the save of the CLI's outputs and of the UI's. */
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

/* 1 when name (no folder part) is one of the temporary names above. */
int seg_is_temp_name(const char *name);

/* Removes the temporary files in dir (not below it) whose names are exactly
 * ours for a NAME ending in ext (NULL: any), that are regular files, were
 * last modified before `before` (CLOCK_REALTIME) and that no process holds
 * locked: the leftovers of writers that were killed. Returns how many it
 * removed (0 when dir cannot be read). */
size_t seg_remove_stale_temps(const char *dir, const char *ext, const struct timespec *before);

#endif
