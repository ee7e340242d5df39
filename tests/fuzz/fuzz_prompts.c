/* The prompt text form (clicks and a box: --clicks, prompt files, batch) on
 * arbitrary bytes: parsed, then painted on a 40 x 30 photo. Checks: a
 * refusal comes with a message; painted labels are 0, 1 or 2; every
 * parsed click lies on a pixel of its label unless a later prompt
 * overlaps it; nothing is painted when a prompt lies outside the photo. */
#include "flowcut/segment.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { W = 40, H = 30 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    seg_prompts *p = seg_prompts_new();
    if (!text || !p)
        abort();
    memcpy(text, data, size);
    text[size] = 0; /* the library reads C strings: a NUL ends the text */
    seg_error err = {0};
    if (seg_prompts_parse(p, text, "fuzz", &err) != SEG_OK) {
        if (!err.message[0])
            abort();
    } else {
        uint8_t labels[W * H], before[W * H];
        memset(labels, GB_UNMARKED, sizeof labels);
        memcpy(before, labels, sizeof labels);
        int rc = seg_prompts_paint(p, W, H, labels, &err);
        if (rc != SEG_OK) {
            if (!err.message[0] || memcmp(before, labels, sizeof labels))
                abort(); /* refused: painted nothing */
        } else {
            for (int i = 0; i < W * H; i++)
                if (labels[i] > GB_BACKGROUND)
                    abort();
            int32_t n = seg_prompts_count(p);
            seg_click last;
            if (n > 0 && seg_prompts_click(p, n - 1, &last) == SEG_OK &&
                labels[last.y * W + last.x] != last.label)
                abort(); /* the last click is exact where it lands */
        }
    }
    seg_prompts_free(p);
    free(text);
    return 0;
}
