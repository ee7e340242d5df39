#define _DEFAULT_SOURCE
/* The session while a box stands: its network is the box route's last
 * cut, a quick cut after a click is repaired warm on it and equals a
 * fresh build of it, a refined cut equals `flowcut segment --box`, and
 * boxes drawn, moved, undone or painted over change the energy at once.
 * CPU always; GPU where a device exists ("skipped: no CUDA device"
 * otherwise). */
#include "session_fixture.h"
#include "session_internal.h" /* the kept models and energy of a quick cut after a box */

/* The session's last cut equals a fresh build of its network (its energy,
 * the box's or the prior's, with the models it keeps) and a cold solve. */
static void expect_network_cut(seg_session *s, const seg_cut_stats *st, const char *what)
{
    const size_t npx = (size_t)photo.width * photo.height;
    mf_graph g;
    assert_int_equal(gb_build(photo.data, photo.width, photo.height, seg_session_labels(s), s->models, &s->net, &g,
                              NULL),
                     GB_OK);
    mf_options mo;
    mf_options_default(&mo);
    mo.cut_only = 1;
    mf_result r;
    mf_error e = {0};
    assert_int_equal(mf_solve_cpu(&g, &mo, &r, &e), MF_OK);
    for (size_t i = 0; i < npx; i++)
        if ((r.source_side[i] ? 255 : 0) != seg_session_mask(s)[i])
            fail_msg("%s: the quick cut differs from a fresh build at pixel %zu", what, i);
    assert_true(r.flow_value == st->flow);
    mf_result_free(&r);
    mf_graph_free(&g);
}

/* After a box, the quick cut (refit off) keeps the box's network and
 * models: a click or stroke changes its own pixels' terminals and is
 * re-solved warm, the same cut as a fresh build of that network; the
 * refined cut re-runs the box's route and equals `flowcut segment --box`.
 * A box moved, then undone, changes the energy at once. */
static void run_box_quick_cuts(mf_engine engine)
{
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = engine;
    o.solve.threads = 2; /* the warm repair (more threads solve cold) */
    seg_session *s = NULL;
    seg_error err = {0};
    const int32_t w = photo.width, h = photo.height;
    const size_t npx = (size_t)w * h;
    assert_int_equal(seg_session_open(photo.data, w, h, NULL, &o, &s, &err), SEG_OK);
    const int32_t box[4] = {70, 10, 415, 380};
    assert_int_equal(seg_session_box(s, box[0], box[1], box[2], box[3]), SEG_OK);
    seg_session_set_refit(s, 0); /* the first cut after a box is the route's, whatever the flag */
    expect_segment(s, box, "a box");
    assert_int_equal(seg_session_commit(s), SEG_OK);
    int warm = 0;
    for (int edit = 0; edit < 8; edit++) {
        char what[64];
        snprintf(what, sizeof what, "box, edit %d", edit);
        const int32_t x = 120 + 45 * edit, y = edit & 1 ? 340 : 190;
        if (edit == 5) {
            assert_int_equal(seg_session_undo(s), 1);
        } else if (edit == 6) {
            assert_int_equal(seg_session_redo(s), 1);
        } else if (edit == 3) {
            assert_int_equal(seg_session_paint_line(s, GB_FOREGROUND, 250, 200, 330, 215, 3), SEG_OK);
        } else {
            assert_int_equal(seg_session_click(s, x, y, edit & 1 ? GB_BACKGROUND : GB_FOREGROUND), SEG_OK);
        }
        if (edit < 5)
            assert_int_equal(seg_session_commit(s), SEG_OK);
        seg_session_set_refit(s, 0);
        seg_cut_stats st;
        if (seg_session_cut(s, &st, &err) != SEG_OK)
            fail_msg("%s: cut failed: %s", what, err.message);
        assert_true(s->box_net);
        assert_int_equal(st.refitted, 0);
        assert_true(st.changed_pixels < (int64_t)npx / 20); /* the edit's own pixels */
        warm += st.warm;
        expect_network_cut(s, &st, what); /* the box's network with the kept models */
        printf("%s, quick: total %.3f solve %.3f warm %d px %lld\n", what, st.total_seconds, st.solve_seconds,
               st.warm, (long long)st.changed_pixels);
        seg_session_set_refit(s, 1);
        expect_segment(s, box, what);
    }
    printf("quick cuts after the box warm: %d of 8\n", warm);
    assert_true(warm >= 5); /* the first has no flow to start from */
    /* a box moved: its route at once, quick or not */
    const int32_t moved[4] = {100, 20, 380, 360};
    assert_int_equal(seg_session_box(s, moved[0], moved[1], moved[2], moved[3]), SEG_OK);
    seg_session_set_refit(s, 0);
    expect_segment(s, moved, "the box moved");
    /* undone: the previous box's route, then none */
    assert_int_equal(seg_session_undo(s), 1);
    expect_segment(s, box, "the move undone");
    seg_session_close(s);
}

/* Under the sanitizers (a Debug build, about ten times slower) the random
 * sequence is shortened: the memory checks need its paths, not its length. */
#ifdef FLOWCUT_TEST_SANITIZED
#define RANDOM_BOX_EDITS 6
#else
#define RANDOM_BOX_EDITS 12
#endif

/* A random mix of boxes (drawn, moved), clicks, strokes, erasing over the
 * box's outside, lambda changes, undo and redo: after each, the quick cut
 * equals a fresh build of the session's network (the box's or the
 * prior's) with its kept models, and the refined cut equals `flowcut
 * segment` with the box that stands (seg_session_get_box), bit for bit. */
static void test_box_random_edits(void **state)
{
    (void)state;
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = MF_ENGINE_CPU;
    o.solve.threads = 2;
    seg_session *s = NULL;
    seg_error err = {0};
    const int32_t w = photo.width, h = photo.height;
    assert_int_equal(seg_session_open(photo.data, w, h, NULL, &o, &s, &err), SEG_OK);
    uint64_t rng = 101; /* every kind of edit in 12, an undo right after a box among them */
    int boxes = 0, quick_box = 0;
    for (int edit = 0; edit < RANDOM_BOX_EDITS; edit++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        const uint32_t r = (uint32_t)(rng >> 33);
        const int32_t x = 40 + (int32_t)(r % 520), y = 30 + (int32_t)((r >> 10) % 340);
        int kind = edit % 4 == 0 ? 0 : (int)((r >> 20) % 8);
        char what[64];
        snprintf(what, sizeof what, "edit %d, kind %d", edit, kind);
        if (kind == 0) {
            const int32_t bx = 20 + (int32_t)(r % 80), by = 10 + (int32_t)((r >> 7) % 60);
            assert_int_equal(seg_session_box(s, bx, by, w - bx - 20 - (int32_t)((r >> 3) % 90),
                                             h - by - 10 - (int32_t)((r >> 5) % 50)),
                             SEG_OK);
            boxes++;
        } else if (kind <= 2) {
            assert_int_equal(seg_session_click(s, x, y, kind == 1 ? GB_FOREGROUND : GB_BACKGROUND), SEG_OK);
        } else if (kind == 3) {
            assert_int_equal(seg_session_paint_line(s, r & 1 ? GB_BACKGROUND : GB_FOREGROUND, x, y, x + 40, y + 15, 3),
                             SEG_OK);
        } else if (kind == 4) { /* erasing across the frame: a box that stood no longer does */
            assert_int_equal(seg_session_paint_line(s, GB_UNMARKED, 0, y, 30, y, 4), SEG_OK);
        } else if (kind == 5) {
            assert_int_equal(seg_session_set_lambda(s, r & 1 ? 50 : 70), SEG_OK);
        } else if (kind == 6) {
            seg_session_undo(s);
        } else {
            seg_session_redo(s);
        }
        if (kind <= 4)
            assert_int_equal(seg_session_commit(s), SEG_OK);
        int32_t box[4];
        const int stands = seg_session_get_box(s, box);
        seg_session_set_refit(s, 0);
        seg_cut_stats st;
        int rc = seg_session_cut(s, &st, &err);
        if (rc == SEG_ERR_NEED_SEEDS)
            continue; /* no foreground seed and no box: nothing to compare */
        if (rc != SEG_OK)
            fail_msg("%s: quick cut failed: %s", what, err.message);
        if (s->models && s->dyn) {
            expect_network_cut(s, &st, what);
            quick_box += stands;
        }
        assert_int_equal(s->box_net, stands);
        seg_session_set_refit(s, 1);
        expect_segment_lambda(s, stands ? box : NULL, seg_session_lambda(s), what);
    }
    printf("boxes %d, quick cuts with a box %d\n", boxes, quick_box);
    assert_true(boxes >= RANDOM_BOX_EDITS / 4 && quick_box >= RANDOM_BOX_EDITS / 3);
    seg_session_close(s);
}

static void test_box_quick_cuts(void **state)
{
    (void)state;
    run_box_quick_cuts(MF_ENGINE_CPU);
}

static void test_box_quick_cuts_gpu(void **state)
{
    (void)state;
    require_gpu();
    run_box_quick_cuts(MF_ENGINE_GPU);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box_quick_cuts),
        cmocka_unit_test(test_box_random_edits),
        cmocka_unit_test(test_box_quick_cuts_gpu),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
