/* Netpbm grey and colour maps (P2, P3, P5, P6). */
#include "loader.h"

#include <string.h>

static int pnm_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* The next header number, after whitespace and '#' comments (to the end of
 * the line). Saturates at 2^32 so that an absurd value reaches the size
 * checks rather than wrapping. 0 on success, -1 when no digit is there. */
static int pnm_number(const uint8_t *b, size_t len, size_t *pos, uint64_t *value)
{
    size_t i = *pos;
    for (;;) {
        while (i < len && pnm_space(b[i]))
            i++;
        if (i < len && b[i] == '#') {
            while (i < len && b[i] != '\n' && b[i] != '\r')
                i++;
            continue;
        }
        break;
    }
    if (i >= len || b[i] < '0' || b[i] > '9')
        return -1;
    uint64_t v = 0;
    for (; i < len && b[i] >= '0' && b[i] <= '9'; i++)
        v = v > UINT32_MAX ? v : v * 10 + (uint64_t)(b[i] - '0');
    *pos = i;
    *value = v;
    return 0;
}

/* Netpbm grey (P2 ASCII, P5 binary) and colour (P3, P6) maps: "Pn", width,
 * height, maxval (1..65535). Binary data starts after one whitespace byte
 * and holds width * height * channels samples of 1 byte (maxval < 256) or
 * 2 big-endian bytes, so the file must be at least that long (more is
 * allowed: netpbm files may hold several images). ASCII data is that many
 * decimal numbers, each at most maxval. Labels keep the sample values (the
 * 16-bit high byte); a photo's samples are scaled from 0..maxval to 0..255. */
int img_load_pnm(const char *path, const uint8_t *b, size_t len, int labels, int64_t max_pixels,
                 img_image *out, img_error *err)
{
    memset(out, 0, sizeof *out);
    int ascii = b[1] == '2' || b[1] == '3', channels = b[1] == '3' || b[1] == '6' ? 3 : 1;
    size_t pos = 2;
    uint64_t w, h, maxval;
    if (pnm_number(b, len, &pos, &w) || pnm_number(b, len, &pos, &h) || pnm_number(b, len, &pos, &maxval))
        return img_fail(err, IMG_ERR_CORRUPT, path, "corrupt or truncated PNM header");
    int rc = img_check_size(path, (int64_t)w, (int64_t)h, max_pixels, err);
    if (rc)
        return rc;
    if (maxval == 0 || maxval > 65535)
        return img_fail(err, IMG_ERR_CORRUPT, path, "corrupt PNM: maximum value %llu", (unsigned long long)maxval);
    if (pos >= len || !pnm_space(b[pos]))
        return img_fail(err, IMG_ERR_CORRUPT, path, "corrupt or truncated PNM header");
    pos++;
    uint64_t samples = w * h * (uint64_t)channels, bytes = maxval > 255 ? 2 : 1;
    /* before allocating: binary data is all there; ASCII has room for the
     * samples (one digit and one separator each, but the last) */
    if (!ascii && samples * bytes > len - pos)
        return img_truncated(path, "PNM", pos + samples * bytes, len, err);
    if (ascii && samples * 2 - 1 > len - pos)
        return img_fail(err, IMG_ERR_CORRUPT, path, "truncated PNM: %llu samples cannot fit in %zu bytes",
                        (unsigned long long)samples, len - pos);
    int want = labels && channels == 1 ? 1 : 3;
    if (img_alloc(out, (int32_t)w, (int32_t)h, want))
        return img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
    uint8_t *d = out->data;
    for (uint64_t i = 0; i < samples; i++) {
        uint64_t v;
        if (ascii) {
            if (pnm_number(b, len, &pos, &v) || v > maxval) {
                img_free(out);
                return img_fail(err, IMG_ERR_CORRUPT, path, "%s PNM sample %llu of %llu",
                                pos >= len ? "truncated: no" : "corrupt", (unsigned long long)i + 1,
                                (unsigned long long)samples);
            }
        } else {
            v = bytes == 2 ? (uint64_t)b[pos] << 8 | b[pos + 1] : b[pos];
            pos += bytes;
            v = v < maxval ? v : maxval;
        }
        uint8_t s = labels ? (uint8_t)(bytes == 2 ? v >> 8 : v) : (uint8_t)((v * 255 + maxval / 2) / maxval);
        if (channels == want) {
            *d++ = s;
        } else { /* grey to RGB */
            d[0] = d[1] = d[2] = s;
            d += 3;
        }
    }
    return IMG_OK;
}
