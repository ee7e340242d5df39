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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_round_trip),
        cmocka_unit_test(test_palette_indices_are_kept),
        cmocka_unit_test(test_sixteen_bit_grey_alpha),
        cmocka_unit_test(test_jpeg_and_exif_orientation),
        cmocka_unit_test(test_stb_formats),
        cmocka_unit_test(test_probe_size),
        cmocka_unit_test(test_corrupt_and_oversized_inputs_fail_with_the_file_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
