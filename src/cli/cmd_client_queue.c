/* cmd_client_queue.c - `gpusched queue`, `show` and `why`: the job objects
 * of GET /v1/jobs, /v1/jobs/{id} and /v1/jobs/{id}/explain as text. */
#include "cli/client_eta.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "cli/queue_fmt.h"
#include "cli/why_more.h"
#include "io/timefmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const queue_help =
    "usage: gpusched queue [-t STATES] [-u USERS] [-j JOBS] [--team T] [--all]\n"
    "                      [--format FIELDS] [--noheader] [--parsable] [--json]\n"
    "\n"
    "One line per job, as squeue prints them: running jobs (by start), then the\n"
    "pending ones in queue order (the next pass's), then finished ones:\n"
    "  JOBID TEAM USER GPUS STATE TIME WAIT NODELIST(REASON)\n"
    "TIME is the run time of the current attempt, WAIT the time since submit\n"
    "until it started (or until now), both from the daemon's clock when it\n"
    "answered; a pending job shows its reason code and numbers, a running one\n"
    "its GPUs (node:gpu ranges).  Finished jobs are left out unless --all or\n"
    "-t names an ended state.\n"
    "  -t, --state STATES  only jobs in these states (comma list): pending,\n"
    "                 starting, running, stopping, done (any end), completed,\n"
    "                 failed, cancelled, killed, rejected, timeout, all; or\n"
    "                 Slurm's codes PD CF R CG CD F CA TO (KI, RJ: killed, rejected)\n"
    "  -u, --user USERS    only these users' jobs (comma list)\n"
    "  -j, --jobs IDS      only these jobs (comma list)\n"
    "  --team T       only team T's jobs\n"
    "  --all          include finished jobs (as -t all)\n"
    "  --format FIELDS  the columns, e.g. jobid,user,st,time,nodelist (below)\n"
    "  --noheader     no header line\n"
    "  --parsable     fields separated by '|', no padding\n"
    "  --json         the answer's JSON, with only the jobs selected\n"
    "\n"
    "%s" GS_CLIENT_COMMON_HELP;

static const char *const show_help =
    "usage: gpusched show JOBID [--json]\n"
    "\n"
    "Every field of one job object (GET /v1/jobs/JOBID), one per line.\n" GS_CLIENT_COMMON_HELP;

static const char *const why_help =
    "usage: gpusched why JOBID [--json]\n"
    "\n"
    "Why a job waits (GET /v1/jobs/JOBID/explain): every reason with its\n"
    "numbers, what would unblock it and the estimated start.\n"
    "With --from-slurm, a job of the Slurm cluster instead ('gpusched why\n"
    "--from-slurm --help'; docs/slurm.md).\n" GS_CLIENT_COMMON_HELP;

#define OPT_STATE 't'
#define OPT_TEAM 2
#define OPT_ALL 3
#define OPT_USER 'u'
#define OPT_JOBS 'j'
#define OPT_FORMAT 4
#define OPT_NOHEADER 5
#define OPT_PARSABLE 6

struct queue_args {
    const char *team, *users, *jobs, *format;
    unsigned states; /* CLI_QST_* mask; 0: not given */
    int all;
    struct cli_qfmt fmt;
};

static int queue_opt(int c, const char *val, void *arg)
{
    struct queue_args *a = arg;
    char why[160];
    switch (c) {
    case OPT_STATE:
        if (cli_qstate_parse(val, &a->states, why, sizeof why) < 0) {
            fprintf(stderr, "gpusched queue: --state: %s\n", why);
            return -1;
        }
        return 0;
    case OPT_TEAM: a->team = val; return 0;
    case OPT_ALL: a->all = 1; return 0;
    case OPT_USER: a->users = val; return 0;
    case OPT_JOBS: a->jobs = val; return 0;
    case OPT_FORMAT: a->format = val; return 0;
    case OPT_NOHEADER: a->fmt.noheader = 1; return 0;
    case OPT_PARSABLE: a->fmt.parsable = 1; return 0;
    }
    return -1;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

/* One table row's sort key: squeue's order, running jobs first (by
 * start), then pending ones in queue order (the daemon lists them in the
 * order its next pass visits them; a `position` field, if one is ever
 * given, wins), then finished ones (by end). */
struct row {
    const json_t *job;
    int rank;
    double key;
    size_t idx;
};

static int row_cmp(const void *pa, const void *pb)
{
    const struct row *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static struct row *sorted_rows(const json_t *jobs)
{
    size_t n = json_array_size(jobs), i;
    struct row *r = calloc(n ? n : 1, sizeof *r);
    const json_t *job;
    if (!r)
        return NULL;
    json_array_foreach(jobs, i, job) {
        const char *st = json_string_value(json_object_get(job, "state"));
        int pending = st && strcmp(st, "pending") == 0, done = st && strcmp(st, "done") == 0;
        double pos = num(job, "position");
        r[i] = (struct row){ job, pending ? 1 : done ? 2 : 0,
                             pending ? (pos >= 0 ? pos : 1e18)
                                     : num(job, done ? "end_epoch" : "start_epoch"),
                             i };
    }
    qsort(r, n, sizeof *r, row_cmp);
    return r;
}


/* The states shown: -t's, all with --all, else the live ones. */
static unsigned shown_states(const struct queue_args *a)
{
    return a->states ? a->states : a->all ? (unsigned)CLI_QST_ALL : (unsigned)CLI_QST_LIVE;
}

/* Drop from `jobs` what the filters the server did not apply leave out:
 * states (the server takes one), users and job ids. */
static void filter_jobs(json_t *jobs, const struct queue_args *a)
{
    unsigned mask = shown_states(a);
    for (size_t i = json_array_size(jobs); i-- > 0;) {
        const json_t *job = json_array_get(jobs, i);
        const char *user = json_string_value(json_object_get(job, "user"));
        const char *id = json_string_value(json_object_get(job, "id"));
        int keep = (cli_qstate_of(job) & mask) != 0 && (!a->users || cli_in_list(a->users, user)) &&
                   (!a->jobs || cli_in_list(a->jobs, id));
        if (!keep)
            json_array_remove(jobs, i);
    }
}

/* Print the table from the answer's clock (its now_epoch: the daemon's
 * time when it answered the last page). */
static void print_queue(const json_t *ans, const json_t *jobs, struct queue_args *a)
{
    double now = num(ans, "now_epoch");
    if (now < 0)
        now = (double)time(NULL);
    cli_qfmt_fit(&a->fmt, jobs);
    cli_qfmt_header(&a->fmt, stdout);
    struct row *rows = sorted_rows(jobs);
    for (size_t i = 0; rows && i < json_array_size(jobs); i++)
        cli_qfmt_row(&a->fmt, rows[i].job, now, stdout);
    free(rows);
}

/* GET /v1/jobs with what the server filters: one state (or all ended
 * ones) and the team. */
static int queue_path(const struct queue_args *a, char *path, size_t n)
{
    unsigned m = shown_states(a);
    const char *one = cli_qstate_name(m);
    if (!one && m == (CLI_QST_ALL & ~(unsigned)CLI_QST_LIVE))
        one = "done";
    char *et = a->team ? gs_client_escape(a->team) : NULL;
    if (a->team && !et)
        return -1;
    snprintf(path, n, "/v1/jobs%s%s%s%s%s%s", one || et ? "?" : "", one ? "state=" : "",
             one ? one : "", one && et ? "&" : "", et ? "team=" : "", et ? et : "");
    free(et);
    return 0;
}

int cmd_queue(int argc, char **argv)
{
    static const struct option opts[] = {
        { "state", required_argument, NULL, OPT_STATE },
        { "team", required_argument, NULL, OPT_TEAM },
        { "all", no_argument, NULL, OPT_ALL },
        { "user", required_argument, NULL, OPT_USER },
        { "jobs", required_argument, NULL, OPT_JOBS },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "noheader", no_argument, NULL, OPT_NOHEADER },
        { "parsable", no_argument, NULL, OPT_PARSABLE },
        GS_CLIENT_COMMON_OPTS,
        { NULL, 0, NULL, 0 },
    };
    char help[4096], why[160], path[1024];
    snprintf(help, sizeof help, queue_help, cli_qfmt_fields_help);
    const struct gs_client_cmd cmd = { "queue", help, opts, 0, 0 };
    struct gs_client_opts o;
    struct queue_args a = { 0 };
    char **args;
    int nargs;
    gs_client_opts_init(&o);
    int st = gs_client_parse_short(&cmd, "t:u:j:", argc, argv, &o, queue_opt, &a, &args, &nargs);
    if (st >= 0)
        return st;
    if (cli_qfmt_parse(a.format, &a.fmt, why, sizeof why) < 0) {
        fprintf(stderr, "gpusched queue: --format: %s\n", why);
        return 2;
    }
    if (queue_path(&a, path, sizeof path) < 0) {
        fprintf(stderr, "gpusched queue: out of memory\n");
        return 1;
    }
    json_t *ans = NULL;
    if ((st = gs_client_get_pages(&o, path, "jobs", &ans)) != 0)
        return st;
    json_t *jobs = json_object_get(ans, "jobs");
    if (!json_is_array(jobs))
        st = (fprintf(stderr, "gpusched: the answer has no job list\n"), 1);
    else
        filter_jobs(jobs, &a);
    if (!st && o.json)
        gs_client_print_json(ans);
    else if (!st)
        print_queue(ans, jobs, &a);
    json_decref(ans);
    return st;
}

/* Print `v` under `key` with `indent` spaces: scalars on one line, objects
 * and arrays as indented blocks. */
static void dump(const char *key, const json_t *v, int indent)
{
    char buf[64];
    if (json_is_object(v)) {
        if (key)
            printf("%*s%s:\n", indent, "", key);
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m) {
            dump(k, m, key ? indent + 2 : indent);
        }
    } else if (json_is_array(v)) {
        printf("%*s%s:%s\n", indent, "", key ? key : "-", json_array_size(v) ? "" : " (none)");
        size_t i;
        json_t *m;
        json_array_foreach(v, i, m) {
            if (json_is_object(m) || json_is_array(m)) {
                printf("%*s-\n", indent + 2, "");
                dump(NULL, m, indent + 4);
            } else {
                json_t *wrap = json_pack("{sO}", "x", m);
                printf("%*s- %s\n", indent + 2, "",
                       gs_client_field(wrap, "x", "null", buf, sizeof buf));
                json_decref(wrap);
            }
        }
    } else {
        json_t *wrap = json_pack("{sO}", "x", v);
        printf("%*s%s: %s\n", indent, "", key ? key : "-",
               gs_client_field(wrap, "x", "null", buf, sizeof buf));
        json_decref(wrap);
    }
}

static void print_show(const json_t *ans)
{
    dump(NULL, ans, 0);
}

/* Whether reason number `k` = v is a time (holder_start: engine seconds). */
static int is_time_key(const char *k, const json_t *v)
{
    size_t n = strlen(k);
    return json_is_number(v) && json_number_value(v) >= 1e8 &&
           ((n > 6 && !strcmp(k + n - 6, "_start")) || (n > 4 && !strcmp(k + n - 4, "_end")));
}

/* One reason's numbers on one line: "code: key value, key value, ...";
 * times as ISO 8601 + relative to `now`. */
static void print_reason(const json_t *r, double now)
{
    char buf[96];
    const char *k;
    json_t *m;
    const char *code = json_string_value(json_object_get(r, "code"));
    printf("  %s:", code ? code : "?");
    int first = 1;
    json_object_foreach((json_t *)r, k, m) {
        if (strcmp(k, "code") == 0)
            continue;
        if (json_is_array(m) || json_is_object(m)) {
            char *t = json_dumps(m, JSON_COMPACT);
            printf("%s %s %s", first ? "" : ",", k, t ? t : "?");
            free(t);
        } else {
            printf("%s %s %s", first ? "" : ",", k,
                   is_time_key(k, m) ? gs_timefmt_when(json_number_value(m), now, buf, sizeof buf)
                                     : gs_client_field(r, k, "null", buf, sizeof buf));
        }
        first = 0;
    }
    printf("\n");
}

/* The promise lines of an explain answer: now and at submit. */
static void print_promise(const json_t *ans)
{
    char buf[160];
    double now = (double)time(NULL);
    if (gs_client_eta_text(json_object_get(ans, "estimate"), now, 1, buf, sizeof buf))
        printf("promise: %s\n", buf);
    if (gs_client_eta_text(json_object_get(ans, "estimate_at_submit"), now, 1, buf, sizeof buf))
        printf("promised at submit: %s\n", buf);
}

/* The explain answer: headline, detail, unblock, every reason with its
 * numbers, the estimated start; keys it does not know are dumped after. */
static void print_why(const json_t *ans)
{
    static const char *const known[] = { "id", "state", "reason", "detail", "unblock",
                                         "reasons", "est_start", "est_in", "est_basis",
                                         "est_duration", "estimate", "estimate_at_submit",
                                         NULL };
    char b1[64], b2[64], b3[64], b4[64];
    const char *st = json_string_value(json_object_get(ans, "state"));
    if (st && strcmp(st, "pending") != 0)
        return; /* what it did or does: cli_why_more */
    printf("%s: %s (%s)\n", gs_client_field(ans, "id", "?", b1, sizeof b1),
           gs_client_field(ans, "state", "?", b2, sizeof b2),
           gs_client_field(ans, "reason", "no reason", b3, sizeof b3));
    const char *detail = json_string_value(json_object_get(ans, "detail"));
    const char *unblock = json_string_value(json_object_get(ans, "unblock"));
    double in = num(ans, "est_in"), at = num(ans, "est_start");
    double now = at >= 0 && in >= 0 ? at - in : (double)time(NULL);
    char text[1024];
    if (detail)
        printf("  %s\n", gs_timefmt_text(detail, now, text, sizeof text));
    if (unblock)
        printf("  unblock: %s\n", gs_timefmt_text(unblock, now, text, sizeof text));
    const json_t *rs = json_object_get(ans, "reasons");
    size_t i;
    const json_t *r;
    if (json_array_size(rs))
        printf("reasons:\n");
    json_array_foreach(rs, i, r) {
        print_reason(r, now);
    }
    printf("estimated start: %s",
           at >= 0 ? gs_timefmt_iso(at, b1, sizeof b1)
                   : gs_client_field(ans, "est_start", "unknown", b1, sizeof b1));
    if (in >= 0)
        printf(" (%s)", gs_timefmt_rel(in, b2, sizeof b2));
    printf(", basis %s", gs_client_field(ans, "est_basis", "unknown", b3, sizeof b3));
    if (num(ans, "est_duration") >= 0)
        printf(", est. run time %s", gs_client_hms(num(ans, "est_duration"), b4, sizeof b4));
    printf("\n");
    print_promise(ans);
    const char *k;
    json_t *m;
    json_object_foreach((json_t *)ans, k, m) {
        int skip = 0;
        for (int j = 0; known[j]; j++)
            skip |= strcmp(k, known[j]) == 0;
        if (!skip)
            dump(k, m, 0);
    }
}

/* show and why: GET /v1/jobs/ID + post with the escaped id and print the object. */
static int get_one(int argc, char **argv, const char *name, const char *help,
                   const char *post, void (*print)(const json_t *))
{
    struct gs_client_opts o;
    char **args;
    int nargs;
    int st = gs_client_parse_plain(name, help, 1, 1, argc, argv, &o, &args, &nargs);
    if (st >= 0)
        return st;
    char path[1024];
    if (gs_client_id_path(path, sizeof path, "/v1/jobs/", args[0], post) < 0) {
        fprintf(stderr, "gpusched %s: job id too long\n", name);
        return 2;
    }
    json_t *ans = NULL;
    int status = gs_client_once(&o, "GET", path, NULL, &ans);
    if (status)
        return status;
    if (o.json)
        gs_client_print_json(ans);
    else
        print(ans);
    if (!o.json && !strcmp(name, "why"))
        status = cli_why_more(&o, ans);
    json_decref(ans);
    return status;
}

int cmd_show(int argc, char **argv)
{
    return get_one(argc, argv, "show", show_help, "", print_show);
}

int cmd_why(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--from-slurm") == 0)
            return cli_why_slurm(argc, argv);
    return get_one(argc, argv, "why", why_help, "/explain", print_why);
}
