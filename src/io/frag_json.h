/* frag_json.h - the `gpusched frag --json` document of one cluster state
 * (DESIGN.md section 3, "Machine-readable output"): free GPUs, S_k with the
 * units that can take a k-GPU job, fragmentation (count, topology, memory,
 * MIG and, with a queue, FGD's expected fragmentation) and the per-node
 * view.  One writer for the CLI (`frag --json` on a snapshot) and for
 * gpuschedd (`GET /v1/cluster` on the live engine's cluster); each caller
 * adds its own "pending" array.  Pure: no I/O.
 */
#ifndef GS_IO_FRAG_JSON_H
#define GS_IO_FRAG_JSON_H

#include <jansson.h>

#include "core/cluster/cluster.h"
#include "core/place/shapes.h"
#include "core/policy/job.h"
#include "core/base/types.h"

/* Start an empty distribution of queued shapes. */
void gs_frag_queue_init(struct gs_shape_dist *d);

/* Add the shape of queued job `spec` (each distinct shape counts once;
 * beyond GS_SHAPES_MAX distinct shapes the rest are ignored). */
void gs_frag_queue_add(const struct gs_cluster *cl, struct gs_shape_dist *d,
                       const struct gs_job_spec *spec);

/* Names of the units that can take a k-GPU job now: a node (one domain, or
 * k larger than a domain) or NODE/d<i> for one NVLink domain.  New
 * reference, NULL on allocation failure. */
json_t *gs_frag_units_json(const struct gs_cluster *cl, int k);

/* The document for sealed cluster `cl` at engine time `time` (ms), with
 * memory and expected fragmentation measured against the shapes in
 * `queue` (equal weights are set here; n = 0: no queue).  New reference,
 * NULL on allocation failure. */
json_t *gs_frag_json(const struct gs_cluster *cl, gs_time time, struct gs_shape_dist *queue);

#endif
