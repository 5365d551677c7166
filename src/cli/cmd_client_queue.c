/* cmd_client_queue.c - `gpusched queue`, `show` and `why`: the job objects
 * of GET /v1/jobs, /v1/jobs/{id} and /v1/jobs/{id}/explain as text. */
#include "cli/client_eta.h"
#include "cli/cli.h"
#include "cli/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const queue_help =
    "usage: gpusched queue [--state S] [--team T] [--all] [--json]\n"
    "\n"
    "One line per job, as squeue prints them: running jobs (by start), then the\n"
    "pending ones in queue order (the next pass's), then finished ones:\n"
    "  JOBID TEAM USER GPUS STATE TIME WAIT NODELIST(REASON)\n"
    "TIME is the run time of the current attempt, WAIT the time since submit\n"
    "until it started (or until now); a pending job shows its reason code and\n"
    "numbers, a running one its GPUs (node:gpu ranges).  Finished jobs are\n"
    "left out unless --all or --state done.\n"
    "  --state S   only jobs in state S (pending, starting, running, stopping, done)\n"
    "  --team T    only team T's jobs\n"
    "  --all       include finished jobs\n" GS_CLIENT_COMMON_HELP;

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

#define OPT_STATE 1
#define OPT_TEAM 2
#define OPT_ALL 3

struct queue_args {
    const char *state, *team;
    int all;
};

static int queue_opt(int c, const char *val, void *arg)
{
    struct queue_args *a = arg;
    switch (c) {
    case OPT_STATE: a->state = val; return 0;
    case OPT_TEAM: a->team = val; return 0;
    case OPT_ALL: a->all = 1; return 0;
    }
    return -1;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

/* Append the run node:lo[-hi] to out (n bytes used of size). */
static size_t put_run(char *out, size_t n, size_t size, const char *node, size_t nl, long lo,
                      long hi)
{
    if (n >= size)
        return n;
    int w = lo == hi ? snprintf(out + n, size - n, "%s%.*s:%ld", n ? "," : "", (int)nl, node, lo)
                     : snprintf(out + n, size - n, "%s%.*s:%ld-%ld", n ? "," : "", (int)nl,
                                node, lo, hi);
    return w > 0 ? n + (size_t)w : n;
}

/* "node-1:0,node-1:1,node-2:3" -> "node-1:0-1,node-2:3" (also accepts
 * spaces between entries, as jobs.csv writes them). */
static void compact_placement(const char *p, char *out, size_t size)
{
    const char *node = NULL;
    size_t nl = 0, n = 0;
    long lo = 0, hi = 0;
    out[0] = '\0';
    while (*p) {
        size_t len = strcspn(p, ", ");
        const char *colon = memchr(p, ':', len);
        if (colon) {
            size_t cl = (size_t)(colon - p);
            long g = strtol(colon + 1, NULL, 10);
            if (node && cl == nl && memcmp(p, node, nl) == 0 && g == hi + 1) {
                hi = g;
            } else {
                if (node)
                    n = put_run(out, n, size, node, nl, lo, hi);
                node = p, nl = cl, lo = hi = g;
            }
        }
        p += len;
        p += strspn(p, ", ");
    }
    if (node)
        n = put_run(out, n, size, node, nl, lo, hi);
    if (n >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
}

/* The NODELIST(REASON) column of one job; `now` for the estimated start. */
static void where(const json_t *job, double now, char *out, size_t size)
{
    const char *pl = json_string_value(json_object_get(job, "placement"));
    const json_t *r = json_object_get(job, "reason");
    const char *state = json_string_value(json_object_get(job, "state"));
    if (r && state && strcmp(state, "pending") == 0) {
        const char *code = json_string_value(json_object_get(r, "code"));
        const char *detail = json_string_value(json_object_get(r, "detail"));
        double at = num(r, "estimated_start_epoch");
        char in[128] = "", hms[32], eta[96];
        if (gs_client_eta_text(json_object_get(job, "estimate"), now, 0, eta, sizeof eta))
            snprintf(in, sizeof in, " [%s]", eta);
        else if (at >= 0)
            snprintf(in, sizeof in, " [start in ~%s]",
                     gs_client_hms(at > now ? at - now : 0, hms, sizeof hms));
        snprintf(out, size, "(%s)%s%s%s", code ? code : "?", detail ? " " : "",
                 detail ? detail : "", in);
    } else if (pl && *pl) {
        compact_placement(pl, out, size);
    } else {
        snprintf(out, size, "-");
    }
}

/* The STATE column: the outcome for finished jobs. */
static const char *state_text(const json_t *job)
{
    const char *st = json_string_value(json_object_get(job, "state"));
    const char *oc = json_string_value(json_object_get(job, "outcome"));
    if (st && strcmp(st, "done") == 0 && oc)
        return oc;
    return st ? st : "?";
}

static void print_row(const json_t *job, double now, int idw)
{
    char b1[32], b2[32], b3[32], t1[32], t2[32], w[512];
    double start = num(job, "start_epoch"), end = num(job, "end_epoch");
    double submit = num(job, "submit_epoch");
    double stop = end >= 0 ? end : now;
    const char *st = json_string_value(json_object_get(job, "state"));
    int pending = st && strcmp(st, "pending") == 0;
    where(job, now, w, sizeof w);
    printf("%-*s %-10s %-10s %4s %-9s %10s %10s %s\n", idw,
           gs_client_field(job, "id", "?", b1, sizeof b1),
           gs_client_field(job, "team", "-", b2, sizeof b2),
           gs_client_field(job, "user", "-", b3, sizeof b3),
           gs_client_field(job, "gpus", "-", t1, sizeof t1), state_text(job),
           gs_client_hms(pending || start < 0 ? 0 : stop - start, t2, sizeof t2),
           gs_client_hms(submit < 0 ? -1 : (pending || start < 0 ? now : start) - submit, b1,
                         sizeof b1),
           w);
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

/* Print the table; the id column as wide as the longest id. */
static void print_queue(const json_t *ans, const json_t *jobs, void *arg)
{
    const struct queue_args *a = arg;
    double now = num(ans, "now_epoch");
    if (now < 0)
        now = (double)time(NULL);
    int idw = 5;
    size_t i;
    const json_t *job;
    json_array_foreach(jobs, i, job) {
        const char *id = json_string_value(json_object_get(job, "id"));
        if (id && (int)strlen(id) > idw)
            idw = (int)strlen(id) > 40 ? 40 : (int)strlen(id);
    }
    printf("%-*s %-10s %-10s %4s %-9s %10s %10s %s\n", idw, "JOBID", "TEAM", "USER", "GPUS",
           "STATE", "TIME", "WAIT", "NODELIST(REASON)");
    struct row *rows = sorted_rows(jobs);
    for (i = 0; rows && i < json_array_size(jobs); i++) {
        const char *st = json_string_value(json_object_get(rows[i].job, "state"));
        if (!a->all && !a->state && st && strcmp(st, "done") == 0)
            continue;
        print_row(rows[i].job, now, idw);
    }
    free(rows);
}

int cmd_queue(int argc, char **argv)
{
    static const struct option opts[] = {
        { "state", required_argument, NULL, OPT_STATE },
        { "team", required_argument, NULL, OPT_TEAM },
        { "all", no_argument, NULL, OPT_ALL },
        GS_CLIENT_COMMON_OPTS,
        { NULL, 0, NULL, 0 },
    };
    const struct gs_client_cmd cmd = { "queue", queue_help, opts, 0, 0 };
    struct gs_client_opts o;
    struct queue_args a = { 0 };
    char **args;
    int nargs;
    gs_client_opts_init(&o);
    int st = gs_client_parse(&cmd, argc, argv, &o, queue_opt, &a, &args, &nargs);
    if (st >= 0)
        return st;
    char *es = a.state ? gs_client_escape(a.state) : NULL;
    char *et = a.team ? gs_client_escape(a.team) : NULL;
    char path[1024];
    snprintf(path, sizeof path, "/v1/jobs%s%s%s%s%s", es || et ? "?" : "",
             es ? "state=" : "", es ? es : "", es && et ? "&" : "", et ? "team=" : "");
    if (et)
        snprintf(path + strlen(path), sizeof path - strlen(path), "%s", et);
    free(es);
    free(et);
    return gs_client_get_list(&o, path, "jobs", "job", print_queue, &a);
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

/* One reason's numbers on one line: "code: key value, key value, ...". */
static void print_reason(const json_t *r)
{
    char buf[64];
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
                   gs_client_field(r, k, "null", buf, sizeof buf));
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
    printf("%s: %s (%s)\n", gs_client_field(ans, "id", "?", b1, sizeof b1),
           gs_client_field(ans, "state", "?", b2, sizeof b2),
           gs_client_field(ans, "reason", "no reason", b3, sizeof b3));
    const char *detail = json_string_value(json_object_get(ans, "detail"));
    const char *unblock = json_string_value(json_object_get(ans, "unblock"));
    if (detail)
        printf("  %s\n", detail);
    if (unblock)
        printf("  unblock: %s\n", unblock);
    const json_t *rs = json_object_get(ans, "reasons");
    size_t i;
    const json_t *r;
    if (json_array_size(rs))
        printf("reasons:\n");
    json_array_foreach(rs, i, r) {
        print_reason(r);
    }
    double in = num(ans, "est_in"), at = num(ans, "est_start");
    printf("estimated start: %s",
           at >= 0 ? gs_client_utc(at, b1, sizeof b1)
                   : gs_client_field(ans, "est_start", "unknown", b1, sizeof b1));
    if (in >= 0)
        printf(" (in %s)", gs_client_hms(in, b2, sizeof b2));
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
    json_decref(ans);
    return 0;
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
