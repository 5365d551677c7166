/* report_eta.c - summary.json's "eta" object: the start-time promises
 * recorded at submit against the actual first starts (docs/eta.md). */
#include "report/report.h"
#include "core/base/alloc.h"

static json_t *group_json(const struct gs_eta_group *g)
{
    json_t *cov = g->n_bound ? json_real((double)g->covered / (double)g->n_bound) : json_null();
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:I, s:o, s:f, s:f}", "n", (json_int_t)g->n,
                     "median_abs_error_s", g->med_abs_s, "p90_abs_error_s", g->p90_abs_s,
                     "calibrated_median_abs_error_s", g->cal_med_abs_s,
                     "calibrated_p90_abs_error_s", g->cal_p90_abs_s,
                     "with_bound", (json_int_t)g->n_bound, "p90_coverage", cov,
                     "naive_now_median_abs_error_s", g->now_med_abs_s,
                     "naive_class_median_abs_error_s", g->class_med_abs_s);
}

static json_t *stats_json(const struct gs_eta_stats *st)
{
    json_t *size = json_object(), *basis = json_object();
    for (int c = 0; size && c < GS_SIZE_CLASSES; c++)
        json_object_set_new(size, gs_size_class_name(c), group_json(&st->by_size[c]));
    for (int b = 0; basis && b < GS_ETA_BASES; b++)
        json_object_set_new(basis, gs_est_basis_name(b), group_json(&st->by_basis[b]));
    return json_pack("{s:I, s:I, s:I, s:f, s:i, s:o, s:o, s:o}", "jobs", (json_int_t)st->jobs,
                     "estimated", (json_int_t)st->estimated, "unstarted",
                     (json_int_t)st->unstarted, "bound_quantile", 0.9, "window", GS_ETA_WINDOW,
                     "all", group_json(&st->all), "by_size", size, "by_basis", basis);
}

json_t *gs_report_eta_json(const struct gs_engine *eng, const struct gs_eta_rec *eta, size_t n)
{
    gs_time *start = gs_calloc(n ? n : 1, sizeof *start);
    if (!start)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        struct gs_job_info ji;
        start[i] = gs_engine_job_info(eng, (int)i, &ji) == 0 ? ji.first_start : GS_TIME_NONE;
    }
    struct gs_eta_stats st;
    json_t *j = gs_eta_stats_build(eta, start, n, &st) == 0 ? stats_json(&st) : NULL;
    gs_free(start);
    return j;
}
