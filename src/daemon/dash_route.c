/* dash_route.c - the dashboard's routes and history in gpuschedd
 * (dash_route.h). */
#define _GNU_SOURCE
#include "daemon/dash_route.h"
#include "daemon/loop_eta.h"
#include "daemon/loop_private.h"
#include "io/dash.h"
#include "io/dash_series.h"
#include "io/store.h"
#include "core/base/alloc.h"

#include <math.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

char *gsd_dash_page(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int bad = gs_dash_page_write(f, NULL, "v1/dashboard", 5) < 0;
    bad |= fclose(f) != 0;
    if (bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

void gsd_dash_args(struct MHD_Connection *con, int page[5])
{
    static const char *const names[5] = { "q_offset", "q_limit", "r_offset", "r_limit", "k" };
    for (int i = 0; i < 5; i++) {
        const char *v = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, names[i]);
        char *end = NULL;
        long x = v ? strtol(v, &end, 10) : 0;
        page[i] = v && end != v && *end == '\0' && x >= 0 && x <= GS_DASH_PAGE_MAX * 1000L
                      ? (int)x : 0;
    }
    page[4] = page[4] <= GS_MAX_NODE_GPUS * 1024 ? page[4] : 0;
}

/* Node states and GPUs down in the live engine (a drained node's free
 * GPUs show as such through its state; a GPU drained alone on an up node
 * is not told apart). */
static int node_states(const struct gsd_loop *lp, unsigned char *st, uint64_t *down)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        int s = gs_engine_node_state(lp->eng, n);
        st[n] = (unsigned char)(s == GS_NODE_DOWN ? GS_DASH_DOWN
                                : s == GS_NODE_DRAIN ? GS_DASH_DRAIN : GS_DASH_UP);
        down[n] = 0;
        for (int g = 0; g < gs_cluster_node_gpus(cl, n); g++)
            if (gs_engine_gpu_state(lp->eng, n, g) == GS_NODE_DOWN)
                down[n] |= 1ull << g;
    }
    return 0;
}

/* The pending jobs in the engine's pass order (aging included). */
static int *queue_order(const struct gsd_loop *lp, int *nq)
{
    int n = gs_engine_queue_list(lp->eng, NULL, 0);
    int *q = n >= 0 ? gs_malloc((size_t)(n > 0 ? n : 1) * sizeof *q) : NULL;
    int got = q ? gs_engine_queue_list(lp->eng, q, (size_t)n) : 0;
    *nq = got < 0 ? 0 : got > n ? n : got; /* n cannot change on the engine thread */
    return q;
}

struct loading {
    struct gs_dash_series *s;
    gs_time now;
};

static void load_sample(void *arg, const struct gs_store_sample *x)
{
    const struct loading *l = arg;
    if (x->t <= l->now) /* a clock set back: later samples would be refused */
        gs_dash_series_add(l->s, x->t, x->util, x->sched, x->frag_count, x->frag_topology,
                           x->frag_memory, x->pending, x->k);
}

static void load_wait(void *arg, gs_time start, gs_time wait, int gpus)
{
    const struct loading *l = arg;
    if (start <= l->now)
        gs_dash_series_add_wait(l->s, start, wait, gpus);
}

/* The history, read back from the journal the first time (the first
 * document after a start may come before the first turn). */
static struct gs_dash_series *series(struct gsd_loop *lp)
{
    if (!lp->dash && (lp->dash = gs_dash_series_create()) != NULL && lp->st) {
        struct loading l = { lp->dash, gsd_now(lp) };
        gs_store_history(lp->st, load_sample, load_wait, &l);
    }
    return lp->dash;
}

/* The queue items' reason texts with ISO 8601 times, as in the job
 * objects (the shared writer prints the engine's seconds, which a snapshot
 * of `frag --html` keeps). */
static void iso_queue(json_t *doc)
{
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(json_object_get(doc, "queue"), "items"), i, item) {
        gsd_iso_member(item, "detail");
        gsd_iso_member(item, "unblock");
    }
}

static json_t *document(struct gsd_loop *lp, const struct gsd_cmd *c)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    size_t nn = (size_t)gs_cluster_node_count(cl);
    int nq = 0, *queue = queue_order(lp, &nq);
    unsigned char *st = gs_malloc(nn ? nn : 1);
    uint64_t *down = gs_malloc((nn ? nn : 1) * sizeof *down);
    json_t *charts = series(lp) ? gs_dash_series_charts(lp->dash) : NULL, *doc = NULL;
    if (queue && st && down && node_states(lp, st, down) == 0) {
        struct gs_dash_src src = { .source = "daemon", .cl = cl, .eng = lp->eng,
                                   .jobs_before = -1, .node_state = st, .gpus_down = down,
                                   .node_reason = lp->node_reason,
                                   .queue = queue, .nqueue = nq, .q_offset = c->page[0],
                                   .q_limit = c->page[1], .r_offset = c->page[2],
                                   .r_limit = c->page[3], .charts = charts,
                                   .k = c->page[4], .k_from_queue = 1 };
        struct gs_error err;
        gs_error_clear(&err);
        doc = gs_dash_json(&src, &err);
        if (doc)
            gsd_eta_dash(lp, doc);
        iso_queue(doc);
    }
    if (doc && lp->dash)
        json_object_set_new(doc, "history", gs_dash_series_info(lp->dash));
    if (doc)
        json_object_set_new(doc, "failures", gsd_fail_json(lp)); /* failstats.c */
    gs_free(queue);
    gs_free(st);
    gs_free(down);
    json_decref(charts);
    return doc;
}

char *gsd_dash_body(struct gsd_loop *lp, const struct gsd_cmd *c)
{
    json_t *doc = document(lp, c);
    char *s = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    return s;
}

/* The last sample and the waits it added, in a transaction of their own
 * (the turn's is committed); a failure loses them from the journal only. */
static void persist(struct gsd_loop *lp, int64_t waits_before)
{
    const struct gs_dash_sample *x =
        gs_dash_series_at(lp->dash, gs_dash_series_count(lp->dash) - 1);
    if (!x || lp->outage || !lp->st)
        return;
    struct gs_store_sample r = { x->t, x->util, x->sched, x->frag_count, x->frag_topology,
                                 x->frag_memory, x->pending, x->k };
    int64_t nw = gs_dash_series_waits_total(lp->dash) - waits_before;
    struct gs_error err;
    gs_error_clear(&err);
    if (gs_store_begin(lp->st, &err) < 0)
        return;
    int bad = gs_store_sample_add(lp->st, &r, GS_DASH_SAMPLES, &err) < 0;
    for (int i = (int)(nw < GS_DASH_WAITS ? nw : GS_DASH_WAITS) - 1; !bad && i >= 0; i--) {
        gs_time start, wait;
        int gpus;
        bad = gs_dash_series_wait_newest(lp->dash, i, &start, &wait, &gpus) < 0 ||
              gs_store_wait_add(lp->st, start, wait, gpus, GS_DASH_WAITS, &err) < 0;
    }
    if (bad || gs_store_commit(lp->st, &err) < 0)
        gs_store_rollback(lp->st);
}

/* The k the page shows by default: the largest waiting job's GPUs. */
static int default_k(const struct gsd_loop *lp)
{
    int k = 0;
    for (size_t i = 0; i < lp->nlive; i++)
        if (lp->live[i]->state == D_PENDING && lp->live[i]->gpus > k)
            k = lp->live[i]->gpus;
    return k;
}

void gsd_dash_tick(struct gsd_loop *lp)
{
    if (series(lp) && lp->eng && gs_dash_series_due(lp->dash, lp->last_now, GS_DASH_SAMPLE_S)) {
        int64_t before = gs_dash_series_waits_total(lp->dash);
        int n = gs_dash_series_count(lp->dash);
        if (gs_dash_series_sample_k(lp->dash, lp->eng, lp->last_now, default_k(lp)) > 0 &&
            (gs_dash_series_count(lp->dash) != n || n == GS_DASH_SAMPLES))
            persist(lp, before);
    }
}

int gsd_dash_timeout(const struct gsd_loop *lp, int ms)
{
    if (!lp->dash || lp->sh.opts.clock_scale <= 0)
        return ms;
    /* engine ms until the next sample, in wall ms */
    double next = (double)GS_DASH_SAMPLE_S * GS_MS_PER_SEC / lp->sh.opts.clock_scale;
    int wake = (int)ceil(next);
    return ms < 0 || wake < ms ? wake : ms;
}

void gsd_dash_free(struct gsd_loop *lp)
{
    gs_dash_series_destroy(lp->dash);
    lp->dash = NULL;
}
