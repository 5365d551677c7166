/* failure_model.h - the parameters of random node failures (`sim
 * --failures`, docs/failures.md): plain data shared by io (the F.yaml
 * reader, io/failures_yaml.h) and sim (the draws, sim/failures.h).  The
 * engine never sees it: failures reach it as node events (node_event.h). */
#ifndef GS_CORE_FAILURE_MODEL_H
#define GS_CORE_FAILURE_MODEL_H

#include <stdint.h>

enum gs_fail_dist { GS_FAIL_EXPONENTIAL, GS_FAIL_WEIBULL };

/* A failure model: every node alternates up times drawn from `dist` with
 * mean mtbf_s and a fixed repair of repair_s down; with gpu_mtbf_s > 0
 * every GPU does the same on its own (mean gpu_mtbf_s, the same repair and
 * distribution), taking only itself out.  mtbf_s = 0: no node failures
 * (then gpu_mtbf_s > 0). */
struct gs_failure_model {
    uint64_t seed;
    double mtbf_s, repair_s;
    int dist;            /* enum gs_fail_dist */
    double shape;        /* Weibull shape k (> 0); 1 = exponential */
    double gpu_mtbf_s;   /* per-GPU failures: mean up time of one GPU; 0 = none */
};

#endif
