/* Helpers shared by the segmentation library's translation units. */
#ifndef FLOWCUT_SEG_INTERNAL_H
#define FLOWCUT_SEG_INTERNAL_H

#include "flowcut/segment.h"

/* Fills err (when not NULL) and returns code. */
int seg_fail(seg_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The name --scribble-colors gives rgb ("red"), or NULL: for messages. */
const char *seg_colour_name(const uint8_t rgb[3]);

#endif
