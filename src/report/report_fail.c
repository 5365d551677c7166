/* report_fail.c - failure cost and ETTR (report_fail.h). */
#include "report/report_fail.h"
#include "io/html_svg.h"
#include "report/html_private.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

int gs_report_job_ettr(const struct gs_job_info *ji, double *ettr)
{
    if (ji->first_start == GS_TIME_NONE || ji->end == GS_TIME_NONE ||
        ji->end <= ji->first_start)
        return 0;
    gs_time useful = ji->state == GS_JOB_DONE ? ji->work : ji->saved;
    *ettr = (double)useful / (double)(ji->end - ji->first_start);
    return 1;
}

struct totals {
    double useful, wall, lost;  /* milli-GPU x ms */
    double lost_all, lost_kill; /* the engine's lost (failures and preemption);
                                   killed jobs' work past their last checkpoint */
    int64_t jobs_hit;
    double held_ms;             /* GPU x ms held for restarts (retry.hold) */
    int largest;                /* engine handle, -1 = none */
    int largest_gpus;
};

static void add_job(struct totals *t, const struct gs_sim_fail *f, int j,
                    const struct gs_job_info *ji)
{
    double mg = (double)gs_job_info_milli_gpus(ji), e;
    if ((size_t)j < f->njobs) {
        t->lost += mg * (double)f->lost[j];
        t->jobs_hit += f->restarts[j] > 0;
    }
    t->lost_all += mg * (double)ji->lost;
    t->held_ms += (double)ji->held_gpu_ms;
    if (ji->state == GS_JOB_KILLED && ji->work > ji->saved)
        t->lost_kill += mg * (double)(ji->work - ji->saved);
    if (ji->first_start != GS_TIME_NONE && ji->gpus > t->largest_gpus) {
        t->largest = j;
        t->largest_gpus = ji->gpus;
    }
    if (gs_report_job_ettr(ji, &e)) {
        double wall = (double)(ji->end - ji->first_start);
        t->useful += mg * e * wall;
        t->wall += mg * wall;
    }
}

static json_t *largest_json(const struct gs_engine *eng, const struct gs_sim_fail *f, int j)
{
    struct gs_job_info ji;
    double e;
    if (j < 0 || gs_engine_job_info(eng, j, &ji) < 0)
        return json_null();
    int known = gs_report_job_ettr(&ji, &e);
    return json_pack("{s:s, s:i, s:o, s:i}", "id", ji.id, "gpus", ji.gpus, "ettr",
                     known ? json_real(e) : json_null(), "restarts",
                     (size_t)j < f->njobs ? f->restarts[j] : 0);
}

/* One job's share of its team's figures (milli-GPU x ms). */
struct team_row {
    const char *team;
    double useful, wall, lost;
    int restarts;
};

static int team_cmp(const void *a, const void *b)
{
    return strcmp(((const struct team_row *)a)->team, ((const struct team_row *)b)->team);
}

static json_t *team_json(const struct team_row *r)
{
    return json_pack("{s:o, s:f, s:i}", "ettr", r->wall > 0 ? json_real(r->useful / r->wall)
                                                            : json_null(),
                     "lost_gpu_s", r->lost / GS_MILLI_GPU / 1000, "restarts", r->restarts);
}

/* by_team: {TEAM: {ettr, lost_gpu_s, restarts}}: the jobs sorted by team
 * and summed per run of equal names (n log n for any number of teams). */
static json_t *by_team_json(const struct gs_engine *eng, const struct gs_sim_fail *f)
{
    int n = gs_engine_job_count(eng), m = 0;
    struct team_row *rows = calloc(n > 0 ? (size_t)n : 1, sizeof *rows);
    json_t *o = json_object();
    if (!rows || !o) {
        free(rows);
        json_decref(o);
        return NULL;
    }
    for (int j = 0; j < n; j++) {
        struct gs_job_info ji;
        double e, mg;
        if (gs_engine_job_info(eng, j, &ji) < 0)
            continue;
        mg = (double)gs_job_info_milli_gpus(&ji);
        struct team_row r = { ji.team ? ji.team : "", 0, 0, 0, 0 };
        if ((size_t)j < f->njobs) {
            r.lost = mg * (double)f->lost[j];
            r.restarts = f->restarts[j];
        }
        if (gs_report_job_ettr(&ji, &e)) {
            r.wall = mg * (double)(ji.end - ji.first_start);
            r.useful = e * r.wall;
        }
        rows[m++] = r;
    }
    qsort(rows, (size_t)m, sizeof *rows, team_cmp);
    for (int i = 0; i < m;) {
        struct team_row t = rows[i++];
        for (; i < m && strcmp(rows[i].team, t.team) == 0; i++) {
            t.useful += rows[i].useful;
            t.wall += rows[i].wall;
            t.lost += rows[i].lost;
            t.restarts += rows[i].restarts;
        }
        json_object_set_new(o, t.team, team_json(&t));
    }
    free(rows);
    return o;
}

json_t *gs_report_fail_json(const struct gs_engine *eng, const struct gs_sim_fail *f)
{
    struct totals t = { 0, 0, 0, 0, 0, 0, 0, -1, 0 };
    for (int j = 0; j < gs_engine_job_count(eng); j++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, j, &ji) == 0)
            add_job(&t, f, j, &ji);
    }
    json_t *teams = by_team_json(eng, f);
    if (!teams)
        return NULL;
    double k = 1.0 / GS_MILLI_GPU / 1000; /* milli-GPU x ms -> GPU-s */
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:{s:f, s:f, s:f}, s:o, s:o, s:o, s:f}",
                     "events", (json_int_t)f->events, "events_drawn",
                     (json_int_t)f->events_drawn, "events_replayed",
                     (json_int_t)(f->events - f->events_drawn), "runs_ended",
                     (json_int_t)f->hits, "jobs_hit",
                     (json_int_t)t.jobs_hit, "lost_gpu_s", t.lost * k, "lost_gpu_s_by_cause",
                     "failure", t.lost * k, "preemption", (t.lost_all - t.lost) * k,
                     "time_limit", t.lost_kill * k, "ettr",
                     t.wall > 0 ? json_real(t.useful / t.wall) : json_null(), "largest",
                     largest_json(eng, f, t.largest), "by_team", teams, "held_gpu_s",
                     t.held_ms / 1000);
}

static int holds(const struct gs_engine *eng)
{
    return gs_engine_policy(eng)->retry_hold > 0;
}

void gs_report_fail_csv_header(FILE *out, const struct gs_engine *eng)
{
    fputs(holds(eng) ? ",ettr,lost_gpu_s_failure,restarts,held_gpu_s"
                     : ",ettr,lost_gpu_s_failure,restarts", out);
}

void gs_report_fail_csv_row(FILE *out, const struct gs_engine *eng, const struct gs_sim_fail *f,
                            int job, const struct gs_job_info *ji)
{
    double e;
    if (gs_report_job_ettr(ji, &e))
        fprintf(out, ",%.6f", e);
    else
        fputc(',', out);
    gs_time lost = (size_t)job < f->njobs ? f->lost[job] : 0;
    char buf[32];
    gs_report_fmt_sec(buf, sizeof buf,
                      (double)gs_job_info_milli_gpus(ji) * (double)lost / GS_MILLI_GPU / 1000);
    fprintf(out, ",%s,%d", buf, (size_t)job < f->njobs ? f->restarts[job] : 0);
    if (holds(eng)) {
        gs_report_fmt_sec(buf, sizeof buf, (double)ji->held_gpu_ms / 1000);
        fprintf(out, ",%s", buf);
    }
}

static void html_num(FILE *out, const json_t *v, int decimals, double scale)
{
    fputs("<td>", out);
    if (json_is_number(v))
        fprintf(out, "%.*f", decimals, json_number_value(v) * scale);
    else
        fputs("-", out);
    fputs("</td>", out);
}

void gs_report_fail_html(FILE *out, const struct gs_engine *eng, const struct gs_sim_fail *f)
{
    json_t *j = gs_report_fail_json(eng, f);
    if (!j)
        return;
    const json_t *l = json_object_get(j, "largest"), *teams = json_object_get(j, "by_team");
    gs_html_section(out, "Node failures",
                    "Random node failures drawn during the run (sim --failures). ETTR: useful "
                    "run time over wall time since the first start, GPU-time weighted.");
    fprintf(out, "<table><tr><th>failures</th><th>runs ended</th><th>jobs hit</th>"
                 "<th>lost GPU-h</th><th>ETTR</th><th>largest job</th><th>its ETTR</th>"
                 "<th>its restarts</th></tr>\n<tr><td>%lld</td><td>%lld</td><td>%lld</td>",
            (long long)json_integer_value(json_object_get(j, "events")),
            (long long)json_integer_value(json_object_get(j, "runs_ended")),
            (long long)json_integer_value(json_object_get(j, "jobs_hit")));
    html_num(out, json_object_get(j, "lost_gpu_s"), 1, 1.0 / 3600);
    html_num(out, json_object_get(j, "ettr"), 4, 1);
    fputs("<td>", out);
    html_text(out, json_is_object(l) ? json_string_value(json_object_get(l, "id")) : "-");
    fputs("</td>", out);
    html_num(out, json_object_get(l, "ettr"), 4, 1);
    html_num(out, json_object_get(l, "restarts"), 0, 1);
    fputs("</tr></table>\n<table><tr><th>team</th><th>ETTR</th><th>lost GPU-h</th>"
          "<th>restarts</th></tr>\n", out);
    const char *team;
    const json_t *t;
    json_object_foreach((json_t *)teams, team, t) {
        fputs("<tr><td>", out);
        html_text(out, team);
        fputs("</td>", out);
        html_num(out, json_object_get(t, "ettr"), 4, 1);
        html_num(out, json_object_get(t, "lost_gpu_s"), 1, 1.0 / 3600);
        html_num(out, json_object_get(t, "restarts"), 0, 1);
        fputs("</tr>\n", out);
    }
    fputs("</table></section>\n", out);
    json_decref(j);
}
