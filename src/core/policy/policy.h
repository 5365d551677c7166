/* policy.h - the scheduling policy: one plain struct built from a declared
 * key table.
 *
 * Every setting has a dotted path ("queue.policy"), a type, a default and a
 * range.  The YAML reader (io/policy_yaml.c) walks a document and calls
 * gs_policy_set() with each leaf's path and text; all conversion and
 * validation happen here, so unknown keys, bad values and sections that are
 * not supported yet are rejected the same way whatever the source.
 */
#ifndef GS_CORE_POLICY_H
#define GS_CORE_POLICY_H

#include <stdint.h>

#include "core/base/error.h"
#include "core/base/types.h"

enum gs_queue_policy { GS_QUEUE_FIFO, GS_QUEUE_PRIORITY, GS_QUEUE_PRIORITY_BACKFILL };
enum gs_backfill { GS_BACKFILL_NONE, GS_BACKFILL_EASY, GS_BACKFILL_CONSERVATIVE };
enum gs_estimate_src { GS_EST_USER, GS_EST_HISTORY, GS_EST_ORACLE };
/* The placement strategies, one X(ID, name) row each: the policy key
 * placement.strategy takes `name`, the engine stores GS_PLACE_ID, and the
 * placement registry (core/place/place.c) finds gs_place_<name>_ops, the
 * ops table defined in the strategy's own file.  This list lives here, not
 * in place/, because policy is below place (scripts/check-layering.sh) and
 * the key parser needs the names; adding a strategy is one row here plus
 * one file in place/ (docs/architecture.md). */
#define GS_PLACE_STRATEGIES(X) \
    X(PACK, pack)              \
    X(SPREAD, spread)          \
    X(TOPO, topo)              \
    X(FRAG, frag)              \
    X(FIRST_FIT, first_fit)

#define GS_PLACE_ENUM_ROW(id, name) GS_PLACE_##id,
enum gs_strategy { GS_PLACE_STRATEGIES(GS_PLACE_ENUM_ROW) GS_PLACE_COUNT };
#undef GS_PLACE_ENUM_ROW
enum gs_sharing { GS_SHARING_EXCLUSIVE, GS_SHARING_SHARED };
enum gs_quota_mode { GS_QUOTA_STRICT, GS_QUOTA_BORROW };
/* Job topology requirement (trace column `topology`, or placement.topology). */
enum gs_topo { GS_TOPO_AUTO, GS_TOPO_DOMAIN, GS_TOPO_NODE, GS_TOPO_ANY };
/* How a running job is preempted (docs/preemption.md).  INHERIT: a class or
 * partition setting that defers to the next level. */
enum gs_preempt_mode {
    GS_PREEMPT_INHERIT = -1,
    GS_PREEMPT_NONE,          /* never preempted */
    GS_PREEMPT_CHECKPOINT,    /* loses work since its last checkpoint; grace applies */
    GS_PREEMPT_IMMEDIATE,     /* stopped at once, no grace */
};
enum gs_over_cap { GS_OVER_CAP_KILL, GS_OVER_CAP_PREEMPT };

/* One entry of `partitions:` (a list).  A partition is bound to nodes
 * (`nodes`) or is a GPU quota in the pool of unbound nodes (`gpus` or
 * `share`); see docs/preemption.md. */
struct gs_partition {
    char *name;                   /* owned; "" = unnamed */
    char **nodes;                 /* owned node names or ranges ("node-[1-2]") */
    int nnodes;
    int gpus;                     /* quota in GPUs, -1 = unset */
    double share;                 /* quota as a share of the cluster's GPUs, 0 = unset */
    int classes;                  /* bit (1 << enum gs_job_class) per allowed class, 0 = all */
    int granularity;              /* enum gs_sharing, -1 = as the job asks */
    int preempt_mode;             /* enum gs_preempt_mode of its jobs */
    int borrow;                   /* its jobs may use other partitions' idle quota */
};

struct gs_quota {
    char *team;       /* owned */
    int gpus;
};

/* What `retry.on` lists: the failures after which a job is requeued. */
enum gs_retry_on { GS_RETRY_NODE_FAILURE = 1, GS_RETRY_LAUNCH_FAILURE = 2 };

struct gs_policy {
    /* queue */
    int queue_policy;             /* enum gs_queue_policy */
    gs_time max_wait_before_aging;
    double aging_rate;            /* priority points per hour of extra wait */
    struct gs_quota *quotas;      /* owned array */
    int nquotas;
    int quota_mode;               /* enum gs_quota_mode */
    int backfill;                 /* enum gs_backfill, -1 = unset (see below) */
    int reservations;             /* conservative: reserve for the first N */
    int estimate;                 /* enum gs_estimate_src */
    int estimate_quantile;        /* 50 or 90 */
    gs_time runtime_cap;          /* GS_TIME_INF = none */
    double runtime_cap_factor;    /* > 0: cap = factor x estimate */
    int time_limit_mode;          /* 1 enforce: a run is stopped (killed, timed_out) at
                                     its time_limit + over_time_limit; 0 advisory;
                                     -1 unset = advisory (gpuschedd makes it enforce) */
    gs_time over_time_limit;      /* grace past the time limit (Slurm's OverTimeLimit) */
    gs_time pass_interval;        /* priority policies with aging_rate > 0: pass at
                                     least this often while jobs wait */
    int max_job_test;             /* a pass tries at most this many pending jobs, 0 = all */
    gs_time min_pass_interval;    /* no pass sooner than this after the last, 0 = none */
    int aging_wakeup;             /* 0 changes: wake on the pass_interval grid only when
                                     a pass could decide differently (engine.c); 1 tick:
                                     every pass_interval (the old rule, for tests) */
    /* placement */
    int strategy;                 /* enum gs_strategy */
    int sharing;                  /* enum gs_sharing */
    int topology;                 /* enum gs_topo: cluster-wide default */
    double frag_sched_weight;     /* frag: weight of a lost S_k unit (place.h) */
    int frag_window;              /* frag: recent job shapes remembered */
    double frag_quantum;          /* frag: score step in milli-GPU (place.h) */
    int frag_score;               /* frag: enum gs_frag_score (place.h) */
    double slow_pcie;             /* rate of a job split across NVLink domains */
    double slow_network;          /* ... across nodes */
    double slow_corunner;         /* rate factor per co-runner on a shared GPU */
    /* MIG */
    int mig_reconfigure;          /* enum gs_mig_reconf (place.h) */
    gs_time mig_drain_cost;       /* wall time to repartition an idle MIG GPU */
    /* metrics */
    int sched_k;                  /* S_k job size, 0 = largest domain */
    /* preemption (preempt.c) */
    int preempt_mode;             /* enum gs_preempt_mode, default none */
    int preempt_class[2];         /* per enum gs_job_class, INHERIT = preempt_mode */
    gs_time grace;                /* notice period to checkpoint before stopping */
    gs_time min_runtime;          /* never preempt a run younger than this */
    gs_time restore_cost;         /* default restore cost of a restart */
    int priority_gap;             /* preempt jobs this much less urgent, 0 = never */
    int quota_reclaim;            /* a team within quota preempts borrowed GPUs */
    int over_cap;                 /* enum gs_over_cap: past the runtime cap */
    gs_time slo_wait;             /* inference SLO: start within this */
    /* retries of failed attempts (lifecycle.c) */
    int retry_max_attempts;       /* failed attempts allowed before FAILED */
    int retry_on;                 /* bits of enum gs_retry_on, -1 = unset (all) */
    int retry_expedite;           /* a job requeued after a node failure goes ahead of
                                     its peers (as after a launch failure); 0 = off */
    gs_time retry_hold;           /* with retry_expedite: the GPUs a job hit by a node
                                     failure used on its other nodes are held for it
                                     this long at most (recovery.c); 0 = no hold */
    /* hot spares (spares.c): this many idle nodes are kept free for the
     * restart of jobs of at least spares_min_gpus hit by a node failure */
    int spares_nodes;             /* 0 = none */
    int spares_min_gpus;          /* default 1 */
    /* quarantine (gpuschedd only, daemon/quarantine.c): a node taken down
     * this many times within the window stays drained when it comes back,
     * until an operator resumes it; 0 = never */
    int quarantine_failures;      /* default 3 */
    gs_time quarantine_window;    /* default 1 h */
    /* the driver's start latency (engine.c): between the start decision and
     * the job really starting, its resources held; median 0 = none */
    gs_time start_latency;        /* median (the constant when sigma = 0) */
    double start_latency_sigma;   /* lognormal sigma of ln(latency), 0 = constant */
    int start_latency_seed;       /* seed of the per-start draws */
    /* partitions (partition.c) */
    struct gs_partition *partitions; /* owned array */
    int npartitions;
};

/* Fill `p` with the documented defaults (see docs/policy.md). */
void gs_policy_init(struct gs_policy *p);

/* Free what `p` owns; `p` may be NULL.  `p` is left initialised to the
 * defaults-without-allocations state and may be reused after gs_policy_init. */
void gs_policy_fini(struct gs_policy *p);

/* Deep copy `src` into `dst` (which must not own anything).  Returns 0 or
 * GS_ENOMEM (dst is then empty but valid to fini). */
int gs_policy_copy(struct gs_policy *dst, const struct gs_policy *src);

/* Set the key at dotted `path` from text `value`.  Map keys take the map's
 * path plus the entry name ("queue.quota.team-a").  Errors, each with a
 * message naming the key: GS_ENOENT unknown key, GS_EINVAL bad value,
 * GS_ERANGE out of range, GS_ENOTSUP recognised but not supported yet,
 * GS_ENOMEM. */
int gs_policy_set(struct gs_policy *p, const char *path, const char *value,
                  struct gs_error *err);

/* Whether `path` names a map (entries are set as path.name), so a reader
 * knows a mapping there is data, not a sub-section. */
int gs_policy_is_map(const char *path);

/* Whether `path` is a known section (a prefix of some key). */
int gs_policy_is_section(const char *path);

/* Whether `path` is a list of mappings ("partitions"): a reader calls
 * gs_policy_list_add() for each item, then sets the item's keys as
 * path.key.  Returns 1 or 0. */
int gs_policy_is_list(const char *path);

/* Whether the key at `path` takes several values (a YAML sequence of
 * scalars such as partitions.nodes): each is passed to gs_policy_set. */
int gs_policy_is_multi(const char *path);

/* Start a new item of the list at `path`.  Returns 0, GS_ENOENT (not a
 * list), GS_ERANGE (too many items) or GS_ENOMEM. */
int gs_policy_list_add(struct gs_policy *p, const char *path, struct gs_error *err);

/* Name of a preemption mode ("none", "checkpoint", "immediate"). */
const char *gs_policy_preempt_name(int mode);

/* Parse a duration: a non-negative number with an optional unit s, m, h or
 * d (no unit = seconds), e.g. "30m", "1.5h", "90".  Returns 0 and stores
 * the value, or GS_EINVAL. */
int gs_parse_duration(const char *text, gs_time *out);

/* Name of an enum value for reports ("fifo", "pack", ...). */
const char *gs_policy_queue_name(int queue_policy);
const char *gs_policy_strategy_name(int strategy);
const char *gs_policy_backfill_name(int backfill);
const char *gs_policy_estimate_name(int estimate);

/* Backfill in effect: `backfill` if set, else easy for
 * priority_with_backfill and none otherwise. */
int gs_policy_backfill_mode(const struct gs_policy *p);

/* Quota for `team`, or -1 when the team has none. */
int gs_policy_quota(const struct gs_policy *p, const char *team);

/* The failures a job is retried after (enum gs_retry_on bits), with the
 * default (both) when `retry.on` is not set. */
int gs_policy_retry_on(const struct gs_policy *p);

#endif
