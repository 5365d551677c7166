/* cluster_mig_yaml.h - the `mig:` parts of the cluster file (read by
 * io/cluster_yaml.c; docs/formats.md):
 *
 *   gpu_types:
 *     A100-40GB: { memory_gb: 40, mig: A100-40GB }  # MIG geometry (optional:
 *                 # inferred when the type name is A100-40GB, A100-80GB, H100-80GB)
 *   nodes:
 *     - name: a-[1-2]
 *       gpus: 8
 *       gpu_type: A100-40GB
 *       mig: [3g.20gb@4, 2g.10gb, 1g.5gb, 1g.5gb] # every GPU of the node, or
 *       mig: { "0-3": [7g.40gb], "4-7": ["1g.5gb*7"], "7": [] }
 *
 * A layout lists instances in creation order: PROFILE, PROFILE@START (a
 * memory-slice start) or PROFILE*N (N instances); each takes the lowest
 * valid free start unless given.  [] puts a GPU in MIG mode with no
 * instance (for mig.reconfigure: when_idle).  A later key of the mapping
 * overrides an earlier one for the GPUs they share.  Layouts are checked
 * against the geometry (core/mig.h); errors name the file, line and key.
 */
#ifndef GS_IO_CLUSTER_MIG_YAML_H
#define GS_IO_CLUSTER_MIG_YAML_H

#include <stddef.h>

#include "core/cluster/cluster.h"
#include "core/base/error.h"
#include "io/yaml_util.h"

/* Node entries with a `mig:` key, applied once the cluster is sealed. */
struct gs_mig_yaml {
    struct gs_mig_yaml_entry {
        int first, last;            /* node indexes the entry expanded to */
        int idx;                    /* nodes[idx] in messages */
        const yaml_node_t *v;       /* the value of mig: */
    } *e;
    size_t n, cap;
};

/* Remember that nodes first..last (one entry `idx`) have mig value `v`.
 * Returns 0 or GS_ENOMEM. */
int gs_mig_yaml_add(struct gs_mig_yaml *m, int first, int last, int idx, const yaml_node_t *v);

/* Put the GPUs in MIG mode with their layouts on the sealed cluster.
 * Returns 0, GS_EINVAL (bad value, profile, GPU index or layout), or
 * GS_ENOMEM. */
int gs_mig_yaml_apply(const struct gs_mig_yaml *m, struct gs_yaml *y, struct gs_cluster *cl,
                      struct gs_error *err);

/* Free the list; `m` may be reused. */
void gs_mig_yaml_fini(struct gs_mig_yaml *m);

/* The value of a gpu type's `mig:` key: a geometry name.  Returns 0 and
 * sets *model, or GS_EINVAL naming the known geometries. */
int gs_mig_yaml_model(struct gs_yaml *y, const yaml_node_t *v, const char *path, int *model,
                      struct gs_error *err);

#endif
