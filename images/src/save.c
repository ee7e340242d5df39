/* PNG encoding of masks, overlays and cut-outs (libpng). */
#include "flowcut/images.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void on_error(png_structp png, png_const_charp msg)
{
    (void)msg;
    png_longjmp(png, 1);
}

/* libpng's default prints warnings ("Out of memory") on stderr: a library
 * never prints; a failure that matters comes back as an error */
static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

int img_write_png(FILE *f, const img_image *img, const char *name, img_error *err)
{
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGBA};
    if (!img->data || img->channels < 1 || img->channels > 4)
        return IMG_ERR_INVALID;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    volatile int rc = IMG_OK;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        return IMG_ERR_NOMEM;
    }
    if (setjmp(png_jmpbuf(png))) {
        rc = IMG_ERR_IO;
        if (err) {
            err->code = rc;
            snprintf(err->file, sizeof err->file, "%s", name ? name : "");
            snprintf(err->message, sizeof err->message, "PNG write failed");
        }
        goto done;
    }
    png_init_io(png, f);
    /* masks compress well at a fast level; speed matters in batches */
    png_set_compression_level(png, 3);
    if (img->channels == 1) {
        /* a mask is runs of 0 and 255: unfiltered rows and zlib's run-length
         * strategy (Z_RLE) skip libpng's per-row filter trials and zlib's
         * string search: faster, and smaller files than the defaults */
        png_set_filter(png, 0, PNG_FILTER_NONE);
        png_set_compression_strategy(png, Z_RLE);
    }
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)img->height, 8, types[img->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int32_t y = 0; y < img->height; y++)
        png_write_row(png, img->data + (size_t)y * (size_t)img->width * (size_t)img->channels);
    png_write_end(png, NULL);
done:
    png_destroy_write_struct(&png, &info);
    return rc;
}
