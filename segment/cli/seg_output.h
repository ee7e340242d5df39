/* What the CLI writes of a segmentation result (segment, batch); files are
 * saved through the library's one save (save.h), with the CLI's wording. */
#ifndef FLOWCUT_SEG_OUTPUT_H
#define FLOWCUT_SEG_OUTPUT_H

#include "pipeline.h"
#include "save.h"

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

/* seg_out_open for the CLI: a file that exists without -f (force) is
 * refused with "PATH: already exists (use -f to overwrite)". */
int cli_out_open(seg_out *o, const char *path, int force, char *msg, size_t msg_size);

#endif
