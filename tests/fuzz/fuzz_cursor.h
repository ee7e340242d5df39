/* Reading a fuzzer's input a byte at a time, for the harnesses that turn it
 * into a sequence of operations. */
#ifndef FLOWCUT_FUZZ_CURSOR_H
#define FLOWCUT_FUZZ_CURSOR_H

#include <stddef.h>
#include <stdint.h>

typedef struct cursor {
    const uint8_t *p;
    size_t n;
} cursor;

/* The next byte, or -1 once the input is used up. */
static inline int take(cursor *c)
{
    if (!c->n)
        return -1;
    c->n--;
    return *c->p++;
}

#endif
