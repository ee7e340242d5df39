/* Image decoding: format detection, libpng, libjpeg-turbo (+EXIF), stb_image. */
#define _POSIX_C_SOURCE 200809L
#include "flowcut/images.h"
#include "format.h"

#include <errno.h>
#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <stb/stb_image.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

static int read_file(const char *path, uint8_t **buf, size_t *len, img_error *err)
{
    FILE *f = fopen(path, "rb");
    *buf = NULL;
    *len = 0;
    if (!f)
        return fail(err, IMG_ERR_IO, path, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16;
    uint8_t *b = malloc(cap);
    if (!b) {
        fclose(f);
        return fail(err, IMG_ERR_NOMEM, path, "out of memory");
    }
    for (;;) {
        if (*len == cap) {
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
    uint8_t **rows = NULL;
    volatile int rc = IMG_OK;
    memset(out, 0, sizeof *out);
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, NULL);
        return fail(err, IMG_ERR_NOMEM, path, "out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
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
     * an error); the zlib stream's own Adler-32 over the same bytes was 6%
     * of a seg-dev photo's decode */
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
    rows = malloc(sizeof(uint8_t *) * h);
    if (!rows) {
        rc = fail(err, IMG_ERR_NOMEM, path, "out of memory");
        goto done;
    }
    for (png_uint_32 y = 0; y < h; y++)
        rows[y] = out->data + (size_t)y * w * (size_t)channels;
    png_read_image(png, rows);
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

static uint16_t rd16(const uint8_t *p, int le) { return le ? (uint16_t)(p[0] | p[1] << 8) : (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p, int le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* EXIF orientation (1..8) from an APP1 payload; 1 when absent or odd. */
static int exif_orientation(const uint8_t *d, size_t len)
{
    if (len < 14 || memcmp(d, "Exif\0\0", 6) != 0)
        return 1;
    const uint8_t *t = d + 6;
    size_t tl = len - 6;
    int le = t[0] == 'I' && t[1] == 'I';
    if (!le && !(t[0] == 'M' && t[1] == 'M'))
        return 1;
    uint32_t ifd = rd32(t + 4, le);
    if (ifd + 2 > tl)
        return 1;
    uint16_t count = rd16(t + ifd, le);
    for (uint16_t i = 0; i < count; i++) {
        size_t e = ifd + 2 + (size_t)i * 12;
        if (e + 12 > tl)
            return 1;
        if (rd16(t + e, le) == 0x0112) {
            int o = rd16(t + e + 8, le);
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
    jpeg_err_ctx jerr;
    volatile int rc = IMG_OK;
    memset(out, 0, sizeof *out);
    memset(&jerr, 0, sizeof jerr);
    cinfo.err = jpeg_std_error(&jerr.mgr);
    jerr.mgr.error_exit = jpeg_on_error;
    jerr.mgr.emit_message = jpeg_on_message;
    if (setjmp(jerr.jump)) {
        rc = fail(err, IMG_ERR_CORRUPT, path, "corrupt JPEG: %s", jerr.message);
        goto done;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, buf, (unsigned long)len);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&cinfo, TRUE);
    rc = check_size(path, cinfo.image_width, cinfo.image_height, max_pixels, err);
    if (rc)
        goto done;
    int orientation = 1;
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1)
            orientation = exif_orientation(m->data, m->data_length);
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

/* ---------------- BMP, TGA, GIF, PNM (stb_image) ---------------- */
static int load_stb(const char *path, const uint8_t *buf, size_t len, int labels,
                    int64_t max_pixels, img_image *out, img_error *err)
{
    int w, h, comp;
    memset(out, 0, sizeof *out);
    if (len > INT32_MAX || !stbi_info_from_memory(buf, (int)len, &w, &h, &comp))
        return fail(err, IMG_ERR_FORMAT, path, "unrecognised or corrupt image (%s)", stbi_failure_reason());
    int rc = check_size(path, w, h, max_pixels, err);
    if (rc)
        return rc;
    int want = labels && comp <= 2 ? 1 : 3;
    uint8_t *px = stbi_load_from_memory(buf, (int)len, &w, &h, &comp, want);
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

static int load_any(const char *path, int labels, int64_t max_pixels, img_image *out, img_error *err)
{
    uint8_t *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    if (img_is_png(buf, len))
        rc = load_png(path, buf, len, labels, max_pixels, out, err);
    else if (img_is_jpeg(buf, len))
        rc = labels ? fail(err, IMG_ERR_FORMAT, path, "seed images must be lossless (PNG, BMP, TGA, GIF, PNM), not JPEG")
                    : load_jpeg(path, buf, len, max_pixels, out, err);
    else if (len == 0)
        rc = fail(err, IMG_ERR_CORRUPT, path, "empty file");
    else
        rc = load_stb(path, buf, len, labels, max_pixels, out, err);
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
