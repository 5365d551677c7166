/* dash_route.c - the dashboard's routes and history in gpuschedd
 * (dash_route.h). */
#define _GNU_SOURCE
#include "daemon/dash_route.h"
#include "daemon/loop_private.h"
#include "io/dash.h"
#include "io/dash_series.h"
#include "core/alloc.h"

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

/* The daemon's own phase of a job (it launches and stops the processes). */
static int job_phase(void *arg, int job)
{
    const struct gsd_loop *lp = arg;
    const struct djob *d = job >= 0 && (size_t)job < lp->nbyh ? lp->byh[job] : NULL;
    if (!d)
        return GS_DASH_PHASE_ENGINE;
    switch (d->state) {
    case D_STARTING: return GS_DASH_PHASE_STARTING;
    case D_RUNNING: return GS_DASH_PHASE_RUNNING;
    case D_STOPPING: return GS_DASH_PHASE_STOPPING;
    default: return GS_DASH_PHASE_ENGINE;
    }
}

static json_t *document(struct gsd_loop *lp, const struct gsd_cmd *c)
{
    int n = gs_engine_job_count(lp->eng), nq = 0;
    int *all = gs_malloc((size_t)(n > 0 ? n : 1) * sizeof *all);
    for (int i = 0; all && i < n; i++)
        all[i] = i;
    int *queue = all ? gs_dash_pass_order(lp->eng, all, n, 0, &nq) : NULL;
    gs_free(all);
    json_t *charts = lp->dash ? gs_dash_series_charts(lp->dash) : NULL;
    struct gs_dash_src src = { .source = "daemon", .cl = gs_engine_cluster(lp->eng),
                               .eng = lp->eng, .jobs_before = -1, .queue = queue,
                               .nqueue = nq, .q_offset = c->page[0], .q_limit = c->page[1],
                               .r_offset = c->page[2], .r_limit = c->page[3],
                               .charts = charts, .job_phase = job_phase, .phase_arg = lp };
    struct gs_error err;
    gs_error_clear(&err);
    json_t *doc = queue ? gs_dash_json(&src, &err) : NULL;
    gs_free(queue);
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
