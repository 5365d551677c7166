/* cluster_yaml.h - read the cluster file (YAML, DESIGN.md section 3).
 *
 *   cluster:
 *     gpu_types:
 *       H100-80G: { memory_gb: 80 }
 *     nodes:
 *       - name: node-[1-4]      # bracket range: node-1 .. node-4
 *         gpus: 8
 *         gpu_type: H100-80G
 *         nvlink_domains: [8]   # optional, default one domain of all GPUs
 *         rack: r1              # optional
 *         domain: nvl72-a       # optional multi-node NVLink domain label
 *         cpu: 96               # optional host cores (float)
 *         memory_gb: 1024       # optional host memory
 *
 * Errors name the file, line and key, e.g.
 *   "c.yaml:7: nodes[0].gpus: expected an integer 0-64, got 'eight'".
 */
#ifndef GS_IO_CLUSTER_YAML_H
#define GS_IO_CLUSTER_YAML_H

#include <stddef.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"

/* Parse YAML text; `name` is used in messages.  Returns a sealed cluster
 * (schedulability k = largest domain) or NULL with `err` set (GS_EINVAL for
 * bad input, GS_ENOMEM).  Caller destroys with gs_cluster_destroy. */
struct gs_cluster *gs_cluster_parse_yaml(const char *text, size_t len, const char *name,
                                         struct gs_error *err);

/* Read and parse the file at `path` (GS_EIO if it cannot be read). */
struct gs_cluster *gs_cluster_load_yaml(const char *path, struct gs_error *err);

#endif
