/* gen_failures.c - random node failures for `gen --mtbf` (gen.h). */
#include "sim/gen.h"
#include "core/base/rng.h"

#include <math.h>

/* One node's failures over [0, horizon): exponential up times of mean
 * `mtbf`, each followed by `repair` down. */
static int node_failures(int node, uint64_t seed, const struct gs_gen_failure_opts *o,
                         struct gs_node_events *out)
{
    struct gs_rng r;
    gs_rng_seed(&r, seed ^ (0x6661696cULL << 32) ^ (uint64_t)node * 0x9e3779b97f4a7c15ULL);
    double t = 0;
    for (;;) {
        t += -o->mtbf_s * log(1.0 - gs_rng_uniform(&r));
        gs_time down = gs_time_from_sec(t);
        if (down >= o->horizon)
            return 0;
        struct gs_node_event e = { down, node, -1, GS_NODE_DOWN };
        if (gs_node_events_append(out, &e) < 0)
            return GS_ENOMEM;
        t += o->repair_s;
        e.time = gs_time_from_sec(t);
        e.state = GS_NODE_UP;
        if (gs_node_events_append(out, &e) < 0)
            return GS_ENOMEM;
    }
}

int gs_gen_failures(const struct gs_cluster *cl, const struct gs_gen_failure_opts *o,
                    struct gs_node_events *out, struct gs_error *err)
{
    if (!(o->mtbf_s > 0) || !(o->repair_s >= 0) || !isfinite(o->mtbf_s) ||
        !isfinite(o->repair_s))
        return gs_errorf(err, GS_EINVAL, "--mtbf must be > 0 and --repair >= 0");
    for (int n = 0; n < gs_cluster_node_count(cl); n++)
        if (node_failures(n, o->seed, o, out) < 0)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
    gs_node_events_sort(out);
    return 0;
}
