/* Seed images on arbitrary bytes: the first byte picks how the seeds are
 * read (labels, trimap, scribbles), the next ones the scribble colours
 * (through the "scribble-colors" option string, as the CLI passes it), the
 * rest is the seed file, decoded as img_load_labels does and interpreted
 * by seg_labels_from_seeds. Checks: every label is unmarked, foreground or
 * background, and the counts match the labels. */
#include "flowcut/graphbuild.h"
#include "flowcut/segment.h"
#include "format.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_PIXELS ((int64_t)4 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    seg_options o;
    seg_options_default(&o);
    static const char *kinds[] = {"labels", "trimap", "scribble"};
    seg_error e;
    if (seg_options_set(&o, "seeds", kinds[data[0] % 3], &e))
        abort();
    if (data[0] & 0x80) { /* colours as a string of 6 arbitrary bytes: the parser's checks */
        char colours[16];
        memcpy(colours, data + 1, 6);
        colours[6] = 0;
        seg_options_set(&o, "scribble-colors", colours, &e);
    } else { /* two well-formed colours, from bytes 1-6: accepted unless equal */
        char colours[16];
        snprintf(colours, sizeof colours, "%02x%02x%02x,%02x%02x%02x", data[1], data[2], data[3], data[4], data[5],
                 data[6]);
        int same = !memcmp(data + 1, data + 4, 3);
        if ((seg_options_set(&o, "scribble-colors", colours, &e) != 0) != same)
            abort();
    }
    data += 7;
    size -= 7;
    img_image seeds;
    img_error err = {0};
    if (img_load_memory(data, size, "seeds", 1, FUZZ_MAX_PIXELS, &seeds, &err))
        return 0;
    int64_t npx = (int64_t)seeds.width * seeds.height;
    uint8_t *labels = malloc((size_t)npx);
    if (!labels)
        abort();
    int64_t nfg = -1, nbg = -1;
    int kind = seg_labels_from_seeds(seeds.data, seeds.width, seeds.height, seeds.channels, &o, labels, &nfg, &nbg);
    if (kind >= 0) {
        int64_t fg = 0, bg = 0;
        for (int64_t i = 0; i < npx; i++) {
            if (labels[i] != GB_UNMARKED && labels[i] != GB_FOREGROUND && labels[i] != GB_BACKGROUND)
                abort();
            fg += labels[i] == GB_FOREGROUND;
            bg += labels[i] == GB_BACKGROUND;
        }
        if (fg != nfg || bg != nbg)
            abort();
    } else if (seeds.channels == 1 || seeds.channels == 3) {
        abort(); /* 1 and 3 channels are always interpretable */
    }
    free(labels);
    img_free(&seeds);
    return 0;
}
