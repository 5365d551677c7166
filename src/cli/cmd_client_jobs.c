/* cmd_client_jobs.c - `gpusched jobs`: the ended jobs of the journal as
 * sacct lists them, through GET /v1/jobs?state=done (or an outcome) and
 * team=, every page; --since and --user filter the answer here.  Columns
 * by --format, text padded or --parsable ('|') or --csv (RFC 4180), or the
 * API's objects with --json. */
#include "cli/client.h"
#include "io/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char jobs_help[] =
    "usage: gpusched jobs [--since WHEN] [--team T] [--user U] [--state S]\n"
    "                     [--format F1,F2,...] [--parsable | --csv | --json]\n"
    "\n"
    "Ended jobs from the daemon's journal (sacct's role), in submission order.\n"
    "  --since WHEN   ended at or after WHEN: 2026-12-01, 2026-12-01T10:00[:00][Z]\n"
    "                 (UTC), or a time ago: 30m, 6h, 7d\n"
    "  --team T       jobs of team T;  --user U  jobs of user U\n"
    "  --state S      completed, failed, cancelled, killed, timeout or rejected\n"
    "  --format F     columns, comma-separated, from: id name user team gpus state\n"
    "                 exit_code attempts preemptions submit start end elapsed wait\n"
    "                 placement end_reason class priority time_limit\n"
    "                 (default id,name,user,team,gpus,state,exit_code,start,end,elapsed)\n"
    "  --parsable     fields separated by '|', no padding;  --csv  CSV with a header\n"
    "  --json         the API's job objects {jobs: [...]}, filtered the same way\n"
    GS_CLIENT_COMMON_HELP;

#define MAX_COLS 24

struct jobs_args {
    const char *team, *user, *state, *format;
    double since;     /* UNIX s, < 0 = none */
    int parsable, csv;
    const char *cols[MAX_COLS];
    int ncols;
};

static const char *const col_names[] = { "id", "name", "user", "team", "gpus", "state",
    "exit_code", "attempts", "preemptions", "submit", "start", "end", "elapsed", "wait",
    "placement", "end_reason", "class", "priority", "time_limit", NULL };

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static long days_of(int y, int m, int d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* Exactly n decimal digits at p into *v; the end, or NULL. */
static const char *digits(const char *p, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++, p++) {
        if (*p < '0' || *p > '9')
            return NULL;
        *v = *v * 10 + (*p - '0');
    }
    return p;
}

/* "N{s,m,h,d}" ago as UNIX seconds, -1 when s is not that. */
static double ago(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || s[0] == '-' || s[0] == '+' || !(v >= 0) || !end[0] || end[1])
        return -1;
    double mul = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600
               : *end == 'd' ? 86400 : -1;
    return mul < 0 ? -1 : (double)time(NULL) - v * mul;
}

/* WHEN as UNIX seconds: a UTC YYYY-MM-DD[Thh:mm[:ss]][Z] or N{s,m,h,d}
 * ago.  -1 = not readable. */
static double parse_since(const char *s)
{
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
    double a = ago(s);
    if (a >= 0)
        return a;
    const char *p = digits(s, 4, &y);
    if (p && *p == '-')
        p = digits(p + 1, 2, &mo);
    else
        p = NULL;
    if (p && *p == '-')
        p = digits(p + 1, 2, &d);
    else
        p = NULL;
    if (p && *p == 'T') {
        p = digits(p + 1, 2, &h);
        p = p && *p == ':' ? digits(p + 1, 2, &mi) : NULL;
        if (p && *p == ':')
            p = digits(p + 1, 2, &se);
    }
    if (p && *p == 'Z')
        p++;
    if (!p || *p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    return (double)days_of(y, mo, d) * 86400.0 + h * 3600 + mi * 60 + se;
}

static int set_format(struct jobs_args *a, const char *f)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s", f);
    a->ncols = 0;
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        int ok = 0;
        for (int i = 0; col_names[i]; i++)
            ok |= !strcmp(t, col_names[i]);
        if (!ok || a->ncols == MAX_COLS) {
            fprintf(stderr, "gpusched jobs: --format: unknown column '%s' (see --help)\n", t);
            return -1;
        }
        a->cols[a->ncols++] = t;
    }
    return a->ncols ? 0 : (fprintf(stderr, "gpusched jobs: --format: no column\n"), -1);
}

static int on_opt(int c, const char *val, void *arg)
{
    struct jobs_args *a = arg;
    switch (c) {
    case 's':
        if ((a->since = parse_since(val)) < 0)
            return fprintf(stderr, "gpusched jobs: --since: expected a date "
                                   "(2026-12-01[T10:00[:00]][Z]) or 30m/6h/7d, got '%s'\n",
                           val), -1;
        return 0;
    case 't': a->team = val; return 0;
    case 'u': a->user = val; return 0;
    case 'S': a->state = val; return 0;
    case 'f': return set_format(a, val);
    case 'p': a->parsable = 1; return 0;
    case 'c': a->csv = 1; return 0;
    default: return -1;
    }
}

static double num(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : -1;
}

/* Column `col` of job `j` as text into buf. */
static const char *cell(const json_t *j, const char *col, char *buf, size_t n)
{
    double a, b;
    if (!strcmp(col, "state"))
        return gs_client_field(j, "outcome", "-", buf, n);
    if (!strcmp(col, "submit") || !strcmp(col, "start") || !strcmp(col, "end")) {
        char k[16];
        snprintf(k, sizeof k, "%s_epoch", col);
        return gs_client_utc(num(j, k), buf, n);
    }
    if (!strcmp(col, "elapsed") || !strcmp(col, "wait")) {
        a = num(j, !strcmp(col, "wait") ? "submit_epoch" : "start_epoch");
        b = num(j, !strcmp(col, "wait") ? "first_start_epoch" : "end_epoch");
        return gs_client_hms(a >= 0 && b >= 0 ? b - a : -1, buf, n);
    }
    if (!strcmp(col, "time_limit"))
        return gs_client_hms(num(j, "time_limit_s"), buf, n);
    return gs_client_field(j, col, "-", buf, n);
}

/* Whether j passes the filters the API does not apply. */
static int wanted(const struct jobs_args *a, const json_t *j)
{
    const char *u = json_string_value(json_object_get(j, "user"));
    if (a->user && (!u || strcmp(u, a->user) != 0))
        return 0;
    return a->since < 0 || num(j, "end_epoch") >= a->since;
}

static void print_row(const struct jobs_args *a, const json_t *j, int header)
{
    char buf[512];
    for (int c = 0; c < a->ncols; c++) {
        const char *v = header ? a->cols[c] : cell(j, a->cols[c], buf, sizeof buf);
        if (a->csv) {
            if (c)
                putchar(',');
            gs_csv_put(stdout, v);
        } else if (a->parsable) {
            printf("%s%s", c ? "|" : "", v);
        } else {
            int w = !strcmp(a->cols[c], "id") || !strcmp(a->cols[c], "name") ? 14
                    : !strcmp(a->cols[c], "start") || !strcmp(a->cols[c], "end") ||
                            !strcmp(a->cols[c], "submit") ? 20 : 10;
            if (c + 1 < a->ncols)
                printf("%-*s ", w, v);
            else
                fputs(v, stdout);
        }
    }
    putchar('\n');
}

static void print_jobs(const json_t *ans, const json_t *list, void *arg)
{
    (void)ans;
    const struct jobs_args *a = arg;
    size_t i;
    const json_t *j;
    print_row(a, NULL, 1);
    json_array_foreach(list, i, j) {
        if (wanted(a, j))
            print_row(a, j, 0);
    }
}

/* GET every page; filter; print. */
static int list_jobs(const struct gs_client_opts *o, struct jobs_args *a)
{
    char path[1024];
    char *t = a->team ? gs_client_escape(a->team) : NULL;
    char *s = a->state ? gs_client_escape(a->state) : NULL;
    snprintf(path, sizeof path, "/v1/jobs?state=%s%s%s", s ? s : "done", t ? "&team=" : "",
             t ? t : "");
    free(t);
    free(s);
    json_t *ans = NULL;
    int status = gs_client_get_pages(o, path, "jobs", &ans);
    if (status)
        return status;
    json_t *list = json_object_get(ans, "jobs");
    if (!json_is_array(list)) {
        json_decref(ans);
        return (fprintf(stderr, "gpusched: the answer has no jobs list\n"), 1);
    }
    if (o->json) {
        json_t *keep = json_array();
        size_t i;
        json_t *j;
        json_array_foreach(list, i, j) {
            if (wanted(a, j))
                json_array_append(keep, j);
        }
        json_object_set_new(ans, "jobs", keep);
        gs_client_print_json(ans);
    } else {
        print_jobs(ans, list, a);
    }
    json_decref(ans);
    return 0;
}

int cmd_jobs(int argc, char **argv)
{
    static const struct option opts[] = {
        { "since", required_argument, NULL, 's' }, { "team", required_argument, NULL, 't' },
        { "user", required_argument, NULL, 'u' },  { "state", required_argument, NULL, 'S' },
        { "format", required_argument, NULL, 'f' }, { "parsable", no_argument, NULL, 'p' },
        { "csv", no_argument, NULL, 'c' },          GS_CLIENT_COMMON_OPTS,
        { NULL, 0, NULL, 0 },
    };
    static const struct gs_client_cmd cmd = { "jobs", jobs_help, opts, 0, 0 };
    struct jobs_args a = { .since = -1 };
    set_format(&a, "id,name,user,team,gpus,state,exit_code,start,end,elapsed");
    struct gs_client_opts o;
    gs_client_opts_init(&o);
    char **args;
    int nargs;
    int st = gs_client_parse(&cmd, argc, argv, &o, on_opt, &a, &args, &nargs);
    if (st >= 0)
        return st;
    if (a.state && (!strcmp(a.state, "pending") || !strcmp(a.state, "running") ||
                    !strcmp(a.state, "starting") || !strcmp(a.state, "stopping"))) {
        fprintf(stderr, "gpusched jobs: --state: ended jobs only (completed, failed, "
                        "cancelled, killed, timeout, rejected); `gpusched queue` lists the "
                        "others\n");
        return 2;
    }
    return list_jobs(&o, &a);
}
