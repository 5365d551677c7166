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

#include "core/error.h"
#include "core/types.h"

enum gs_queue_policy { GS_QUEUE_FIFO, GS_QUEUE_PRIORITY, GS_QUEUE_PRIORITY_BACKFILL };
enum gs_backfill { GS_BACKFILL_NONE, GS_BACKFILL_EASY, GS_BACKFILL_CONSERVATIVE };
enum gs_estimate_src { GS_EST_USER, GS_EST_HISTORY, GS_EST_ORACLE };
enum gs_strategy { GS_PLACE_PACK, GS_PLACE_SPREAD, GS_PLACE_TOPO, GS_PLACE_FRAG };
enum gs_sharing { GS_SHARING_EXCLUSIVE, GS_SHARING_SHARED };
enum gs_quota_mode { GS_QUOTA_STRICT, GS_QUOTA_BORROW };
/* Job topology requirement (trace column `topology`, or placement.topology). */
enum gs_topo { GS_TOPO_AUTO, GS_TOPO_DOMAIN, GS_TOPO_NODE, GS_TOPO_ANY };

struct gs_quota {
    char *team;       /* owned */
    int gpus;
};

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
    gs_time pass_interval;        /* priority policies: pass at least this often */
    /* placement */
    int strategy;                 /* enum gs_strategy */
    int sharing;                  /* enum gs_sharing */
    int topology;                 /* enum gs_topo: cluster-wide default */
    /* metrics */
    int sched_k;                  /* S_k job size, 0 = largest domain */
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

#endif
