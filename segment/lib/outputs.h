/* A result's output images, for the batch scheduler and the CLI: the
 * overlay and the cut-out of a finished result, and PNGs saved all or none
 * through the one save (save.h). Internal to the segmentation library and
 * its front ends; not installed. */
#ifndef FLOWCUT_SEG_OUTPUTS_H
#define FLOWCUT_SEG_OUTPUTS_H

#include "pipeline.h"

#include <stddef.h>

/* Overlay (background dimmed, boundary drawn) and RGBA cut-out images of
 * r's photo and mask; -1 when out of memory. */
int seg_overlay(const seg_result *r, img_image *out);
int seg_cutout(const seg_result *r, img_image *out);

/* Saves n images as PNGs, all of them or none (seg_save_files): the
 * outputs of one photo are one result. Every image is encoded before the
 * first file is created. 0, or -1 with msg "PATH: what", or
 * SEG_SAVE_EXISTS when overwrite is 0 and a file exists (msg "PATH:
 * already exists": the front end adds how its users allow overwriting). */
int seg_save_pngs(size_t n, const char *const *paths, const img_image *const *imgs, int overwrite, char *msg,
                  size_t msg_size);

#endif
