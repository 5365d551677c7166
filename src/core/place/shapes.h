/* shapes.h - the distribution of job shapes that fragmentation is measured
 * against (FGD, Weng et al., USENIX ATC'23, section 4: the "target
 * workload").
 *
 * A shape is what a job asks of one node: GPU count, per-GPU share and
 * memory, host CPU and memory, allowed GPU types, topology and MIG
 * profile.  A gs_shape_dist is a small fixed-size value (no allocation)
 * holding the most frequent shapes with probabilities that sum to 1.
 *
 * A gs_shape_window keeps the last `cap` shapes pushed (a ring buffer) and
 * a count per distinct shape, so the engine can hand placement the recent
 * distribution of requests.  Everything is deterministic: distinct shapes
 * are ordered by count, then by a total order on their fields.
 */
#ifndef GS_CORE_SHAPES_H
#define GS_CORE_SHAPES_H

#include <stdint.h>

#define GS_SHAPES_MAX 128   /* shapes a distribution holds at most (openb needs 127) */

struct gs_shape {
    int gpus;               /* whole GPUs; 0 = CPU only */
    int milli;              /* per-GPU share, 1..1000 */
    int64_t mem_mib;        /* per GPU; -1 = in proportion to the share */
    int64_t cpu_milli;      /* host CPU on the node; 0 = none */
    int64_t host_mem_mib;   /* host memory on the node; 0 = none */
    int gpu_type;           /* required GPU type, -1 = any */
    uint64_t gpu_types;     /* allowed GPU types as a bit mask, 0 = any */
    int topology;           /* enum gs_topo */
    int mig;                /* MIG profile id + 1, 0 = none (core/mig.h) */
    double p;               /* probability in a distribution */
};

struct gs_shape_dist {
    int n;
    struct gs_shape s[GS_SHAPES_MAX];
};

struct gs_shape_window;

/* Total order on shapes ignoring `p` (<0, 0, >0). */
int gs_shape_cmp(const struct gs_shape *a, const struct gs_shape *b);

/* Create a window of the last `cap` (>= 1) shapes.  NULL on allocation
 * failure or cap < 1.  Destroy with gs_shape_window_destroy. */
struct gs_shape_window *gs_shape_window_create(int cap);

/* Free the window; NULL is a no-op. */
void gs_shape_window_destroy(struct gs_shape_window *w);

/* Add a shape (its `p` is ignored), dropping the oldest when full.
 * Returns 0 or GS_ENOMEM (the window is then unchanged). */
int gs_shape_window_push(struct gs_shape_window *w, const struct gs_shape *s);

/* Number of shapes in the window (at most cap). */
int gs_shape_window_count(const struct gs_shape_window *w);

/* The distribution of the window: distinct shapes by decreasing count
 * (ties by gs_shape_cmp), keeping the most frequent until they cover at
 * least `coverage` (0..1] of the window or GS_SHAPES_MAX shapes are kept,
 * then renormalised so the kept probabilities sum to 1 (FGD's typical-pod
 * rule with coverage 0.95).  An empty window gives n = 0. */
void gs_shape_window_dist(const struct gs_shape_window *w, double coverage,
                          struct gs_shape_dist *out);

/* The same rule over an array of `n` shapes, each counted once; for callers
 * that hold a whole workload (the fill experiment).  Returns 0 or
 * GS_ENOMEM (out is then empty). */
int gs_shape_dist_build(const struct gs_shape *shapes, int n, double coverage,
                        struct gs_shape_dist *out);

/* Add `s` to `d` unless an equal shape (gs_shape_cmp) is there already or
 * `d` is full (GS_SHAPES_MAX); for distributions of distinct shapes. */
void gs_shape_dist_add_distinct(struct gs_shape_dist *d, const struct gs_shape *s);

/* Give every shape of `d` the same probability 1/n (nothing when n = 0). */
void gs_shape_dist_equal_weights(struct gs_shape_dist *d);

#endif
