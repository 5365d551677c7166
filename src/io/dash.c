/* dash.c - the dashboard document's summary and cluster map, and the page
 * writer (dash.h).  The queue, running and team lists: dash_lists.c. */
#include "io/dash.h"
#include "io/dash_private.h"
#include "core/base/alloc.h"
#include "core/place/frag.h"

#include <string.h>

/* Does job state `st` hold GPUs, and are they being given back? */
int gs_dash_holds(int st)
{
    return gs_job_state_holds(st);
}

int gs_dash_held(int st)
{
    return st == GS_JOB_STOPPING;
}

int gs_dash_anonymous(const struct gs_job_info *ji)
{
    /* sim/snapshot_run.h: a snapshot's busy GPUs that no known job holds
     * are jobs of team "(busy)" (or "(drain)", "(down)" on such nodes) */
    size_t n = ji->team ? strlen(ji->team) : 0;
    return n > 2 && ji->team[0] == '(' && ji->team[n - 1] == ')';
}

/* Domains of node n that can take a k-GPU job (bit d), or all of the
 * node's domains when the node as a whole is the unit (one domain, or k
 * larger than a domain): the same units `frag` lists. */
static unsigned unit_mask(const struct gs_cluster *cl, int n, int k)
{
    uint64_t idle = gs_cluster_idle_mask(cl, n);
    int nd = gs_cluster_node_domains(cl, n), g = gs_cluster_node_gpus(cl, n);
    unsigned all = nd >= 32 ? ~0u : (1u << nd) - 1;
    if (k > g)
        return g > 0 && __builtin_popcountll(idle) == g ? all : 0;
    if (k > gs_cluster_max_domain(cl) || nd == 1)
        return gs_cluster_node_sched(cl, n, idle, k) > 0 ? all : 0;
    unsigned m = 0;
    for (int d = 0; d < nd && d < 32; d++)
        if (__builtin_popcountll(idle & gs_cluster_domain_mask(cl, n, d)) >= k)
            m |= 1u << d;
    return m;
}

/* `job` is the GPU's entry in the jobs table (-1 none, -2 unknown): the
 * live engine takes a draining node's idle GPUs out of service as busy
 * with no job, which the map shows as free on a draining node. */
static char cell_char(const struct gs_cluster *cl, int n, int g, int state, uint64_t held,
                      uint64_t down, int job)
{
    if (state == GS_DASH_DOWN || (down >> g & 1))
        return 'd';
    if (held >> g & 1)
        return 'h';
    if (gs_cluster_idle_mask(cl, n) >> g & 1 || (state == GS_DASH_DRAIN && job == -1))
        return state == GS_DASH_DRAIN ? 'n' : 'f';
    int used = gs_cluster_gpu_used_milli(cl, n, g);
    return used > 0 && used < GS_MILLI_GPU ? 'p' : 'b';
}

void gs_dash_kstats(const struct gs_cluster *cl, int k, struct gs_dash_kstats *out)
{
    k = k > 0 ? k : 1;
    int maxnode = gs_cluster_max_node_gpus(cl);
    int64_t idle_total = 0, sched = 0, topo = 0, small = 0;
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        int g = gs_cluster_node_gpus(cl, n);
        uint64_t idle = gs_cluster_idle_mask(cl, n);
        int i = __builtin_popcountll(idle);
        idle_total += i;
        if (g >= k) {
            int s = gs_cluster_node_sched(cl, n, idle, k), t = k * (i / k - s);
            sched += s;
            topo += t > 0 ? t : 0;
        } else if (g > 0 && i == g && k > maxnode) {
            small += g; /* jobs span whole nodes: fully idle ones pool */
        }
    }
    sched += small / k;
    *out = (struct gs_dash_kstats){ k, sched, idle_total - (int64_t)k * sched - topo, topo };
}

int gs_dash_pick_k(const struct gs_dash_src *src)
{
    if (src->k > 0)
        return src->k;
    int k = 0;
    for (int i = 0; src->k_from_queue && src->eng && i < src->nqueue; i++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(src->eng, src->queue[i], &ji) == 0 &&
            ji.state == GS_JOB_PENDING && ji.gpus > k)
            k = ji.gpus;
    }
    return k > 0 ? k : gs_cluster_stats(src->cl).k;
}

static const char *state_name(int st)
{
    return st == GS_DASH_DOWN ? "down" : st == GS_DASH_DRAIN ? "drain" : "up";
}

/* The node's reason (down, quarantined: docs/failures.md) into `o`, when it has one. */
static json_t *with_reason(json_t *o, const struct gs_dash_src *src, int n)
{
    const char *why = src->node_reason ? src->node_reason[n] : NULL;
    if (o && why && *why)
        json_object_set_new(o, "reason", json_string(why));
    return o;
}

static json_t *node_json(const struct gs_dash_src *src, const struct gs_dash_gpumap *gm, int n,
                         int k)
{
    const struct gs_cluster *cl = src->cl;
    int g = gs_cluster_node_gpus(cl, n), st = src->node_state ? src->node_state[n] : GS_DASH_UP;
    char cells[GS_MAX_NODE_GPUS + 1];
    json_t *jobs = json_array(), *doms = json_array(), *units = json_array();
    uint64_t held = gm ? gm->held[n] : 0, down = src->gpus_down ? src->gpus_down[n] : 0;
    int first = gs_cluster_node_first_gpu(cl, n);
    for (int i = 0; i < g; i++) {
        int job = gm ? gm->job[first + i] : -2;
        cells[i] = cell_char(cl, n, i, st, held, down, job);
        json_array_append_new(jobs, json_integer(gm ? job : -1));
    }
    cells[g] = '\0';
    unsigned um = st == GS_DASH_UP ? unit_mask(cl, n, k) : 0;
    for (int d = 0; d < gs_cluster_node_domains(cl, n); d++) {
        json_array_append_new(doms, json_integer(__builtin_popcountll(gs_cluster_domain_mask(cl, n, d))));
        if (d < 32 && (um >> d & 1))
            json_array_append_new(units, json_integer(d));
    }
    int md = gs_cluster_node_mdomain(cl, n), type = gs_cluster_node_gpu_type(cl, n);
    return with_reason(json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:o, s:s?, s:s?}", "name",
                     gs_cluster_node_name(cl, n), "state", state_name(st), "cells", cells, "free",
                     st == GS_DASH_UP ? __builtin_popcountll(gs_cluster_idle_mask(cl, n) & ~down) : 0,
                     "doms", doms, "units", units, "jobs", jobs, "mdomain",
                     md >= 0 ? gs_cluster_label_name(cl, md) : NULL, "gpu_type",
                     type >= 0 ? gs_cluster_gpu_type_name(cl, type) : NULL), src, n);
}

/* The k choices the page offers: the cluster's k, the k shown and each GPU
 * count the pending jobs ask for (the first 16 distinct ones met in pass
 * order; listed ascending). */
static json_t *k_choices(const struct gs_dash_src *src, int k)
{
    int c[18], n = 0;
    c[n++] = gs_cluster_stats(src->cl).k;
    c[n++] = k;
    for (int i = 0; src->eng && i < src->nqueue && n < 18; i++) {
        struct gs_job_info ji;
        int seen = 0;
        if (gs_engine_job_info(src->eng, src->queue[i], &ji) < 0 ||
            ji.state != GS_JOB_PENDING || ji.gpus <= 0)
            continue;
        for (int j = 0; j < n; j++)
            seen |= c[j] == ji.gpus;
        if (!seen)
            c[n++] = ji.gpus;
    }
    json_t *a = json_array();
    for (int lo = 0, m = 0; a && m < 16; m++) { /* the next larger value each time */
        int best = 0;
        for (int i = 0; i < n; i++)
            if (c[i] > lo && (!best || c[i] < best))
                best = c[i];
        if (!best)
            break;
        json_array_append_new(a, json_integer(best));
        lo = best;
    }
    return a;
}

static json_t *summary_json(const struct gs_dash_src *src, int k)
{
    const struct gs_cluster *cl = src->cl;
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    struct gs_dash_kstats ks;
    gs_dash_kstats(cl, k, &ks);
    int64_t free_gpus = 0;
    for (int n = 0; n < gs_cluster_node_count(cl); n++)
        if (!src->node_state || src->node_state[n] == GS_DASH_UP)
            free_gpus += __builtin_popcountll(gs_cluster_idle_mask(cl, n) &
                                              ~(src->gpus_down ? src->gpus_down[n] : 0));
    return json_pack("{s:I, s:I, s:I, s:f, s:{s:i, s:I, s:s, s:o}, s:{s:I, s:I, s:f}}",
                     "gpus", (json_int_t)s.gpus, "free_gpus", (json_int_t)free_gpus,
                     "used_milli", (json_int_t)s.used_milli, "util_alloc",
                     s.gpus ? (double)s.used_milli / GS_MILLI_GPU / (double)s.gpus : 0.0,
                     "schedulability", "k", k, "value", (json_int_t)ks.sched, "k_basis",
                     src->k > 0 ? "chosen" : src->k_from_queue && k != s.k ? "queue" : "cluster",
                     "k_choices", k_choices(src, k), "fragmentation", "count",
                     (json_int_t)ks.frag_count, "topology", (json_int_t)ks.frag_topology,
                     "memory", gs_frag_memory(cl, NULL));
}

static json_t *map_json(const struct gs_dash_src *src, const struct gs_dash_gpumap *gm, int k)
{
    const struct gs_cluster *cl = src->cl;
    json_t *nodes = json_array();
    for (int n = 0; nodes && n < gs_cluster_node_count(cl); n++) {
        json_t *o = node_json(src, gm, n, k);
        if (!o || json_array_append_new(nodes, o) < 0) {
            json_decref(nodes);
            return NULL;
        }
    }
    return nodes;
}

json_t *gs_dash_json(const struct gs_dash_src *src, struct gs_error *err)
{
    struct gs_dash_gpumap gm = { 0 };
    json_t *doc = NULL;
    if (src->eng && gs_dash_gpumap_build(&gm, src) < 0)
        goto fail;
    int k = gs_dash_pick_k(src);
    doc = summary_json(src, k);
    gs_time now = src->eng ? gs_engine_now(src->eng) : 0;
    if (!doc || json_object_set_new(doc, "version", json_integer(1)) < 0 ||
        json_object_set_new(doc, "source", json_string(src->source ? src->source : "")) < 0 ||
        json_object_set_new(doc, "time", json_real(gs_time_to_sec(now))) < 0 ||
        json_object_set_new(doc, "nodes", map_json(src, src->eng ? &gm : NULL, k)) < 0 ||
        json_object_set_new(doc, "jobs", src->eng ? gm.table : json_array()) < 0)
        goto fail;
    gm.table = NULL;
    if (src->eng && gs_dash_lists_json(doc, src) < 0)
        goto fail;
    if (src->charts)
        json_object_set(doc, "charts", src->charts);
    gs_dash_gpumap_fini(&gm);
    return doc;
fail:
    gs_dash_gpumap_fini(&gm);
    json_decref(doc);
    gs_errorf(err, GS_ENOMEM, "dashboard: out of memory");
    return NULL;
}

/* ---- the page --------------------------------------------------------------- */

/* Copy the template, replacing @GS_DATA@, @GS_POLL@ and @GS_REFRESH@. */
int gs_dash_page_write(FILE *f, const json_t *doc, const char *poll_url, int refresh_s)
{
    const char *p = gs_dash_page_html, *at;
    while ((at = strchr(p, '@')) != NULL) {
        fwrite(p, 1, (size_t)(at - p), f);
        if (strncmp(at, "@GS_DATA@", 9) == 0) {
            /* JSON_ESCAPE_SLASH: "</script>" inside a string cannot end the element */
            if (doc && json_dumpf(doc, f, JSON_COMPACT | JSON_ESCAPE_SLASH) < 0)
                return GS_EIO;
            p = at + 9;
        } else if (strncmp(at, "@GS_POLL@", 9) == 0) {
            fputs(doc || !poll_url ? "" : poll_url, f);
            p = at + 9;
        } else if (strncmp(at, "@GS_REFRESH@", 12) == 0) {
            fprintf(f, "%d", refresh_s > 0 ? refresh_s : 5);
            p = at + 12;
        } else {
            fputc('@', f);
            p = at + 1;
        }
    }
    fputs(p, f);
    return ferror(f) ? GS_EIO : 0;
}
