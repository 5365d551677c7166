/* preempt_state.c - the preemption state's life (struct gs_preempt,
 * preempt_private.h): created with the engine (the partitions resolved
 * against its cluster), freed with it, per-slot tables included. */
#include "core/preempt/preempt_private.h"

void gs_eng_preempt_hooks(struct gs_eng_hooks *h)
{
    gs_eng_part_hooks(h); /* partition usage before the holds, as drains read it */
    gs_eng_drain_hooks(h);
    gs_eng_preempt_victim_hooks(h);
}

static int any_mode(const struct gs_policy *p)
{
    int on = p->preempt_mode != GS_PREEMPT_NONE;
    for (int c = 0; c < 2; c++)
        if (p->preempt_class[c] != GS_PREEMPT_INHERIT)
            on |= p->preempt_class[c] != GS_PREEMPT_NONE;
    for (int i = 0; i < p->npartitions; i++)
        if (p->partitions[i].preempt_mode > GS_PREEMPT_NONE)
            on = 1;
    return on;
}

int gs_eng_preempt_init(struct gs_engine *eng, struct gs_error *err)
{
    int nn = gs_cluster_node_count(eng->cl);
    struct gs_preempt *pre = gs_calloc(1, sizeof *pre);
    eng->pre = pre;
    if (!pre)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    pre->young_wake = GS_TIME_INF;
    pre->node_first = gs_calloc((size_t)nn + 1, sizeof *pre->node_first);
    pre->view_buf = gs_calloc((size_t)nn, sizeof *pre->view_buf);
    pre->alloc_buf.parts = gs_calloc((size_t)nn, sizeof *pre->alloc_buf.parts);
    pre->alloc_buf.cap = nn;
    pre->hold_part = gs_calloc(1, sizeof *pre->hold_part);
    if (!pre->node_first || !pre->view_buf || !pre->alloc_buf.parts || !pre->hold_part)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    pre->active = any_mode(&eng->pol);
    return gs_eng_part_init(eng, err);
}

void gs_eng_preempt_fini(struct gs_engine *eng)
{
    struct gs_preempt *pre = eng->pre;
    if (!pre)
        return;
    gs_eng_part_fini(eng);
    gs_free(pre->drains);
    gs_free(pre->holds);
    gs_free(pre->cand);
    gs_free(pre->ent);
    gs_free(pre->ent_sorted);
    gs_free(pre->node_first);
    gs_free(pre->items);
    gs_free(pre->view_buf);
    gs_free(pre->alloc_buf.parts);
    gs_free(pre->hold_part);
    gs_free(pre->vic_buf);
    gs_free(pre->draining);
    gs_free(pre->pre_by);
    gs_free(pre);
    eng->pre = NULL;
}

