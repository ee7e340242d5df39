/* Image decoders on arbitrary bytes: the loader's in-memory entry (what
 * img_load_rgb and img_load_labels run on a file's contents) as a photo and
 * as a seed image, and the header probe. A small pixel limit keeps every
 * decode within the fuzzer's memory. Checks: a decoded image respects the
 * limit and its buffer is fully readable; a failure leaves no buffer; the
 * probe's size agrees with the photo's pixel count. */
#include "format.h"

#include <stdint.h>
#include <stdlib.h>

#define FUZZ_MAX_PIXELS ((int64_t)4 << 20)

static volatile uint8_t sink;

static void check(int rc, const img_image *img, int labels)
{
    if (rc != IMG_OK) {
        if (rc > 0 || rc < IMG_ERR_INVALID || img->data)
            abort();
        return;
    }
    if (img->width <= 0 || img->height <= 0 || (int64_t)img->width * img->height > FUZZ_MAX_PIXELS)
        abort();
    if (labels ? img->channels != 1 && img->channels != 3 : img->channels != 3)
        abort();
    size_t n = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
    uint8_t x = 0;
    for (size_t i = 0; i < n; i++)
        x ^= img->data[i];
    sink = x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    img_image rgb, labels;
    img_error err = {0};
    int rc = img_load_memory(data, size, "fuzz", 0, FUZZ_MAX_PIXELS, &rgb, &err);
    check(rc, &rgb, 0);
    int rl = img_load_memory(data, size, "fuzz", 1, FUZZ_MAX_PIXELS, &labels, &err);
    check(rl, &labels, 1);
    /* one decode, two layouts: the same size */
    if (!rc && !rl && (rgb.width != labels.width || rgb.height != labels.height))
        abort();
    int32_t w = 0, h = 0;
    if (img_probe_memory(data, size, &w, &h) == IMG_OK) {
        if (w <= 0 || h <= 0)
            abort();
        if (!rc && (int64_t)w * h != (int64_t)rgb.width * rgb.height)
            abort();
    }
    img_free(&rgb);
    img_free(&labels);
    return 0;
}
