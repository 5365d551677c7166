/* job.h - what a job asks for: the public, by-value job description.
 *
 * A gs_job_spec is what a trace row or an API request turns into.  It does
 * not carry the job's true duration: the engine never sees it (the simulator
 * keeps durations to itself and offers them only through an estimator).
 */
#ifndef GS_CORE_JOB_H
#define GS_CORE_JOB_H

#include <stdint.h>

#include "core/base/types.h"

enum gs_job_class { GS_CLASS_TRAIN, GS_CLASS_INFER };

enum gs_job_state {
    GS_JOB_PENDING,
    GS_JOB_RUNNING,
    GS_JOB_DONE,      /* finished on its own */
    GS_JOB_KILLED,    /* stopped by the runtime cap */
    GS_JOB_CANCELLED, /* withdrawn by its owner */
    GS_JOB_REJECTED,  /* can never fit this cluster */
    /* live mode (gs_engine_set_live; lifecycle.c) */
    GS_JOB_STARTING,  /* START decided, the driver has not confirmed the launch */
    GS_JOB_STOPPING,  /* told to stop; its GPUs stay held until the driver confirms */
    GS_JOB_FAILED,    /* ended with a non-zero exit code, or a launch / node failure
                         with no retry left */
};

/* Whether a job in `state` holds GPUs (starting, running or stopping). */
static inline int gs_job_state_holds(int state)
{
    return state == GS_JOB_RUNNING || state == GS_JOB_STARTING || state == GS_JOB_STOPPING;
}

/* Whether `state` is terminal (the job will never run again). */
static inline int gs_job_state_terminal(int state)
{
    return state == GS_JOB_DONE || state == GS_JOB_KILLED || state == GS_JOB_CANCELLED ||
           state == GS_JOB_REJECTED || state == GS_JOB_FAILED;
}

struct gs_job_spec {
    const char *id;          /* unique, required; copied by the engine */
    gs_time submit;
    int gpus;                /* whole GPUs, >= 0 (0 = CPU only) */
    int milli;               /* per-GPU share in milli-GPU, 1..1000 */
    int64_t mem_mib;         /* per-GPU memory, -1 = in proportion to the share */
    int topology;            /* enum gs_topo */
    int priority;            /* larger = more urgent */
    int klass;               /* enum gs_job_class */
    const char *team;        /* NULL = "default" */
    const char *user;        /* NULL = "-" */
    const char *name;        /* NULL = "-" */
    const char *queue;       /* free-form queue label, NULL = none */
    const char *gpu_model;   /* required GPU type, NULL = any */
    const char *mig;         /* MIG profile such as "1g.10gb", NULL = none */
    gs_time time_limit;      /* user-declared limit, 0 = none */
    gs_time ckpt_interval;   /* 0 = cannot checkpoint */
    gs_time ckpt_cost;
    gs_time restore_cost;    /* -1 = policy default */
    int64_t cpu_milli;       /* host CPU, 0 = not modelled */
    int64_t host_mem_mib;    /* host memory, 0 = not modelled */
    int mem_bw;              /* memory-bandwidth intensity per mille (1..1000) for
                                the interference model, 0 = default (500) */
};

/* Fill `s` with the trace format's defaults (DESIGN.md section 3): one whole
 * GPU, share 1000, team "default", priority 0, class train, no limits. */
static inline void gs_job_spec_init(struct gs_job_spec *s)
{
    *s = (struct gs_job_spec){ 0 };
    s->gpus = 1;
    s->milli = 1000;
    s->mem_mib = -1;
    s->restore_cost = -1;
}

/* Size class index used by reports: 0 = "1", 1 = "2-4", 2 = "5-8",
 * 3 = ">8".  Jobs with 0 GPUs or a fractional GPU count as "1". */
static inline int gs_job_size_class(int gpus)
{
    return gpus <= 1 ? 0 : gpus <= 4 ? 1 : gpus <= 8 ? 2 : 3;
}

#define GS_SIZE_CLASSES 4

#endif
