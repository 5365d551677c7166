/* failures.c - the random node-failure process (failures.h). */
#include "sim/failures.h"
#include "core/base/alloc.h"
#include "core/base/rng.h"
#include "core/cluster/cluster.h"

#include <math.h>
#include <string.h>

int gs_failure_model_check(const struct gs_failure_model *m, struct gs_error *err)
{
    if (!(m->gpu_mtbf_s >= 0) || !isfinite(m->gpu_mtbf_s))
        return gs_errorf(err, GS_EINVAL, "gpu_mtbf must be > 0");
    if (!(m->mtbf_s > 0 || (m->mtbf_s == 0 && m->gpu_mtbf_s > 0)) || !isfinite(m->mtbf_s))
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
static double draw_up(const struct gs_failure_model *m, const struct gs_fail_node *u,
                      struct gs_rng *r)
{
    double mean = u->gpu < 0 ? m->mtbf_s : m->gpu_mtbf_s;
    double e = -log(1.0 - gs_rng_uniform(r));
    if (m->dist != GS_FAIL_WEIBULL)
        return mean * e;
    double k = m->shape;
    return mean / tgamma(1.0 + 1.0 / k) * pow(e, 1.0 / k);
}

/* Seconds to gs_time; past the representable range (or NaN): GS_TIME_INF. */
static gs_time to_time(double sec)
{
    return sec < 9.2e15 ? gs_time_from_sec(sec) : GS_TIME_INF;
}

/* Seed unit u (node n, or its GPU g) and draw its first up time.  A
 * node's stream is that of gs_fail_stream_init always; a GPU's has its
 * own tag, so adding GPU failures changes no node's draws. */
static void unit_init(struct gs_fail_stream *s, struct gs_fail_node *u, int n, int g)
{
    struct gs_rng r;
    uint64_t id = g < 0 ? (uint64_t)n : (uint64_t)n * GS_MAX_NODE_GPUS + (uint64_t)g;
    uint64_t tag = g < 0 ? 0x6661696cULL : 0x67707566ULL; /* "fail", "gpuf" */
    gs_rng_seed(&r, s->m.seed ^ (tag << 32) ^ id * 0x9e3779b97f4a7c15ULL);
    u->node = n;
    u->gpu = g;
    u->next_s = draw_up(&s->m, u, &r);
    memcpy(u->s, r.s, sizeof r.s);
}

/* The units: nodes (when m->mtbf_s > 0), then gpus[n] GPUs of each node n
 * (gpus NULL: none). */
static int stream_init(struct gs_fail_stream *s, const struct gs_failure_model *m, int nnodes,
                       const int *gpus, struct gs_error *err)
{
    memset(s, 0, sizeof *s);
    int rc = gs_failure_model_check(m, err);
    if (rc < 0)
        return rc;
    s->m = *m;
    size_t units = m->mtbf_s > 0 && nnodes > 0 ? (size_t)nnodes : 0;
    for (int n = 0; gpus && n < nnodes; n++)
        units += (size_t)gpus[n];
    s->nodes = gs_calloc(units ? units : 1, sizeof *s->nodes);
    if (!s->nodes)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    for (int n = 0; m->mtbf_s > 0 && n < nnodes; n++)
        unit_init(s, &s->nodes[s->nnodes++], n, -1);
    for (int n = 0; gpus && n < nnodes; n++)
        for (int g = 0; g < gpus[n]; g++)
            unit_init(s, &s->nodes[s->nnodes++], n, g);
    return 0;
}

int gs_fail_stream_init(struct gs_fail_stream *s, const struct gs_failure_model *m, int nnodes,
                        struct gs_error *err)
{
    return stream_init(s, m, nnodes, NULL, err);
}

int gs_fail_stream_init_cluster(struct gs_fail_stream *s, const struct gs_failure_model *m,
                                const struct gs_cluster *cl, struct gs_error *err)
{
    int n = gs_cluster_node_count(cl);
    int *gpus = m->gpu_mtbf_s > 0 ? gs_calloc(n > 0 ? (size_t)n : 1, sizeof *gpus) : NULL;
    if (m->gpu_mtbf_s > 0 && !gpus) {
        memset(s, 0, sizeof *s);
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    }
    for (int i = 0; gpus && i < n; i++)
        gpus[i] = gs_cluster_node_gpus(cl, i);
    int rc = stream_init(s, m, n, gpus, err);
    gs_free(gpus);
    return rc;
}

void gs_fail_stream_fini(struct gs_fail_stream *s)
{
    if (!s)
        return;
    gs_free(s->nodes);
    s->nodes = NULL;
    s->nnodes = 0;
}

/* The events of unit n before `until` (`close`: also the repair under way). */
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
        struct gs_node_event e = { t, fn->node, fn->gpu, fn->down ? GS_NODE_UP : GS_NODE_DOWN };
        if (gs_node_events_append(out, &e) < 0)
            return GS_ENOMEM;
        fn->next_s += fn->down ? draw_up(&s->m, fn, &r) : s->m.repair_s;
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
