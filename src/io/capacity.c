/* capacity.c - capacity timeline inferred from a job log (capacity.h). */
#include "io/capacity.h"
#include "core/base/alloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A change of usage, of the evidence jobs waiting and of all jobs waiting
 * at time t (a window boundary changes nothing). */
struct cev {
    int64_t t;
    int du, dwev, dwall, dwide, user;
};

/* A stretch [t, t + dur) of constant usage. */
struct seg {
    int64_t t, dur;
    int u, wev, wall, wide, win; /* wev: users with evidence jobs waiting */
};

struct uw {
    int u;
    int64_t dur;
};

static int cmp_cev(const void *a, const void *b)
{
    const struct cev *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

static int cmp_uw(const void *a, const void *b)
{
    const struct uw *x = a, *y = b;
    return (x->u > y->u) - (x->u < y->u);
}

void gs_cap_defaults(struct gs_cap_params *p)
{
    memset(p, 0, sizeof *p);
    p->node_gpus = 8;
    p->window = 43200;
    p->grace = 60;
    p->min_saturated = 1800;
    p->outage_min = 3600;
    p->quantile = 0.95;
    p->min_users = 2;
    p->hold = 6;
}

static int check(const struct gs_cap_record *r, size_t n, const struct gs_cap_params *p,
                 struct gs_error *err)
{
    if (n == 0)
        return gs_errorf(err, GS_EINVAL, "capacity: no jobs");
    if (p->node_gpus < 1 || p->window < 1 || p->grace < 0 || p->min_saturated < 0 ||
        p->outage_min < 1 || !(p->quantile >= 0 && p->quantile <= 1) || p->max_nodes < 0 ||
        p->min_users < 1 || p->hold < 0)
        return gs_errorf(err, GS_EINVAL, "capacity: bad parameters");
    for (size_t i = 0; i < n; i++)
        if (r[i].start < r[i].submit || r[i].end < r[i].start || r[i].gpus < 0)
            return gs_errorf(err, GS_EINVAL,
                             "capacity: job %zu has submit %" PRId64 ", start %" PRId64
                             ", end %" PRId64 ", %d GPUs",
                             i + 1, r[i].submit, r[i].start, r[i].end, r[i].gpus);
    return 0;
}

/* The change events of the records, window boundaries included, sorted. */
static struct cev *events(const struct gs_cap_record *r, size_t n, const struct gs_cap_params *p,
                          int64_t t0, int64_t t1, size_t *count)
{
    size_t nwin = (size_t)((t1 - t0) / p->window) + 1, cap = 6 * n + nwin, k = 0;
    struct cev *e = gs_calloc(cap, sizeof *e);
    if (!e)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        e[k++] = (struct cev){ r[i].start, r[i].gpus, 0, 0, 0, -1 };
        e[k++] = (struct cev){ r[i].end, -r[i].gpus, 0, 0, 0, -1 };
        if (r[i].start - r[i].submit > p->grace) {
            int ev = r[i].evidence ? 1 : 0, wide = r[i].gpus > p->node_gpus;
            e[k++] = (struct cev){ r[i].submit + p->grace, 0, ev, 1, wide, r[i].user };
            e[k++] = (struct cev){ r[i].start, 0, -ev, -1, -wide, r[i].user };
        }
    }
    for (size_t w = 1; w < nwin; w++)
        e[k++] = (struct cev){ t0 + (int64_t)w * p->window, 0, 0, 0, 0, -1 };
    qsort(e, k, sizeof *e, cmp_cev);
    *count = k;
    return e;
}

/* Sweep the events into stretches of constant state; `nusers` bounds the
 * user ids (an unknown user counts as a user of its own per job). */
static struct seg *segments(const struct cev *e, size_t ne, int64_t t0, int64_t window,
                            int nusers, size_t *count)
{
    struct seg *s = gs_calloc(ne + 1, sizeof *s);
    int *per_user = gs_calloc((size_t)nusers + 1, sizeof *per_user);
    if (!s || !per_user) {
        gs_free(s);
        gs_free(per_user);
        return NULL;
    }
    size_t k = 0;
    int u = 0, wev = 0, wall = 0, wide = 0;
    for (size_t i = 0; i < ne;) {
        int64_t t = e[i].t;
        for (; i < ne && e[i].t == t; i++) {
            u += e[i].du;
            wall += e[i].dwall;
            wide += e[i].dwide;
            if (e[i].dwev == 0)
                continue;
            if (e[i].user < 0) {
                wev += e[i].dwev; /* each such job is a user of its own */
                continue;
            }
            int before = per_user[e[i].user] > 0;
            per_user[e[i].user] += e[i].dwev;
            wev += (per_user[e[i].user] > 0) - before;
        }
        if (i < ne && e[i].t > t)
            s[k++] = (struct seg){ t, e[i].t - t, u, wev, wall, wide, (int)((t - t0) / window) };
    }
    gs_free(per_user);
    *count = k;
    return s;
}

/* Time-weighted quantile q of the usage of `v` (sorted here). */
static int wquantile(struct uw *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_uw);
    int64_t total = 0, acc = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].dur;
    for (size_t i = 0; i < n; i++) {
        acc += v[i].dur;
        if ((double)acc >= q * (double)total)
            return v[i].u;
    }
    return v[n - 1].u;
}

static int nodes_for(int gpus, int node_gpus)
{
    return gpus <= 0 ? 0 : (gpus + node_gpus - 1) / node_gpus;
}

/* Capacity of each window: saturated ones from the usage while evidence
 * waits, the others carried and raised to their own P99 usage. */
static int window_caps(const struct seg *s, size_t ns, int nwin, const struct gs_cap_params *p,
                       int *cap, int *saturated)
{
    struct uw *all = gs_calloc(ns + 1, sizeof *all), *sat = gs_calloc(ns + 1, sizeof *sat);
    int *p99 = gs_calloc((size_t)nwin, sizeof *p99);
    if (!all || !sat || !p99) {
        gs_free(all);
        gs_free(sat);
        gs_free(p99);
        return GS_ENOMEM;
    }
    *saturated = 0;
    size_t i = 0;
    for (int w = 0; w < nwin; w++) {
        size_t na = 0, nsat = 0;
        int64_t sat_s = 0;
        for (; i < ns && s[i].win == w; i++) {
            all[na++] = (struct uw){ s[i].u, s[i].dur };
            /* idle while waiting is an outage; a waiting multi-node job
             * may hold GPUs idle for its reservation */
            if (s[i].wev >= p->min_users && s[i].u > 0 && s[i].wide == 0) {
                sat[nsat++] = (struct uw){ s[i].u, s[i].dur };
                sat_s += s[i].dur;
            }
        }
        p99[w] = nodes_for(wquantile(all, na, 0.99), p->node_gpus);
        cap[w] = -1;
        if (nsat > 0 && sat_s >= p->min_saturated) {
            cap[w] = nodes_for(wquantile(sat, nsat, p->quantile), p->node_gpus);
            cap[w] = cap[w] > p99[w] ? cap[w] : p99[w]; /* usage is a lower bound */
            (*saturated)++;
        }
    }
    int first = -1, last = -1;
    for (int w = 0; w < nwin && first < 0; w++)
        first = cap[w] >= 0 ? cap[w] : -1;
    for (int w = 0; w < nwin; w++) {
        if (cap[w] >= 0) {
            last = cap[w];
            continue;
        }
        int c = last >= 0 ? last : first >= 0 ? first : 0;
        cap[w] = c > p99[w] ? c : p99[w];
    }
    for (int w = 0; w < nwin; w++) {
        for (int v = w - p->hold; v <= w + p->hold; v++)
            if (v >= 0 && v < nwin && p99[v] > cap[w])
                cap[w] = p99[v]; /* nodes in use nearby were there */
        if (p->max_nodes > 0 && cap[w] > p->max_nodes)
            cap[w] = p->max_nodes;
    }
    gs_free(all);
    gs_free(sat);
    gs_free(p99);
    return 0;
}

static int push_step(struct gs_cap_result *c, size_t *capn, int64_t t, int nodes)
{
    if (c->nsteps > 0 && c->steps[c->nsteps - 1].nodes == nodes)
        return 0;
    if (c->nsteps > 0 && c->steps[c->nsteps - 1].t == t) {
        c->steps[c->nsteps - 1].nodes = nodes;
        if (c->nsteps > 1 && c->steps[c->nsteps - 2].nodes == nodes)
            c->nsteps--;
        return 0;
    }
    if (gs_grow((void **)&c->steps, capn, (size_t)c->nsteps + 1, sizeof *c->steps))
        return GS_ENOMEM;
    c->steps[c->nsteps++] = (struct gs_cap_step){ t, nodes };
    return 0;
}

/* Steps from the window capacities, with the outages (idle while jobs
 * wait, long enough) at 0. */
static int build_steps(const struct seg *s, size_t ns, const int *cap,
                       const struct gs_cap_params *p, struct gs_cap_result *c)
{
    size_t capn = 0;
    for (size_t i = 0; i < ns;) {
        size_t j = i;
        int64_t len = 0;
        while (j < ns && s[j].u == 0 && s[j].wall > 0)
            len += s[j++].dur;
        if (len >= p->outage_min) {
            if (push_step(c, &capn, s[i].t, 0) < 0)
                return GS_ENOMEM;
            c->outages++;
            c->outage_s += len;
            i = j;
            continue;
        }
        for (size_t k = i; k < (j > i ? j : i + 1); k++)
            if (push_step(c, &capn, s[k].t, cap[s[k].win]) < 0)
                return GS_ENOMEM;
        i = j > i ? j : i + 1;
    }
    return 0;
}

int gs_cap_at(const struct gs_cap_result *c, int64_t t)
{
    if (c->nsteps == 0 || t < c->steps[0].t || t >= c->t1)
        return 0;
    int lo = 0, hi = c->nsteps - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (c->steps[mid].t <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return c->steps[lo].nodes;
}

/* The check: usage above the inferred capacity; and the range of the
 * capacity outside outages. */
static void over_check(const struct seg *s, size_t ns, int node_gpus, struct gs_cap_result *c)
{
    for (size_t i = 0; i < ns; i++) {
        int room = gs_cap_at(c, s[i].t) * node_gpus;
        if (s[i].u > room) {
            c->over_gpu_s += (double)(s[i].u - room) * (double)s[i].dur;
            c->over_s += s[i].dur;
            if (s[i].u - room > c->over_max)
                c->over_max = s[i].u - room;
        }
    }
    c->min_nodes = c->max_nodes = -1;
    for (int i = 0; i < c->nsteps; i++) {
        int v = c->steps[i].nodes;
        if (v == 0)
            continue;
        c->min_nodes = c->min_nodes < 0 || v < c->min_nodes ? v : c->min_nodes;
        c->max_nodes = v > c->max_nodes ? v : c->max_nodes;
    }
}

int gs_cap_infer(const struct gs_cap_record *r, size_t n, const struct gs_cap_params *p,
                 struct gs_cap_result *out, struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = check(r, n, p, err);
    if (rc < 0)
        return rc;
    int64_t t0 = r[0].submit, t1 = r[0].end;
    for (size_t i = 0; i < n; i++) {
        t0 = r[i].submit < t0 ? r[i].submit : t0;
        t1 = r[i].end > t1 ? r[i].end : t1;
    }
    if (t1 <= t0)
        t1 = t0 + 1;
    out->t0 = t0;
    out->t1 = t1;
    out->windows = (int)((t1 - t0 - 1) / p->window) + 1;
    int nusers = 0;
    for (size_t i = 0; i < n; i++)
        nusers = r[i].user >= nusers ? r[i].user + 1 : nusers;
    size_t ne = 0, ns = 0;
    struct cev *e = events(r, n, p, t0, t1, &ne);
    struct seg *s = e ? segments(e, ne, t0, p->window, nusers, &ns) : NULL;
    int *cap = gs_calloc((size_t)out->windows + 1, sizeof *cap);
    rc = e && s && cap ? 0 : GS_ENOMEM;
    if (rc == 0)
        rc = window_caps(s, ns, out->windows, p, cap, &out->saturated);
    if (rc == 0)
        rc = build_steps(s, ns, cap, p, out);
    if (rc == 0)
        over_check(s, ns, p->node_gpus, out);
    gs_free(e);
    gs_free(s);
    gs_free(cap);
    if (rc < 0) {
        gs_cap_result_fini(out);
        return gs_errorf(err, rc, "capacity: out of memory");
    }
    return 0;
}

/* Node k (1-based) of the events: names[k - 1], or <prefix>k. */
static void put_event(FILE *f, int64_t t, char *const *names, const char *prefix, int k,
                      const char *state)
{
    if (names)
        fprintf(f, "%" PRId64 ",%s,%s\n", t, names[k - 1], state);
    else
        fprintf(f, "%" PRId64 ",%s%d,%s\n", t, prefix, k, state);
}

static int write_events(FILE *f, const struct gs_cap_result *c, int nodes, char *const *names,
                        const char *prefix, int64_t origin, struct gs_error *err)
{
    fputs("time,node,state\n", f);
    int up = nodes; /* nodes 1..up are in service */
    for (int i = 0; i < c->nsteps; i++) {
        int want = c->steps[i].nodes < nodes ? c->steps[i].nodes : nodes;
        int64_t t = c->steps[i].t - origin > 0 ? c->steps[i].t - origin : 0;
        for (int k = want + 1; k <= up; k++)
            put_event(f, t, names, prefix, k, "drain");
        for (int k = up + 1; k <= want; k++)
            put_event(f, t, names, prefix, k, "up");
        up = want;
    }
    if (fflush(f) != 0 || ferror(f))
        return gs_errorf(err, GS_EIO, "writing the node events failed");
    return 0;
}

int gs_cap_write_node_events(FILE *f, const struct gs_cap_result *c, int nodes,
                             const char *prefix, int64_t origin, struct gs_error *err)
{
    return write_events(f, c, nodes, NULL, prefix, origin, err);
}

int gs_cap_write_node_events_named(FILE *f, const struct gs_cap_result *c, char *const *names,
                                   int nodes, int64_t origin, struct gs_error *err)
{
    return write_events(f, c, nodes, names, "", origin, err);
}

void gs_cap_result_fini(struct gs_cap_result *c)
{
    if (!c)
        return;
    gs_free(c->steps);
    c->steps = NULL;
    c->nsteps = 0;
}
