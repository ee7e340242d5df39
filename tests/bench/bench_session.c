/* Interactive re-cut benchmark: the sample photo (examples/coffee.png with
 * its seeds) upscaled to each size; a session opens, cuts cold, then adds
 * one foreground and one background stroke, re-cutting after each, with
 * the models frozen (only the stroked pixels' terminal arcs change) and
 * re-fitted (every terminal arc changes). Each re-cut is checked against a
 * fresh build and cold solve of the same seeds on the same engine (mask
 * bit for bit). Times are medians over the repeats (strokes at shifted
 * places).
 *
 * With --box, the session takes a box around the cup and saucer instead,
 * then alternating foreground and background clicks inside it; each click
 * is cut twice as the page cuts it: the quick answer (models kept) and the
 * refined one (the box's route re-fitted); the box row's "update" column
 * is the refined cut the page sends after the box's first answer (the
 * flow kept for the clicks' repairs). The quick answer is checked
 * against a fresh build and cold solve with the same models, the refined
 * one against seg_segment with the same box and seeds (mask bit for bit).
 *
 * With --clicks, a click session as the page runs it (bench_clicks): the
 * clicks' row gives the first click's cut ("cold cut"), then the median
 * quick cut of the later clicks ("stroke"; its "solve" and, in the
 * "model" column, its update of the prior and terminals), their refined
 * cuts ("update")
 * and a fresh seg_segment of the same clicks and previous answer ("fresh");
 * --keep sets the previous answer's weight (0: none, the clicks alone);
 * "until refined" is a click's quick cut plus the refined one, if any;
 * "preview" (photos of SEG_PREVIEW_MIN_PIXELS or more) the page's preview
 * before the cut (seg_session_preview) and the median IoU of it with the cut;
 * "re-fit" the quick cut's re-fit of the models (a final click cut's; none
 * for a quick one), apart from its "model" column (the prior and terminals).
 * --final-clicks none|cpu|gpu|all: the engines whose click cuts are final
 * (re-fitted at once, nothing to refine; the session's default: all).
 *
 * usage: bench_session EXAMPLES_DIR [--engine cpu|gpu] [--sizes 1,3,12] [--repeats R]
 *                      [--cold-fraction F] [--threads N] [--box | --clicks [--keep W] [--final-clicks E]]
 *                      [--alloc-cache MIB]
 * --threads: the build's and the CPU solve's threads (default: every core).
 * --cold-fraction: whole-photo terminal changes over this fraction of the
 * arcs are solved cold in place, fewer warm (the session's tuning).
 * --alloc-cache: keep up to this many MiB of released solver arrays
 * (mf_alloc_cache_limit), as a long-running caller may. */
#define _POSIX_C_SOURCE 200809L
#include "flowcut/images.h"
#include "flowcut/segment.h"
#include "session_internal.h" /* session_set_cold_fraction, session_set_final_clicks */

#include <math.h>
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bilinear upscale of RGB; nearest for labels. */
static void upscale(const img_image *src, const img_image *seeds, int32_t w, int32_t h, uint8_t *rgb,
                    uint8_t *labels)
{
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            double fx = (x + 0.5) * src->width / w - 0.5, fy = (y + 0.5) * src->height / h - 0.5;
            int32_t x0 = (int32_t)floor(fx), y0 = (int32_t)floor(fy);
            double ax = fx - x0, ay = fy - y0;
            int32_t xa = x0 < 0 ? 0 : x0, ya = y0 < 0 ? 0 : y0;
            int32_t xb = x0 + 1 >= src->width ? src->width - 1 : x0 + 1, yb = y0 + 1 >= src->height ? src->height - 1 : y0 + 1;
            for (int c = 0; c < 3; c++) {
                double v = (1 - ay) * ((1 - ax) * src->data[3 * ((int64_t)ya * src->width + xa) + c] +
                                       ax * src->data[3 * ((int64_t)ya * src->width + xb) + c]) +
                           ay * ((1 - ax) * src->data[3 * ((int64_t)yb * src->width + xa) + c] +
                                 ax * src->data[3 * ((int64_t)yb * src->width + xb) + c]);
                rgb[3 * ((int64_t)y * w + x) + c] = (uint8_t)(v + 0.5);
            }
            int32_t sx = (int32_t)((int64_t)x * src->width / w), sy = (int32_t)((int64_t)y * src->height / h);
            labels[(int64_t)y * w + x] = seeds->data[(int64_t)sy * seeds->width + sx];
        }
}

/* Fresh network and cold solve of the session's seeds (models as given). */
static int check_fresh(const uint8_t *rgb, int32_t w, int32_t h, const uint8_t *labels, const gb_models *frozen,
                       const seg_session_options *o, const uint8_t *mask, double *cold_s)
{
    gb_models *m = NULL;
    if (!frozen && gb_models_fit(rgb, w, h, labels, &o->graph, &m))
        return -1;
    mf_graph g;
    if (gb_build(rgb, w, h, labels, frozen ? frozen : m, &o->graph, &g, NULL))
        return -1;
    mf_result r;
    mf_error e = {0};
    int rc = mf_solve(&g, &o->solve, &r, &e);
    gb_models_free(m);
    mf_graph_free(&g);
    if (rc)
        return -1;
    *cold_s = r.stats.solve_seconds + r.stats.upload_seconds;
    int same = 1;
    for (int64_t i = 0; i < (int64_t)w * h && same; i++)
        same = (r.source_side[i] ? 255 : 0) == mask[i];
    mf_result_free(&r);
    return same ? 0 : 1;
}

/* The box's refined cut as `flowcut segment --box` makes it, for the check. */
static int check_box(const uint8_t *rgb, int32_t w, int32_t h, const uint8_t *labels, const int32_t box[4],
                     const seg_session_options *so, const uint8_t *mask, double *seconds)
{
    seg_options o;
    seg_options_default(&o);
    o.graph = so->graph;
    o.solve = so->solve;
    seg_prompts *p = seg_prompts_new();
    seg_error err = {0};
    uint8_t *m = malloc((size_t)w * h);
    int rc = !p || !m || seg_prompts_set_box(p, box[0], box[1], box[2], box[3], &err);
    o.prompts = p;
    double t0 = bench_now();
    if (!rc)
        rc = seg_segment(rgb, w, h, labels, 1, &o, m, NULL, &err) != SEG_OK;
    *seconds = bench_now() - t0;
    if (!rc)
        rc = memcmp(m, mask, (size_t)w * h) != 0;
    seg_prompts_free(p);
    free(m);
    return rc;
}

/* A box, then clicks inside it: one quick and one refined cut per click. */
static int bench_box(const char *tok, double s, const uint8_t *rgb, int32_t w, int32_t h, mf_engine engine,
                     int threads, int repeats, int check)
{
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = engine;
    o.solve.threads = o.graph.threads = threads;
    seg_session *ss = NULL;
    seg_error err = {0};
    seg_cut_stats st;
    const int32_t box[4] = {(int32_t)(70 * s), (int32_t)(10 * s), (int32_t)(415 * s), (int32_t)(380 * s)};
    o.refit = 0; /* the box's quick cut, as the page makes it */
    if (seg_session_open(rgb, w, h, NULL, &o, &ss, &err) || seg_session_box(ss, box[0], box[1], box[2], box[3]) ||
        seg_session_cut(ss, &st, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const double box_cut = st.total_seconds;
    /* what the page sends next, while the user looks (the flow kept) */
    double box_prep = 0;
    if (seg_session_refine_pending(ss)) {
        seg_session_set_refit(ss, 1);
        if (seg_session_cut(ss, &st, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        box_prep = st.total_seconds;
    }
    double quick[40], refined[40], qsolve[40], rsolve[40], fresh[40], one[40];
    int k = 0, ok = 1;
    for (int rep = 0; rep < repeats; rep++)
        for (int c = 0; c < 2; c++) {
            /* a foreground click on the cup, a background one on the table */
            const double x = c ? 110 + 6 * rep : 260 + 8 * rep, y = c ? 360 : 190;
            seg_session_click(ss, (int32_t)(x * s), (int32_t)(y * s), c ? GB_BACKGROUND : GB_FOREGROUND);
            seg_session_set_refit(ss, 0);
            if (seg_session_cut(ss, &st, &err)) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            quick[k] = st.total_seconds;
            qsolve[k] = st.solve_seconds;
            fresh[k] = 0;
            if (check && ss->models && !ss->box_net)
                ok = 0; /* a quick cut after a box keeps the box's network */
            if (check && ss->models &&
                check_fresh(rgb, w, h, seg_session_labels(ss), ss->models, &(seg_session_options){.graph = ss->net, .solve = o.solve},
                            seg_session_mask(ss), &fresh[k]))
                ok = 0;
            seg_session_set_refit(ss, 1);
            if (seg_session_cut(ss, &st, &err)) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            refined[k] = st.total_seconds;
            rsolve[k] = st.solve_seconds;
            one[k] = 0;
            if (check && check_box(rgb, w, h, seg_session_labels(ss), box, &o, seg_session_mask(ss), &one[k]))
                ok = 0;
            k++;
        }
    printf("%-6s %-6s %-7s %9.4f %9.4f %9.4f %9s %9.4f %9.4f %7.1fx %s\n", tok, engine == MF_ENGINE_GPU ? "gpu" : "cpu",
           "box", box_cut, bench_median(quick, k), bench_median(qsolve, k), "-", box_prep, bench_median(fresh, k),
           bench_median(fresh, k) / bench_median(quick, k), ok ? "ok" : "MASK DIFFERS");
    printf("%-6s %-6s %-7s %9s %9.4f %9.4f %9s %9s %9.4f %7.1fx %s\n", tok, engine == MF_ENGINE_GPU ? "gpu" : "cpu",
           "box-fit", "-", bench_median(refined, k), bench_median(rsolve, k), "-", "-", bench_median(one, k),
           bench_median(one, k) / bench_median(refined, k), ok ? "ok" : "MASK DIFFERS");
    fflush(stdout);
    seg_session_close(ss);
    return !ok;
}

/* A click session as the page runs it: each click answered by a quick cut
 * (models kept), then the refined cut the page sends while the user looks;
 * each click after the first corrects the mask before it. The refined cut
 * is checked against seg_segment with the same clicks and that mask as
 * the previous answer (bit for bit). */
static double clicks_keep = -1; /* --keep: the previous answer's weight (< 0: the default) */

static int bench_clicks(const char *tok, double s, const uint8_t *rgb, int32_t w, int32_t h, mf_engine engine,
                        int threads, int repeats, int check)
{
    /* on the cup, the saucer, the table, the cup's handle, the wall; sample coordinates */
    static const double at[5][3] = {{312, 140, 1}, {366, 168, 1}, {84, 340, 0}, {270, 220, 1}, {510, 40, 0}};
    seg_session_options o;
    seg_session_options_default(&o);
    o.solve.engine = engine;
    o.solve.threads = o.graph.threads = threads;
    if (clicks_keep >= 0)
        o.graph.keep = clicks_keep;
    double quick[100], qsolve[100], qupdate[100], qmodel[100], refined[100], edit[100], first = 0, one[100];
    double look[100], look_iou[100], first_look = 0; /* the page's preview before each cut, where it pays */
    int k = 0, nlook = 0, ok = 1;
    const size_t npx = (size_t)w * h;
    uint8_t *prev = malloc(npx), *pm = malloc(npx);
    for (int rep = 0; rep < repeats; rep++) {
        seg_session *ss = NULL;
        seg_error err = {0};
        seg_cut_stats st;
        seg_prompts *p = seg_prompts_new();
        if (!p || seg_session_open(rgb, w, h, NULL, &o, &ss, &err))
            return 1;
        for (int c = 0; c < 5; c++) {
            const int32_t x = (int32_t)((at[c][0] + 4 * rep) * s), y = (int32_t)(at[c][1] * s);
            const uint8_t label = at[c][2] ? GB_FOREGROUND : GB_BACKGROUND;
            memcpy(prev, seg_session_mask(ss), npx);
            const int32_t radius = seg_session_click_disc(ss, x, y, label, 0);
            seg_prompts_add_click(p, x, y, label, &err); /* its disc from prev, as the session chose it */
            const int previews = seg_session_preview_pays(ss);
            double t_look = bench_now();
            if (previews && seg_session_preview(ss, pm, NULL, &err)) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            t_look = bench_now() - t_look;
            seg_session_set_refit(ss, 0);
            if (seg_session_cut(ss, &st, &err)) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            if (c) {
                quick[k] = st.total_seconds;
                qsolve[k] = st.solve_seconds;
                qupdate[k] = st.update_seconds;
                qmodel[k] = st.model_seconds;
            } else
                first += st.total_seconds / repeats;
            /* the refined cut the page sends while the user looks, when one is
             * pending (a final click cut leaves none) */
            const int pending = seg_session_refine_pending(ss);
            seg_session_set_refit(ss, 1);
            if (pending && seg_session_cut(ss, &st, &err)) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            if (!c) {
                first_look += previews ? t_look / repeats : 0;
                continue;
            }
            if (previews) {
                int64_t in = 0, un = 0;
                const uint8_t *m = seg_session_mask(ss);
                for (size_t i = 0; i < npx; i++) {
                    in += pm[i] && m[i];
                    un += pm[i] || m[i];
                }
                look[nlook] = t_look;
                look_iou[nlook++] = un ? (double)in / (double)un : 1;
            }
            refined[k] = pending ? st.total_seconds : 0;
            edit[k] = quick[k] + refined[k];
            one[k] = 0;
            if (check) {
                seg_options so;
                seg_options_default(&so);
                so.graph = o.graph;
                so.solve.engine = engine;
                so.prompts = p;
                seg_options_set_previous(&so, prev, w, h);
                uint8_t *want = malloc(npx);
                double t0 = bench_now();
                if (seg_segment(rgb, w, h, NULL, 1, &so, want, NULL, &err) ||
                    memcmp(want, seg_session_mask(ss), npx))
                    ok = 0;
                one[k] = bench_now() - t0;
                free(want);
            }
            seg_prompts_set_radius(p, c, radius, &err); /* the later clicks replay it with its disc */
            k++;
        }
        seg_prompts_free(p);
        seg_session_close(ss);
    }
    free(prev);
    free(pm);
    printf("%-6s %-6s %-7s %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %7.1fx %s (until refined %.4f; re-fit %.4f",
           tok, engine == MF_ENGINE_GPU ? "gpu" : "cpu", "clicks", first, bench_median(quick, k),
           bench_median(qsolve, k), bench_median(qupdate, k), bench_median(refined, k), bench_median(one, k),
           bench_median(one, k) / bench_median(edit, k), ok ? "ok" : "MASK DIFFERS", bench_median(edit, k),
           bench_median(qmodel, k));
    if (nlook)
        printf("; preview %.4f, IoU with the cut %.3f", bench_median(look, nlook), bench_median(look_iou, nlook));
    if (first_look > 0)
        printf("; the first click's preview %.4f", first_look);
    printf(")\n");
    fflush(stdout);
    return !ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_session EXAMPLES_DIR [--engine cpu|gpu] [--sizes 1,3,12] [--repeats R]\n");
        return 2;
    }
    const char *dir = argv[1], *sizes = "1,3,12";
    mf_engine engine = MF_ENGINE_GPU;
    int repeats = 3, check = 1, threads = 0, box = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--engine") && i + 1 < argc)
            engine = !strcmp(argv[++i], "cpu") ? MF_ENGINE_CPU : MF_ENGINE_GPU;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-check"))
            check = 0;
        else if (!strcmp(argv[i], "--cold-fraction") && i + 1 < argc)
            session_set_cold_fraction(atof(argv[++i]));
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--box"))
            box = 1;
        else if (!strcmp(argv[i], "--clicks"))
            box = 2;
        else if (!strcmp(argv[i], "--final-clicks") && i + 1 < argc) {
            const char *f = argv[++i];
            session_set_final_clicks(!strcmp(f, "all")   ? (1u << MF_ENGINE_CPU) | (1u << MF_ENGINE_GPU)
                                     : !strcmp(f, "gpu") ? 1u << MF_ENGINE_GPU
                                     : !strcmp(f, "cpu") ? 1u << MF_ENGINE_CPU
                                                         : 0u);
        } else if (!strcmp(argv[i], "--keep") && i + 1 < argc)
            clicks_keep = atof(argv[++i]);
        else if (!strcmp(argv[i], "--alloc-cache") && i + 1 < argc)
            mf_alloc_cache_limit((size_t)atoll(argv[++i]) << 20);
    }
    if (repeats < 1 || repeats > 20)
        repeats = 3;
    int count = 0;
    if (engine == MF_ENGINE_GPU && (!mf_gpu_compiled() || mf_gpu_available(&count) != MF_OK || count == 0)) {
        printf("skipped: no CUDA device\n");
        return 0;
    }
    char path[1024];
    img_image photo = {0}, seeds = {0};
    img_error ie = {0};
    snprintf(path, sizeof path, "%s/coffee.png", dir);
    if (img_load_rgb(path, 0, &photo, &ie))
        return 1;
    snprintf(path, sizeof path, "%s/coffee-seeds.png", dir);
    if (img_load_labels(path, 0, &seeds, &ie))
        return 1;
    printf("%-6s %-6s %-7s %9s %9s %9s %9s %9s %9s %8s %s\n", "Mpx", "engine", "models", "cold cut", "stroke",
           "solve", "model", "update", "fresh", "speedup", "checks");
    int failures = 0;
    char *list = strdup(sizes);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        double mpx = atof(tok);
        double s = sqrt(mpx * 1e6 / (600.0 * 400.0));
        int32_t w = (int32_t)(600 * s), h = (int32_t)(400 * s);
        uint8_t *rgb = malloc((size_t)w * h * 3), *labels = malloc((size_t)w * h);
        upscale(&photo, &seeds, w, h, rgb, labels);
        if (box == 1)
            failures += bench_box(tok, s, rgb, w, h, engine, threads, repeats, check);
        if (box == 2)
            failures += bench_clicks(tok, s, rgb, w, h, engine, threads, repeats, check);
        for (int refit = 0; refit <= 1 && !box; refit++) {
            seg_session_options o;
            seg_session_options_default(&o);
            o.solve.engine = engine;
            o.solve.threads = o.graph.threads = threads;
            o.refit = refit;
            seg_session *ss = NULL;
            seg_error err = {0};
            seg_cut_stats st;
            if (seg_session_open(rgb, w, h, labels, &o, &ss, &err) || seg_session_cut(ss, &st, &err)) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            double cold_cut = st.total_seconds;
            if (!refit && seg_session_refine_pending(ss)) { /* as the page does: the flow kept */
                seg_session_set_refit(ss, 1);
                int rc = seg_session_cut(ss, &st, &err);
                seg_session_set_refit(ss, 0);
                if (rc) {
                    fprintf(stderr, "%s\n", err.message);
                    return 1;
                }
            }
            gb_models *frozen = NULL;
            if (!refit)
                gb_models_fit(rgb, w, h, labels, &o.graph, &frozen);
            double total[40], solve[40], model[40], update[40], fresh[40];
            int k = 0, ok = 1;
            for (int rep = 0; rep < repeats; rep++)
                for (int stroke = 0; stroke < 2; stroke++) {
                    /* foreground inside the cup, background on the table; in sample coordinates */
                    double x0 = stroke ? 520 : 300 + 10 * rep, y0 = stroke ? 40 + 15 * rep : 180;
                    double x1 = stroke ? 580 : 380 + 10 * rep, y1 = stroke ? 300 : 200 + 5 * rep;
                    seg_session_paint_line(ss, stroke ? GB_BACKGROUND : GB_FOREGROUND, x0 * s, y0 * s, x1 * s,
                                           y1 * s, 4 * s);
                    if (seg_session_cut(ss, &st, &err)) {
                        fprintf(stderr, "%s\n", err.message);
                        return 1;
                    }
                    total[k] = st.total_seconds;
                    solve[k] = st.solve_seconds;
                    model[k] = st.model_seconds;
                    update[k] = st.update_seconds;
                    fresh[k] = 0;
                    int c = check ? check_fresh(rgb, w, h, seg_session_labels(ss), frozen, &o, seg_session_mask(ss),
                                                &fresh[k])
                                  : 0;
                    if (c)
                        ok = 0;
                    k++;
                }
            failures += !ok;
            double mt = bench_median(total, k), mf = bench_median(fresh, k);
            printf("%-6s %-6s %-7s %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %7.1fx %s\n", tok,
                   engine == MF_ENGINE_GPU ? "gpu" : "cpu", refit ? "refit" : "frozen", cold_cut, mt,
                   bench_median(solve, k), bench_median(model, k), bench_median(update, k), mf, mf / mt,
                   ok ? "ok" : "MASK DIFFERS");
            fflush(stdout);
            gb_models_free(frozen);
            seg_session_close(ss);
        }
        free(rgb);
        free(labels);
    }
    free(list);
    img_free(&photo);
    img_free(&seeds);
    return failures ? 1 : 0;
}
