/* policy.c - policy defaults, the declared key table and value parsing. */
#include "core/policy/policy.h"
#include "core/base/alloc.h"
#include "core/policy/policy_private.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum key_type { K_ENUM, K_DURATION, K_INT, K_DOUBLE, K_QUOTA_MAP, K_RUNTIME_CAP, K_FLAGS };

struct key {
    const char *path;
    size_t offset;              /* of the field in struct gs_policy */
    const char *const *names;   /* K_ENUM: value names, NULL-terminated */
    const int *values;          /* K_ENUM: value for each name (NULL = index) */
    double min, max;            /* K_INT, K_DOUBLE, K_QUOTA_MAP: accepted range */
    enum key_type type;
    int supported;
};

static const char *const queue_names[] = { "fifo", "priority", "priority_with_backfill", NULL };
static const char *const backfill_names[] = { "false", "true", "easy", "conservative",
                                              "none", NULL };
static const int backfill_values[] = { GS_BACKFILL_NONE, GS_BACKFILL_EASY, GS_BACKFILL_EASY,
                                       GS_BACKFILL_CONSERVATIVE, GS_BACKFILL_NONE };
static const char *const estimate_names[] = { "user", "from_history", "oracle", NULL };
static const char *const quantile_names[] = { "p50", "p90", NULL };
static const int quantile_values[] = { 50, 90 };
#define NAME_ROW(id, name) #name,
static const char *const strategy_names[] = { GS_PLACE_STRATEGIES(NAME_ROW) NULL };
#undef NAME_ROW
static const char *const frag_score_names[] = { "quantum", "sigmoid", NULL };
static const char *const sharing_names[] = { "exclusive", "shared", NULL };
static const char *const quota_mode_names[] = { "strict", "borrow", NULL };
static const char *const topo_names[] = { "auto", "domain", "node", "any", NULL };
static const char *const mig_reconf_names[] = { "never", "when_idle", NULL };
static const char *const pmode_names[] = { "none", "checkpoint", "immediate", NULL };
static const char *const pmode_class_names[] = { "inherit", "none", "checkpoint",
                                                 "immediate", NULL };
static const int pmode_class_values[] = { GS_PREEMPT_INHERIT, GS_PREEMPT_NONE,
                                          GS_PREEMPT_CHECKPOINT, GS_PREEMPT_IMMEDIATE };
static const char *const bool_names[] = { "false", "true", NULL };
static const char *const over_cap_names[] = { "kill", "preempt", NULL };
static const char *const time_limit_names[] = { "advisory", "enforce", NULL };
static const char *const aging_wakeup_names[] = { "changes", "tick", NULL };
static const char *const retry_on_names[] = { "none", "node_failure", "launch_failure", NULL };
static const int retry_on_values[] = { 0, GS_RETRY_NODE_FAILURE, GS_RETRY_LAUNCH_FAILURE };

#define OFF(f) offsetof(struct gs_policy, f)

/* Rows by kind: an enum with its names (and values, NULL = the index), a
 * duration or runtime cap, a number within [min, max]. */
#define KEY(path, type, f, names, values, min, max) \
    { path, OFF(f), names, values, min, max, type, 1 }
#define KEY_ENUM(path, f, names, values) KEY(path, K_ENUM, f, names, values, 0, 0)
#define KEY_PLAIN(path, type, f) KEY(path, type, f, NULL, NULL, 0, 0)
#define KEY_RANGE(path, type, f, min, max) KEY(path, type, f, NULL, NULL, min, max)

/* The one declaration of every policy key.  `supported` = 0 would mark keys
 * that parse but whose behaviour is not built yet; they are rejected loudly. */
static const struct key keys[] = {
    KEY_ENUM("queue.policy", queue_policy, queue_names, NULL),
    KEY_PLAIN("queue.max_wait_before_aging", K_DURATION, max_wait_before_aging),
    KEY_RANGE("queue.aging_rate", K_DOUBLE, aging_rate, 0, 1e9),
    KEY_RANGE("queue.quota", K_QUOTA_MAP, quotas, 0, 1e9),
    KEY_ENUM("queue.quota_mode", quota_mode, quota_mode_names, NULL),
    KEY_ENUM("queue.backfill", backfill, backfill_names, backfill_values),
    KEY_RANGE("queue.reservations", K_INT, reservations, 1, 1024),
    KEY_ENUM("queue.duration_estimate", estimate, estimate_names, NULL),
    KEY_ENUM("queue.estimate_quantile", estimate_quantile, quantile_names, quantile_values),
    KEY_PLAIN("queue.runtime_cap", K_RUNTIME_CAP, runtime_cap),
    KEY_PLAIN("queue.pass_interval", K_DURATION, pass_interval),
    KEY_ENUM("queue.time_limit", time_limit_mode, time_limit_names, NULL),
    KEY_PLAIN("queue.over_time_limit", K_DURATION, over_time_limit),
    KEY_RANGE("queue.max_job_test", K_INT, max_job_test, 0, 1e9),
    KEY_PLAIN("queue.min_pass_interval", K_DURATION, min_pass_interval),
    KEY_ENUM("queue.aging_wakeup", aging_wakeup, aging_wakeup_names, NULL),
    KEY_ENUM("placement.strategy", strategy, strategy_names, NULL),
    KEY_ENUM("placement.sharing", sharing, sharing_names, NULL),
    KEY_ENUM("placement.topology", topology, topo_names, NULL),
    KEY_RANGE("placement.frag.sched_weight", K_DOUBLE, frag_sched_weight, 0, 1000),
    KEY_RANGE("placement.frag.window", K_INT, frag_window, 1, 1e7),
    KEY_RANGE("placement.frag.quantum", K_DOUBLE, frag_quantum, 0, 1e6),
    KEY_ENUM("placement.frag.score", frag_score, frag_score_names, NULL),
    KEY_RANGE("placement.slowdown.pcie", K_DOUBLE, slow_pcie, 0.01, 1),
    KEY_RANGE("placement.slowdown.network", K_DOUBLE, slow_network, 0.01, 1),
    KEY_RANGE("placement.slowdown.corunner", K_DOUBLE, slow_corunner, 0.01, 1),
    KEY_ENUM("mig.reconfigure", mig_reconfigure, mig_reconf_names, NULL),
    KEY_PLAIN("mig.drain_cost", K_DURATION, mig_drain_cost),
    KEY_RANGE("metrics.k", K_INT, sched_k, 0, 4096),
    /* preemption (issue 5; docs/preemption.md) */
    KEY_ENUM("preemption.mode", preempt_mode, pmode_names, NULL),
    KEY_ENUM("preemption.train_mode", preempt_class[0], pmode_class_names, pmode_class_values),
    KEY_ENUM("preemption.infer_mode", preempt_class[1], pmode_class_names, pmode_class_values),
    KEY_PLAIN("preemption.grace", K_DURATION, grace),
    KEY_PLAIN("preemption.min_runtime", K_DURATION, min_runtime),
    KEY_PLAIN("preemption.restore_cost", K_DURATION, restore_cost),
    KEY_RANGE("preemption.priority_gap", K_INT, priority_gap, 0, 1e9),
    KEY_ENUM("preemption.quota_reclaim", quota_reclaim, bool_names, NULL),
    KEY_ENUM("preemption.over_cap", over_cap, over_cap_names, NULL),
    KEY_PLAIN("inference.slo_wait", K_DURATION, slo_wait),
    /* retries (issue 10; docs/policy.md) */
    KEY_RANGE("retry.max_attempts", K_INT, retry_max_attempts, 1, 1000),
    KEY("retry.on", K_FLAGS, retry_on, retry_on_names, retry_on_values, 0, 0),
    KEY_ENUM("retry.expedite", retry_expedite, bool_names, NULL),
    KEY_PLAIN("retry.hold", K_DURATION, retry_hold),
    /* hot spares (issue 26; spares.c, docs/failures.md) */
    KEY_RANGE("spares.nodes", K_INT, spares_nodes, 0, 65536),
    KEY_RANGE("spares.min_gpus", K_INT, spares_min_gpus, 1, 1e9),
    /* quarantine of failing nodes in gpuschedd (issue 26; daemon/quarantine.c) */
    KEY_RANGE("quarantine.failures", K_INT, quarantine_failures, 0, 16),
    KEY_PLAIN("quarantine.window", K_DURATION, quarantine_window),
    KEY_PLAIN("start_latency.median", K_DURATION, start_latency),
    KEY_RANGE("start_latency.sigma", K_DOUBLE, start_latency_sigma, 0, 5),
    KEY_RANGE("start_latency.seed", K_INT, start_latency_seed, 0, 2147483647),
};

#undef KEY_RANGE
#undef KEY_PLAIN
#undef KEY_ENUM
#undef KEY

#define NKEYS (sizeof keys / sizeof keys[0])

void gs_policy_init(struct gs_policy *p)
{
    memset(p, 0, sizeof *p);
    p->queue_policy = GS_QUEUE_FIFO;
    p->max_wait_before_aging = (gs_time)30 * 60 * GS_MS_PER_SEC;
    p->aging_rate = 1.0;
    p->quota_mode = GS_QUOTA_STRICT;
    p->backfill = -1; /* unset: resolved by the queue policy */
    p->reservations = 100;
    p->estimate = GS_EST_USER;
    p->estimate_quantile = 90;
    p->runtime_cap = GS_TIME_INF;
    p->runtime_cap_factor = 0;
    p->time_limit_mode = -1; /* unset: advisory in the engine, enforce in gpuschedd */
    p->over_time_limit = 0;
    p->pass_interval = (gs_time)5 * 60 * GS_MS_PER_SEC;
    p->max_job_test = 100;
    p->min_pass_interval = 0;
    p->strategy = GS_PLACE_PACK;
    p->sharing = GS_SHARING_SHARED;
    p->topology = GS_TOPO_AUTO;
    p->frag_sched_weight = 1.0;
    p->frag_window = 1000;
    p->frag_quantum = 100;
    p->slow_pcie = 0.7;
    p->slow_network = 0.5;
    p->slow_corunner = 0.85;
    p->mig_reconfigure = 0; /* never */
    p->mig_drain_cost = (gs_time)120 * GS_MS_PER_SEC;
    p->sched_k = 0;
    p->preempt_mode = GS_PREEMPT_NONE;
    p->preempt_class[0] = p->preempt_class[1] = GS_PREEMPT_INHERIT;
    p->priority_gap = 1;
    p->quota_reclaim = 1;
    p->over_cap = GS_OVER_CAP_KILL;
    p->slo_wait = (gs_time)30 * GS_MS_PER_SEC;
    p->retry_max_attempts = 3;
    p->retry_on = -1; /* unset: node_failure and launch_failure */
    p->retry_hold = 0; /* no hold: the hit job's surviving GPUs are free at once */
    p->spares_nodes = 0;
    p->spares_min_gpus = 1;
    p->quarantine_failures = 3;
    p->quarantine_window = (gs_time)3600 * GS_MS_PER_SEC;
    p->start_latency = 0;
    p->start_latency_sigma = 0;
    p->start_latency_seed = 1;
}

void gs_policy_fini(struct gs_policy *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nquotas; i++)
        gs_free(p->quotas[i].team);
    gs_free(p->quotas);
    p->quotas = NULL;
    p->nquotas = 0;
    gs_policy_part_fini(p);
}

int gs_policy_copy(struct gs_policy *dst, const struct gs_policy *src)
{
    *dst = *src;
    dst->quotas = NULL;
    dst->nquotas = 0;
    dst->partitions = NULL;
    dst->npartitions = 0;
    if (gs_policy_part_copy(dst, src) < 0)
        return GS_ENOMEM;
    if (src->nquotas == 0)
        return 0;
    dst->quotas = gs_calloc((size_t)src->nquotas, sizeof *dst->quotas);
    if (!dst->quotas)
        return GS_ENOMEM;
    for (int i = 0; i < src->nquotas; i++) {
        dst->quotas[i].gpus = src->quotas[i].gpus;
        dst->quotas[i].team = gs_strdup(src->quotas[i].team);
        dst->nquotas = i + 1;
        if (!dst->quotas[i].team) {
            gs_policy_fini(dst);
            return GS_ENOMEM;
        }
    }
    return 0;
}

int gs_parse_duration(const char *text, gs_time *out)
{
    if (!text || !*text)
        return GS_EINVAL;
    /* plain decimal only: strtod would also take spaces, hex, inf and nan */
    for (const char *q = text; *q; q++)
        if (!((*q >= '0' && *q <= '9') || *q == '.' || ((*q == 'e' || *q == 'E') && q != text) ||
              ((*q == '-' || *q == '+') && q > text && (q[-1] == 'e' || q[-1] == 'E')) ||
              (!q[1] && q != text && (*q == 's' || *q == 'm' || *q == 'h' || *q == 'd'))))
            return GS_EINVAL;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v) || v < 0)
        return GS_EINVAL;
    double unit = 1;
    if (*end) {
        switch (*end) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        default: return GS_EINVAL;
        }
        if (end[1] != '\0')
            return GS_EINVAL;
    }
    double ms = v * unit * GS_MS_PER_SEC;
    if (ms > 9.0e15)
        return GS_EINVAL;
    *out = (gs_time)llround(ms);
    return 0;
}

static const struct key *find_key(const char *path, const char **rest)
{
    for (size_t i = 0; i < NKEYS; i++) {
        size_t n = strlen(keys[i].path);
        if (strncmp(path, keys[i].path, n) != 0)
            continue;
        if (path[n] == '\0') {
            *rest = NULL;
            return &keys[i];
        }
        if (path[n] == '.' && keys[i].type == K_QUOTA_MAP) {
            *rest = path + n + 1;
            return &keys[i];
        }
    }
    return NULL;
}

int gs_policy_is_map(const char *path)
{
    const char *rest;
    const struct key *k = find_key(path, &rest);
    return k && k->type == K_QUOTA_MAP && rest == NULL;
}

int gs_policy_is_section(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < NKEYS; i++)
        if (strncmp(keys[i].path, path, n) == 0 && keys[i].path[n] == '.')
            return 1;
    return 0;
}

static int set_enum(const struct key *k, void *field, const char *v, struct gs_error *err)
{
    for (int i = 0; k->names[i]; i++) {
        if (strcmp(k->names[i], v) == 0) {
            *(int *)field = k->values ? k->values[i] : i;
            return 0;
        }
    }
    char list[120] = "";
    for (int i = 0; k->names[i]; i++) {
        if (i)
            strncat(list, " | ", sizeof list - strlen(list) - 1);
        strncat(list, k->names[i], sizeof list - strlen(list) - 1);
    }
    return gs_errorf(err, GS_EINVAL, "%s: '%s' is not one of %s", k->path, v, list);
}

static int parse_number(const struct key *k, const char *v, double *out, struct gs_error *err)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(d))
        return gs_errorf(err, GS_EINVAL, "%s: '%s' is not a number", k->path, v);
    if (d < k->min || d > k->max)
        return gs_errorf(err, GS_ERANGE, "%s: %s is outside [%g, %g]", k->path, v, k->min,
                         k->max);
    *out = d;
    return 0;
}

static int set_quota(struct gs_policy *p, const struct key *k, const char *team,
                     const char *v, struct gs_error *err)
{
    double d = 0; /* set by parse_number on success */
    int rc = parse_number(k, v, &d, err);
    if (rc < 0)
        return rc;
    if (d != floor(d))
        return gs_errorf(err, GS_EINVAL, "%s.%s: '%s' is not a whole GPU count", k->path,
                         team, v);
    if (!*team)
        return gs_errorf(err, GS_EINVAL, "%s: empty team name", k->path);
    for (int i = 0; i < p->nquotas; i++)
        if (strcmp(p->quotas[i].team, team) == 0)
            return gs_errorf(err, GS_EEXIST, "%s.%s: team given twice", k->path, team);
    void *q = gs_realloc(p->quotas, (size_t)(p->nquotas + 1) * sizeof *p->quotas);
    if (!q)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    p->quotas = q;
    char *name = gs_strdup(team);
    if (!name)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    p->quotas[p->nquotas].team = name;
    p->quotas[p->nquotas].gpus = (int)d;
    p->nquotas++;
    return 0;
}

static int set_runtime_cap(struct gs_policy *p, const struct key *k, const char *v,
                           struct gs_error *err)
{
    const char *prefix = "estimate_x";
    if (strncmp(v, prefix, strlen(prefix)) == 0) {
        char *end;
        double f = strtod(v + strlen(prefix), &end);
        if (end == v + strlen(prefix) || *end || !(f >= 1.0 && f <= 1000.0))
            return gs_errorf(err, GS_EINVAL, "%s: '%s': factor must be in [1, 1000]",
                             k->path, v);
        p->runtime_cap_factor = f;
        p->runtime_cap = GS_TIME_INF;
        return 0;
    }
    if (strcmp(v, "none") == 0) {
        p->runtime_cap = GS_TIME_INF;
        p->runtime_cap_factor = 0;
        return 0;
    }
    gs_time t;
    if (gs_parse_duration(v, &t) < 0 || t <= 0)
        return gs_errorf(err, GS_EINVAL,
                         "%s: '%s' is not a duration (e.g. 4h) or estimate_xN", k->path, v);
    p->runtime_cap = t;
    p->runtime_cap_factor = 0;
    return 0;
}

int gs_policy_set(struct gs_policy *p, const char *path, const char *value,
                  struct gs_error *err)
{
    const char *rest = NULL;
    if (gs_policy_part_key(path))
        return gs_policy_part_set(p, path, value, err);
    const struct key *k = find_key(path, &rest);
    if (!k)
        return gs_errorf(err, GS_ENOENT, "unknown policy key '%s'", path);
    if (!k->supported)
        return gs_errorf(err, GS_ENOTSUP, "%s: not supported yet", path);
    void *field = (char *)p + k->offset;
    double d = 0; /* set by parse_number on success */
    int rc, d_flag = 0;
    switch (k->type) {
    case K_ENUM:
        return set_enum(k, field, value, err);
    case K_DURATION:
        if (gs_parse_duration(value, (gs_time *)field) < 0)
            return gs_errorf(err, GS_EINVAL, "%s: '%s' is not a duration (30s, 30m, 4h, 2d)",
                             path, value);
        return 0;
    case K_INT:
        rc = parse_number(k, value, &d, err);
        if (rc == 0 && d != floor(d))
            rc = gs_errorf(err, GS_EINVAL, "%s: '%s' is not an integer", path, value);
        if (rc == 0)
            *(int *)field = (int)d;
        return rc;
    case K_DOUBLE:
        rc = parse_number(k, value, &d, err);
        if (rc == 0)
            *(double *)field = d;
        return rc;
    case K_QUOTA_MAP:
        if (!rest)
            return gs_errorf(err, GS_EINVAL, "%s: expected a mapping of team: GPUs", path);
        return set_quota(p, k, rest, value, err);
    case K_RUNTIME_CAP:
        return set_runtime_cap(p, k, value, err);
    case K_FLAGS: /* each value of the list adds its bit; the first replaces the default */
        if (*(int *)field < 0)
            *(int *)field = 0;
        rc = set_enum(k, &d_flag, value, err);
        if (rc == 0)
            *(int *)field |= d_flag;
        return rc;
    }
    return gs_errorf(err, GS_EINVAL, "%s: unhandled key type", path);
}

static const char *enum_name(const char *const *names, int v)
{
    for (int i = 0; names[i]; i++)
        if (i == v)
            return names[i];
    return "?";
}

const char *gs_policy_queue_name(int v) { return enum_name(queue_names, v); }
const char *gs_policy_preempt_name(int v) { return enum_name(pmode_names, v); }
const char *gs_policy_strategy_name(int v) { return enum_name(strategy_names, v); }
const char *gs_policy_estimate_name(int v) { return enum_name(estimate_names, v); }

const char *gs_policy_backfill_name(int v)
{
    static const char *const names[] = { "none", "easy", "conservative", NULL };
    return v < 0 ? "default" : enum_name(names, v);
}

int gs_policy_backfill_mode(const struct gs_policy *p)
{
    if (p->backfill >= 0)
        return p->backfill;
    return p->queue_policy == GS_QUEUE_PRIORITY_BACKFILL ? GS_BACKFILL_EASY : GS_BACKFILL_NONE;
}

int gs_policy_retry_on(const struct gs_policy *p)
{
    return p->retry_on < 0 ? GS_RETRY_NODE_FAILURE | GS_RETRY_LAUNCH_FAILURE : p->retry_on;
}

int gs_policy_quota(const struct gs_policy *p, const char *team)
{
    for (int i = 0; i < p->nquotas; i++)
        if (strcmp(p->quotas[i].team, team) == 0)
            return p->quotas[i].gpus;
    return -1;
}
