/* The session's previous answer (gb_params.keep): a click that follows a
 * cut of every edit before it corrects that cut's mask, so the mask and
 * the click enter the energy (pixels away from the click keep their label
 * unless the photo argues by more than the term's weight). Any other edit
 * ends the term: a stroke or a box says where the user wants changes
 * itself. Undo and redo bring back the term their step had, so that an
 * undone click gives back the mask before it, bit for bit. */
#include "session_internal.h"

#include <stdlib.h>
#include <string.h>

/* The term in the undo history: the mask as bits and the click, shared
 * by the step it ends and the step it starts. */
struct keep_pack {
    int refs;
    int32_t x, y;
    uint8_t label;
    size_t bytes;
    uint8_t bits[];
};

void session_keep_click(seg_session *s, int32_t x, int32_t y, uint8_t label)
{
    s->keep_on = s->opt.graph.keep > 0;
    if (!s->keep_on)
        return;
    for (int64_t i = 0; i < s->npx; i++)
        s->keep_mask[i] = s->mask[i] & 1; /* 255 or 0 */
    s->keep_xy[0] = x;
    s->keep_xy[1] = y;
    s->keep_label = label;
}

const uint8_t *seg_session_get_previous(const seg_session *s, seg_click *click)
{
    int32_t box[4];
    if (!s || !s->keep_on || seg_session_get_box(s, box))
        return NULL; /* none, or a box's route, which has none */
    if (click)
        *click = (seg_click){s->keep_xy[0], s->keep_xy[1], s->keep_label, 0}; /* its disc: from the mask */
    return s->keep_mask;
}

void session_keep_params(const seg_session *s, int box, gb_params *p)
{
    p->previous = s->keep_on && !box ? s->keep_mask : NULL;
    p->keep_x = s->keep_xy[0];
    p->keep_y = s->keep_xy[1];
}

size_t session_keep_bytes(const keep_pack *k) { return k ? sizeof *k + k->bytes : 0; }

keep_pack *session_keep_ref(keep_pack *k)
{
    if (k)
        k->refs++;
    return k;
}

void session_keep_unref(keep_pack *k)
{
    if (k && --k->refs == 0)
        free(k);
}

int session_keep_pack(const seg_session *s, keep_pack **out)
{
    *out = NULL;
    if (!s->keep_on)
        return SEG_OK;
    const size_t bytes = ((size_t)s->npx + 7) / 8;
    keep_pack *k = calloc(1, sizeof *k + bytes);
    if (!k)
        return SEG_ERR_NOMEM;
    k->refs = 1;
    k->x = s->keep_xy[0];
    k->y = s->keep_xy[1];
    k->label = s->keep_label;
    k->bytes = bytes;
    for (int64_t i = 0; i < s->npx; i++)
        k->bits[i >> 3] |= (uint8_t)(s->keep_mask[i] << (i & 7));
    *out = k;
    return SEG_OK;
}

void session_keep_unpack(seg_session *s, const keep_pack *k)
{
    s->keep_on = k != NULL;
    if (!k)
        return;
    for (int64_t i = 0; i < s->npx; i++)
        s->keep_mask[i] = (uint8_t)(k->bits[i >> 3] >> (i & 7) & 1);
    s->keep_xy[0] = k->x;
    s->keep_xy[1] = k->y;
    s->keep_label = k->label;
}
