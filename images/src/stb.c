/* BMP, TGA and GIF through stb_image, each file's header checked before
 * stb_image decodes it. */
#include "loader.h"

#include <stb/stb_image.h>
#include <string.h>

/* stb_image pads a short file with zeros and decodes whatever its header
 * claims, so before it runs each format's header is read here: the size
 * goes to the pixel limit, and the file must hold every byte that header
 * implies (else IMG_ERR_CORRUPT). Each check sets *comp to the channels
 * stb_image will report (1 grey, 2 grey+alpha, 3, 4). */

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

/* BMP: a 14-byte file header (pixel data offset at 10), an info header of
 * 12 (OS/2), 40, 56, 108 or 124 bytes, an optional palette, then
 * uncompressed rows of ceil(width * bpp / 32) * 4 bytes (|height| rows,
 * bottom-up when the height is positive). stb_image decodes no RLE or
 * embedded JPEG/PNG, so those are unsupported here too. The file must
 * reach the last pixel of the last row; that row's padding may be
 * missing, as some writers omit it. */
static int bmp_check(const char *path, const uint8_t *b, size_t len, int64_t max_pixels, int *comp,
                     img_error *err)
{
    if (len < 18)
        return img_truncated(path, "BMP", 18, len, err);
    uint32_t off = le32(b + 10), hsz = le32(b + 14);
    if (hsz != 12 && hsz != 40 && hsz != 56 && hsz != 108 && hsz != 124)
        return img_fail(err, IMG_ERR_FORMAT, path, "unsupported BMP header size %u", hsz);
    if (len < 14 + (size_t)hsz)
        return img_truncated(path, "BMP", 14 + (uint64_t)hsz, len, err);
    int64_t w, h;
    uint32_t planes, bpp, compress = 0;
    if (hsz == 12) {
        w = le16(b + 18);
        h = le16(b + 20);
        planes = le16(b + 22);
        bpp = le16(b + 24);
    } else {
        w = (int32_t)le32(b + 18);
        h = (int32_t)le32(b + 22); /* negative: top-down rows */
        h = h < 0 ? -h : h;
        planes = le16(b + 26);
        bpp = le16(b + 28);
        compress = le32(b + 30);
    }
    if (compress == 1 || compress == 2 || compress >= 4)
        return img_fail(err, IMG_ERR_FORMAT, path, "unsupported BMP compression %u (RLE, JPEG or PNG)", compress);
    if (planes != 1 || (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) ||
        (compress == 3 && bpp != 16 && bpp != 32))
        return img_fail(err, IMG_ERR_CORRUPT, path, "corrupt BMP header (%u planes, %u bits per pixel)", planes, bpp);
    /* bit-field masks follow a 40- or 56-byte header */
    uint64_t header_end = 14 + (uint64_t)hsz + (compress == 3 && hsz <= 56 ? 12 : 0);
    if (off < header_end)
        return img_fail(err, IMG_ERR_CORRUPT, path, "corrupt BMP: pixel data at %u, inside the header", off);
    int rc = img_check_size(path, w, h, max_pixels, err);
    if (rc)
        return rc;
    /* w, h < 2^29 (check_size): no product below can overflow */
    uint64_t row = ((uint64_t)w * bpp + 7) / 8, stride = ((uint64_t)w * bpp + 31) / 32 * 4;
    uint64_t need = off + stride * (uint64_t)(h - 1) + row;
    if (need > len)
        return img_truncated(path, "BMP", need, len, err);
    *comp = 3; /* 3 or 4: colour either way */
    return IMG_OK;
}

/* TGA: an 18-byte header, an image ID of header[0] bytes, for colour-mapped
 * images the map (stb_image skips "first entry" bytes, then reads length
 * entries of ceil(entry bits / 8) bytes), then the pixels: width * height
 * of ceil(bpp / 8) bytes, or for RLE types packets of a count byte (low 7
 * bits + 1 pixels) followed by one pixel (a run, top bit set) or by count
 * pixels (raw). The RLE packets are walked to the last pixel; the walk
 * takes at most one step per byte of the file. */
static int tga_check(const char *path, const uint8_t *b, size_t len, int64_t max_pixels, int *comp,
                     img_error *err)
{
    if (len < 18)
        return img_truncated(path, "TGA", 18, len, err);
    uint32_t cmtype = b[1], type = b[2], map_first = le16(b + 3), map_len = le16(b + 5), map_bits = b[7];
    uint32_t bpp = b[16];
    int64_t w = le16(b + 12), h = le16(b + 14);
    int mapped = cmtype == 1;
    /* the types and depths stb_image accepts */
    int ok = mapped ? (type == 1 || type == 9) && (bpp == 8 || bpp == 16) &&
                          (map_bits == 8 || map_bits == 15 || map_bits == 16 || map_bits == 24 || map_bits == 32)
                    : cmtype == 0 && (type == 2 || type == 3 || type == 10 || type == 11) &&
                          (bpp == 8 || bpp == 15 || bpp == 16 || bpp == 24 || bpp == 32);
    if (!ok)
        return img_fail(err, IMG_ERR_FORMAT, path, "unrecognised image format");
    if (mapped && map_len == 0)
        return img_fail(err, IMG_ERR_CORRUPT, path, "corrupt TGA: empty colour map");
    int rc = img_check_size(path, w, h, max_pixels, err);
    if (rc)
        return rc;
    uint64_t pos = 18 + (uint64_t)b[0];
    if (mapped)
        pos += map_first + (uint64_t)map_len * ((map_bits + 7) / 8);
    uint64_t px = (bpp + 7) / 8, total = (uint64_t)w * (uint64_t)h;
    if (type < 8) {
        uint64_t need = pos + total * px;
        if (need > len)
            return img_truncated(path, "TGA", need, len, err);
    } else {
        for (uint64_t done = 0; done < total;) {
            if (pos >= len)
                return img_truncated(path, "TGA", pos + 1, len, err);
            uint64_t count = (uint64_t)(b[pos] & 0x7f) + 1, left = total - done;
            count = count < left ? count : left;
            pos += 1 + (b[pos] & 0x80 ? px : count * px);
            done += count;
        }
        if (pos > len)
            return img_truncated(path, "TGA", pos, len, err);
    }
    uint32_t depth = mapped ? map_bits : bpp;
    *comp = depth == 8 ? 1 : depth == 16 && !mapped && (type & 7) == 3 ? 2 : depth == 32 ? 4 : 3;
    return IMG_OK;
}

/* GIF: a 13-byte screen header (stb_image's image size is the screen's),
 * a global colour table of 3 << (1 + flags & 7) bytes when flags & 0x80,
 * then blocks up to the first image: extensions (0x21, a label, sub-blocks)
 * and the image (0x2C, a 9-byte descriptor, a local colour table, the LZW
 * code size, sub-blocks). Sub-blocks are a length byte and that many
 * bytes, ended by a zero length. The file must hold the first image's
 * blocks to their end; the frame must lie inside the screen and have a
 * colour table. */
static int gif_check(const char *path, const uint8_t *b, size_t len, int64_t max_pixels, int *comp,
                     img_error *err)
{
    if (len < 13)
        return img_truncated(path, "GIF", 13, len, err);
    if ((b[4] != '7' && b[4] != '9') || b[5] != 'a')
        return img_fail(err, IMG_ERR_FORMAT, path, "unrecognised image format");
    int64_t w = le16(b + 6), h = le16(b + 8);
    int rc = img_check_size(path, w, h, max_pixels, err);
    if (rc)
        return rc;
    int global = b[10] & 0x80;
    size_t pos = 13 + (global ? (size_t)3 << (1 + (b[10] & 7)) : 0);
    for (;;) {
        if (pos >= len)
            return img_truncated(path, "GIF", (uint64_t)pos + 1, len, err);
        uint8_t kind = b[pos++];
        if (kind == 0x2C) {
            if (len - pos < 9)
                return img_truncated(path, "GIF", (uint64_t)pos + 9, len, err);
            uint32_t x = le16(b + pos), y = le16(b + pos + 2), fw = le16(b + pos + 4), fh = le16(b + pos + 6);
            uint8_t flags = b[pos + 8];
            if (x + fw > w || y + fh > h || (!(flags & 0x80) && !global))
                return img_fail(err, IMG_ERR_CORRUPT, path, "corrupt GIF image descriptor");
            pos += 9 + (flags & 0x80 ? (size_t)3 << (1 + (flags & 7)) : 0) + 1; /* + LZW code size */
        } else if (kind == 0x21) {
            pos++; /* the label */
        } else {
            return img_fail(err, IMG_ERR_CORRUPT, path, "corrupt GIF: %s block 0x%02x", kind == 0x3B ? "no image before" : "unknown",
                            kind);
        }
        for (;;) { /* sub-blocks */
            if (pos >= len)
                return img_truncated(path, "GIF", (uint64_t)pos + 1, len, err);
            size_t n = b[pos++];
            if (n == 0)
                break;
            pos += n;
        }
        if (kind == 0x2C)
            break;
    }
    *comp = 4;
    return IMG_OK;
}

/* Which stb_image decoder reads the file is decided by its first bytes, in
 * stb_image's own order (PNG, BMP, GIF, PSD, PIC, JPEG, PNM, HDR, TGA last).
 * The checks above route "BM" and "GIF8" files, and TGA files only when
 * the second byte (colour-map type) is 0 or 1, which none of the earlier
 * signatures has: so the decoder that runs is the one whose header was
 * checked, and stb_image's other formats are never reached. */
int img_load_stb(const char *path, const uint8_t *buf, size_t len, int labels, int64_t max_pixels,
                 img_image *out, img_error *err)
{
    int comp = 0, rc;
    memset(out, 0, sizeof *out);
    if (len > INT32_MAX)
        return img_fail(err, IMG_ERR_TOO_LARGE, path, "file larger than 2 GiB");
    if (len >= 2 && buf[0] == 'B' && buf[1] == 'M')
        rc = bmp_check(path, buf, len, max_pixels, &comp, err);
    else if (len >= 5 && !memcmp(buf, "GIF8", 4))
        rc = gif_check(path, buf, len, max_pixels, &comp, err);
    else if (len >= 2 && buf[1] <= 1)
        rc = tga_check(path, buf, len, max_pixels, &comp, err);
    else
        rc = img_fail(err, IMG_ERR_FORMAT, path, "unrecognised image format");
    if (rc)
        return rc;
    int w, h, got;
    int want = labels && comp <= 2 ? 1 : 3;
    uint8_t *px = stbi_load_from_memory(buf, (int)len, &w, &h, &got, want);
    if (!px)
        return img_fail(err, IMG_ERR_CORRUPT, path, "cannot decode: %s", stbi_failure_reason());
    if (img_alloc(out, w, h, want)) {
        stbi_image_free(px);
        return img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
    }
    memcpy(out->data, px, (size_t)w * (size_t)h * (size_t)want);
    stbi_image_free(px);
    return IMG_OK;
}
