/* What the CLI writes of a segmentation result (segment, batch). */
#ifndef FLOWCUT_SEG_OUTPUT_H
#define FLOWCUT_SEG_OUTPUT_H

#include "pipeline.h"

#include <stdio.h>

/* The fields of a finished result that close a JSON line of segment and
 * batch: size, flow, foreground, engine, device, stage times, then "}\n". */
void seg_json_result(FILE *f, const seg_result *r);

/* Overlay (background dimmed, boundary drawn) and RGBA cut-out images. */
int seg_overlay(const seg_result *r, img_image *out);
int seg_cutout(const seg_result *r, img_image *out);

/* Writes an image as PNG through a temporary file and rename. */
int seg_write_png(const char *path, int force, const img_image *img, char *error, size_t error_size);

#endif
