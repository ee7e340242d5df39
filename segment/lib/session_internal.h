/* The interactive session's state, shared by its translation units:
 * session.c (the network and the cut), session_paint.c (seed edits),
 * session_history.c (undo), session_keep.c (the previous answer's term),
 * session_render.c (images and saves). Private to the library. */
#ifndef FLOWCUT_SESSION_INTERNAL_H
#define FLOWCUT_SESSION_INTERNAL_H

#include "flowcut/segment.h"
#include "seg_internal.h"

#include <stddef.h>
#include <stdint.h>

struct seg_session {
    int32_t width, height;
    int64_t npx;
    seg_session_options opt;
    uint8_t *rgb;
    uint8_t *labels;      /* current seeds */
    uint8_t *mask;
    int32_t dirty[4];     /* x0, y0, x1, y1 (exclusive) of edits since the last cut; x0 >= x1: none */
    /* the network and its solver; NULL until the first cut */
    gb_models *models;
    gb_prior *prior;      /* the photo's side of the terminals and the seeds of the
                           * network in the solver, with their prior distances */
    int32_t *cur_cs, *cur_ct; /* per pixel: the terminal capacities the network holds
                               * (before pre-cancelling and any lift) */
    int32_t *new_cs, *new_ct; /* per pixel: the capacities an update computes (work) */
    int has_box;          /* seg_session_box was called: cuts take the box's route while it stands */
    int32_t box[4];
    gb_params net;        /* the energy of the network in the solver: opt.graph's, or the box's */
    int box_net;          /* the network is the box's route's last cut, for net_box */
    int32_t net_box[4];
    mf_graph graph;       /* while building; the solver keeps its own copy */
    int32_t *cancelled;   /* per pixel: capacity pre-cancelled from both terminals */
    int32_t seed_cap;
    mf_dynamic *dyn;
    int rebuild;          /* lambda changed: the next cut builds afresh */
    int models_stale;     /* seeds changed since the models were fitted */
    int last_quick;       /* the last cut kept the models (refit off) */
    int keep_pending;     /* the network's solve kept no flow for the quick cuts' repairs */
    int cut_valid;        /* the mask, last_flow and last_fg are the network's cut */
    int stroke_edit;      /* an edit other than a click since the last cut */
    int click_cuts;       /* the edits of the last cut with any were clicks alone */
    int64_t last_flow, last_fg;
    char last_device[128];
    int64_t count[3];     /* pixels per label, kept as labels change */
    /* the previous answer's term (session_keep.c) */
    uint8_t *keep_mask;   /* 0 / 1: the mask the last click corrects */
    int keep_on;          /* the term is part of the energy */
    int32_t keep_xy[2];   /* the click */
    uint8_t keep_label;
    struct keep_pack *committed_keep; /* the term at the last step boundary */
    /* undo history: steps [head, nsteps) recorded, [head, pos) applied */
    uint8_t *committed;   /* the labels at the last step boundary */
    int32_t committed_box[5]; /* has_box and box at the last step boundary */
    int32_t step[4];      /* x0, y0, x1, y1 of edits since then; x0 >= x1: none */
    struct hist_step *steps;
    int64_t head, pos, nsteps, cap;
    size_t hist_bytes, hist_limit;
};

/* One undoable step: the pixels whose label it changed, as runs in image
 * order, each "skip (varint, pixels after the previous run), length
 * (varint), before << 4 | after": a stroke costs a few bytes a row it
 * crosses, not its bounding box. */
typedef struct hist_step {
    uint8_t *data;
    size_t size;
    int32_t box[4];
    int32_t prompt_box[2][5]; /* has_box and the box before and after the step */
    struct keep_pack *keep[2]; /* the previous answer's term before and after */
} hist_step;

/* What one step is charged against the limit: its runs, its term after
 * it (the one before is the last step's) and its slot. */
#define STEP_COST(st) ((st).size + session_keep_bytes((st).keep[1]) + sizeof(hist_step))

/* The previous answer's term (session_keep.c). */
typedef struct keep_pack keep_pack;
/* A click at (x, y), painted, that corrects the last cut's mask (which
 * answered every edit before it): the term is that mask and the click. */
void session_keep_click(seg_session *s, int32_t x, int32_t y, uint8_t label);
/* p's previous answer for the network: the term, unless a box stands. */
void session_keep_params(const seg_session *s, int box, gb_params *p);
/* The term as the history keeps it (NULL: none); SEG_ERR_NOMEM. */
int session_keep_pack(const seg_session *s, keep_pack **out);
void session_keep_unpack(seg_session *s, const keep_pack *k);
keep_pack *session_keep_ref(keep_pack *k);
void session_keep_unref(keep_pack *k);
size_t session_keep_bytes(const keep_pack *k);


/* Every label write goes through here: the counts stay exact without a
 * pass over the photo at each cut. */
static inline void session_set_label(seg_session *s, int64_t i, uint8_t l)
{
    s->count[s->labels[i]]--;
    s->count[l]++;
    s->labels[i] = l;
}

/* Labels changed in the rectangle: the next cut updates it. */
void session_mark_dirty(seg_session *s, int32_t x0, int32_t y0, int32_t x1, int32_t y1);
/* The same for an edit by the caller (session_paint.c): also part of the
 * open undo step, and the end of a click's previous-answer term. */
void session_mark_edit(seg_session *s, int32_t x0, int32_t y0, int32_t x1, int32_t y1);
/* Whole-photo terminal changes (re-fitted models, the prior after an edit)
 * over this fraction of the arcs are solved cold in place, fewer warm
 * (mf_dynamic_set_cold_fraction); benchmarks set it to compare. */
void session_set_cold_fraction(double fraction);
/* The engines whose click cuts are final (a bit per mf_engine; both by
 * default): for tests and benchmarks. */
void session_set_final_clicks(unsigned engines);

/* Frees the undo history. */
void session_history_free(seg_session *s);

#endif
