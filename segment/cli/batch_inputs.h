/* The work list of `flowcut batch`: which images, in which order, which
 * seed file each one pairs with and where its outputs go. */
#ifndef FLOWCUT_BATCH_INPUTS_H
#define FLOWCUT_BATCH_INPUTS_H

#include <stddef.h>

typedef struct batch_item {
    char *image;   /* the path to open */
    char *rel;     /* relative path that names the outputs; the sort key */
    char *seeds;   /* the paired seed file, NULL when there is none */
    char *prompts; /* the paired prompt file (clicks, a box), NULL when none */
    char *mask, *overlay, *cutout; /* overlay/cutout NULL when not asked */
    char *problem; /* why the item cannot be processed (no seeds, ...) */
} batch_item;

typedef struct batch_list {
    batch_item *items;
    size_t count, cap;
} batch_list;

/* Adds the image files of dir (by extension; hidden names skipped), its
 * sub-folders too when recursive, except the folders listed in skip (the
 * output and seed folders, when they lie inside dir). */
int batch_collect_dir(batch_list *l, const char *dir, int recursive, const char *const *skip, size_t nskip,
                      char *err, size_t err_size);

/* Adds the paths listed in list_path, one a line ('#' comments and blank
 * lines skipped). rel: the path below base_dir when it lies there, else the
 * path itself when relative without "..", else its base name. */
int batch_collect_list(batch_list *l, const char *list_path, const char *base_dir, char *err, size_t err_size);

/* Sorts by relative path (bytewise) and keeps shard k of n (1-based):
 * the items whose sorted position i has i % n == k - 1. */
void batch_sort_and_shard(batch_list *l, int k, int n);

/* Pairs each item with SEEDS_DIR/<rel without extension>.<ext> (png first)
 * and with the prompt file SEEDS_DIR/<rel without extension>.txt (clicks
 * and a box in the text form of segment.h), either or both, and names its
 * outputs OUT_DIR/<rel without extension>.png; items with neither, or that
 * would write the same output as an earlier one, get a problem. */
int batch_pair(batch_list *l, const char *seeds_dir, const char *out_dir, const char *overlay_dir,
               const char *cutout_dir);

void batch_list_free(batch_list *l);

/* 1 when the name ends in an extension flowcut decodes. */
int batch_is_image_name(const char *name);


#endif
