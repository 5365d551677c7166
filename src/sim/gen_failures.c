/* gen_failures.c - random node failures for `gen --mtbf` (gen.h): the
 * failure process of failures.h drawn up to the horizon. */
#include "sim/gen.h"
#include "sim/failures.h"

int gs_gen_failures(const struct gs_cluster *cl, const struct gs_gen_failure_opts *o,
                    struct gs_node_events *out, struct gs_error *err)
{
    struct gs_failure_model m = { o->seed, o->mtbf_s, o->repair_s, GS_FAIL_EXPONENTIAL, 1,
                                  o->gpu_mtbf_s };
    struct gs_fail_stream s;
    struct gs_error e = { 0 };
    int rc = gs_fail_stream_init_cluster(&s, &m, cl, &e);
    if (rc == GS_EINVAL)
        rc = gs_errorf(err, GS_EINVAL,
                       "--mtbf (or --gpu-mtbf) must be > 0, --gpu-mtbf >= 0 and --repair >= 0");
    else if (rc < 0)
        rc = gs_errorf(err, rc, "out of memory");
    else if (gs_fail_stream_close(&s, o->horizon, out) < 0)
        rc = gs_errorf(err, GS_ENOMEM, "out of memory");
    gs_fail_stream_fini(&s);
    return rc;
}
