/* whatif_fail_out.c - the output of `whatif --failures` (whatif_fail_out.h). */
#include "cli/whatif_fail_out.h"

#include <math.h>
#include <string.h>

/* "28.1 min", "3.30 h", "45 s" */
static void dur(char *buf, size_t len, double s)
{
    if (s >= 7200)
        snprintf(buf, len, "%.2f h", s / 3600);
    else if (s >= 120)
        snprintf(buf, len, "%.1f min", s / 60);
    else
        snprintf(buf, len, "%.0f s", s);
}

static const char *mark(const struct gs_wfail *w, int c)
{
    if (c == w->yd_col && c == w->cur_col)
        return "Young/Daly, current";
    if (c == w->yd_col)
        return "Young/Daly";
    return c == w->cur_col ? "current" : "";
}

void cli_wfail_table(FILE *out, const struct gs_wfail *w, const struct gs_failure_model *m)
{
    char a[32], b[32];
    dur(a, sizeof a, m->mtbf_s);
    dur(b, sizeof b, m->repair_s);
    if (m->mtbf_s > 0)
        fprintf(out, "node failures: node MTBF %s, repair %s, seed %llu (%s)\n", a, b,
                (unsigned long long)m->seed,
                m->dist == GS_FAIL_WEIBULL ? "weibull" : "exponential");
    else
        fprintf(out, "node failures: none; repair %s, seed %llu (%s)\n", b,
                (unsigned long long)m->seed,
                m->dist == GS_FAIL_WEIBULL ? "weibull" : "exponential");
    if (m->gpu_mtbf_s > 0) {
        dur(a, sizeof a, m->gpu_mtbf_s);
        fprintf(out, "GPU failures: GPU MTBF %s (each GPU on its own)\n", a);
    }
    dur(a, sizeof a, w->job_mtbf_s);
    fprintf(out, "jobs that matter: %d job%s of %d GPUs or more (%d node%s: a failure every %s)"
                 ", checkpoint cost %.0f s%s\n",
            w->njobs, w->njobs == 1 ? "" : "s", w->min_gpus, w->nodes, w->nodes == 1 ? "" : "s",
            a, w->ckpt_cost_s, w->mixed ? " (the first's; their intervals or costs differ)" : "");
    dur(a, sizeof a, w->yd_s);
    fprintf(out, "Young/Daly interval sqrt(2 C M) = %.0f s (%s)\n\n", w->yd_s, a);
    fprintf(out, "%6s %10s %-20s %6s %7s %8s %12s %12s\n", "spares", "interval", "", "ended",
            "ETTR", "restarts", "lost GPU-h", "others wait");
    for (int r = 0; r < w->nsp; r++)
        for (int c = 0; c < w->ntau; c++) {
            const struct gs_wfail_cell *x = &w->cell[r][c];
            char e[16];
            snprintf(e, sizeof e, x->ettr < 0 ? "-" : "%.3f", x->ettr);
            fprintf(out, "%6d %8.0f s %-20s %6d %7s %8lld %12.1f %10.2f h\n", w->spares[r],
                    w->tau_s[c], mark(w, c), x->ended, e, (long long)x->restarts, x->lost_gpu_h,
                    x->others_wait_h);
        }
}

/* "every 844 s (Young/Daly)" */
static void interval(char *buf, size_t len, const struct gs_wfail *w, int c)
{
    const char *m = mark(w, c);
    if (w->tau_s[c] == 0)
        snprintf(buf, len, "no checkpoints");
    else
        snprintf(buf, len, "every %.0f s%s%s%s", w->tau_s[c], *m ? " (" : "", m, *m ? ")" : "");
}

void cli_wfail_verdict(char *buf, size_t len, const struct gs_wfail *w)
{
    const struct gs_wfail_cell *base = &w->cell[w->base_row][w->cur_col];
    char ci[64], bi[64], ti[64];
    interval(ci, sizeof ci, w, w->cur_col);
    interval(bi, sizeof bi, w, w->best_col);
    interval(ti, sizeof ti, w, w->best_c);
    if (base->ettr < 0) {
        snprintf(buf, len, "The jobs that matter never end with %d spares at %s: no verdict.",
                 w->spares[w->base_row], ci);
        return;
    }
    double gi = gs_wfail_gain(w, w->base_row, w->best_col);
    double gs = gs_wfail_gain(w, w->best_row, w->cur_col);
    double gb = gs_wfail_gain(w, w->best_r, w->best_c);
    const char *most = gi <= 1e-9 && gs <= 1e-9 ? "Neither change helps them."
                       : gi >= gs              ? "The checkpoint interval helps most."
                                               : "Spare nodes help most.";
    int n = snprintf(buf, len,
                     "ETTR of the jobs that matter: %.3f now (checkpoints %s, %d spares). "
                     "Checkpointing %s gives %.3f (%+.1f points); %d spare%s at the current "
                     "interval give %.3f (%+.1f points); the best of the grid, %d spares and "
                     "checkpoints %s, gives %.3f (%+.1f). %s",
                     base->ettr, ci, w->spares[w->base_row], bi,
                     w->cell[w->base_row][w->best_col].ettr, 100 * gi, w->spares[w->best_row],
                     w->spares[w->best_row] == 1 ? "" : "s",
                     w->cell[w->best_row][w->cur_col].ettr, 100 * gs, w->spares[w->best_r], ti,
                     w->cell[w->best_r][w->best_c].ettr, 100 * gb, most);
    if (n > 0 && (size_t)n < len && !w->expedite && gs > 1e-9)
        n += snprintf(buf + n, len - (size_t)n, " (retry.expedite is off: a hit job queues "
                                                "behind earlier jobs, which may take its "
                                                "surviving nodes.)");
    for (int r = 0; r < w->nsp && n > 0 && (size_t)n < len; r++) {
        int ended = 0;
        for (int c = 0; c < w->ntau; c++)
            ended += w->cell[r][c].ended;
        if (!ended)
            n += snprintf(buf + n, len - (size_t)n, " With %d spares they never end: the "
                                                    "spares are kept from first starts too.",
                          w->spares[r]);
    }
}

json_t *cli_wfail_json(const struct gs_wfail *w)
{
    json_t *runs = json_array();
    for (int r = 0; runs && r < w->nsp; r++)
        for (int c = 0; c < w->ntau; c++) {
            const struct gs_wfail_cell *x = &w->cell[r][c];
            json_array_append_new(
                runs, json_pack("{s:i, s:f, s:b, s:b, s:i, s:o, s:I, s:f, s:f}", "spares",
                                w->spares[r], "interval_s", w->tau_s[c], "young_daly",
                                c == w->yd_col, "current", c == w->cur_col, "ended", x->ended,
                                "ettr", x->ettr < 0 ? json_null() : json_real(x->ettr),
                                "restarts", (json_int_t)x->restarts, "lost_gpu_h",
                                x->lost_gpu_h, "others_wait_h", x->others_wait_h));
        }
    char v[1024];
    cli_wfail_verdict(v, sizeof v, w);
    double gi = gs_wfail_gain(w, w->base_row, w->best_col),
           gs = gs_wfail_gain(w, w->best_row, w->cur_col);
    const char *most = gi <= 1e-9 && gs <= 1e-9 ? "none" : gi >= gs ? "interval" : "spares";
    return json_pack("{s:{s:i, s:i, s:i, s:f, s:f}, s:f, s:f, s:o, s:{s:s, s:f, s:i, s:s}}",
                     "targets", "jobs", w->njobs, "min_gpus", w->min_gpus, "nodes", w->nodes,
                     "ckpt_cost_s", w->ckpt_cost_s, "job_mtbf_s", w->job_mtbf_s,
                     "young_daly_s", w->yd_s, "current_interval_s", w->cur_tau_s, "runs",
                     runs ? runs : json_null(), "verdict", "helps_most", most,
                     "best_interval_s", w->tau_s[w->best_col], "best_spares",
                     w->spares[w->best_row], "text", v);
}
