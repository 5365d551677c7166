/* diagnose.h - why a pending job waits, with numbers, and how long it has
 * waited for each reason.
 *
 * Every scheduling pass leaves each pending job one reason code (the
 * dominant one, below); the engine keeps, per job, how long it has waited
 * under each code (time-weighted: the time between two passes goes to the
 * code the job had during it).  gs_engine_explain() turns a pending job into
 * a gs_diag: every code that applies, the numbers behind each, what would
 * unblock it and an estimated start with the basis of the estimate.
 *
 * Reason codes (docs/diagnosis.md defines each with its test):
 *   shortage                fewer idle GPUs the job may use than it asks for
 *   count_fragmentation     enough idle GPUs in total, but no node (or set of
 *                           whole idle nodes, for multi-node jobs) has enough
 *   topology_fragmentation  a node has enough idle GPUs, but not under the
 *                           topology rule (not within one NVLink domain)
 *   memory_fragmentation    enough idle GPUs or GPU shares, but not with
 *                           enough free memory on them
 *   quota                   the job's team is at its quota
 *   priority                jobs ranked ahead of it are blocked and it may
 *                           not pass them (no backfill, or their plan failed)
 *   reservation             it fits the idle GPUs now, but they are held for
 *                           a reserved job that starts before it would end
 *   partition               it would fit now outside the nodes its partition
 *                           allows, or its partition is at its quota
 *
 * Dominance follows the order in which the queue pass applies its gates:
 * quota, then priority, then resources (partition, shortage, memory, count,
 * topology: the first relaxation that is still not enough), then
 * reservation.  gs_engine_explain lists the other codes that also hold.
 */
#ifndef GS_CORE_DIAGNOSE_H
#define GS_CORE_DIAGNOSE_H

#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/policy/job.h"
#include "core/base/types.h"

struct gs_engine;

enum gs_reason {
    GS_REASON_NONE,             /* not waiting (or fits now: starts next pass) */
    GS_REASON_SHORTAGE,
    GS_REASON_COUNT_FRAG,
    GS_REASON_TOPOLOGY_FRAG,
    GS_REASON_MEMORY_FRAG,
    GS_REASON_QUOTA,
    GS_REASON_PRIORITY,
    GS_REASON_RESERVATION,
    GS_REASON_PARTITION,
    GS_REASON_COUNT
};

/* Where an estimated start comes from. */
enum gs_est_basis {
    GS_BASIS_UNKNOWN,           /* some GPU it needs has no expected free time */
    GS_BASIS_NOW,               /* it fits now */
    GS_BASIS_RESERVATION,       /* the reservation the last pass gave it */
    GS_BASIS_PROFILE,           /* running jobs end by their estimates, and the
                                   reservations of jobs ahead are honoured */
    GS_BASIS_QUOTA,             /* when its team's running jobs end (estimates) */
};

/* A pending job's diagnosis.  Node indexes are the cluster's; -1 = none.
 * GPU counts are whole GPUs. */
struct gs_diag {
    int job;
    int reason;                 /* dominant enum gs_reason */
    unsigned codes;             /* bit (1u << code) for every code that applies */
    /* the request */
    int gpus, milli;
    int64_t mem_mib;            /* per GPU the job needs (0 = none stated) */
    int rule;                   /* enum gs_topo in force: DOMAIN, NODE, ANY, or
                                   AUTO for the whole-domain multi-domain rule */
    /* idle GPUs the job may use (its GPU type and memory, its partition) */
    int64_t free_gpus;
    int64_t cluster_free_gpus;  /* idle GPUs anywhere */
    int best_node;              /* node with the most usable idle GPUs */
    int best_node_free;
    int best_node_ndom;         /* NVLink domains of best_node ... */
    int best_node_dom_free[GS_MAX_NODE_DOMAINS]; /* ... idle GPUs in each */
    int best_dom_node;          /* the largest idle block inside one domain */
    int best_dom_free;
    int whole_nodes_free;       /* fully idle usable nodes */
    int64_t whole_nodes_gpus;   /* their GPUs */
    int rest_free;              /* most idle GPUs on a node not fully idle */
    /* memory: GPUs the job could use if memory did not matter, and those
     * that also have the memory */
    int64_t mem_any_gpus;
    int64_t mem_ok_gpus;
    int64_t best_mem_free_mib;  /* most free memory on such a GPU */
    /* quota */
    int quota_gpus;             /* the team's quota, -1 = none */
    double team_used_gpus;      /* GPUs the team holds now */
    /* priority */
    int ahead_jobs;             /* pending jobs ranked ahead of it */
    int64_t ahead_gpus;         /* GPUs they ask for */
    int blocker;                /* first of them that does not fit, -1 */
    /* reservation */
    int64_t reserved_idle_gpus; /* idle GPUs held by reservations now */
    int holder;                 /* the reserved job holding them, -1 */
    gs_time holder_start;       /* when that job is planned to start */
    /* partition */
    int partitioned;            /* its placement is restricted to some nodes */
    int64_t outside_free_gpus;  /* usable idle GPUs outside those nodes */
    /* what would unblock it */
    int64_t unblock_gpus;       /* GPUs that must be freed (resources/quota) */
    int unblock_node;           /* where freeing them helps most, -1 = anywhere */
    /* estimated start */
    gs_time est_start;          /* GS_TIME_NONE = cannot tell */
    int est_basis;              /* enum gs_est_basis */
    gs_time est_duration;       /* the job's duration estimate, GS_TIME_NONE */
};

/* Waiting time of all jobs split by code and size class (summary). */
struct gs_wait_reasons {
    double gpu_h[GS_REASON_COUNT][GS_SIZE_CLASSES]; /* waiting GPU-hours */
    double job_h[GS_REASON_COUNT][GS_SIZE_CLASSES]; /* waiting job-hours */
    double total_gpu_h, total_job_h;
};

/* Name of a reason code ("shortage", "count_fragmentation", ...; "none"). */
const char *gs_reason_name(int code);

/* Name of an estimate basis ("unknown", "now", "reservation", "profile",
 * "quota"). */
const char *gs_est_basis_name(int basis);

/* The code `job` waited under after the last pass (GS_REASON_NONE when it
 * is not pending or no pass has seen it). */
int gs_engine_wait_reason(const struct gs_engine *eng, int job);

/* Time `job` has spent pending under each code, up to the engine's
 * current time (or to when it left the queue): out[code] in ms; out[NONE]
 * holds pending time no pass has classified.  Requeued time after a
 * preemption counts too.  Returns 0 or GS_ENOENT. */
int gs_engine_wait_split(const struct gs_engine *eng, int job, gs_time out[GS_REASON_COUNT]);

/* The code under which `job` spent the most pending time over its whole
 * life, requeued time after a preemption included (gs_engine_wait_split;
 * ties go to the lower code).  Time no pass classified does not count, so
 * GS_REASON_NONE = never waited under any code (also for an unknown
 * handle).  Unlike gs_engine_wait_reason (the code after the last pass,
 * pending jobs only), for per-job reports such as jobs.csv. */
int gs_engine_wait_dominant(const struct gs_engine *eng, int job);

/* Sum gs_engine_wait_split over every job: GPU-hours weight each job's
 * time by its GPUs (times its share); CPU-only jobs count in job-hours
 * only.  Never fails. */
void gs_wait_reasons_build(struct gs_wait_reasons *out, const struct gs_engine *eng);

/* Diagnose pending job `job` against the current state (the reservations
 * of the last pass included).  Never changes scheduling state.  Returns 0,
 * GS_ENOENT (no such job), GS_ESTATE (not pending) or GS_ENOMEM. */
int gs_engine_explain(struct gs_engine *eng, int job, struct gs_diag *out);

/* What a job with `spec` would get were it submitted now (sbatch's
 * --test-only): the diagnosis gs_engine_explain gives a pending job just
 * submitted (reason, est_start and its basis, against the last pass's
 * reservations), and, when it fits now (reason GS_REASON_NONE), *alloc =
 * the GPUs the policy's strategy picks among the idle ones no reservation
 * overlapping its run holds (borrowed until the next engine call; NULL
 * otherwise).  No job, queue entry, event or estimate changes; only the
 * team's name may be interned (for its quota).  Returns 1; 0 when it can
 * never run, with `err` as gs_engine_possible; a negative code on a bad
 * spec or GS_ENOMEM. */
int gs_engine_probe(struct gs_engine *eng, const struct gs_job_spec *spec, struct gs_diag *d,
                    const struct gs_alloc **alloc, struct gs_error *err);

#endif
