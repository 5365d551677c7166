/* engine_place.h - the engine's placement state: the window of recent job
 * shapes the frag strategy measures against, the GPU -> jobs index that
 * the interference model (rate.c) walks, and the fragmentation figures
 * that need the queue (memory, MIG).
 *
 * The first group of calls is private to the engine's modules (they take
 * the engine's internals through engine_private.h); gs_engine_frag_extra is
 * public for drivers.
 */
#ifndef GS_CORE_ENGINE_PLACE_H
#define GS_CORE_ENGINE_PLACE_H

#include <stdint.h>

#include "core/cluster/cluster.h"
#include "core/place/place.h"
#include "core/policy/policy.h"
#include "core/place/shapes.h"

struct gs_engine;
struct gs_eng_place;

/* Create the placement state for a sealed cluster under `pol` (copied
 * fields only).  NULL on allocation failure.  Destroy (NULL is a no-op). */
struct gs_eng_place *gs_eng_place_create(const struct gs_cluster *cl, const struct gs_policy *pol);
void gs_eng_place_destroy(struct gs_eng_place *p);

/* A job was submitted: remember its shape.  Never fails (the window is
 * preallocated). */
void gs_eng_place_submit(struct gs_engine *eng, int job);

/* Start of a scheduling pass: refresh the shape distribution when enough
 * new shapes arrived. */
void gs_eng_place_pass(struct gs_engine *eng);

/* The placement context for gs_request.ctx (borrowed from the engine until
 * the cluster changes); under frag it brings the F_n cache up to date. */
const struct gs_place_ctx *gs_eng_place_ctx(const struct gs_engine *eng);

/* A job started on / left its GPUs: maintain the GPU -> shared jobs index
 * (jobs holding a fraction of a GPU that is not a MIG instance). */
void gs_eng_place_started(struct gs_engine *eng, int job);
void gs_eng_place_stopped(struct gs_engine *eng, int job);

/* Running shared jobs on global GPU `gi`: the first, then each next
 * (-1 ends the list). */
int gs_eng_place_first(const struct gs_engine *eng, int64_t gi);
int gs_eng_place_next(const struct gs_engine *eng, int job);

/* The shape of job `job` (its request as frag sees it). */
void gs_eng_job_shape(const struct gs_engine *eng, int job, struct gs_shape *out);

/* Fragmentation that depends on the queue, for the metrics: memory and
 * MIG fragmentation (frag.h) w.r.t. the shapes of the waiting jobs (the
 * first 256 in queue order), or of the recent window when none waits.
 * GPU-equivalents.  Cached until the cluster or queue changes. */
struct gs_frag_extra {
    double memory;
    double mig;
};
void gs_engine_frag_extra(struct gs_engine *eng, struct gs_frag_extra *out);

#endif
