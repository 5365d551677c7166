/* dash_route.c - the dashboard's routes and history in gpuschedd
 * (dash_route.h). */
#define _GNU_SOURCE
#include "daemon/dash_route.h"
#include "daemon/loop_eta.h"
#include "daemon/loop_private.h"
#include "io/dash.h"
#include "io/dash_series.h"
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

void gsd_dash_args(struct MHD_Connection *con, int page[4])
{
    static const char *const names[4] = { "q_offset", "q_limit", "r_offset", "r_limit" };
    for (int i = 0; i < 4; i++) {
        const char *v = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, names[i]);
        char *end = NULL;
        long x = v ? strtol(v, &end, 10) : 0;
        page[i] = v && end != v && *end == '\0' && x >= 0 && x <= GS_DASH_PAGE_MAX * 1000L
                      ? (int)x : 0;
    }
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

static json_t *document(struct gsd_loop *lp, const struct gsd_cmd *c)
{
    const struct gs_cluster *cl = gs_engine_cluster(lp->eng);
    size_t nn = (size_t)gs_cluster_node_count(cl);
    int nq = 0, *queue = queue_order(lp, &nq);
    unsigned char *st = gs_malloc(nn ? nn : 1);
    uint64_t *down = gs_malloc((nn ? nn : 1) * sizeof *down);
    json_t *charts = lp->dash ? gs_dash_series_charts(lp->dash) : NULL, *doc = NULL;
    if (queue && st && down && node_states(lp, st, down) == 0) {
        struct gs_dash_src src = { .source = "daemon", .cl = cl, .eng = lp->eng,
                                   .jobs_before = -1, .node_state = st, .gpus_down = down,
                                   .queue = queue, .nqueue = nq, .q_offset = c->page[0],
                                   .q_limit = c->page[1], .r_offset = c->page[2],
                                   .r_limit = c->page[3], .charts = charts };
        struct gs_error err;
        gs_error_clear(&err);
        doc = gs_dash_json(&src, &err);
        if (doc)
            gsd_eta_dash(lp, doc);
    }
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

void gsd_dash_tick(struct gsd_loop *lp)
{
    if (!lp->dash)
        lp->dash = gs_dash_series_create();
    if (lp->dash && lp->eng && gs_dash_series_due(lp->dash, lp->last_now, GS_DASH_SAMPLE_S))
        gs_dash_series_sample(lp->dash, lp->eng, lp->last_now);
}

int gsd_dash_timeout(const struct gsd_loop *lp, int ms)
{
    if (!lp->dash || lp->opts.clock_scale <= 0)
        return ms;
    /* engine ms until the next sample, in wall ms */
    double next = (double)GS_DASH_SAMPLE_S * GS_MS_PER_SEC / lp->opts.clock_scale;
    int wake = (int)ceil(next);
    return ms < 0 || wake < ms ? wake : ms;
}

void gsd_dash_free(struct gsd_loop *lp)
{
    gs_dash_series_destroy(lp->dash);
    lp->dash = NULL;
}
