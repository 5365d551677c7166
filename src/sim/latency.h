/* latency.h - the simulator's start latency: the policy keys
 * start_latency.median, .sigma and .seed (docs/policy.md) drawn for every
 * start the engine decides, and handed to it through its latency source
 * (core/engine/engine.h, gs_latency_fn).
 *
 * The draw is a driver model, so it lives here and not in the engine: a
 * live driver has its real launch delay and sets no source.  The same
 * (seed, job, start number) always gets the same latency, whatever else
 * the schedule does.
 */
#ifndef GS_SIM_LATENCY_H
#define GS_SIM_LATENCY_H

#include "core/engine/engine.h"
#include "core/policy/policy.h"
#include "core/base/types.h"

/* The latency (ms) of start number `run` (0 = first) of the job with
 * handle `job` under `pol`: 0 when start_latency.median is 0; the median
 * when sigma is 0; else median x exp(sigma x z), z standard normal by
 * Box-Muller from two splitmix64 draws keyed by (seed, job, run), rounded
 * to the nearest ms and clamped to 1e15.  Pure: no state, no error. */
gs_time gs_latency_draw(const struct gs_policy *pol, int job, int run);

/* Make `eng` draw its start latencies by gs_latency_draw under its own
 * policy (gs_engine_policy): sets the engine's latency source (with
 * start_latency.median 0 every answer is 0).  Call once after
 * gs_engine_create, before the first submission. */
void gs_latency_attach(struct gs_engine *eng);

#endif
