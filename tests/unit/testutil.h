/* testutil.h - small helpers shared by the unit tests of the core and the
 * simulator.  Include after <cmocka.h> (and its prerequisites).
 *
 *   cluster_of("node-1:8:[8] node-2:8:[4,4]")   sealed cluster, k = 0
 *   cluster_of_k("n1:8 n2:4", 8)                 sealed cluster, k = 8
 *   take(cl, "node-1", 0x3F)                     mark GPUs busy (whole)
 *   struct tjob rows[] = {{"A", 0, 4, 100}, ...}; trace_of(rows, n)
 *   run_sim(cl, &pol, tr, &res)                  checked replay
 *
 * A node token is NAME:GPUS[:[D1,D2,...][:TYPE]]; TYPE is "H100" (80 GiB,
 * the default, type index 0) or "A100" (40 GiB, type index 1).
 *
 * OOM sweeps and must-fail checks come from failtestutil.h, included here.
 *
 * Everything is `static inline` so a test that does not use a helper does
 * not trip -Wunused-function.
 */
#ifndef GS_TESTS_TESTUTIL_H
#define GS_TESTS_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/alloc.h"
#include "core/cluster/cluster.h"
#include "core/engine/engine.h"
#include "core/base/error.h"
#include "core/policy/job.h"
#include "core/policy/policy.h"
#include "core/base/rng.h"
#include "core/base/types.h"
#include "sim/sim.h"
#include "workload/trace.h"

#include "failtestutil.h"

#define TU_H100_MIB 81920   /* 80 GiB */
#define TU_A100_MIB 40960   /* 40 GiB */
#define TU_EPS 1e-9

/* Seconds to gs_time and back, for readable expectations. */
#define SEC(s) ((gs_time)((s) * GS_MS_PER_SEC))

/* ---- clusters ------------------------------------------------------- */

/* Parse one token "name:gpus[:[a,b,..][:type]]" into `spec`.  `name` is
 * storage for the name.  Returns 0 or -1. */
static inline int tu_parse_node(const char *tok, size_t len, struct gs_node_spec *spec,
                                char *name, size_t name_cap, const char **type)
{
    char buf[256];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, tok, len);
    buf[len] = '\0';
    char *colon = strchr(buf, ':');
    if (!colon || (size_t)(colon - buf) >= name_cap)
        return -1;
    memcpy(name, buf, (size_t)(colon - buf));
    name[colon - buf] = '\0';
    char *p = colon + 1, *end;
    memset(spec, 0, sizeof *spec);
    spec->name = name;
    spec->gpus = (int)strtol(p, &end, 10);
    *type = "H100";
    if (*end == ':' && end[1] == '[') {
        p = end + 2;
        while (*p && *p != ']') {
            spec->domain_sizes[spec->ndomains++] = (int)strtol(p, &end, 10);
            p = *end == ',' ? end + 1 : end;
        }
        end = *p == ']' ? p + 1 : p;
    }
    if (*end == ':') {
        static const char *const types[] = { "H100", "A100" };
        for (size_t i = 0; i < 2; i++)
            if (strcmp(end + 1, types[i]) == 0)
                *type = types[i];
    }
    return 0;
}

/* Build and seal a cluster from a compact description; fails the test on
 * any error.  Destroy with gs_cluster_destroy. */
static inline struct gs_cluster *cluster_of_k(const char *desc, int k)
{
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_create();
    assert_non_null(cl);
    assert_int_equal(gs_cluster_add_gpu_type(cl, "H100", TU_H100_MIB, &err), 0);
    assert_int_equal(gs_cluster_add_gpu_type(cl, "A100", TU_A100_MIB, &err), 1);
    const char *p = desc;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " ");
        struct gs_node_spec spec;
        char name[GS_NAME_MAX];
        const char *type = "H100";
        assert_int_equal(tu_parse_node(p, len, &spec, name, sizeof name, &type), 0);
        spec.gpu_type = gs_cluster_find_gpu_type(cl, type);
        int rc = gs_cluster_add_node(cl, &spec, &err);
        if (rc < 0)
            fail_msg("cluster_of(%s): %s", desc, err.msg);
        p += len;
    }
    if (gs_cluster_seal(cl, k, &err) < 0)
        fail_msg("cluster_of(%s): seal: %s", desc, err.msg);
    return cl;
}

static inline struct gs_cluster *cluster_of(const char *desc)
{
    return cluster_of_k(desc, 0);
}

/* Node index by name; fails the test when absent. */
static inline int node_of(const struct gs_cluster *cl, const char *name)
{
    int n = gs_cluster_find_node(cl, name);
    if (n < 0)
        fail_msg("no node %s", name);
    return n;
}

/* Allocate whole GPUs `mask` of node `name` (nothing if mask is 0). */
static inline void take(struct gs_cluster *cl, const char *name, uint64_t mask)
{
    if (!mask)
        return;
    struct gs_alloc_part part = { node_of(cl, name), mask };
    struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &part, .milli = GS_MILLI_GPU };
    struct gs_error err = { 0 };
    if (gs_cluster_alloc(cl, &a, &err) < 0)
        fail_msg("take(%s, %#llx): %s", name, (unsigned long long)mask, err.msg);
}

/* Allocate a share of one GPU. */
static inline void take_share(struct gs_cluster *cl, const char *name, int gpu, int milli,
                              int64_t mem_mib)
{
    struct gs_alloc_part part = { node_of(cl, name), 1ULL << gpu };
    struct gs_alloc a = { .nparts = 1, .cap = 1, .parts = &part, .milli = milli,
                          .mem_mib = mem_mib };
    struct gs_error err = { 0 };
    if (gs_cluster_alloc(cl, &a, &err) < 0)
        fail_msg("take_share(%s:%d): %s", name, gpu, err.msg);
}

/* Assert two statistics snapshots are equal, field by field (the struct
 * has padding, so memcmp would compare garbage). */
static inline void assert_stats_equal(const struct gs_cluster_stats *a,
                                      const struct gs_cluster_stats *b)
{
    assert_int_equal(a->k, b->k);
    assert_int_equal(a->gpus, b->gpus);
    assert_int_equal(a->idle_gpus, b->idle_gpus);
    assert_int_equal(a->used_milli, b->used_milli);
    assert_int_equal(a->sched, b->sched);
    assert_int_equal(a->frag_count, b->frag_count);
    assert_int_equal(a->frag_topology, b->frag_topology);
}

/* Assert the cluster passes its consistency check. */
static inline void assert_cluster_ok(const struct gs_cluster *cl)
{
    struct gs_error err = { 0 };
    if (gs_cluster_check(cl, &err) != 0)
        fail_msg("gs_cluster_check: %s", err.msg);
}

/* ---- policies -------------------------------------------------------- */

/* Set a policy key; fails the test on error. */
static inline void pol_set(struct gs_policy *p, const char *path, const char *value)
{
    struct gs_error err = { 0 };
    if (gs_policy_set(p, path, value, &err) != 0)
        fail_msg("policy %s=%s: %s", path, value, err.msg);
}

/* Set each "key", "value" pair of a NULL-terminated list (NULL: none). */
static inline void pol_set_all(struct gs_policy *p, const char *const *kv)
{
    for (size_t i = 0; kv && kv[i]; i += 2)
        pol_set(p, kv[i], kv[i + 1]);
}

/* The engine tests' baseline: FIFO with strict head-of-line, pack. */
static inline void fifo_pack(struct gs_policy *p)
{
    gs_policy_init(p);
    pol_set(p, "queue.policy", "fifo");
    pol_set(p, "queue.backfill", "false");
    pol_set(p, "queue.duration_estimate", "user");
    pol_set(p, "placement.strategy", "pack");
}

/* ---- engine observer ----------------------------------------------- */

#define TU_MAX_EVENTS 512
#define TU_MAX_PARTS 8

struct rec_event {
    int kind;
    gs_time time;
    int job;
    int nparts;
    struct gs_alloc_part parts[TU_MAX_PARTS];
    gs_time until;
    int backfilled;
};

struct recorder {
    int n;
    struct rec_event ev[TU_MAX_EVENTS];
};

/* Copy engine event `ev` into `e` (at most TU_MAX_PARTS parts). */
static inline void rec_event_set(struct rec_event *e, const struct gs_event *ev)
{
    memset(e, 0, sizeof *e);
    e->kind = ev->kind;
    e->time = ev->time;
    e->job = ev->job;
    e->until = ev->until;
    e->backfilled = ev->backfilled;
    if (ev->alloc) {
        e->nparts = ev->alloc->nparts < TU_MAX_PARTS ? ev->alloc->nparts : TU_MAX_PARTS;
        memcpy(e->parts, ev->alloc->parts, (size_t)e->nparts * sizeof *e->parts);
    }
}

/* gs_observer_fn that appends every event to a struct recorder. */
static inline void record_event(void *arg, const struct gs_event *ev)
{
    struct recorder *r = arg;
    if (r->n >= TU_MAX_EVENTS)
        return;
    rec_event_set(&r->ev[r->n++], ev);
}

/* A job spec with defaults; `id` is borrowed. */
static inline struct gs_job_spec spec_of(const char *id, gs_time submit, int gpus)
{
    struct gs_job_spec s;
    gs_job_spec_init(&s);
    s.id = id;
    s.submit = submit;
    s.gpus = gpus;
    return s;
}

/* ---- traces and the simulator ----------------------------------------- */

struct tjob {
    const char *id;
    double submit_s;
    int gpus;
    double dur_s;
    const char *team;   /* NULL = default */
    int milli;          /* 0 = whole GPU */
};

/* A job spec from the columns every test row type has: submit in seconds,
 * team NULL = default, topology 0 = auto, milli 0 = whole GPUs. */
static inline struct gs_job_spec row_spec(const char *id, double submit_s, int gpus, int prio,
                                          const char *team, int topology, int milli)
{
    struct gs_job_spec s = spec_of(id, gs_time_from_sec(submit_s), gpus);
    s.priority = prio;
    s.team = team;
    s.topology = topology;
    if (milli)
        s.milli = milli;
    return s;
}

/* Append job `s` running `dur_s` seconds to `tr`; it must become job `i`. */
static inline void trace_add_ok(struct gs_trace *tr, const struct gs_job_spec *s, double dur_s,
                                size_t i)
{
    assert_int_equal(gs_trace_add(tr, s, gs_time_from_sec(dur_s)), (int)i);
}

/* Build a trace from rows (in the given order). */
static inline struct gs_trace *trace_of(const struct tjob *rows, size_t n)
{
    struct gs_trace *tr = gs_trace_create();
    assert_non_null(tr);
    for (size_t i = 0; i < n; i++) {
        struct gs_job_spec s = row_spec(rows[i].id, rows[i].submit_s, rows[i].gpus, 0,
                                        rows[i].team, 0, rows[i].milli);
        trace_add_ok(tr, &s, rows[i].dur_s, i);
    }
    return tr;
}

/* Replay with gs_cluster_check after every step; fails the test on error. */
static inline void run_sim(const struct gs_cluster *cl, const struct gs_policy *pol,
                           const struct gs_trace *tr, struct gs_sim_result *res)
{
    struct gs_sim_opts opts = { 0 };
    opts.check = 1;
    struct gs_error err = { 0 };
    int rc = gs_sim_run(cl, pol, tr, &opts, res, &err);
    if (rc != 0)
        fail_msg("gs_sim_run: %s (%s)", err.msg, gs_strerror(rc));
}

/* Info of job `id` in a finished simulation. */
static inline struct gs_job_info job_named(const struct gs_engine *eng, const char *id)
{
    struct gs_job_info ji;
    int h = gs_engine_job_find(eng, id);
    if (h < 0)
        fail_msg("no job %s", id);
    assert_int_equal(gs_engine_job_info(eng, h, &ji), 0);
    return ji;
}

#endif
