/* What the CLI writes of a segmentation result (segment, batch); files are
 * saved through the library's one save (save.h), with the CLI's wording. */
#ifndef FLOWCUT_SEG_OUTPUT_H
#define FLOWCUT_SEG_OUTPUT_H

#include "outputs.h"
#include "pipeline.h"
#include "save.h"

#include <stdio.h>
#include <time.h>

/* The fields of a finished result that close a JSON line of segment and
 * batch: size, flow, foreground, engine, device, stage times, then "}\n". */
void seg_json_result(FILE *f, const seg_result *r);
/* The same fields of a batch item's outcome. */
void seg_json_outcome(FILE *f, const seg_batch_outcome *r);

/* Writes an image as PNG through seg_save_file. */
int seg_write_png(const char *path, int force, const img_image *img, char *error, size_t error_size);

/* seg_save_pngs with the CLI's wording: a file that exists without -f
 * (force) is refused with "PATH: already exists (use -f to overwrite)". */
int seg_write_pngs(size_t n, const char *const *paths, const img_image *const *imgs, int force, char *error,
                   size_t error_size);

/* seg_out_open for the CLI: a file that exists without -f (force) is
 * refused with "PATH: already exists (use -f to overwrite)". */
int cli_out_open(seg_out *o, const char *path, int force, char *msg, size_t msg_size);

#endif
