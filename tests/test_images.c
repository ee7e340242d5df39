/* images: formats, seed layouts, EXIF orientation, limits, corrupt files. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/images.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_png_round_trip(void **state)
{
    (void)state;
    for (int channels = 1; channels <= 4; channels++) {
        img_image a, b;
        img_error err = {0};
        assert_int_equal(img_alloc(&a, 7, 5, channels), IMG_OK);
        for (int i = 0; i < 7 * 5 * channels; i++)
            a.data[i] = (uint8_t)(i * 37 + channels);
        char path[] = "/tmp/flowcut-img-XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fdopen(fd, "wb");
        assert_int_equal(img_write_png(f, &a, path, &err), IMG_OK);
        fclose(f);
        if (channels == 1) {
            assert_int_equal(img_load_labels(path, 0, &b, &err), IMG_OK);
            assert_int_equal(b.channels, 1);
            assert_memory_equal(a.data, b.data, 35);
            img_free(&b);
        } else if (channels == 3) {
            assert_int_equal(img_load_rgb(path, 0, &b, &err), IMG_OK);
            assert_memory_equal(a.data, b.data, 35 * 3);
            img_free(&b);
        }
        assert_int_equal(img_load_rgb(path, 0, &b, &err), IMG_OK);
        assert_int_equal(b.width, 7);
        assert_int_equal(b.height, 5);
        assert_int_equal(b.channels, 3);
        img_free(&b);
        unlink(path);
        img_free(&a);
    }
}

static void test_palette_indices_are_kept(void **state)
{
    (void)state;
    img_image s;
    img_error err = {0};
    assert_int_equal(img_load_labels(test_data_path("seeds-palette.png"), 0, &s, &err), IMG_OK);
    static const uint8_t want[8] = {0, 1, 2, 0, 2, 1, 0, 1};
    assert_int_equal(s.channels, 1);
    assert_memory_equal(s.data, want, 8);
    img_free(&s);
    assert_int_equal(img_load_rgb(test_data_path("seeds-palette.png"), 0, &s, &err), IMG_OK);
    assert_int_equal(s.data[3], 200); /* index 1 -> (200, 10, 10) */
    img_free(&s);
}

static void test_sixteen_bit_grey_alpha(void **state)
{
    (void)state;
    img_image s;
    img_error err = {0};
    assert_int_equal(img_load_rgb(test_data_path("grey16-alpha.png"), 0, &s, &err), IMG_OK);
    assert_int_equal(s.channels, 3);
    assert_int_equal(s.data[0], 255);
    assert_int_equal(s.data[3], 0);
    img_free(&s);
}

static void test_jpeg_and_exif_orientation(void **state)
{
    (void)state;
    img_image a, b;
    img_error err = {0};
    assert_int_equal(img_load_rgb(test_data_path("tiny.jpg"), 0, &a, &err), IMG_OK);
    assert_int_equal(a.width, 16);
    assert_int_equal(a.height, 8);
    assert_true(a.data[0] > 200 && a.data[2] < 60); /* left: red */
    assert_int_equal(img_load_rgb(test_data_path("tiny-exif6.jpg"), 0, &b, &err), IMG_OK);
    /* orientation 6: rotate 90 degrees clockwise, the red left half on top */
    assert_int_equal(b.width, 8);
    assert_int_equal(b.height, 16);
    assert_true(b.data[0] > 200 && b.data[2] < 60);
    const uint8_t *bottom = b.data + (size_t)15 * 8 * 3;
    assert_true(bottom[2] > 200 && bottom[0] < 60);
    img_free(&a);
    img_free(&b);
    /* a CMYK JPEG: its inks become the same red and blue halves */
    assert_int_equal(img_load_rgb(test_data_path("tiny-cmyk.jpg"), 0, &a, &err), IMG_OK);
    assert_int_equal(a.width, 16);
    assert_int_equal(a.height, 8);
    assert_int_equal(a.channels, 3);
    for (int y = 0; y < 8; y++) {
        const uint8_t *left = a.data + (size_t)y * 16 * 3, *right = left + 15 * 3;
        assert_true(left[0] > 200 && left[1] < 60 && left[2] < 60);
        assert_true(right[2] > 200 && right[0] < 60 && right[1] < 60);
    }
    img_free(&a);
}

static void test_stb_formats(void **state)
{
    (void)state;
    img_image a;
    img_error err = {0};
    assert_int_equal(img_load_rgb(test_data_path("tiny.bmp"), 0, &a, &err), IMG_OK);
    assert_int_equal(a.width, 16);
    assert_true(a.data[0] == 255 && a.data[2] == 0);
    img_free(&a);
}

static void test_corrupt_and_oversized_inputs_fail_with_the_file_name(void **state)
{
    (void)state;
    img_image a;
    img_error err = {0};
    assert_int_equal(img_load_rgb(test_data_path("huge-header.png"), 0, &a, &err), IMG_ERR_TOO_LARGE);
    assert_non_null(strstr(err.file, "huge-header.png"));
    assert_int_equal(img_load_rgb(test_data_path("truncated.jpg"), 0, &a, &err), IMG_ERR_CORRUPT);
    assert_non_null(strstr(err.file, "truncated.jpg"));
    assert_int_equal(img_load_rgb(test_data_path("tiny.jpg"), 100, &a, &err), IMG_ERR_TOO_LARGE);
    assert_int_equal(img_load_rgb("/nonexistent.png", 0, &a, &err), IMG_ERR_IO);
    assert_int_equal(img_load_labels(test_data_path("tiny.jpg"), 0, &a, &err), IMG_ERR_FORMAT);
    /* a truncated PNG and random bytes */
    char path[] = "/tmp/flowcut-bad-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    FILE *src = fopen(test_data_path("seeds-palette.png"), "rb");
    char buf[60];
    size_t got = fread(buf, 1, sizeof buf, src);
    fclose(src);
    fwrite(buf, 1, got, f);
    fclose(f);
    assert_int_equal(img_load_rgb(path, 0, &a, &err), IMG_ERR_CORRUPT);
    f = fopen(path, "wb");
    fputs("this is not an image at all", f);
    fclose(f);
    assert_int_equal(img_load_rgb(path, 0, &a, &err), IMG_ERR_FORMAT);
    f = fopen(path, "wb");
    fclose(f);
    assert_int_equal(img_load_rgb(path, 0, &a, &err), IMG_ERR_CORRUPT);
    unlink(path);
}

/* Header probes agree with full decodes (the stored size: EXIF rotation
 * swaps it, the pixel count stays), refuse what they cannot read, and
 * read an oversized header's size without allocating it. */
static void test_probe_size(void **state)
{
    (void)state;
    static const char *files[] = {"tiny.jpg", "tiny-exif6.jpg", "grey16-alpha.png", "seeds-palette.png"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        int32_t w = 0, h = 0;
        assert_int_equal(img_probe_size(test_data_path(files[k]), &w, &h), IMG_OK);
        img_image a;
        img_error err = {0};
        assert_int_equal(img_load_rgb(test_data_path(files[k]), 0, &a, &err), IMG_OK);
        assert_int_equal((int64_t)w * h, (int64_t)a.width * a.height);
        img_free(&a);
    }
    int32_t w, h;
    assert_int_equal(img_probe_size(test_data_path("huge-header.png"), &w, &h), IMG_OK);
    assert_int_equal(w, 200000);
    assert_int_equal(h, 200000);
    assert_int_equal(img_probe_size(test_data_path("tiny.bmp"), &w, &h), IMG_ERR_FORMAT);
    assert_int_equal(img_probe_size(test_data_path("no-such-file.png"), &w, &h), IMG_ERR_IO);
    assert_int_equal(img_probe_size(test_data_path("max_flow.dat"), &w, &h), IMG_ERR_FORMAT);
    assert_int_equal(img_probe_size(NULL, &w, &h), IMG_ERR_INVALID);
}


/* ---- crafted and damaged files ---- */

/* The whole of a fixture, malloc'ed. */
static uint8_t *read_fixture(const char *name, size_t *len)
{
    FILE *f = fopen(test_data_path(name), "rb");
    assert_non_null(f);
    uint8_t *b = malloc(1 << 16);
    assert_non_null(b);
    *len = fread(b, 1, 1 << 16, f);
    fclose(f);
    return b;
}

/* Writes n bytes to a new temporary file whose name goes to path. */
static void write_tmp(char path[32], const void *data, size_t n)
{
    strcpy(path, "/tmp/flowcut-img-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static int load_bytes(const void *data, size_t n, int labels, int64_t max_pixels, img_image *out)
{
    char path[32];
    img_error err = {0};
    write_tmp(path, data, n);
    int rc = labels ? img_load_labels(path, max_pixels, out, &err) : img_load_rgb(path, max_pixels, out, &err);
    unlink(path);
    return rc;
}

/* An EXIF IFD offset near 2^32 must not wrap the bound check into a read
 * before or far past the APP1 payload: the block is ignored, the JPEG loads
 * upright. Also offsets and counts at every edge of a small payload. */
static void test_exif_offsets_past_the_payload_are_ignored(void **state)
{
    (void)state;
    img_image a;
    img_error err = {0};
    assert_int_equal(img_load_rgb(test_data_path("exif-wrap.jpg"), 0, &a, &err), IMG_OK);
    assert_int_equal(a.width, 16);
    assert_int_equal(a.height, 8);
    assert_true(a.data[0] > 200 && a.data[2] < 60);
    img_free(&a);

    size_t jl;
    uint8_t *jpg = read_fixture("tiny.jpg", &jl);
    static const uint32_t offsets[] = {0xFFFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFF4u, 0x80000000u, 8, 9, 10, 11, 12, 13};
    static const uint16_t counts[] = {0, 1, 2, 0xFFFF};
    for (int le = 0; le < 2; le++)
        for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                /* "Exif\0\0", the TIFF header, then at offset 8 a count and
                 * a partial orientation entry */
                uint8_t app[32] = "Exif\0\0";
                uint8_t *t = app + 6;
                uint32_t o = offsets[k];
                t[0] = t[1] = le ? 'I' : 'M';
                t[2] = le ? 42 : 0;
                t[3] = le ? 0 : 42;
                for (int i = 0; i < 4; i++)
                    t[4 + i] = (uint8_t)(le ? o >> (8 * i) : o >> (24 - 8 * i));
                t[8] = (uint8_t)(le ? counts[c] : counts[c] >> 8);
                t[9] = (uint8_t)(le ? counts[c] >> 8 : counts[c]);
                t[10] = le ? 0x12 : 0x01;
                t[11] = le ? 0x01 : 0x12;
                size_t al = 6 + 12 + (k % 4); /* the entry cut short */
                uint8_t *f = malloc(jl + 4 + al);
                assert_non_null(f);
                memcpy(f, jpg, 2);
                f[2] = 0xFF;
                f[3] = 0xE1;
                f[4] = (uint8_t)((al + 2) >> 8);
                f[5] = (uint8_t)(al + 2);
                memcpy(f + 6, app, al);
                memcpy(f + 6 + al, jpg + 2, jl - 2);
                assert_int_equal(load_bytes(f, jl + 4 + al, 0, 0, &a), IMG_OK);
                assert_int_equal(a.width, 16); /* no orientation read from a cut entry */
                img_free(&a);
                free(f);
            }
    free(jpg);
}

/* libpng's longjmp out of png_read_image: the row pointers allocated for
 * it are freed (the sanitizer build's leak check fails the test if not). */
static void test_corrupt_png_after_the_header_fails_without_a_leak(void **state)
{
    (void)state;
    img_image a;
    img_error err = {0};
    assert_int_equal(img_load_rgb(test_data_path("corrupt-tall.png"), 0, &a, &err), IMG_ERR_CORRUPT);
    assert_null(a.data);
    assert_int_equal(img_load_labels(test_data_path("corrupt-tall.png"), 0, &a, &err), IMG_ERR_CORRUPT);
    assert_null(a.data);
}

/* The 4x2 fixtures of make_crafted.py, read as RGB and as labels. */
static const uint8_t tiny_rgb[8][3] = {{255, 0, 0}, {0, 255, 0},  {0, 0, 255},    {255, 255, 255},
                                       {0, 0, 0},   {128, 128, 128}, {10, 20, 30}, {200, 100, 50}};
static const uint8_t tiny_grey[8] = {0, 1, 2, 3, 128, 200, 255, 7};
static const struct {
    const char *name;
    int grey;
} tiny_files[] = {{"tiny.tga", 0},    {"tiny-rle.tga", 0}, {"tiny-cmap.tga", 0}, {"tiny-p5.pgm", 1},
                  {"tiny-p6.ppm", 0}, {"tiny-p2.pgm", 1},  {"tiny-p3.ppm", 0},   {"tiny16-p5.pgm", 1},
                  {"tiny.gif", 0}};

static void test_tga_pnm_gif_decode(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof tiny_files / sizeof tiny_files[0]; k++) {
        img_image a;
        img_error err = {0};
        const char *path = test_data_path(tiny_files[k].name);
        int rc = img_load_rgb(path, 0, &a, &err);
        if (rc)
            fail_msg("%s: %d %s", tiny_files[k].name, rc, err.message);
        assert_int_equal(a.width, 4);
        assert_int_equal(a.height, 2);
        assert_int_equal(a.channels, 3);
        for (int i = 0; i < 8; i++)
            for (int c = 0; c < 3; c++) {
                int want = tiny_files[k].grey ? tiny_grey[i] : tiny_rgb[i][c];
                if (a.data[i * 3 + c] != want)
                    fail_msg("%s: pixel %d channel %d is %d, not %d", tiny_files[k].name, i, c, a.data[i * 3 + c],
                             want);
            }
        img_free(&a);
        if (tiny_files[k].grey) {
            assert_int_equal(img_load_labels(path, 0, &a, &err), IMG_OK);
            assert_int_equal(a.channels, 1);
            assert_memory_equal(a.data, tiny_grey, 8);
            img_free(&a);
        }
    }
}

/* Every format's size is checked against the limit from its header alone,
 * and every prefix of a valid file is refused (no zero-padded image): for
 * the binary formats any missing byte, for ASCII PNM a missing value, for
 * GIF anything of the first frame (the trailer byte alone may go). */
static void test_limits_and_truncation_in_every_format(void **state)
{
    (void)state;
    const char *extra[] = {"tiny.bmp", "tiny.jpg", "seeds-palette.png"};
    size_t nfiles = sizeof tiny_files / sizeof tiny_files[0] + 3;
    for (size_t k = 0; k < nfiles; k++) {
        const char *name = k < 3 ? extra[k] : tiny_files[k - 3].name;
        size_t len;
        uint8_t *b = read_fixture(name, &len);
        img_image a;
        img_error err = {0};
        int64_t npx = 0;
        assert_int_equal(load_bytes(b, len, 0, 0, &a), IMG_OK);
        npx = (int64_t)a.width * a.height;
        img_free(&a);
        if (load_bytes(b, len, 0, npx - 1, &a) != IMG_ERR_TOO_LARGE)
            fail_msg("%s: not refused with a limit of %lld pixels", name, (long long)(npx - 1));
        assert_int_equal(load_bytes(b, len, 0, npx, &a), IMG_OK);
        img_free(&a);
        size_t keep = len;
        if (strstr(name, "-p2.") || strstr(name, "-p3."))
            keep = len - 4; /* the last value and its neighbours */
        else if (strstr(name, ".gif"))
            keep = len - 1;
        for (size_t n = 1; n < keep; n++) {
            int rc = load_bytes(b, n, 0, 0, &a);
            if (rc == IMG_OK)
                fail_msg("%s cut to %zu of %zu bytes decodes", name, n, len);
            assert_true(rc == IMG_ERR_CORRUPT || rc == IMG_ERR_FORMAT);
            if (n >= 40 && rc != IMG_ERR_CORRUPT)
                fail_msg("%s cut to %zu of %zu bytes: %d, not corrupt", name, n, len, rc);
        }
        (void)err;
        free(b);
    }
}

/* A 154-byte BMP whose header claims 16000x16000 (under the default limit)
 * is refused as truncated from its header, before 3 GB are decoded. */
static void test_bmp_header_larger_than_the_file_is_refused(void **state)
{
    (void)state;
    img_image a;
    img_error err = {0};
    assert_int_equal(img_load_rgb(test_data_path("huge-header.bmp"), 0, &a, &err), IMG_ERR_CORRUPT);
    assert_non_null(strstr(err.file, "huge-header.bmp"));
    assert_int_equal(img_load_rgb(test_data_path("huge-header.bmp"), 1000, &a, &err), IMG_ERR_TOO_LARGE);
}

/* stb_image also reads PSD, HDR and PIC; the loader offers BMP, TGA, GIF and
 * PNM only, and refuses the rest as unsupported. Oversized and overflowing
 * PNM header numbers are refused from the header. */
static void test_other_formats_and_odd_headers_are_refused(void **state)
{
    (void)state;
    img_image a;
    img_error err = {0};
    assert_int_equal(img_load_rgb(test_data_path("tiny.hdr"), 0, &a, &err), IMG_ERR_FORMAT);
    static const char *pnm[] = {"P5 99999999999999999999 1 255\n", "P6 4 99999999999 255\n",
                                "P5 100000 100000 255\n", "P5 4 2 99999999999999999\n"};
    for (size_t k = 0; k < sizeof pnm / sizeof pnm[0]; k++) {
        uint8_t buf[64] = {0};
        size_t n = strlen(pnm[k]);
        memcpy(buf, pnm[k], n);
        int rc = load_bytes(buf, n + 8, 0, 0, &a);
        if (rc != IMG_ERR_TOO_LARGE && rc != IMG_ERR_CORRUPT)
            fail_msg("\"%s\": %d", pnm[k], rc);
    }
    /* a zero width, and a 16-bit maximum over 65535 */
    assert_int_equal(load_bytes("P5 0 2 255\n\0\0", 13, 0, 0, &a), IMG_ERR_CORRUPT);
    assert_int_equal(load_bytes("P5 1 1 70000\n\0\0", 15, 0, 0, &a), IMG_ERR_CORRUPT);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]); /* e.g. test_images '*exif*' */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_round_trip),
        cmocka_unit_test(test_palette_indices_are_kept),
        cmocka_unit_test(test_sixteen_bit_grey_alpha),
        cmocka_unit_test(test_jpeg_and_exif_orientation),
        cmocka_unit_test(test_stb_formats),
        cmocka_unit_test(test_probe_size),
        cmocka_unit_test(test_corrupt_and_oversized_inputs_fail_with_the_file_name),
        cmocka_unit_test(test_exif_offsets_past_the_payload_are_ignored),
        cmocka_unit_test(test_corrupt_png_after_the_header_fails_without_a_leak),
        cmocka_unit_test(test_tga_pnm_gif_decode),
        cmocka_unit_test(test_limits_and_truncation_in_every_format),
        cmocka_unit_test(test_bmp_header_larger_than_the_file_is_refused),
        cmocka_unit_test(test_other_formats_and_odd_headers_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
