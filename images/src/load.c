/* Image decoding: format detection, libpng, libjpeg-turbo (+EXIF), stb_image. */
#define _POSIX_C_SOURCE 200809L
#include "flowcut/images.h"
#include "format.h"

#include <errno.h>
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <setjmp.h>
#include <stb/stb_image.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

const char *img_strerror(int code)
{
    switch (code) {
    case IMG_OK: return "success";
    case IMG_ERR_NOMEM: return "out of memory";
    case IMG_ERR_IO: return "input/output error";
    case IMG_ERR_FORMAT: return "unsupported image format";
    case IMG_ERR_CORRUPT: return "corrupt or truncated image";
    case IMG_ERR_TOO_LARGE: return "image too large";
    case IMG_ERR_INVALID: return "invalid argument";
    default: return "unknown error";
    }
}

void img_error_format(const img_error *err, char *buf, size_t size)
{
    const char *msg = err->message[0] ? err->message : img_strerror(err->code);
    if (err->file[0])
        snprintf(buf, size, "%s: %s", err->file, msg);
    else
        snprintf(buf, size, "%s", msg);
}

static int fail(img_error *err, int code, const char *file, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        snprintf(err->file, sizeof err->file, "%s", file ? file : "");
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

int img_alloc(img_image *img, int32_t width, int32_t height, int32_t channels)
{
    memset(img, 0, sizeof *img);
    if (width <= 0 || height <= 0 || channels < 1 || channels > 4)
        return IMG_ERR_INVALID;
    img->data = malloc((size_t)width * (size_t)height * (size_t)channels);
    if (!img->data)
        return IMG_ERR_NOMEM;
    img->width = width;
    img->height = height;
    img->channels = channels;
    return IMG_OK;
}

void img_free(img_image *img)
{
    free(img->data);
    memset(img, 0, sizeof *img);
}

static int check_size(const char *path, int64_t w, int64_t h, int64_t max_pixels, img_error *err)
{
    if (max_pixels <= 0)
        max_pixels = IMG_DEFAULT_MAX_PIXELS;
    if (w <= 0 || h <= 0)
        return fail(err, IMG_ERR_CORRUPT, path, "invalid image size %lldx%lld", (long long)w, (long long)h);
    if (w > INT32_MAX / 4 || h > INT32_MAX / 4 || w * h > max_pixels)
        return fail(err, IMG_ERR_TOO_LARGE, path, "%lldx%lld pixels exceed the limit of %lld pixels",
                    (long long)w, (long long)h, (long long)max_pixels);
    return IMG_OK;
}

/* No supported file needs more than this many bytes per pixel (16-bit
 * RGB as ASCII PNM: 3 samples of up to 6 characters), plus room for
 * metadata (EXIF, ICC profiles, text chunks): a larger file is refused
 * before it is read into memory. */
#define MAX_FILE_BYTES_PER_PIXEL 32
#define MAX_FILE_METADATA ((int64_t)64 << 20)

static int read_file(const char *path, int64_t max_pixels, uint8_t **buf, size_t *len, img_error *err)
{
    FILE *f = fopen(path, "rb");
    *buf = NULL;
    *len = 0;
    if (!f)
        return fail(err, IMG_ERR_IO, path, "cannot open: %s", strerror(errno));
    if (max_pixels <= 0)
        max_pixels = IMG_DEFAULT_MAX_PIXELS;
    int64_t limit = max_pixels > (INT64_MAX - MAX_FILE_METADATA) / MAX_FILE_BYTES_PER_PIXEL
                        ? INT64_MAX
                        : max_pixels * MAX_FILE_BYTES_PER_PIXEL + MAX_FILE_METADATA;
    struct stat st;
    /* a regular file's size is known: one allocation of that size */
    size_t cap = 1 << 16;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if (st.st_size > limit || (uint64_t)st.st_size >= SIZE_MAX) {
            fclose(f);
            return fail(err, IMG_ERR_TOO_LARGE, path, "file of %lld bytes is too large for %lld pixels",
                        (long long)st.st_size, (long long)max_pixels);
        }
        cap = (size_t)st.st_size + 1; /* + 1: end of file seen without a second allocation */
    }
    uint8_t *b = malloc(cap);
    if (!b) {
        fclose(f);
        return fail(err, IMG_ERR_NOMEM, path, "out of memory");
    }
    for (;;) {
        if (*len == cap) {
            if ((int64_t)cap > limit / 2) {
                free(b);
                fclose(f);
                return fail(err, IMG_ERR_TOO_LARGE, path, "file too large for %lld pixels", (long long)max_pixels);
            }
            uint8_t *t = realloc(b, cap * 2);
            if (!t) {
                free(b);
                fclose(f);
                return fail(err, IMG_ERR_NOMEM, path, "out of memory");
            }
            b = t;
            cap *= 2;
        }
        size_t got = fread(b + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        return fail(err, IMG_ERR_IO, path, "read error");
    }
    *buf = b;
    return IMG_OK;
}

/* ---------------- PNG (libpng) ---------------- */
typedef struct png_src {
    const uint8_t *data;
    size_t len, pos;
} png_src;

static void png_read_mem(png_structp png, png_bytep out, png_size_t n)
{
    png_src *s = png_get_io_ptr(png);
    if (s->pos + n > s->len)
        png_error(png, "file is truncated");
    memcpy(out, s->data + s->pos, n);
    s->pos += n;
}

typedef struct png_err_ctx {
    char message[200];
} png_err_ctx;

/* Whether a decoder's message reports a failed allocation ("Insufficient
 * memory", "out of memory"). */
static int strcasestr_memory(const char *msg)
{
    for (const char *p = msg; *p; p++)
        if (!strncasecmp(p, "memory", 6))
            return 1;
    return 0;
}

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_err_ctx *c = png_get_error_ptr(png);
    snprintf(c->message, sizeof c->message, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* benign ancillary-chunk warnings; real damage raises errors */
}

/* labels: keep palette indices and grey values; else expand to RGB */
static int load_png(const char *path, const uint8_t *buf, size_t len, int labels,
                    int64_t max_pixels, img_image *out, img_error *err)
{
    png_err_ctx ctx = {{0}};
    png_src src = {buf, len, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, png_on_error, png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    /* volatile: assigned after setjmp and freed after libpng's longjmp, where
     * a non-volatile local's value would be indeterminate */
    uint8_t **volatile rows = NULL;
    volatile int rc = IMG_OK;
    memset(out, 0, sizeof *out);
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, NULL);
        return fail(err, IMG_ERR_NOMEM, path, "out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        /* libpng and zlib say "insufficient memory" / "out of memory" when an
         * allocation failed: that is not a corrupt file */
        if (strcasestr_memory(ctx.message))
            rc = fail(err, IMG_ERR_NOMEM, path, "out of memory");
        else
            rc = fail(err, IMG_ERR_CORRUPT, path, "corrupt PNG: %s", ctx.message);
        goto done;
    }
    /* the size from IHDR before libpng reads further: a bare oversized header
     * must fail as too large, not as truncated */
    if (len >= 24) {
        uint32_t hw = (uint32_t)buf[16] << 24 | (uint32_t)buf[17] << 16 | (uint32_t)buf[18] << 8 | buf[19];
        uint32_t hh = (uint32_t)buf[20] << 24 | (uint32_t)buf[21] << 16 | (uint32_t)buf[22] << 8 | buf[23];
        rc = check_size(path, hw, hh, max_pixels, err);
        if (rc)
            goto done;
    }
    png_set_read_fn(png, &src, png_read_mem);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
#if defined(PNG_SET_OPTION_SUPPORTED) && defined(PNG_IGNORE_ADLER32)
    /* every IDAT chunk's CRC-32 is still checked (a damaged photo is still
     * an error); the zlib stream's own Adler-32 over the same bytes would
     * be a noticeable part of a small photo's decode for no extra safety */
    png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    rc = check_size(path, w, h, max_pixels, err);
    if (rc)
        goto done;
    int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (depth == 16)
        png_set_strip_16(png);
    if (depth < 8)
        png_set_packing(png); /* one byte per sample, values kept (indices, grey) */
    int channels;
    if (labels && (color == PNG_COLOR_TYPE_PALETTE || color == PNG_COLOR_TYPE_GRAY ||
                   color == PNG_COLOR_TYPE_GRAY_ALPHA)) {
        if (color == PNG_COLOR_TYPE_GRAY_ALPHA)
            png_set_strip_alpha(png);
        channels = 1; /* palette transparency (tRNS) is ignored: indices are labels */
    } else {
        if (color == PNG_COLOR_TYPE_PALETTE)
            png_set_palette_to_rgb(png);
        if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) {
            if (depth < 8)
                png_set_expand_gray_1_2_4_to_8(png);
            png_set_gray_to_rgb(png);
        }
        if (color & PNG_COLOR_MASK_ALPHA || png_get_valid(png, info, PNG_INFO_tRNS))
            png_set_strip_alpha(png);
        channels = 3;
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if ((int)png_get_rowbytes(png, info) != (int)w * channels) {
        rc = fail(err, IMG_ERR_FORMAT, path, "unsupported PNG layout");
        goto done;
    }
    if (img_alloc(out, (int32_t)w, (int32_t)h, channels)) {
        rc = fail(err, IMG_ERR_NOMEM, path, "out of memory");
        goto done;
    }
    uint8_t **r = malloc(sizeof(uint8_t *) * h);
    if (!r) {
        rc = fail(err, IMG_ERR_NOMEM, path, "out of memory");
        goto done;
    }
    rows = r;
    for (png_uint_32 y = 0; y < h; y++)
        r[y] = out->data + (size_t)y * w * (size_t)channels;
    png_read_image(png, r);
    png_read_end(png, NULL);
done:
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    if (rc)
        img_free(out);
    return rc;
}

/* ---------------- JPEG (libjpeg-turbo) ---------------- */
typedef struct jpeg_err_ctx {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int warned;
} jpeg_err_ctx;

static void jpeg_on_error(j_common_ptr cinfo)
{
    jpeg_err_ctx *c = (jpeg_err_ctx *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, c->message);
    longjmp(c->jump, 1);
}

/* Corrupt-data warnings (premature end, bad Huffman codes) would otherwise
 * yield a silently grey image: treat them as errors. */
static void jpeg_on_message(j_common_ptr cinfo, int level)
{
    jpeg_err_ctx *c = (jpeg_err_ctx *)cinfo->err;
    if (level < 0 && !c->warned) {
        (*cinfo->err->format_message)(cinfo, c->message);
        c->warned = 1;
    }
}

/* A progressive JPEG may hold any number of scans, and each one passes over
 * the whole image: a small file could cost minutes. Encoders write a few
 * dozen at most. */
#define JPEG_MAX_SCANS 1000

static void jpeg_on_progress(j_common_ptr cinfo)
{
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (cinfo->is_decompressor && d->input_scan_number > JPEG_MAX_SCANS) {
        jpeg_err_ctx *c = (jpeg_err_ctx *)cinfo->err;
        snprintf(c->message, sizeof c->message, "more than %d progressive scans", JPEG_MAX_SCANS);
        longjmp(c->jump, 1);
    }
}

static uint16_t rd16(const uint8_t *p, int le) { return le ? (uint16_t)(p[0] | p[1] << 8) : (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p, int le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* EXIF orientation (1..8) from an APP1 payload; 1 when absent or odd. The
 * IFD offset and entry count come from the file: each is checked as
 * `off > len || n > len - off` (no sum that could wrap) before a byte is
 * read, and an entry that does not fit ends the walk. */
static int exif_orientation(const uint8_t *d, size_t len)
{
    if (len < 6 + 8 || memcmp(d, "Exif\0\0", 6) != 0)
        return 1;
    const uint8_t *t = d + 6; /* the TIFF block: byte order, 42, IFD0 offset */
    size_t tl = len - 6;
    int le = t[0] == 'I' && t[1] == 'I';
    if (!le && !(t[0] == 'M' && t[1] == 'M'))
        return 1;
    size_t ifd = rd32(t + 4, le);
    if (ifd > tl || 2 > tl - ifd)
        return 1;
    size_t count = rd16(t + ifd, le), first = ifd + 2; /* first <= tl */
    size_t fit = (tl - first) / 12;                    /* whole 12-byte entries present */
    for (size_t i = 0; i < count && i < fit; i++) {
        const uint8_t *e = t + first + i * 12;
        if (rd16(e, le) == 0x0112) { /* a SHORT: its value is the field's first 2 bytes */
            int o = rd16(e + 8, le);
            return o >= 1 && o <= 8 ? o : 1;
        }
    }
    return 1;
}

/* Applies an EXIF orientation to an RGB image (new buffer). */
static int orient(img_image *img, int o)
{
    if (o == 1)
        return IMG_OK;
    int32_t w = img->width, h = img->height, c = img->channels;
    int swap = o >= 5;
    img_image r;
    if (img_alloc(&r, swap ? h : w, swap ? w : h, c))
        return IMG_ERR_NOMEM;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            int32_t nx, ny;
            switch (o) {
            case 2: nx = w - 1 - x; ny = y; break;
            case 3: nx = w - 1 - x; ny = h - 1 - y; break;
            case 4: nx = x; ny = h - 1 - y; break;
            case 5: nx = y; ny = x; break;
            case 6: nx = h - 1 - y; ny = x; break;
            case 7: nx = h - 1 - y; ny = w - 1 - x; break;
            default: nx = y; ny = w - 1 - x; break; /* 8 */
            }
            memcpy(r.data + ((size_t)ny * r.width + nx) * c, img->data + ((size_t)y * w + x) * c, (size_t)c);
        }
    img_free(img);
    *img = r;
    return IMG_OK;
}

static int load_jpeg(const char *path, const uint8_t *buf, size_t len, int64_t max_pixels,
                     img_image *out, img_error *err)
{
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress = {.progress_monitor = jpeg_on_progress};
    jpeg_err_ctx jerr;
    volatile int rc = IMG_OK;
    memset(out, 0, sizeof *out);
    memset(&jerr, 0, sizeof jerr);
    cinfo.err = jpeg_std_error(&jerr.mgr);
    jerr.mgr.error_exit = jpeg_on_error;
    jerr.mgr.emit_message = jpeg_on_message;
    if (setjmp(jerr.jump)) {
        if (jerr.mgr.msg_code == JERR_OUT_OF_MEMORY) /* a failed allocation, not a corrupt file */
            rc = fail(err, IMG_ERR_NOMEM, path, "out of memory");
        else
            rc = fail(err, IMG_ERR_CORRUPT, path, "corrupt JPEG: %s", jerr.message);
        goto done;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, buf, (unsigned long)len);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&cinfo, TRUE);
    rc = check_size(path, cinfo.image_width, cinfo.image_height, max_pixels, err);
    if (rc)
        goto done;
    int orientation = 1;
    /* the first EXIF block (other APP1 blocks, e.g. XMP, hold no orientation) */
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && !memcmp(m->data, "Exif\0\0", 6)) {
            orientation = exif_orientation(m->data, m->data_length);
            break;
        }
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    if (img_alloc(out, (int32_t)cinfo.output_width, (int32_t)cinfo.output_height, 3)) {
        rc = fail(err, IMG_ERR_NOMEM, path, "out of memory");
        goto done;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = out->data + (size_t)cinfo.output_scanline * (size_t)out->width * 3;
        jpeg_read_scanlines(&cinfo, &row, 1);
        if (jerr.warned)
            break;
    }
    if (!jerr.warned)
        jpeg_finish_decompress(&cinfo);
    if (jerr.warned) {
        rc = fail(err, IMG_ERR_CORRUPT, path, "corrupt JPEG: %s", jerr.message);
        goto done;
    }
    if (orient(out, orientation)) {
        rc = fail(err, IMG_ERR_NOMEM, path, "out of memory");
        goto done;
    }
done:
    jpeg_destroy_decompress(&cinfo);
    if (rc)
        img_free(out);
    return rc;
}

/* ---------------- BMP, TGA, GIF (stb_image) ---------------- */
/* stb_image pads a short file with zeros and decodes whatever its header
 * claims, so before it runs each format's header is read here: the size
 * goes to the pixel limit, and the file must hold every byte that header
 * implies (else IMG_ERR_CORRUPT). Each check sets *comp to the channels
 * stb_image will report (1 grey, 2 grey+alpha, 3, 4). */

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

static int truncated(const char *path, const char *format, uint64_t need, size_t len, img_error *err)
{
    return fail(err, IMG_ERR_CORRUPT, path, "truncated %s: the header implies %llu bytes, the file has %zu",
                format, (unsigned long long)need, len);
}

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
        return truncated(path, "BMP", 18, len, err);
    uint32_t off = le32(b + 10), hsz = le32(b + 14);
    if (hsz != 12 && hsz != 40 && hsz != 56 && hsz != 108 && hsz != 124)
        return fail(err, IMG_ERR_FORMAT, path, "unsupported BMP header size %u", hsz);
    if (len < 14 + (size_t)hsz)
        return truncated(path, "BMP", 14 + (uint64_t)hsz, len, err);
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
        return fail(err, IMG_ERR_FORMAT, path, "unsupported BMP compression %u (RLE, JPEG or PNG)", compress);
    if (planes != 1 || (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) ||
        (compress == 3 && bpp != 16 && bpp != 32))
        return fail(err, IMG_ERR_CORRUPT, path, "corrupt BMP header (%u planes, %u bits per pixel)", planes, bpp);
    /* bit-field masks follow a 40- or 56-byte header */
    uint64_t header_end = 14 + (uint64_t)hsz + (compress == 3 && hsz <= 56 ? 12 : 0);
    if (off < header_end)
        return fail(err, IMG_ERR_CORRUPT, path, "corrupt BMP: pixel data at %u, inside the header", off);
    int rc = check_size(path, w, h, max_pixels, err);
    if (rc)
        return rc;
    /* w, h < 2^29 (check_size): no product below can overflow */
    uint64_t row = ((uint64_t)w * bpp + 7) / 8, stride = ((uint64_t)w * bpp + 31) / 32 * 4;
    uint64_t need = off + stride * (uint64_t)(h - 1) + row;
    if (need > len)
        return truncated(path, "BMP", need, len, err);
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
        return truncated(path, "TGA", 18, len, err);
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
        return fail(err, IMG_ERR_FORMAT, path, "unrecognised image format");
    if (mapped && map_len == 0)
        return fail(err, IMG_ERR_CORRUPT, path, "corrupt TGA: empty colour map");
    int rc = check_size(path, w, h, max_pixels, err);
    if (rc)
        return rc;
    uint64_t pos = 18 + (uint64_t)b[0];
    if (mapped)
        pos += map_first + (uint64_t)map_len * ((map_bits + 7) / 8);
    uint64_t px = (bpp + 7) / 8, total = (uint64_t)w * (uint64_t)h;
    if (type < 8) {
        uint64_t need = pos + total * px;
        if (need > len)
            return truncated(path, "TGA", need, len, err);
    } else {
        for (uint64_t done = 0; done < total;) {
            if (pos >= len)
                return truncated(path, "TGA", pos + 1, len, err);
            uint64_t count = (uint64_t)(b[pos] & 0x7f) + 1, left = total - done;
            count = count < left ? count : left;
            pos += 1 + (b[pos] & 0x80 ? px : count * px);
            done += count;
        }
        if (pos > len)
            return truncated(path, "TGA", pos, len, err);
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
        return truncated(path, "GIF", 13, len, err);
    if ((b[4] != '7' && b[4] != '9') || b[5] != 'a')
        return fail(err, IMG_ERR_FORMAT, path, "unrecognised image format");
    int64_t w = le16(b + 6), h = le16(b + 8);
    int rc = check_size(path, w, h, max_pixels, err);
    if (rc)
        return rc;
    int global = b[10] & 0x80;
    size_t pos = 13 + (global ? (size_t)3 << (1 + (b[10] & 7)) : 0);
    for (;;) {
        if (pos >= len)
            return truncated(path, "GIF", (uint64_t)pos + 1, len, err);
        uint8_t kind = b[pos++];
        if (kind == 0x2C) {
            if (len - pos < 9)
                return truncated(path, "GIF", (uint64_t)pos + 9, len, err);
            uint32_t x = le16(b + pos), y = le16(b + pos + 2), fw = le16(b + pos + 4), fh = le16(b + pos + 6);
            uint8_t flags = b[pos + 8];
            if (x + fw > w || y + fh > h || (!(flags & 0x80) && !global))
                return fail(err, IMG_ERR_CORRUPT, path, "corrupt GIF image descriptor");
            pos += 9 + (flags & 0x80 ? (size_t)3 << (1 + (flags & 7)) : 0) + 1; /* + LZW code size */
        } else if (kind == 0x21) {
            pos++; /* the label */
        } else {
            return fail(err, IMG_ERR_CORRUPT, path, "corrupt GIF: %s block 0x%02x", kind == 0x3B ? "no image before" : "unknown",
                        kind);
        }
        for (;;) { /* sub-blocks */
            if (pos >= len)
                return truncated(path, "GIF", (uint64_t)pos + 1, len, err);
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
static int load_stb(const char *path, const uint8_t *buf, size_t len, int labels, int64_t max_pixels,
                    img_image *out, img_error *err)
{
    int comp = 0, rc;
    memset(out, 0, sizeof *out);
    if (len > INT32_MAX)
        return fail(err, IMG_ERR_TOO_LARGE, path, "file larger than 2 GiB");
    if (len >= 2 && buf[0] == 'B' && buf[1] == 'M')
        rc = bmp_check(path, buf, len, max_pixels, &comp, err);
    else if (len >= 5 && !memcmp(buf, "GIF8", 4))
        rc = gif_check(path, buf, len, max_pixels, &comp, err);
    else if (len >= 2 && buf[1] <= 1)
        rc = tga_check(path, buf, len, max_pixels, &comp, err);
    else
        rc = fail(err, IMG_ERR_FORMAT, path, "unrecognised image format");
    if (rc)
        return rc;
    int w, h, got;
    int want = labels && comp <= 2 ? 1 : 3;
    uint8_t *px = stbi_load_from_memory(buf, (int)len, &w, &h, &got, want);
    if (!px)
        return fail(err, IMG_ERR_CORRUPT, path, "cannot decode: %s", stbi_failure_reason());
    if (img_alloc(out, w, h, want)) {
        stbi_image_free(px);
        return fail(err, IMG_ERR_NOMEM, path, "out of memory");
    }
    memcpy(out->data, px, (size_t)w * (size_t)h * (size_t)want);
    stbi_image_free(px);
    return IMG_OK;
}

/* ---------------- PNM (P2, P3, P5, P6) ---------------- */
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
static int load_pnm(const char *path, const uint8_t *b, size_t len, int labels, int64_t max_pixels,
                    img_image *out, img_error *err)
{
    memset(out, 0, sizeof *out);
    int ascii = b[1] == '2' || b[1] == '3', channels = b[1] == '3' || b[1] == '6' ? 3 : 1;
    size_t pos = 2;
    uint64_t w, h, maxval;
    if (pnm_number(b, len, &pos, &w) || pnm_number(b, len, &pos, &h) || pnm_number(b, len, &pos, &maxval))
        return fail(err, IMG_ERR_CORRUPT, path, "corrupt or truncated PNM header");
    int rc = check_size(path, (int64_t)w, (int64_t)h, max_pixels, err);
    if (rc)
        return rc;
    if (maxval == 0 || maxval > 65535)
        return fail(err, IMG_ERR_CORRUPT, path, "corrupt PNM: maximum value %llu", (unsigned long long)maxval);
    if (pos >= len || !pnm_space(b[pos]))
        return fail(err, IMG_ERR_CORRUPT, path, "corrupt or truncated PNM header");
    pos++;
    uint64_t samples = w * h * (uint64_t)channels, bytes = maxval > 255 ? 2 : 1;
    /* before allocating: binary data is all there; ASCII has room for the
     * samples (one digit and one separator each, but the last) */
    if (!ascii && samples * bytes > len - pos)
        return truncated(path, "PNM", pos + samples * bytes, len, err);
    if (ascii && samples * 2 - 1 > len - pos)
        return fail(err, IMG_ERR_CORRUPT, path, "truncated PNM: %llu samples cannot fit in %zu bytes",
                    (unsigned long long)samples, len - pos);
    int want = labels && channels == 1 ? 1 : 3;
    if (img_alloc(out, (int32_t)w, (int32_t)h, want))
        return fail(err, IMG_ERR_NOMEM, path, "out of memory");
    uint8_t *d = out->data;
    for (uint64_t i = 0; i < samples; i++) {
        uint64_t v;
        if (ascii) {
            if (pnm_number(b, len, &pos, &v) || v > maxval) {
                img_free(out);
                return fail(err, IMG_ERR_CORRUPT, path, "%s PNM sample %llu of %llu",
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

static int is_pnm(const uint8_t *b, size_t len)
{
    return len >= 2 && b[0] == 'P' && (b[1] == '2' || b[1] == '3' || b[1] == '5' || b[1] == '6');
}

int img_load_memory(const uint8_t *buf, size_t len, const char *name, int labels, int64_t max_pixels,
                    img_image *out, img_error *err)
{
    memset(out, 0, sizeof *out);
    if (!buf && len)
        return fail(err, IMG_ERR_INVALID, name, "no data");
    if (img_is_png(buf, len))
        return load_png(name, buf, len, labels, max_pixels, out, err);
    if (img_is_jpeg(buf, len))
        return labels ? fail(err, IMG_ERR_FORMAT, name, "seed images must be lossless (PNG, BMP, TGA, GIF, PNM), not JPEG")
                      : load_jpeg(name, buf, len, max_pixels, out, err);
    if (len == 0)
        return fail(err, IMG_ERR_CORRUPT, name, "empty file");
    if (is_pnm(buf, len))
        return load_pnm(name, buf, len, labels, max_pixels, out, err);
    return load_stb(name, buf, len, labels, max_pixels, out, err);
}

static int load_any(const char *path, int labels, int64_t max_pixels, img_image *out, img_error *err)
{
    uint8_t *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = read_file(path, max_pixels, &buf, &len, err);
    if (rc)
        return rc;
    rc = img_load_memory(buf, len, path, labels, max_pixels, out, err);
    free(buf);
    return rc;
}

int img_load_rgb(const char *path, int64_t max_pixels, img_image *out, img_error *err)
{
    return load_any(path, 0, max_pixels, out, err);
}

int img_load_labels(const char *path, int64_t max_pixels, img_image *out, img_error *err)
{
    return load_any(path, 1, max_pixels, out, err);
}
