/* Image decoding: errors, reading the file, format detection, libpng,
 * libjpeg-turbo (+EXIF); stb_image's formats are stb.c's, PNM pnm.c's. */
#define _POSIX_C_SOURCE 200809L
#include "flowcut/images.h"
#include "format.h"
#include "loader.h"

#include <errno.h>
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <setjmp.h>
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

int img_fail(img_error *err, int code, const char *file, const char *fmt, ...)
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

int img_check_size(const char *path, int64_t w, int64_t h, int64_t max_pixels, img_error *err)
{
    if (max_pixels <= 0)
        max_pixels = IMG_DEFAULT_MAX_PIXELS;
    if (w <= 0 || h <= 0)
        return img_fail(err, IMG_ERR_CORRUPT, path, "invalid image size %lldx%lld", (long long)w, (long long)h);
    if (w > INT32_MAX / 4 || h > INT32_MAX / 4 || w * h > max_pixels)
        return img_fail(err, IMG_ERR_TOO_LARGE, path, "%lldx%lld pixels exceed the limit of %lld pixels",
                        (long long)w, (long long)h, (long long)max_pixels);
    return IMG_OK;
}

int img_truncated(const char *path, const char *format, uint64_t need, size_t len, img_error *err)
{
    return img_fail(err, IMG_ERR_CORRUPT, path, "truncated %s: the header implies %llu bytes, the file has %zu",
                    format, (unsigned long long)need, len);
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
        return img_fail(err, IMG_ERR_IO, path, "cannot open: %s", strerror(errno));
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
            return img_fail(err, IMG_ERR_TOO_LARGE, path, "file of %lld bytes is too large for %lld pixels",
                            (long long)st.st_size, (long long)max_pixels);
        }
        cap = (size_t)st.st_size + 1; /* + 1: end of file seen without a second allocation */
    }
    uint8_t *b = malloc(cap);
    if (!b) {
        fclose(f);
        return img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
    }
    for (;;) {
        if (*len == cap) {
            if ((int64_t)cap > limit / 2) {
                free(b);
                fclose(f);
                return img_fail(err, IMG_ERR_TOO_LARGE, path, "file too large for %lld pixels", (long long)max_pixels);
            }
            uint8_t *t = realloc(b, cap * 2);
            if (!t) {
                free(b);
                fclose(f);
                return img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
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
        return img_fail(err, IMG_ERR_IO, path, "read error");
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
        return img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        /* libpng and zlib say "insufficient memory" / "out of memory" when an
         * allocation failed: that is not a corrupt file */
        if (strcasestr_memory(ctx.message))
            rc = img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
        else
            rc = img_fail(err, IMG_ERR_CORRUPT, path, "corrupt PNG: %s", ctx.message);
        goto done;
    }
    /* the size from IHDR before libpng reads further: a bare oversized header
     * must fail as too large, not as truncated */
    if (len >= 24) {
        uint32_t hw = (uint32_t)buf[16] << 24 | (uint32_t)buf[17] << 16 | (uint32_t)buf[18] << 8 | buf[19];
        uint32_t hh = (uint32_t)buf[20] << 24 | (uint32_t)buf[21] << 16 | (uint32_t)buf[22] << 8 | buf[23];
        rc = img_check_size(path, hw, hh, max_pixels, err);
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
    rc = img_check_size(path, w, h, max_pixels, err);
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
        rc = img_fail(err, IMG_ERR_FORMAT, path, "unsupported PNG layout");
        goto done;
    }
    if (img_alloc(out, (int32_t)w, (int32_t)h, channels)) {
        rc = img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
        goto done;
    }
    uint8_t **r = malloc(sizeof(uint8_t *) * h);
    if (!r) {
        rc = img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
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

/* One scanline of inks to RGB: each channel is what its ink and the black
 * leave of the paper. Adobe's files (Photoshop's, most CMYK JPEGs) store
 * the inks inverted (255: no ink). */
static void cmyk_to_rgb(const uint8_t *inks, uint8_t *rgb, int32_t width, int adobe)
{
    for (int32_t x = 0; x < width; x++, inks += 4, rgb += 3) {
        const int k = adobe ? inks[3] : 255 - inks[3];
        for (int c = 0; c < 3; c++) {
            const int paper = adobe ? inks[c] : 255 - inks[c];
            rgb[c] = (uint8_t)((paper * k + 127) / 255);
        }
    }
}

static int load_jpeg(const char *path, const uint8_t *buf, size_t len, int64_t max_pixels,
                     img_image *out, img_error *err)
{
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress = {.progress_monitor = jpeg_on_progress};
    jpeg_err_ctx jerr;
    volatile int rc = IMG_OK;
    uint8_t *volatile cmyk_row = NULL; /* a CMYK photo's scanline before its RGB */
    memset(out, 0, sizeof *out);
    memset(&jerr, 0, sizeof jerr);
    cinfo.err = jpeg_std_error(&jerr.mgr);
    jerr.mgr.error_exit = jpeg_on_error;
    jerr.mgr.emit_message = jpeg_on_message;
    if (setjmp(jerr.jump)) {
        if (jerr.mgr.msg_code == JERR_OUT_OF_MEMORY) /* a failed allocation, not a corrupt file */
            rc = img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
        else
            rc = img_fail(err, IMG_ERR_CORRUPT, path, "corrupt JPEG: %s", jerr.message);
        goto done;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, buf, (unsigned long)len);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xffff);
    jpeg_read_header(&cinfo, TRUE);
    rc = img_check_size(path, cinfo.image_width, cinfo.image_height, max_pixels, err);
    if (rc)
        goto done;
    int orientation = 1;
    /* the first EXIF block (other APP1 blocks, e.g. XMP, hold no orientation) */
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && !memcmp(m->data, "Exif\0\0", 6)) {
            orientation = exif_orientation(m->data, m->data_length);
            break;
        }
    /* print shops' CMYK (and YCCK) JPEGs: libjpeg gives the inks, which
     * become RGB here (libjpeg converts no CMYK to RGB) */
    const int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    if (img_alloc(out, (int32_t)cinfo.output_width, (int32_t)cinfo.output_height, 3) ||
        (cmyk && !(cmyk_row = malloc((size_t)cinfo.output_width * 4)))) {
        rc = img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
        goto done;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = out->data + (size_t)cinfo.output_scanline * (size_t)out->width * 3;
        if (cmyk) {
            JSAMPROW inks = cmyk_row;
            jpeg_read_scanlines(&cinfo, &inks, 1);
            cmyk_to_rgb(cmyk_row, row, out->width, cinfo.saw_Adobe_marker);
        } else {
            jpeg_read_scanlines(&cinfo, &row, 1);
        }
        if (jerr.warned)
            break;
    }
    if (!jerr.warned)
        jpeg_finish_decompress(&cinfo);
    if (jerr.warned) {
        rc = img_fail(err, IMG_ERR_CORRUPT, path, "corrupt JPEG: %s", jerr.message);
        goto done;
    }
    if (orient(out, orientation)) {
        rc = img_fail(err, IMG_ERR_NOMEM, path, "out of memory");
        goto done;
    }
done:
    jpeg_destroy_decompress(&cinfo);
    free(cmyk_row);
    if (rc)
        img_free(out);
    return rc;
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
        return img_fail(err, IMG_ERR_INVALID, name, "no data");
    if (img_is_png(buf, len))
        return load_png(name, buf, len, labels, max_pixels, out, err);
    if (img_is_jpeg(buf, len))
        return labels ? img_fail(err, IMG_ERR_FORMAT, name, "seed images must be lossless (PNG, BMP, TGA, GIF, PNM), not JPEG")
                      : load_jpeg(name, buf, len, max_pixels, out, err);
    if (len == 0)
        return img_fail(err, IMG_ERR_CORRUPT, name, "empty file");
    if (is_pnm(buf, len))
        return img_load_pnm(name, buf, len, labels, max_pixels, out, err);
    return img_load_stb(name, buf, len, labels, max_pixels, out, err);
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
