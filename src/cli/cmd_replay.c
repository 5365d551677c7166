/* cmd_replay.c - `gpusched replay`: submit a trace's jobs to a running
 * gpuschedd at their submit times divided by X, each running
 * `sleep duration/X`.  With `gpuschedd --clock-scale X` this is the live
 * twin of `gpusched sim` (DESIGN.md section 5, "What is promised"). */
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/queue_fmt.h"
#include "io/placement.h"
#include "core/base/alloc.h"
#include "io/job_request.h"
#include "io/trace_csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const replay_help =
    "usage: gpusched replay --trace T.csv [--scale X] [--id-prefix P]\n"
    "                       [--wait] [--timeout 10m] [--out jobs.csv] [--json]\n"
    "\n"
    "Submit the trace's jobs to gpuschedd at submit/X seconds after the start\n"
    "(in submit order, ties in trace order), each running `sleep duration/X`\n"
    "with the trace's other columns as the job's fields.  Run the daemon with\n"
    "--clock-scale X and the engine sees the trace's own times.\n"
    "  --scale X       time compression (default 1)\n"
    "  --id-prefix P   prepend P to every job id (replay one trace twice)\n"
    "  --wait          after the last submit, wait until every job is done\n"
    "  --timeout D     give up waiting after D wall time (default 10m)\n"
    "  --out FILE      with --wait: the live schedule as CSV, like sim's jobs.csv:\n"
    "                  id,submit,start,end,wait,gpus,placement,outcome,preemptions\n"
    "                  in trace seconds (engine time since the replay's trace zero);\n"
    "                  start is the first attempt's when the daemon reports it\n"
    "                  (first_start_epoch), else the current attempt's\n"
    "  --json          with --wait: the job objects; else the counts\n" GS_CLIENT_COMMON_HELP;

#define OPT_TRACE 1
#define OPT_SCALE 2
#define OPT_PREFIX 3
#define OPT_WAIT 4
#define OPT_TIMEOUT 5
#define OPT_OUT 6
#define POLL_NS 100000000L /* --wait polls every 100 ms */

struct replay_args {
    const char *trace, *prefix, *out;
    double scale, timeout_s;
    int wait;
};

static int replay_opt(int c, const char *val, void *arg)
{
    struct replay_args *a = arg;
    gs_time t;
    switch (c) {
    case OPT_TRACE: a->trace = val; return 0;
    case OPT_SCALE: return cli_parse_double("replay", "--scale", val, 1e-3, 1e6, &a->scale);
    case OPT_PREFIX: a->prefix = val; return 0;
    case OPT_WAIT: a->wait = 1; return 0;
    case OPT_OUT: a->out = val; return 0;
    case OPT_TIMEOUT:
        if (gs_parse_duration(val, &t) < 0 || t <= 0)
            return cli_failf("replay", -1, "--timeout: '%s' is not a duration", val);
        a->timeout_s = gs_time_to_sec(t);
        return 0;
    }
    return -1;
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    for (;;) {
        double d = t - mono_now();
        if (d <= 0)
            return;
        struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
        if (nanosleep(&ts, NULL) == 0)
            return;
    }
}

/* The request of trace job `i`: its columns, the prefixed id, the sleep. */
static json_t *job_request(const struct gs_trace *tr, size_t i, const struct replay_args *a)
{
    const struct gs_job_spec *s = gs_trace_job(tr, i);
    struct gs_error err = { 0 };
    json_t *req = json_object();
    char id[512], secs[64];
    snprintf(id, sizeof id, "%s%s", a->prefix ? a->prefix : "", s->id);
    snprintf(secs, sizeof secs, "%.3f", gs_time_to_sec(gs_trace_duration(tr, i)) / a->scale);
    char *argv[] = { "sleep", secs };
    if (!req || gs_job_request_from_spec(req, s, GS_TIME_NONE, &err) < 0 ||
        json_object_set_new(req, "id", json_string(id)) < 0 ||
        gs_job_request_command(req, 2, argv, &err) < 0) {
        fprintf(stderr, "gpusched replay: job %s: %s\n", s->id, err.msg[0] ? err.msg : "?");
        json_decref(req);
        return NULL;
    }
    return req;
}

/* Submit every job on time.  Returns the number of failed submits; sets
 * *lag to the largest lateness in wall seconds. */
static int submit_all(struct gs_client *c, const struct gs_trace *tr, const size_t *order,
                      const struct replay_args *a, double *lag)
{
    int failed = 0;
    double t0 = mono_now();
    *lag = 0;
    for (size_t k = 0; k < gs_trace_count(tr); k++) {
        size_t i = order[k];
        double due = t0 + gs_time_to_sec(gs_trace_job(tr, i)->submit) / a->scale;
        sleep_until(due);
        double late = mono_now() - due;
        if (late > *lag)
            *lag = late;
        json_t *req = job_request(tr, i, a), *ans = NULL;
        long status = 0;
        if (!req || gs_client_call(c, "POST", "/v1/jobs", req, NULL, &status, &ans) < 0) {
            failed++;
        } else if (status < 200 || status >= 300) {
            fprintf(stderr, "gpusched replay: job %s: ", gs_trace_job(tr, i)->id);
            gs_client_print_error(status, ans);
            failed++;
        }
        json_decref(req);
        json_decref(ans);
    }
    return failed;
}

/* GET /v1/jobs, every page (gs_client_get_pages); NULL after printing the
 * error. */
static json_t *get_jobs(struct gs_client *c, const struct gs_client_opts *o)
{
    (void)c;
    json_t *ans = NULL;
    if (gs_client_get_pages(o, "/v1/jobs", "jobs", &ans) != 0)
        return NULL;
    return ans;
}

/* The replayed job `id` (prefixed) in the list, or NULL. */
static const json_t *find_job(const json_t *jobs, const char *prefix, const char *id)
{
    size_t i, pl = prefix ? strlen(prefix) : 0;
    const json_t *j;
    json_array_foreach(jobs, i, j) {
        const char *jid = json_string_value(json_object_get(j, "id"));
        if (jid && strncmp(jid, prefix ? prefix : "", pl) == 0 && strcmp(jid + pl, id) == 0)
            return j;
    }
    return NULL;
}

/* Whether every trace job is in `jobs` and done. */
static int all_done(const json_t *jobs, const struct gs_trace *tr, const struct replay_args *a)
{
    for (size_t i = 0; i < gs_trace_count(tr); i++) {
        const json_t *j = find_job(jobs, a->prefix, gs_trace_job(tr, i)->id);
        const char *st = j ? json_string_value(json_object_get(j, "state")) : NULL;
        if (!st || strcmp(st, "done") != 0)
            return 0;
    }
    return 1;
}

/* Poll until all jobs are done; returns the last list (caller decrefs) or
 * NULL on error or timeout. */
static json_t *wait_done(struct gs_client *c, const struct gs_client_opts *o,
                         const struct gs_trace *tr, const struct replay_args *a)
{
    double end = mono_now() + a->timeout_s;
    for (;;) {
        json_t *ans = get_jobs(c, o);
        const json_t *jobs = gs_client_list(ans, "jobs");
        if (!ans || !jobs) {
            json_decref(ans);
            return NULL;
        }
        if (all_done(jobs, tr, a))
            return ans;
        json_decref(ans);
        if (mono_now() > end) {
            fprintf(stderr, "gpusched replay: jobs still not done after %g s\n", a->timeout_s);
            return NULL;
        }
        struct timespec ts = { 0, POLL_NS };
        nanosleep(&ts, NULL);
    }
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

/* Write the live schedule: times in engine seconds since trace zero, which
 * is the first-submitted job's engine submit time minus its trace submit. */
static int write_schedule(FILE *f, const json_t *jobs, const struct gs_trace *tr,
                          const size_t *order, const struct replay_args *a)
{
    const json_t *first = find_job(jobs, a->prefix, gs_trace_job(tr, order[0])->id);
    double zero = num(first, "submit_epoch") - gs_time_to_sec(gs_trace_job(tr, order[0])->submit);
    fprintf(f, "id,submit,start,end,wait,gpus,placement,outcome,preemptions\n");
    for (size_t k = 0; k < gs_trace_count(tr); k++) {
        const struct gs_job_spec *s = gs_trace_job(tr, order[k]);
        const json_t *j = find_job(jobs, a->prefix, s->id);
        /* the first attempt's start when the daemon gives it (as sim's
         * jobs.csv), else the current attempt's */
        double fs = num(j, "first_start_epoch");
        double sub = num(j, "submit_epoch") - zero;
        double st = (fs >= 0 ? fs : num(j, "start_epoch")) - zero;
        double en = num(j, "end_epoch") - zero;
        const char *pl = json_string_value(json_object_get(j, "placement"));
        const char *oc = json_string_value(json_object_get(j, "outcome"));
        fprintf(f, "%s,%.3f,%.3f,%.3f,%.3f,%d,", s->id, sub, st, en, st - sub, s->gpus);
        size_t len = cli_placement_restyle(pl, GS_PLACEMENT_WORDS, NULL, 0);
        char *words = malloc(len + 1); /* space-separated, as in sim's jobs.csv */
        if (words) {
            cli_placement_restyle(pl, GS_PLACEMENT_WORDS, words, len + 1);
            fputs(words, f);
            free(words);
        }
        fprintf(f, ",%s,%d\n", oc ? oc : "",
                (int)json_integer_value(json_object_get(j, "preemptions")));
    }
    return 0;
}

static int finish(struct gs_client *c, const struct gs_client_opts *o, const struct gs_trace *tr,
                  const size_t *order, const struct replay_args *a)
{
    json_t *ans = wait_done(c, o, tr, a);
    if (!ans)
        return 1;
    int status = 0;
    if (a->out) {
        FILE *f = cli_open_out("replay", a->out);
        if (!f)
            status = 1;
        else {
            write_schedule(f, gs_client_list(ans, "jobs"), tr, order, a);
            status = cli_close("replay", f, a->out) ? 1 : 0;
        }
    }
    if (o->json)
        gs_client_print_json(ans);
    json_decref(ans);
    return status;
}

int cmd_replay(int argc, char **argv)
{
    static const struct option opts[] = {
        { "trace", required_argument, NULL, OPT_TRACE },
        { "scale", required_argument, NULL, OPT_SCALE },
        { "id-prefix", required_argument, NULL, OPT_PREFIX },
        { "wait", no_argument, NULL, OPT_WAIT },
        { "timeout", required_argument, NULL, OPT_TIMEOUT },
        { "out", required_argument, NULL, OPT_OUT },
        GS_CLIENT_COMMON_OPTS,
        { NULL, 0, NULL, 0 },
    };
    const struct gs_client_cmd cmd = { "replay", replay_help, opts, 0, 0 };
    struct gs_client_opts o;
    struct replay_args a = { .scale = 1, .timeout_s = 600 };
    char **args;
    int nargs;
    gs_client_opts_init(&o);
    int st = gs_client_parse(&cmd, argc, argv, &o, replay_opt, &a, &args, &nargs);
    if (st >= 0)
        return st;
    if (!a.trace)
        return cli_failf("replay", 2, "--trace is required (see --help)");
    if (a.out && !a.wait)
        return cli_failf("replay", 2, "--out needs --wait");
    struct gs_trace *tr = cli_load_trace("replay", a.trace, 1);
    if (!tr)
        return 1;
    size_t *order = gs_trace_order(tr);
    struct gs_client *c = order ? gs_client_create(&o) : NULL;
    int status = 1;
    if (c) {
        double lag;
        int failed = submit_all(c, tr, order, &a, &lag);
        fprintf(stderr, "gpusched replay: %zu jobs submitted, %d failed, largest lag %.1f ms\n",
                gs_trace_count(tr) - (size_t)failed, failed, lag * 1e3);
        status = failed ? 1 : 0;
        if (!failed && a.wait)
            status = finish(c, &o, tr, order, &a);
        else if (o.json)
            printf("{\"submitted\": %zu, \"failed\": %d, \"max_lag_s\": %.6f}\n",
                   gs_trace_count(tr) - (size_t)failed, failed, lag);
    } else if (!order) {
        fprintf(stderr, "gpusched replay: %s: no jobs\n", a.trace);
    }
    gs_client_destroy(c);
    gs_free(order);
    gs_trace_destroy(tr);
    return status;
}
