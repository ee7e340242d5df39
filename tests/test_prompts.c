/* Click and box prompts (segment.h): the text form, painting into labels,
 * and segmentation from prompts alone on a synthetic photo whose answer
 * is known: one foreground click or a box finds the object, the border
 * standing in for the background. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "flowcut/images.h"
#include "flowcut/segment.h"
#include "seg_internal.h" /* seg_model_labels */

#include <stdlib.h>
#include <string.h>

#define W 96
#define H 72

/* A textured orange ellipse on a textured blue-grey ground; truth gets
 * 255 inside the ellipse. */
static void synthetic_photo(uint8_t *rgb, uint8_t *truth)
{
    uint32_t state = 12345;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double dx = (x - 50) / 24.0, dy = (y - 34) / 18.0;
            int in = dx * dx + dy * dy <= 1.0;
            state = state * 1664525u + 1013904223u;
            int n = (int)(state >> 27) - 16; /* noise in [-16, 15] */
            uint8_t *p = rgb + 3 * (y * W + x);
            p[0] = (uint8_t)((in ? 220 : 70) + n);
            p[1] = (uint8_t)((in ? 130 : 90) + n);
            p[2] = (uint8_t)((in ? 40 : 140) + n);
            truth[y * W + x] = in ? 255 : 0;
        }
}

static double iou(const uint8_t *a, const uint8_t *b)
{
    int64_t inter = 0, uni = 0;
    for (int i = 0; i < W * H; i++) {
        inter += a[i] && b[i];
        uni += a[i] || b[i];
    }
    return uni ? (double)inter / (double)uni : 1.0;
}

static void test_parse(void **state)
{
    (void)state;
    seg_error err = {0};
    seg_prompts *p = seg_prompts_new();
    assert_non_null(p);
    assert_int_equal(seg_prompts_parse(p, "10,20 +3,4;-5,6\n# a comment 1,1\nfg 7,8 bg 9,10 box 1,2,30,40", "t",
                                       &err),
                     SEG_OK);
    assert_int_equal(seg_prompts_count(p), 5);
    static const seg_click want[] = {{10, 20, GB_FOREGROUND, 0}, {3, 4, GB_FOREGROUND, 0}, {5, 6, GB_BACKGROUND, 0},
                                     {7, 8, GB_FOREGROUND, 0}, {9, 10, GB_BACKGROUND, 0}};
    for (int i = 0; i < 5; i++) {
        seg_click c;
        assert_int_equal(seg_prompts_click(p, i, &c), SEG_OK);
        assert_int_equal(c.x, want[i].x);
        assert_int_equal(c.y, want[i].y);
        assert_int_equal(c.label, want[i].label);
    }
    int32_t box[4];
    assert_int_equal(seg_prompts_get_box(p, box), 1);
    assert_int_equal(box[0] + box[1] + box[2] + box[3], 73);
    /* each malformed token is named with its line */
    static const char *bad[] = {"10", "10,20,30,40", "box 1,2,3", "x 1,2", "1,2x", "-1,-2", "1,99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        seg_prompts_clear(p);
        assert_int_equal(seg_prompts_parse(p, bad[i], "--clicks", &err), SEG_ERR_INVALID);
        assert_non_null(strstr(err.message, "--clicks:1: cannot read"));
    }
    /* a click's own radius: X,Y,R in every form; 0 and too large refused */
    seg_prompts_clear(p);
    assert_int_equal(seg_prompts_parse(p, "10,20,7 -5,6,3 bg 1,2,100000 3,4", "t", &err), SEG_OK);
    static const int32_t radius[] = {7, 3, 100000, 0};
    for (int i = 0; i < 4; i++) {
        seg_click c;
        assert_int_equal(seg_prompts_click(p, i, &c), SEG_OK);
        assert_int_equal(c.radius, radius[i]);
    }
    assert_int_equal(seg_prompts_parse(p, "1,2,0", "--clicks", &err), SEG_ERR_INVALID);
    assert_non_null(strstr(err.message, "--clicks:1: click 1,2: a radius must be 1 to 100000 pixels"));
    assert_int_equal(seg_prompts_parse(p, "1,2,100001", "--clicks", &err), SEG_ERR_INVALID);
    assert_int_equal(seg_prompts_set_radius(p, 4, 5, &err), SEG_ERR_INVALID); /* no such click */
    assert_int_equal(seg_prompts_set_radius(p, 0, -1, &err), SEG_ERR_INVALID);
    seg_prompts_clear(p);
    assert_int_equal(seg_prompts_parse(p, "1,1\n\n  2,x", "f", &err), SEG_ERR_INVALID);
    assert_non_null(strstr(err.message, "f:3: cannot read '2,x'"));
    assert_int_equal(seg_prompts_set_box(p, 0, 0, 0, 5, &err), SEG_ERR_INVALID);
    seg_prompts_free(p);
}

static void test_paint(void **state)
{
    (void)state;
    seg_error err = {0};
    seg_prompts *p = seg_prompts_new();
    uint8_t labels[W * H];
    memset(labels, GB_UNMARKED, sizeof labels);
    assert_int_equal(seg_prompts_parse(p, "box 10,10,50,40 5,5 -30,30", NULL, &err), SEG_OK);
    assert_int_equal(seg_prompts_paint(p, W, H, labels, &err), SEG_OK);
    assert_int_equal(labels[0], GB_BACKGROUND);                /* outside the box */
    assert_int_equal(labels[5 * W + 5], GB_FOREGROUND);        /* a click outside the box wins */
    assert_int_equal(labels[30 * W + 30], GB_BACKGROUND);      /* a background click inside */
    assert_int_equal(labels[20 * W + 50], GB_UNMARKED);        /* the rest of the inside */
    int r = seg_prompts_radius(W, H);
    assert_int_equal(labels[30 * W + 30 + r], GB_BACKGROUND);  /* the disc's edge */
    assert_int_equal(labels[30 * W + 30 + r + 1], GB_UNMARKED);
    seg_prompts_clear(p);
    assert_int_equal(seg_prompts_add_click(p, W, 0, GB_FOREGROUND, &err), SEG_OK);
    assert_int_equal(seg_prompts_paint(p, W, H, labels, &err), SEG_ERR_INVALID);
    assert_non_null(strstr(err.message, "outside the 96x72 photo"));
    seg_prompts_free(p);
}

/* A click that corrects a previous answer: its disc reaches no nearer
 * than the nearest pixel the answer already gives its label (at least 2),
 * at most the default; the last click alone, unless it has a radius. */
#define RW 400 /* a disc of 7 by default */
#define RH 300
static void test_click_radius(void **state)
{
    (void)state;
    const int32_t r0 = seg_prompts_radius(RW, RH);
    assert_true(r0 >= 6);
    static uint8_t prev[RW * RH];
    memset(prev, 0, sizeof prev);
    assert_int_equal(seg_click_radius(NULL, RW, RH, 40, 30, GB_FOREGROUND), r0);
    assert_int_equal(seg_click_radius(prev, RW, RH, 40, 30, GB_FOREGROUND), r0); /* no foreground near */
    assert_int_equal(seg_click_radius(prev, RW, RH, 40, 30, GB_BACKGROUND), 2);  /* already background */
    prev[30 * RW + 45] = 255;
    assert_int_equal(seg_click_radius(prev, RW, RH, 40, 30, GB_FOREGROUND), 5);
    prev[34 * RW + 43] = 1; /* distance 5 as well; any nonzero is foreground */
    assert_int_equal(seg_click_radius(prev, RW, RH, 40, 30, GB_FOREGROUND), 5);
    prev[33 * RW + 42] = 1; /* sqrt(13): 3 */
    assert_int_equal(seg_click_radius(prev, RW, RH, 40, 30, GB_FOREGROUND), 3);
    prev[30 * RW + 41] = 1;
    assert_int_equal(seg_click_radius(prev, RW, RH, 40, 30, GB_FOREGROUND), 2);
    memset(prev, 255, sizeof prev);
    prev[(30 + r0 + 1) * RW + 40] = 0; /* background beyond the default */
    assert_int_equal(seg_click_radius(prev, RW, RH, 40, 30, GB_BACKGROUND), r0);
    prev[(30 - 4) * RW + 40] = 0;
    assert_int_equal(seg_click_radius(prev, RW, RH, 40, 30, GB_BACKGROUND), 4);

    /* painting: the last click takes the rule, earlier ones and given radii not */
    seg_error err = {0};
    seg_prompts *p = seg_prompts_new();
    static uint8_t labels[RW * RH];
    memset(prev, 0, sizeof prev);
    prev[30 * RW + 45] = 255; /* 5 from (40, 30) */
    assert_int_equal(seg_prompts_parse(p, "15,15 40,30", NULL, &err), SEG_OK);
    int32_t last = -1;
    memset(labels, GB_UNMARKED, sizeof labels);
    assert_int_equal(seg_prompts_paint_previous(p, RW, RH, prev, labels, &last, &err), SEG_OK);
    assert_int_equal(last, 5);
    assert_int_equal(labels[30 * RW + 45], GB_FOREGROUND);
    assert_int_equal(labels[30 * RW + 46], GB_UNMARKED);
    assert_int_equal(labels[15 * RW + 15 + r0], GB_FOREGROUND); /* the first click: the default */
    memset(labels, GB_UNMARKED, sizeof labels);
    assert_int_equal(seg_prompts_set_radius(p, 1, 3, &err), SEG_OK);
    assert_int_equal(seg_prompts_paint_previous(p, RW, RH, prev, labels, &last, &err), SEG_OK);
    assert_int_equal(last, 3);
    assert_int_equal(labels[30 * RW + 43], GB_FOREGROUND);
    assert_int_equal(labels[30 * RW + 44], GB_UNMARKED);
    memset(labels, GB_UNMARKED, sizeof labels);
    assert_int_equal(seg_prompts_set_radius(p, 1, 0, &err), SEG_OK);
    assert_int_equal(seg_prompts_paint_previous(p, RW, RH, NULL, labels, &last, &err), SEG_OK);
    assert_int_equal(last, r0); /* no previous answer: the default */
    seg_prompts_free(p);
}

/* A box alone: its rim is a background sample, and the foreground's first
 * sample is the box's inside less a margin on each side; with background
 * seeds over all of that middle, the rest of the inside. */
static void test_box_sample(void **state)
{
    (void)state;
    enum { BW = 64, BH = 48 };
    static uint8_t labels[BW * BH];
    const int32_t box[4] = {10, 8, 40, 20};
    for (int y = 0; y < BH; y++)
        for (int x = 0; x < BW; x++)
            labels[y * BW + x] = x < 10 || x >= 50 || y < 8 || y >= 28 ? GB_BACKGROUND : GB_UNMARKED;
    uint8_t *m = NULL;
    int box_only = 0;
    assert_int_equal(seg_model_labels(labels, BW, BH, box, &m, &box_only), 0);
    assert_non_null(m);
    assert_int_equal(box_only, 1);
    /* the rim: 5% of 40 is 2 columns, of 20 one row */
    assert_int_equal(m[8 * BW + 10], GB_BACKGROUND); /* the inside's corner */
    assert_int_equal(m[9 * BW + 11], GB_BACKGROUND);
    assert_int_equal(m[27 * BW + 30], GB_BACKGROUND);
    assert_int_equal(m[26 * BW + 48], GB_BACKGROUND);
    assert_int_equal(m[26 * BW + 47], GB_UNMARKED);
    assert_int_equal(m[9 * BW + 12], GB_UNMARKED); /* between the rim and the middle */
    /* the middle: 15% of 40 is 6 columns, of 20 three rows */
    assert_int_equal(m[11 * BW + 16], GB_FOREGROUND); /* the middle's corner */
    assert_int_equal(m[10 * BW + 16], GB_UNMARKED);
    assert_int_equal(m[11 * BW + 15], GB_UNMARKED);
    assert_int_equal(m[24 * BW + 43], GB_FOREGROUND);
    assert_int_equal(m[25 * BW + 43], GB_UNMARKED);
    assert_int_equal(m[24 * BW + 44], GB_UNMARKED);
    assert_int_equal(m[0], GB_BACKGROUND);
    free(m);
    for (int y = 11; y < 25; y++)
        for (int x = 16; x < 44; x++)
            labels[y * BW + x] = GB_BACKGROUND;
    assert_int_equal(seg_model_labels(labels, BW, BH, box, &m, &box_only), 0);
    assert_non_null(m);
    assert_int_equal(m[9 * BW + 12], GB_FOREGROUND); /* the rest of the inside */
    assert_int_equal(m[8 * BW + 10], GB_BACKGROUND);
    assert_int_equal(m[11 * BW + 16], GB_BACKGROUND);
    free(m);
}

/* Segments with the box (x, y, w, h) as p's only prompt; fails the test
 * unless the mask's IoU with truth is at least 0.9. */
static void segment_box(seg_prompts *p, const seg_options *o, const uint8_t *rgb, const uint8_t *truth,
                        uint8_t *mask, int32_t x, int32_t y, int32_t w, int32_t h, const char *what)
{
    seg_error err = {0};
    seg_prompts_clear(p);
    assert_int_equal(seg_prompts_set_box(p, x, y, w, h, &err), SEG_OK);
    if (seg_segment(rgb, W, H, NULL, 0, o, mask, NULL, &err))
        fail_msg("%s: %s", what, err.message);
    double v = iou(mask, truth);
    if (v < 0.9)
        fail_msg("%s: IoU %.3f", what, v);
}

/* A box on photos of 128 pixels a side and more, whose first cuts run at
 * half size (box_route.c), odd sizes included: the object is found, and
 * the mask does not depend on the thread count. */
static void test_box_half_size(void **state)
{
    (void)state;
    const int32_t sizes[2][2] = {{256, 192}, {257, 193}};
    for (int k = 0; k < 2; k++) {
        const int32_t bw = sizes[k][0], bh = sizes[k][1];
        uint8_t *rgb = malloc((size_t)bw * bh * 3), *truth = malloc((size_t)bw * bh);
        uint8_t *a = malloc((size_t)bw * bh), *b = malloc((size_t)bw * bh);
        assert_true(rgb && truth && a && b);
        uint32_t st = 777;
        for (int32_t y = 0; y < bh; y++)
            for (int32_t x = 0; x < bw; x++) {
                double dx = (x - 130) / 60.0, dy = (y - 95) / 45.0;
                int in = dx * dx + dy * dy <= 1.0, patch = in && x > 150; /* a second colour */
                st = st * 1664525u + 1013904223u;
                int n = (int)(st >> 27) - 16;
                uint8_t *p = rgb + 3 * ((int64_t)y * bw + x);
                p[0] = (uint8_t)((patch ? 120 : in ? 220 : 70) + n);
                p[1] = (uint8_t)((patch ? 70 : in ? 130 : 90) + n);
                p[2] = (uint8_t)((patch ? 30 : in ? 40 : 140) + n);
                truth[(int64_t)y * bw + x] = in ? 255 : 0;
            }
        seg_options o;
        seg_options_default(&o);
        seg_prompts *p = seg_prompts_new();
        seg_error err = {0};
        assert_int_equal(seg_prompts_set_box(p, 60, 40, 142, 112, &err), SEG_OK);
        o.prompts = p;
        o.graph.threads = o.solve.threads = 1;
        assert_int_equal(seg_segment(rgb, bw, bh, NULL, 0, &o, a, NULL, &err), SEG_OK);
        o.graph.threads = o.solve.threads = 3;
        assert_int_equal(seg_segment(rgb, bw, bh, NULL, 0, &o, b, NULL, &err), SEG_OK);
        assert_memory_equal(a, b, (size_t)bw * bh);
        int64_t inter = 0, uni = 0;
        for (int64_t i = 0; i < (int64_t)bw * bh; i++) {
            inter += a[i] && truth[i];
            uni += a[i] || truth[i];
        }
        if (inter < 0.9 * (double)uni)
            fail_msg("%dx%d: IoU %.3f", bw, bh, (double)inter / (double)uni);
        seg_prompts_free(p);
        free(rgb);
        free(truth);
        free(a);
        free(b);
    }
}

/* One foreground click, then a box alone: the object is found with the
 * border (or the box) as the only background, and the clicked pixel is
 * foreground. */
static void test_segment_from_prompts(void **state)
{
    (void)state;
    uint8_t *rgb = malloc(W * H * 3), truth[W * H], mask[W * H];
    assert_non_null(rgb);
    synthetic_photo(rgb, truth);
    seg_options o;
    seg_options_default(&o);
    seg_prompts *p = seg_prompts_new();
    o.prompts = p;
    seg_error err = {0};
    assert_int_equal(seg_prompts_parse(p, "60,30", NULL, &err), SEG_OK);
    if (seg_segment(rgb, W, H, NULL, 0, &o, mask, NULL, &err))
        fail_msg("one click: %s", err.message);
    assert_true(mask[30 * W + 60] == 255);
    double one = iou(mask, truth);
    if (one < 0.9)
        fail_msg("one click: IoU %.3f", one);

    segment_box(p, &o, rgb, truth, mask, 20, 10, 62, 50, "box");
    for (int y = 0; y < H; y++) /* nothing outside the box */
        for (int x = 0; x < W; x++)
            if (x < 20 || x >= 82 || y < 10 || y >= 60)
                assert_int_equal(mask[y * W + x], 0);

    /* a loose box, three quarters background: the first foreground sample
     * is the box's middle, where the object is, and the cut still finds it */
    segment_box(p, &o, rgb, truth, mask, 4, 2, 88, 66, "loose box");

    /* a background click is exact where it lands, even inside the object */
    seg_prompts_clear(p);
    assert_int_equal(seg_prompts_parse(p, "60,30 -40,34", NULL, &err), SEG_OK);
    assert_int_equal(seg_segment(rgb, W, H, NULL, 0, &o, mask, NULL, &err), SEG_OK);
    assert_int_equal(mask[34 * W + 40], 0);
    assert_int_equal(mask[30 * W + 60], 255);

    /* foreground strokes that touch every side of the frame (a cross): no
     * side stands in for the background, and the refusal says so (not a
     * model failure) */
    {
        uint8_t labels[W * H];
        for (int i = 0; i < W * H; i++)
            labels[i] = i / W == H / 2 || i % W == W / 2 ? GB_FOREGROUND : GB_UNMARKED;
        seg_options plain;
        seg_options_default(&plain);
        assert_int_equal(seg_segment(rgb, W, H, labels, 1, &plain, mask, NULL, &err), SEG_ERR_NEED_SEEDS);
        assert_non_null(strstr(err.message, "touch every side"));
        seg_session *ss = NULL;
        seg_session_options so;
        seg_session_options_default(&so);
        so.solve.engine = MF_ENGINE_CPU;
        assert_int_equal(seg_session_open(rgb, W, H, labels, &so, &ss, &err), SEG_OK);
        assert_int_equal(seg_session_cut(ss, NULL, &err), SEG_ERR_NEED_SEEDS);
        assert_non_null(strstr(err.message, "touch every side"));
        seg_session_close(ss);
    }

    /* without the border as background, foreground clicks alone are refused */
    seg_prompts_clear(p);
    assert_int_equal(seg_prompts_parse(p, "60,30", NULL, &err), SEG_OK);
    o.graph.border = -1;
    assert_int_equal(seg_segment(rgb, W, H, NULL, 0, &o, mask, NULL, &err), SEG_ERR_NEED_SEEDS);
    assert_non_null(strstr(err.message, "no background seed"));
    seg_prompts_free(p);
    free(rgb);
}

/* A close-up: the object runs into the left edge of the frame. The photo's
 * border stands in for the background only where the foreground seeds are
 * not reached without crossing an edge, so the object keeps the columns
 * that touch the frame. */
static void test_close_up_keeps_the_frame(void **state)
{
    (void)state;
    uint8_t *rgb = malloc(W * H * 3), mask[W * H];
    assert_non_null(rgb);
    uint32_t seed = 99;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int in = x < 40 && y > 10 && y < 60; /* touches the left edge only */
            seed = seed * 1664525u + 1013904223u;
            int n = (int)(seed >> 28) - 8;
            uint8_t *p = rgb + 3 * (y * W + x);
            p[0] = (uint8_t)((in ? 200 : 60) + n);
            p[1] = (uint8_t)((in ? 170 : 80) + n);
            p[2] = (uint8_t)((in ? 60 : 150) + n);
        }
    seg_options o;
    seg_options_default(&o);
    seg_prompts *p = seg_prompts_new();
    seg_error err = {0};
    assert_int_equal(seg_prompts_parse(p, "20,35", NULL, &err), SEG_OK);
    o.prompts = p;
    assert_int_equal(seg_segment(rgb, W, H, NULL, 0, &o, mask, NULL, &err), SEG_OK);
    int kept = 0;
    for (int y = 12; y < 59; y++)
        kept += mask[y * W + 0] == 255 && mask[y * W + 1] == 255;
    if (kept < 45)
        fail_msg("the object's columns at the frame: %d of 47 rows foreground", kept);
    for (int y = 0; y < H; y++) /* and the background stays background */
        assert_int_equal(mask[y * W + W - 1], 0);
    seg_prompts_free(p);
    free(rgb);
}

/* A close-up photo (tests/data/chelsea-close-up.png: the cat's face runs
 * into the top, left and bottom of the frame, the background is on the
 * right). Fur is a colour edge every few pixels, so the frame lies far
 * from the foreground strokes in edges crossed, and the border cuts the
 * face off short of it. Strokes painted to the frame make those sides the
 * object's: the face keeps the frame there (as with --border off), and
 * the right side, untouched, stays background. */
static void test_strokes_to_the_frame(void **state)
{
    (void)state;
    img_image photo = {0}, seeds[2] = {{0}};
    img_error ie = {0};
    assert_int_equal(img_load_rgb(FLOWCUT_TEST_DATA_DIR "/chelsea-close-up.png", 0, &photo, &ie), IMG_OK);
    assert_int_equal(img_load_labels(FLOWCUT_TEST_DATA_DIR "/chelsea-close-up-short.png", 0, &seeds[0], &ie), IMG_OK);
    assert_int_equal(img_load_labels(FLOWCUT_TEST_DATA_DIR "/chelsea-close-up-frame.png", 0, &seeds[1], &ie), IMG_OK);
    const int32_t w = photo.width, h = photo.height;
    uint8_t *mask = malloc((size_t)w * h);
    assert_non_null(mask);
    int64_t frame[2], right[2];
    for (int k = 0; k < 2; k++) {
        seg_options o;
        seg_options_default(&o);
        seg_error err = {0};
        assert_int_equal(seg_segment(photo.data, w, h, seeds[k].data, 1, &o, mask, NULL, &err), SEG_OK);
        frame[k] = right[k] = 0;
        for (int32_t x = 0; x < w; x++) /* the top and bottom rows */
            frame[k] += (mask[x] == 255) + (mask[(int64_t)(h - 1) * w + x] == 255);
        for (int32_t y = 0; y < h; y++) {
            frame[k] += mask[(int64_t)y * w] == 255;
            right[k] += mask[(int64_t)y * w + w - 1] == 255;
        }
        printf("strokes %s the frame: %lld frame pixels foreground, %lld on the right side\n",
               k ? "to" : "short of", (long long)frame[k], (long long)right[k]);
    }
    /* of the 526 pixels of the three sides, the face covers about 460 */
    if (frame[1] < 400 || frame[0] > frame[1] / 2 || right[0] || right[1])
        fail_msg("frame pixels kept: %lld with the strokes to the frame, %lld short of it; right side %lld, %lld",
                 (long long)frame[1], (long long)frame[0], (long long)right[1], (long long)right[0]);
    free(mask);
    img_free(&photo);
    img_free(&seeds[0]);
    img_free(&seeds[1]);
}

/* Prompts and the same labels given as a seed image cut alike, bit for bit. */
static void test_prompts_equal_seed_image(void **state)
{
    (void)state;
    uint8_t *rgb = malloc(W * H * 3), truth[W * H], a[W * H], b[W * H], labels[W * H];
    assert_non_null(rgb);
    synthetic_photo(rgb, truth);
    seg_options o;
    seg_options_default(&o);
    seg_prompts *p = seg_prompts_new();
    seg_error err = {0};
    assert_int_equal(seg_prompts_parse(p, "60,30 -5,5 -90,60 fg 40,40", NULL, &err), SEG_OK);
    memset(labels, GB_UNMARKED, sizeof labels);
    assert_int_equal(seg_prompts_paint(p, W, H, labels, &err), SEG_OK);
    assert_int_equal(seg_segment(rgb, W, H, labels, 1, &o, a, NULL, &err), SEG_OK);
    o.prompts = p;
    assert_int_equal(seg_segment(rgb, W, H, NULL, 0, &o, b, NULL, &err), SEG_OK);
    assert_memory_equal(a, b, sizeof a);
    seg_prompts_free(p);
    free(rgb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_paint),
        cmocka_unit_test(test_click_radius),
        cmocka_unit_test(test_box_sample),
        cmocka_unit_test(test_box_half_size),
        cmocka_unit_test(test_segment_from_prompts),
        cmocka_unit_test(test_prompts_equal_seed_image),
        cmocka_unit_test(test_close_up_keeps_the_frame),
        cmocka_unit_test(test_strokes_to_the_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
