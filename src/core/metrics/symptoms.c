/* symptoms.c - the seed's five symptoms as checks (symptoms.h). */
#include "core/metrics/symptoms.h"

#include <assert.h>
#include <string.h>

const char *gs_symptom_name(int id)
{
    static const char *const names[GS_SYM_COUNT] = {
        "free_but_queued", "long_queue_moderate", "big_jobs_wait",
        "small_crowd_big", "full_but_slow",
    };
    return id >= 0 && id < GS_SYM_COUNT ? names[id] : "?";
}

/* Waiting GPU-hours of size class `cls` (all classes when < 0) under the
 * codes in `mask`. */
static double gpu_h(const struct gs_wait_reasons *w, int cls, unsigned mask)
{
    double h = 0;
    for (int c = 0; c < GS_REASON_COUNT; c++) {
        if (!(mask & (1u << c)))
            continue;
        for (int z = 0; z < GS_SIZE_CLASSES; z++)
            if (cls < 0 || z == cls)
                h += w->gpu_h[c][z];
    }
    return h;
}

#define FRAG_CODES                                                                      \
    ((1u << GS_REASON_COUNT_FRAG) | (1u << GS_REASON_TOPOLOGY_FRAG) |                   \
     (1u << GS_REASON_MEMORY_FRAG))
#define TAKEN_CODES                                                                     \
    ((1u << GS_REASON_SHORTAGE) | (1u << GS_REASON_PRIORITY) |                          \
     (1u << GS_REASON_RESERVATION) | (1u << GS_REASON_QUOTA))
#define ALL_CODES ((1u << GS_REASON_COUNT) - 1)

static double share(double part, double whole)
{
    return whole > 0 ? part / whole : 0;
}

/* BIG waits long and much longer than SMALL (checks 3 and 4). */
static int big_waits(const struct gs_summary *s, int big, double *bp, double *sp)
{
    assert(big >= 0 && big < GS_SIZE_CLASSES); /* gs_job_size_class() */
    const struct gs_pctl *bw = &s->wait_by_size[big];
    *bp = bw->p90;
    *sp = s->wait_by_size[0].p90;
    return big > 0 && bw->n > 0 && *bp >= GS_SYM_LONG_WAIT_S &&
           *bp >= GS_SYM_BIG_RATIO * *sp;
}

static int policy_lacks(const struct gs_policy *p)
{
    if (!p)
        return 0;
    int lacks = 0;
    if (p->queue_policy == GS_QUEUE_FIFO || p->aging_rate <= 0)
        lacks |= GS_SYM_NO_AGING;
    if (p->nquotas == 0)
        lacks |= GS_SYM_NO_QUOTA;
    if (gs_policy_backfill_mode(p) == GS_BACKFILL_NONE)
        lacks |= GS_SYM_NO_BACKFILL;
    return lacks;
}

void gs_symptoms_check(struct gs_symptoms *out, const struct gs_summary *s,
                       const struct gs_policy *pol)
{
    memset(out, 0, sizeof *out);
    const struct gs_wait_reasons *w = &s->waits;
    out->k = s->sched.k;
    int big = out->big_class = gs_job_size_class(s->sched.k > 0 ? s->sched.k : 1);
    for (int i = 0; i < GS_SYM_COUNT; i++)
        out->s[i].id = i;
    struct gs_symptom *y = &out->s[GS_SYM_FREE_BUT_QUEUED];
    double frag = gpu_h(w, -1, FRAG_CODES);
    y->v[0] = share(frag, w->total_gpu_h);
    y->v[1] = frag;
    y->v[2] = w->total_gpu_h;
    y->v[3] = s->frag.count + s->frag.topology + s->frag.memory;
    y->fired = frag > 0 && y->v[0] >= GS_SYM_FRAG_SHARE;
    y = &out->s[GS_SYM_LONG_QUEUE_MODERATE];
    y->v[0] = s->wait.p90;
    y->v[1] = s->util_alloc;
    y->v[2] = s->wait.p99;
    y->fired = s->wait.p90 >= GS_SYM_LONG_WAIT_S && s->util_alloc <= GS_SYM_MODERATE_ALLOC;
    y = &out->s[GS_SYM_BIG_JOBS_WAIT];
    int pattern = big_waits(s, big, &y->v[0], &y->v[1]);
    y->v[2] = s->sched.share_ge1;
    y->v[3] = share(gpu_h(w, big, FRAG_CODES), gpu_h(w, big, ALL_CODES));
    y->fired = pattern && s->sched.share_ge1 < GS_SYM_SK_SHARE;
    y = &out->s[GS_SYM_SMALL_CROWD_BIG];
    big_waits(s, big, &y->v[0], &y->v[1]);
    y->v[2] = share(gpu_h(w, big, TAKEN_CODES), gpu_h(w, big, ALL_CODES));
    y->v[3] = policy_lacks(pol);
    y->fired = pattern && y->v[2] >= GS_SYM_TAKEN_SHARE;
    y = &out->s[GS_SYM_FULL_BUT_SLOW];
    y->v[0] = s->util_alloc;
    y->v[1] = s->util_effective;
    y->v[2] = share(s->util_effective, s->util_alloc);
    y->fired = s->util_alloc >= GS_SYM_BUSY_ALLOC && y->v[2] < GS_SYM_EFFECTIVE;
}
