/* Batch work list: folder walk, path lists, sort, shards, seed pairing. */
#define _POSIX_C_SOURCE 200809L
#include "batch_inputs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *const image_exts[] = {"png", "jpg", "jpeg", "bmp", "tga", "gif", "pnm", "ppm", "pgm"};
/* seed files are lossless; png first */
static const char *const seed_exts[] = {"png", "bmp", "tga", "gif", "pnm", "pgm", "ppm"};
/* named in the message when no seed file is found */
static const char *const lossy_exts[] = {"jpg", "jpeg", "JPG", "JPEG"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    int slash = la > 0 && a[la - 1] != '/';
    char *s = malloc(la + lb + 2);
    if (s)
        snprintf(s, la + lb + 2, "%s%s%s", a, slash ? "/" : "", b);
    return s;
}

int batch_is_image_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || dot == name)
        return 0;
    for (size_t i = 0; i < COUNT(image_exts); i++)
        if (!strcasecmp(dot + 1, image_exts[i]))
            return 1;
    return 0;
}

static int add_item(batch_list *l, const char *image, const char *rel)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        batch_item *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return -1;
        l->items = items;
        l->cap = cap;
    }
    batch_item *it = &l->items[l->count];
    memset(it, 0, sizeof *it);
    it->image = strdup(image);
    it->rel = strdup(rel);
    if (!it->image || !it->rel) {
        free(it->image);
        free(it->rel);
        return -1;
    }
    l->count++;
    return 0;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int walk(batch_list *l, const char *dir, const char *rel, int recursive, const struct stat *skip,
                size_t nskip, int depth, char *err, size_t err_size)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_size, "%s: cannot open folder: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.') /* hidden, and our own temporary outputs */
            continue;
        char *path = join(dir, e->d_name);
        char *sub = rel[0] ? join(rel, e->d_name) : strdup(e->d_name);
        struct stat st;
        if (!path || !sub) {
            snprintf(err, err_size, "%s: out of memory", dir);
            rc = -1;
        } else if (stat(path, &st) != 0) {
            /* a dangling link is not an image; anything else unreadable is */
            if (batch_is_image_name(e->d_name) && add_item(l, path, sub)) {
                snprintf(err, err_size, "%s: out of memory", dir);
                rc = -1;
            }
        } else if (S_ISDIR(st.st_mode)) {
            int skipped = 0;
            for (size_t i = 0; i < nskip; i++)
                skipped |= same_file(&st, &skip[i]);
            if (skipped) {
                /* an output or seed folder inside dir: never input */
            } else if (!recursive) {
                /* a folder named like an image is not one: an item, so that
                 * batch_pair reports it instead of its vanishing silently */
                if (batch_is_image_name(e->d_name) && add_item(l, path, sub)) {
                    snprintf(err, err_size, "%s: out of memory", dir);
                    rc = -1;
                }
            } else if (depth > 64) {
                snprintf(err, err_size, "%s: folders nested too deep (a link loop?)", path);
                rc = -1;
            } else {
                rc = walk(l, path, sub, recursive, skip, nskip, depth + 1, err, err_size);
            }
        } else if (batch_is_image_name(e->d_name) && add_item(l, path, sub)) {
            snprintf(err, err_size, "%s: out of memory", dir);
            rc = -1;
        }
        free(path);
        free(sub);
    }
    closedir(d);
    return rc;
}

int batch_collect_dir(batch_list *l, const char *dir, int recursive, const char *const *skip, size_t nskip,
                      char *err, size_t err_size)
{
    struct stat st, skip_st[8];
    size_t ns = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_size, "%s: not a folder", dir);
        return -1;
    }
    for (size_t i = 0; i < nskip && ns < COUNT(skip_st); i++)
        if (skip[i] && stat(skip[i], &skip_st[ns]) == 0)
            ns++;
    return walk(l, dir, "", recursive, skip_st, ns, 0, err, err_size);
}

/* The relative name of a listed path (see the header). */
static const char *list_rel(const char *path, const char *base_dir)
{
    if (base_dir) {
        size_t lb = strlen(base_dir);
        while (lb > 1 && base_dir[lb - 1] == '/')
            lb--;
        if (!strncmp(path, base_dir, lb) && path[lb] == '/')
            return path + lb + 1;
    }
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    int escapes = path[0] == '/' || !strcmp(path, "..") || !strncmp(path, "../", 3) || strstr(path, "/../");
    if (escapes) {
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
    }
    return path;
}

int batch_collect_list(batch_list *l, const char *list_path, const char *base_dir, char *err, size_t err_size)
{
    FILE *f = strcmp(list_path, "-") ? fopen(list_path, "r") : stdin;
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", list_path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (len == 0 || line[0] == '#')
            continue;
        const char *rel = list_rel(line, base_dir);
        if (!rel[0]) {
            snprintf(err, err_size, "%s:%ld: not a file path: '%s'", list_path, lineno, line);
            rc = -1;
        } else if (add_item(l, line, rel)) {
            snprintf(err, err_size, "%s: out of memory", list_path);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, err_size, "%s: read error", list_path);
        rc = -1;
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return rc;
}

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const batch_item *)a)->rel, ((const batch_item *)b)->rel);
}

static void item_free(batch_item *it)
{
    free(it->image);
    free(it->rel);
    free(it->seeds);
    free(it->prompts);
    free(it->mask);
    free(it->overlay);
    free(it->cutout);
    free(it->problem);
}

void batch_sort_and_shard(batch_list *l, int k, int n)
{
    qsort(l->items, l->count, sizeof *l->items, by_rel);
    if (n <= 1)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < l->count; i++) {
        if (i % (size_t)n == (size_t)(k - 1))
            l->items[kept++] = l->items[i];
        else
            item_free(&l->items[i]);
    }
    l->count = kept;
}

/* rel without its extension: the stem every output and seed is named by. */
static char *stem_of(const char *rel)
{
    char *s = strdup(rel);
    if (!s)
        return NULL;
    char *dot = strrchr(s, '.');
    char *slash = strrchr(s, '/');
    if (dot && (!slash || dot > slash + 1))
        *dot = 0;
    return s;
}

static char *with_ext(const char *dir, const char *stem, const char *ext)
{
    size_t n = strlen(stem) + strlen(ext) + 2;
    char *name = malloc(n);
    if (!name)
        return NULL;
    snprintf(name, n, "%s.%s", stem, ext);
    char *path = join(dir, name);
    free(name);
    return path;
}

/* The first seed file of stem's names that is a regular file; else NULL
 * and *not_file: the first such name that exists as something else (a
 * folder), for the message. -1 when out of memory. */
static int find_seeds(const char *seeds_dir, const char *stem, const char *image, char **seeds, char **not_file)
{
    struct stat st, img_st;
    int have_img = stat(image, &img_st) == 0;
    *seeds = *not_file = NULL;
    for (size_t i = 0; i < COUNT(seed_exts); i++) {
        char *p = with_ext(seeds_dir, stem, seed_exts[i]);
        if (!p) {
            free(*not_file);
            *not_file = NULL;
            return -1;
        }
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && !(have_img && same_file(&st, &img_st))) {
            free(*not_file);
            *not_file = NULL;
            *seeds = p;
            return 0;
        }
        if (!*not_file && stat(p, &st) == 0 && !S_ISREG(st.st_mode))
            *not_file = p;
        else
            free(p);
    }
    return 0;
}

static int by_mask_then_position(const void *a, const void *b)
{
    const batch_item *x = *(const batch_item *const *)a, *y = *(const batch_item *const *)b;
    int c = strcmp(x->mask, y->mask);
    return c ? c : (x < y ? -1 : x > y);
}

static char *problem(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, b ? b : "");
    return s;
}

int batch_pair(batch_list *l, const char *seeds_dir, const char *out_dir, const char *overlay_dir,
               const char *cutout_dir)
{
    for (size_t i = 0; i < l->count; i++) {
        batch_item *it = &l->items[i];
        char *stem = stem_of(it->rel);
        if (!stem)
            return -1;
        it->mask = with_ext(out_dir, stem, "png");
        it->overlay = overlay_dir ? with_ext(overlay_dir, stem, "png") : NULL;
        it->cutout = cutout_dir ? with_ext(cutout_dir, stem, "png") : NULL;
        struct stat st;
        char *not_file = NULL;
        if (stat(it->image, &st) == 0 && S_ISDIR(st.st_mode)) {
            it->problem = strdup("is a folder, not an image");
        } else if (find_seeds(seeds_dir, stem, it->image, &it->seeds, &not_file)) {
            free(stem);
            return -1;
        } else if (!it->seeds && not_file) {
            it->problem = problem("seed file %s is a folder, not an image", not_file, NULL);
        } else if (!(it->prompts = with_ext(seeds_dir, stem, "txt"))) {
            free(stem);
            return -1;
        } else if (stat(it->prompts, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(it->prompts); /* no prompt file: the seed image alone */
            it->prompts = NULL;
        }
        if (!it->problem && !it->seeds && !it->prompts) {
            /* a lossy file with the seed's name is refused, but named: JPEG
             * turns label values and scribble colours into near values */
            char *want = with_ext(seeds_dir, stem, "png"), *lossy = NULL;
            for (size_t k = 0; want && !lossy && k < COUNT(lossy_exts); k++) {
                lossy = with_ext(seeds_dir, stem, lossy_exts[k]);
                if (lossy && (stat(lossy, &st) != 0 || !S_ISREG(st.st_mode))) {
                    free(lossy);
                    lossy = NULL;
                }
            }
            if (want && lossy)
                it->problem = problem("no seed file %s (found %s: seed files must be lossless PNG)", want, lossy);
            else if (want)
                it->problem = problem("no seed file %s (or another lossless format, or a prompt file .txt) for "
                                      "this image", want, NULL);
            free(lossy);
            free(want); /* out of memory: problem NULL, the check below */
        }
        free(not_file);
        free(stem);
        if (!it->mask || (overlay_dir && !it->overlay) || (cutout_dir && !it->cutout) ||
            (!it->seeds && !it->prompts && !it->problem))
            return -1;
    }
    /* photo.jpg and photo.png side by side would write one mask: refuse the
     * later one instead of letting it overwrite the first */
    if (l->count < 2)
        return 0;
    batch_item **by_mask = malloc(l->count * sizeof *by_mask);
    if (!by_mask)
        return -1;
    for (size_t i = 0; i < l->count; i++)
        by_mask[i] = &l->items[i];
    qsort(by_mask, l->count, sizeof *by_mask, by_mask_then_position);
    int rc = 0;
    size_t run = 0; /* first of the items sharing a mask, by position */
    for (size_t i = 1; i < l->count && rc == 0; i++) {
        if (strcmp(by_mask[run]->mask, by_mask[i]->mask)) {
            run = i;
            continue;
        }
        batch_item *it = by_mask[i];
        free(it->problem);
        it->problem = problem("same output %s as %s", it->mask, by_mask[run]->image);
        rc = it->problem ? 0 : -1;
    }
    free(by_mask);
    return rc;
}

void batch_list_free(batch_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        item_free(&l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

