/* report_preempt.c - preemption, classes, SLO and checkpoint advice in the
 * summary (see report_preempt.h; the model is in core/preempt_metrics.h). */
#include "report/report_preempt.h"
#include "report/report.h"

static json_t *loss_json(const struct gs_loss *l)
{
    return json_pack("{s:I, s:f, s:f, s:f, s:f}", "count", (json_int_t)l->preemptions,
                     "lost_gpu_hours", l->lost_gpu_h, "checkpoint_gpu_hours", l->ckpt_gpu_h,
                     "restore_gpu_hours", l->restore_gpu_h, "run_gpu_hours", l->run_gpu_h);
}

static json_t *preemption_json(const struct gs_preempt_summary *p)
{
    json_t *o = loss_json(&p->total), *cls = json_object(), *teams = json_object();
    for (int c = 0; cls && c < 2; c++)
        json_object_set_new(cls, gs_class_name(c), loss_json(&p->cls[c].loss));
    for (int t = 0; teams && t < p->nteams; t++)
        json_object_set_new(teams, p->teams[t].team, loss_json(&p->teams[t].loss));
    if (o) {
        json_object_set_new(o, "by_class", cls);
        json_object_set_new(o, "by_team", teams);
    } else {
        json_decref(cls);
        json_decref(teams);
    }
    return o;
}

static json_t *classes_json(const struct gs_preempt_summary *p)
{
    json_t *o = json_object();
    for (int c = 0; o && c < 2; c++) {
        const struct gs_class_summary *cs = &p->cls[c];
        json_t *x = json_pack("{s:I, s:I, s:o, s:f, s:f}", "jobs", (json_int_t)cs->jobs,
                              "started", (json_int_t)cs->started, "wait",
                              gs_report_pctl_json(&cs->wait), "lost_gpu_hours",
                              cs->loss.lost_gpu_h, "checkpoint_gpu_hours",
                              cs->loss.ckpt_gpu_h);
        if (x && c == GS_CLASS_INFER) {
            json_object_set_new(x, "slo_wait", json_real(p->slo_wait_s));
            /* no inference job: attainment is unknown, not 0 % or 100 % */
            json_object_set_new(x, "slo_attainment", cs->jobs > 0
                                                         ? json_real(gs_class_slo_share(cs))
                                                         : json_null());
            json_object_set_new(x, "slo_met", json_integer(cs->slo_met));
        }
        json_object_set_new(o, gs_class_name(c), x);
    }
    return o;
}

static json_t *advice_json(const struct gs_ckpt_advice *a)
{
    json_t *o = json_pack("{s:f, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f}", "mtbp",
                     a->mtbp_s, "jobs_able", (json_int_t)a->able, "jobs_unable",
                     (json_int_t)a->unable, "too_rare", (json_int_t)a->too_rare,
                     "about_right", (json_int_t)a->right, "too_often",
                     (json_int_t)a->too_often, "checkpoint_cost", a->cost_s, "interval_used",
                     a->interval_s, "interval_optimal", a->optimal_s, "save_gpu_hours",
                     a->save_gpu_h, "unable_lost_gpu_hours", a->unable_lost_gpu_h);
    if (o) {
        json_object_set_new(o, "loss_factor", json_real(a->loss_factor));
        json_object_set_new(o, "interval_calibrated", json_real(a->calibrated_s));
    }
    return o;
}

void gs_report_preempt_json(json_t *o, const struct gs_summary *s)
{
    const struct gs_preempt_summary *p = &s->pre;
    json_object_set_new(o, "preemption", preemption_json(p));
    json_object_set_new(o, "classes", classes_json(p));
    json_t *adv = json_pack("{s:s}", "model",
                            "Young/Daly first order: waste(I) = C/I + I/(2 MTBP), "
                            "optimum I* = sqrt(2 C MTBP); MTBP = run time / preemptions "
                            "of the class; loss_factor a = measured loss per preemption / "
                            "(I/2), calibrated optimum sqrt(2 C MTBP / a); jobs are judged "
                            "and savings computed with a");
    for (int c = 0; adv && c < 2; c++)
        json_object_set_new(adv, gs_class_name(c), advice_json(&p->cls[c].advice));
    json_object_set_new(o, "checkpoint_advice", adv);
}

int gs_report_preempt_relevant(const struct gs_summary *s)
{
    const struct gs_preempt_summary *p = &s->pre;
    return p->cls[GS_CLASS_INFER].jobs > 0 || p->total.preemptions > 0 ||
           p->total.ckpt_gpu_h > 0;
}

static void class_line(FILE *f, const struct gs_preempt_summary *p, int c)
{
    const struct gs_class_summary *cs = &p->cls[c];
    char a[16], b[16], d[16], slo[16] = "-";
    gs_report_fmt_dur(a, sizeof a, cs->wait.p50);
    gs_report_fmt_dur(b, sizeof b, cs->wait.p90);
    gs_report_fmt_dur(d, sizeof d, cs->wait.p99);
    if (c == GS_CLASS_INFER)
        snprintf(slo, sizeof slo, "%.1f%%", 100 * gs_class_slo_share(cs));
    fprintf(f, "  %-6s %7lld %8s %8s %8s %9s %9lld %9.2f %9.2f %9.2f\n", gs_class_name(c),
            (long long)cs->jobs, a, b, d, slo, (long long)cs->loss.preemptions,
            cs->loss.lost_gpu_h, cs->loss.ckpt_gpu_h, cs->loss.restore_gpu_h);
}

static void advice_line(FILE *f, int c, const struct gs_ckpt_advice *a)
{
    char m[16], used[16], opt[16], cal[16], cost[16];
    if (a->able + a->unable == 0)
        return;
    fprintf(f, "  %s: %lld jobs able to checkpoint, %lld not (they lost %.2f GPU-h)", gs_class_name(c),
            (long long)a->able, (long long)a->unable, a->unable_lost_gpu_h);
    if (a->mtbp_s <= 0) {
        fprintf(f, "; no preemptions seen, no interval advice\n");
        return;
    }
    gs_report_fmt_dur(m, sizeof m, a->mtbp_s);
    gs_report_fmt_dur(used, sizeof used, a->interval_s);
    gs_report_fmt_dur(opt, sizeof opt, a->optimal_s);
    gs_report_fmt_dur(cal, sizeof cal, a->calibrated_s);
    gs_report_fmt_dur(cost, sizeof cost, a->cost_s);
    fprintf(f, "\n    MTBP %s, C %s; interval used %s, Young/Daly optimum %s; a preemption"
               " lost %.2f x I/2, so the optimum here is %s\n"
               "    checkpoint often enough? %lld too rarely, %lld about right, %lld too often;"
               " that optimum would save %.2f GPU-h\n",
            m, cost, used, opt, a->loss_factor, cal, (long long)a->too_rare,
            (long long)a->right, (long long)a->too_often, a->save_gpu_h);
}

void gs_report_preempt_text(FILE *f, const struct gs_summary *s)
{
    if (!gs_report_preempt_relevant(s))
        return;
    const struct gs_preempt_summary *p = &s->pre;
    char slo[16];
    gs_report_fmt_dur(slo, sizeof slo, p->slo_wait_s);
    fprintf(f, "\nclasses  %7s %8s %8s %8s %9s %9s %9s %9s %9s\n", "jobs", "wait p50", "p90",
            "p99", "inf SLO", "preempted", "lost GPUh", "ckpt GPUh", "rest GPUh");
    if (p->cls[GS_CLASS_INFER].jobs)
        fprintf(f, "  (SLO: inference jobs started within %s)\n", slo);
    for (int c = 0; c < 2; c++)
        if (p->cls[c].jobs)
            class_line(f, p, c);
    for (int t = 0; p->total.preemptions && t < p->nteams; t++)
        if (p->teams[t].loss.preemptions)
            fprintf(f, "  team %-12s preempted %lld, lost %.2f GPU-h, restore %.2f GPU-h\n",
                    p->teams[t].team, (long long)p->teams[t].loss.preemptions,
                    p->teams[t].loss.lost_gpu_h, p->teams[t].loss.restore_gpu_h);
    fprintf(f, "checkpoint advice (Young/Daly: I* = sqrt(2 C MTBP)):\n");
    for (int c = 0; c < 2; c++)
        advice_line(f, c, &p->cls[c].advice);
}

void gs_report_class_header(FILE *f)
{
    fprintf(f, "%-22s %8s %7s %7s %7s %8s %8s %8s %7s %9s %9s %9s %6s\n", "policy", "inf SLO",
            "inf p50", "p90", "p99", "trn p50", "p90", "p99", "preempt", "lost GPUh",
            "ckpt GPUh", "rest GPUh", "eff");
}

void gs_report_class_row(FILE *f, const char *name, const struct gs_summary *s)
{
    const struct gs_preempt_summary *p = &s->pre;
    const struct gs_class_summary *in = &p->cls[GS_CLASS_INFER], *tr = &p->cls[GS_CLASS_TRAIN];
    fprintf(f, "%-22.22s %7.1f%% %6.0fs %6.0fs %6.0fs %7.0fs %7.0fs %7.0fs %7lld %9.1f %9.1f"
               " %9.1f %5.1f%%\n",
            name, 100 * gs_class_slo_share(in), in->wait.p50, in->wait.p90, in->wait.p99,
            tr->wait.p50,
            tr->wait.p90, tr->wait.p99, (long long)p->total.preemptions, p->total.lost_gpu_h,
            p->total.ckpt_gpu_h, p->total.restore_gpu_h, 100 * s->util_effective);
}
