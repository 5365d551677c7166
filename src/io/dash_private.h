/* dash_private.h - shared by dash.c and dash_lists.c. */
#ifndef GS_IO_DASH_PRIVATE_H
#define GS_IO_DASH_PRIVATE_H

#include "io/dash.h"

/* Which job holds each GPU (by global GPU index) and the "jobs" table. */
struct gs_dash_gpumap {
    int *job;           /* per GPU: index into table, -1 none, -2 anonymous */
    uint64_t *held;     /* per node: GPUs held by stopping jobs */
    json_t *table;      /* [{id, team, gpus, state}] (owned until moved) */
};

/* Job states: holding GPUs (running, starting, stopping), and stopping. */
int gs_dash_holds(int state);
int gs_dash_held(int state);

/* A snapshot's busy GPU with no job id behind it (sim/snapshot_run.h). */
int gs_dash_anonymous(const struct gs_job_info *ji);

/* Fill `gm` from src->eng (jobs with handles < src->jobs_before).  Returns
 * 0 or GS_ENOMEM (free with gs_dash_gpumap_fini either way). */
int gs_dash_gpumap_build(struct gs_dash_gpumap *gm, const struct gs_dash_src *src);
void gs_dash_gpumap_fini(struct gs_dash_gpumap *gm);

/* Add "queue", "reasons", "running" and "teams" to `doc`.  Returns 0 or
 * GS_ENOMEM. */
int gs_dash_lists_json(json_t *doc, const struct gs_dash_src *src);

/* "node-3:0-7 node-4:0-3": the job's GPUs as ranges. */
void gs_dash_placement(char *buf, size_t n, const struct gs_engine *eng, int job);

#endif
