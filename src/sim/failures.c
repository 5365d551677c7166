/* failures.c - the random node-failure process (failures.h). */
#include "sim/failures.h"
#include "core/base/alloc.h"
#include "core/base/rng.h"
#include "core/cluster/cluster.h"

#include <math.h>
#include <string.h>

int gs_failure_model_check(const struct gs_failure_model *m, struct gs_error *err)
{
    if (!(m->mtbf_s > 0) || !isfinite(m->mtbf_s))
        return gs_errorf(err, GS_EINVAL, "node_mtbf must be > 0");
    if (!(m->repair_s >= 0) || !isfinite(m->repair_s))
        return gs_errorf(err, GS_EINVAL, "repair must be >= 0");
    if (m->dist == GS_FAIL_WEIBULL && (!(m->shape > 0) || !isfinite(m->shape)))
        return gs_errorf(err, GS_EINVAL, "shape must be > 0");
    return 0;
}

/* One up time.  Exponential: -mtbf ln(1 - u).  Weibull of shape k and mean
 * mtbf: scale lambda = mtbf / Gamma(1 + 1/k), up = lambda (-ln(1 - u))^(1/k)
 * (inverse of the CDF 1 - exp(-(t/lambda)^k)); k = 1 is the exponential. */
static double draw_up(const struct gs_failure_model *m, struct gs_rng *r)
{
    double e = -log(1.0 - gs_rng_uniform(r));
    if (m->dist != GS_FAIL_WEIBULL)
        return m->mtbf_s * e;
    double k = m->shape;
    return m->mtbf_s / tgamma(1.0 + 1.0 / k) * pow(e, 1.0 / k);
}

/* Seconds to gs_time; past the representable range (or NaN): GS_TIME_INF. */
static gs_time to_time(double sec)
{
    return sec < 9.2e15 ? gs_time_from_sec(sec) : GS_TIME_INF;
}

int gs_fail_stream_init(struct gs_fail_stream *s, const struct gs_failure_model *m, int nnodes,
                        struct gs_error *err)
{
    memset(s, 0, sizeof *s);
    int rc = gs_failure_model_check(m, err);
    if (rc < 0)
        return rc;
    s->m = *m;
    s->nnodes = nnodes;
    s->nodes = gs_calloc(nnodes > 0 ? (size_t)nnodes : 1, sizeof *s->nodes);
    if (!s->nodes)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    for (int n = 0; n < nnodes; n++) {
        struct gs_rng r;
        gs_rng_seed(&r, m->seed ^ (0x6661696cULL << 32) ^ (uint64_t)n * 0x9e3779b97f4a7c15ULL);
        s->nodes[n].next_s = draw_up(m, &r);
        memcpy(s->nodes[n].s, r.s, sizeof r.s);
    }
    return 0;
}

void gs_fail_stream_fini(struct gs_fail_stream *s)
{
    if (!s)
        return;
    gs_free(s->nodes);
    s->nodes = NULL;
    s->nnodes = 0;
}

/* The events of node n before `until` (`close`: also the repair under way). */
static int draw_node(struct gs_fail_stream *s, int n, gs_time until, int close,
                     struct gs_node_events *out)
{
    struct gs_fail_node *fn = &s->nodes[n];
    struct gs_rng r;
    memcpy(r.s, fn->s, sizeof r.s);
    for (;;) {
        gs_time t = to_time(fn->next_s);
        if (t == GS_TIME_INF || (t >= until && !(close && fn->down)))
            break;
        struct gs_node_event e = { t, n, -1, fn->down ? GS_NODE_UP : GS_NODE_DOWN };
        if (gs_node_events_append(out, &e) < 0)
            return GS_ENOMEM;
        fn->next_s += fn->down ? draw_up(&s->m, &r) : s->m.repair_s;
        fn->down = !fn->down;
    }
    memcpy(fn->s, r.s, sizeof r.s);
    return 0;
}

static int draw(struct gs_fail_stream *s, gs_time until, int close, struct gs_node_events *out)
{
    size_t first = out->n;
    for (int n = 0; n < s->nnodes; n++)
        if (draw_node(s, n, until, close, out) < 0)
            return GS_ENOMEM;
    if (until > s->drawn_to)
        s->drawn_to = until;
    if (out->n > first) { /* (out->ev may be NULL when nothing was drawn) */
        struct gs_node_events tail = { out->ev + first, out->n - first, out->n - first };
        gs_node_events_sort(&tail);
    }
    return 0;
}

int gs_fail_stream_draw(struct gs_fail_stream *s, gs_time until, struct gs_node_events *out)
{
    return draw(s, until, 0, out);
}

int gs_fail_stream_close(struct gs_fail_stream *s, gs_time until, struct gs_node_events *out)
{
    return draw(s, until, 1, out);
}

gs_time gs_fail_stream_next(const struct gs_fail_stream *s)
{
    gs_time t = GS_TIME_INF;
    for (int n = 0; n < s->nnodes; n++) {
        gs_time tn = to_time(s->nodes[n].next_s);
        if (tn < t)
            t = tn;
    }
    return t;
}
