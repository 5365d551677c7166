/* queue_fmt.c - the columns of `gpusched queue` (queue_fmt.h): the field
 * table, --format parsing, state names and Slurm codes, one line per job. */
#define _GNU_SOURCE /* strcasecmp, strncasecmp */
#include "cli/queue_fmt.h"
#include "cli/client.h"
#include "cli/client_eta.h"
#include "io/timefmt.h"
#include "io/placement.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* --- states --------------------------------------------------------- */

static const struct {
    const char *name, *code;
    unsigned bit;
} states[] = {
    { "pending", "PD", CLI_QST_PENDING },     { "starting", "CF", CLI_QST_STARTING },
    { "running", "R", CLI_QST_RUNNING },      { "stopping", "CG", CLI_QST_STOPPING },
    { "completed", "CD", CLI_QST_COMPLETED }, { "failed", "F", CLI_QST_FAILED },
    { "cancelled", "CA", CLI_QST_CANCELLED }, { "killed", "KI", CLI_QST_KILLED },
    { "rejected", "RJ", CLI_QST_REJECTED },   { "timeout", "TO", CLI_QST_TIMEOUT },
};
#define NSTATES (sizeof states / sizeof states[0])

static unsigned state_bit(const char *s, size_t len)
{
    if (len == 3 && !strncasecmp(s, "all", 3))
        return CLI_QST_ALL;
    if (len == 4 && !strncasecmp(s, "done", 4))
        return CLI_QST_ALL & ~(unsigned)CLI_QST_LIVE;
    for (size_t i = 0; i < NSTATES; i++)
        if ((strlen(states[i].name) == len && !strncasecmp(s, states[i].name, len)) ||
            (strlen(states[i].code) == len && !strncasecmp(s, states[i].code, len)))
            return states[i].bit;
    return 0;
}

int cli_qstate_parse(const char *list, unsigned *mask, char *why, size_t n)
{
    *mask = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        unsigned b = state_bit(p, len);
        if (!b) {
            snprintf(why, n, "unknown state '%.*s' (expected pending, running, ..., all, or "
                             "PD, R, CG, CD, F, CA, TO ...)", (int)(len > 40 ? 40 : len), p);
            return -1;
        }
        *mask |= b;
        p += len;
        if (!*p)
            return 0;
    }
}

unsigned cli_qstate_of(const json_t *job)
{
    const char *st = str(job, "state"), *oc = str(job, "outcome");
    const char *s = st && !strcmp(st, "done") && oc ? oc : st;
    return s ? state_bit(s, strlen(s)) & ~(strcmp(s, "done") ? 0u : CLI_QST_ALL) : 0;
}

const char *cli_qstate_name(unsigned bit)
{
    for (size_t i = 0; i < NSTATES; i++)
        if (states[i].bit == bit)
            return states[i].name;
    return NULL;
}

static const char *state_code(const json_t *job)
{
    unsigned b = cli_qstate_of(job);
    for (size_t i = 0; i < NSTATES; i++)
        if (states[i].bit == b)
            return states[i].code;
    return "?";
}

/* --- field values ----------------------------------------------------- */

size_t cli_placement_restyle(const char *text, int style, char *out, size_t size)
{
    const char *t = text ? text : "";
    int cap = 1;
    for (const char *c = t; (c = strchr(c, ':')); c++)
        cap++; /* every node item has one */
    struct gs_placement_entry *e = malloc((size_t)cap * sizeof *e);
    int n = e ? gs_placement_scan(t, e, cap, NULL) : -1;
    size_t len = n >= 0 ? gs_placement_format_entries(out, size, e, n, style)
                        : (size_t)snprintf(out, size, "%s", t);
    free(e);
    return len;
}

void cli_qfmt_placement(const char *placement, char *out, size_t size)
{
    if (size == 0)
        return;
    size_t len = cli_placement_restyle(placement, GS_PLACEMENT_RUNS, out, size);
    if (len >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
}

static int is_pending(const json_t *job)
{
    const char *st = str(job, "state");
    return st && !strcmp(st, "pending");
}

/* The NODELIST(REASON) column: a pending job's reason code, its detail
 * (times as ISO + relative) and estimated start; else its GPUs. */
static const char *f_nodelist(const json_t *job, double now, char *out, size_t size)
{
    const char *pl = str(job, "placement");
    const json_t *r = json_object_get(job, "reason");
    if (r && is_pending(job)) {
        const char *code = str(r, "code"), *detail = str(r, "detail");
        double at = num(r, "estimated_start_epoch");
        char in[160] = "", when[80], eta[128], d[512] = "";
        if (gs_client_eta_text(json_object_get(job, "estimate"), now, 0, eta, sizeof eta))
            snprintf(in, sizeof in, " [%s]", eta);
        else if (at >= 0)
            snprintf(in, sizeof in, " [start %s]",
                     gs_timefmt_when(at, now, when, sizeof when));
        if (detail)
            gs_timefmt_text(detail, now, d, sizeof d);
        snprintf(out, size, "(%s)%s%s%s", code ? code : "?", detail ? " " : "", d, in);
    } else if (pl && *pl) {
        cli_qfmt_placement(pl, out, size);
    } else {
        snprintf(out, size, "-");
    }
    return out;
}

static const char *f_state(const json_t *job, double now, char *out, size_t size)
{
    (void)now, (void)out, (void)size;
    const char *st = str(job, "state"), *oc = str(job, "outcome");
    return st && !strcmp(st, "done") && oc ? oc : st ? st : "?";
}

static const char *f_st(const json_t *job, double now, char *out, size_t size)
{
    (void)now, (void)out, (void)size;
    return state_code(job);
}

/* TIME: the run time of the current attempt, up to its end or `now`. */
static const char *f_time(const json_t *job, double now, char *out, size_t size)
{
    double start = num(job, "start_epoch"), end = num(job, "end_epoch");
    double d = is_pending(job) || start < 0 ? 0 : (end >= 0 ? end : now) - start;
    return gs_client_hms(d < 0 ? 0 : d, out, size);
}

/* WAIT: from submit to start (to now while pending). */
static const char *f_wait(const json_t *job, double now, char *out, size_t size)
{
    double start = num(job, "start_epoch"), submit = num(job, "submit_epoch");
    if (submit < 0)
        return gs_client_hms(-1, out, size);
    double d = (is_pending(job) || start < 0 ? now : start) - submit;
    return gs_client_hms(d < 0 ? 0 : d, out, size);
}

static const char *f_reason(const json_t *job, double now, char *out, size_t size)
{
    (void)now, (void)out, (void)size;
    const char *c = is_pending(job) ? str(json_object_get(job, "reason"), "code") : NULL;
    return c ? c : "-";
}

static const char *at_time(double t, char *out, size_t size)
{
    return gs_timefmt_iso(t, out, size);
}

static const char *f_submit(const json_t *job, double now, char *out, size_t size)
{
    (void)now;
    return at_time(num(job, "submit_epoch"), out, size);
}

/* START: the current attempt's start; a pending job's estimated one. */
static const char *f_start(const json_t *job, double now, char *out, size_t size)
{
    (void)now;
    double t = num(job, "start_epoch");
    if (t < 0 && is_pending(job))
        t = num(json_object_get(job, "reason"), "estimated_start_epoch");
    return at_time(t, out, size);
}

static const char *f_end(const json_t *job, double now, char *out, size_t size)
{
    (void)now;
    return at_time(num(job, "end_epoch"), out, size);
}

static const char *f_limit(const json_t *job, double now, char *out, size_t size)
{
    (void)now;
    return gs_client_hms(num(job, "time_limit_s"), out, size);
}

/* A field of the job object as it is ("-" when missing). */
#define PLAIN(fn, key)                                                       \
    static const char *fn(const json_t *job, double now, char *out, size_t size) \
    {                                                                        \
        (void)now;                                                           \
        return gs_client_field(job, key, "-", out, size);                    \
    }
PLAIN(f_id, "id")
PLAIN(f_name, "name")
PLAIN(f_team, "team")
PLAIN(f_user, "user")
PLAIN(f_gpus, "gpus")
PLAIN(f_prio, "priority")
PLAIN(f_exit, "exit_code")
PLAIN(f_attempts, "attempts")
PLAIN(f_preempt, "preemptions")
PLAIN(f_pos, "queue_pos")

typedef const char *(*field_fn)(const json_t *job, double now, char *out, size_t size);

static const struct field {
    const char *name, *alias, *header;
    int width, right; /* width -1: the longest value (cli_qfmt_fit) */
    field_fn get;
} fields[] = {
    { "jobid", "id", "JOBID", -1, 0, f_id },
    { "name", NULL, "NAME", -1, 0, f_name },
    { "team", "account", "TEAM", 10, 0, f_team },
    { "user", "username", "USER", 10, 0, f_user },
    { "gpus", NULL, "GPUS", 4, 1, f_gpus },
    { "state", NULL, "STATE", 9, 0, f_state },
    { "st", "statecompact", "ST", 2, 0, f_st },
    { "time", NULL, "TIME", 10, 1, f_time },
    { "wait", NULL, "WAIT", 10, 1, f_wait },
    { "nodelist", "reasonlist", "NODELIST(REASON)", 0, 0, f_nodelist },
    { "reason", NULL, "REASON", 20, 0, f_reason },
    { "submit", "submittime", "SUBMIT_TIME", 20, 0, f_submit },
    { "start", "starttime", "START_TIME", 20, 0, f_start },
    { "end", "endtime", "END_TIME", 20, 0, f_end },
    { "timelimit", "time_limit", "TIME_LIMIT", 10, 1, f_limit },
    { "priority", NULL, "PRIORITY", 8, 1, f_prio },
    { "exitcode", "exit_code", "EXIT", 4, 1, f_exit },
    { "attempts", NULL, "ATTEMPTS", 8, 1, f_attempts },
    { "preemptions", NULL, "PREEMPT", 7, 1, f_preempt },
    { "queuepos", "queue_pos", "POS", 4, 1, f_pos },
};
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))

const char *const cli_qfmt_fields_help =
    "Fields of --format (comma-separated, case-insensitive; FIELD:W sets a width):\n"
    "  jobid (id)  name  team (account)  user  gpus  state (the outcome once ended)\n"
    "  st (Slurm's code: PD CF R CG CD F CA TO, KI killed, RJ rejected)\n"
    "  time (run time of this attempt)  wait (submit to start, or to now)\n"
    "  nodelist (GPUs, or a pending job's reason, detail and estimated start)\n"
    "  reason (the code)  submit  start (pending: estimated)  end (ISO 8601, UTC)\n"
    "  timelimit  priority  exitcode  attempts  preemptions  queuepos\n"
    "Default: jobid,team,user,gpus,state,time,wait,nodelist\n";

static int field_of(const char *s, size_t len)
{
    for (int i = 0; i < NFIELDS; i++)
        if ((strlen(fields[i].name) == len && !strncasecmp(s, fields[i].name, len)) ||
            (fields[i].alias && strlen(fields[i].alias) == len &&
             !strncasecmp(s, fields[i].alias, len)))
            return i;
    return -1;
}

/* One "name[:W]" entry of --format into c; -1 with why. */
static int parse_col(const char *p, size_t len, struct cli_qcol *c, char *why, size_t n)
{
    const char *colon = memchr(p, ':', len);
    size_t nl = colon ? (size_t)(colon - p) : len;
    int f = field_of(p, nl);
    if (f < 0) {
        snprintf(why, n, "unknown field '%.*s' (see --help)", (int)(nl > 40 ? 40 : nl), p);
        return -1;
    }
    *c = (struct cli_qcol){ f, fields[f].width, fields[f].right };
    if (colon) {
        char *end;
        long w = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || end != p + len || w < 0 || w > 200) {
            snprintf(why, n, "field '%.*s': width must be 0 to 200", (int)(nl > 40 ? 40 : nl),
                     p);
            return -1;
        }
        c->width = (int)w;
    }
    return 0;
}

int cli_qfmt_parse(const char *spec, struct cli_qfmt *f, char *why, size_t n)
{
    const char *p = spec ? spec : "jobid,team,user,gpus,state,time,wait,nodelist";
    f->n = 0;
    if (!*p) {
        snprintf(why, n, "empty field list");
        return -1;
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        if (f->n == CLI_QFMT_MAX) {
            snprintf(why, n, "more than %d fields", CLI_QFMT_MAX);
            return -1;
        }
        if (parse_col(p, len, &f->col[f->n], why, n) < 0)
            return -1;
        f->n++;
        p += len;
        if (!*p++)
            return 0;
    }
}

void cli_qfmt_fit(struct cli_qfmt *f, const json_t *jobs)
{
    for (int c = 0; c < f->n; c++) {
        if (f->col[c].width >= 0)
            continue;
        const struct field *fd = &fields[f->col[c].field];
        int w = (int)strlen(fd->header) < 5 ? 5 : (int)strlen(fd->header);
        size_t i;
        const json_t *job;
        char buf[256];
        json_array_foreach(jobs, i, job) {
            int l = (int)strlen(fd->get(job, 0, buf, sizeof buf));
            w = l > w ? l : w;
        }
        f->col[c].width = w > 40 ? 40 : w;
    }
}

/* One cell: padded to its width unless parsable or the last left column. */
static void cell(const struct cli_qfmt *f, int c, const char *text, FILE *out)
{
    const struct cli_qcol *col = &f->col[c];
    if (c)
        fputc(f->parsable ? '|' : ' ', out);
    int w = f->parsable || (c == f->n - 1 && !col->right) ? 0 : col->width;
    fprintf(out, col->right ? "%*s" : "%-*s", w < 0 ? 0 : w, text);
}

void cli_qfmt_header(const struct cli_qfmt *f, FILE *out)
{
    if (f->noheader)
        return;
    for (int c = 0; c < f->n; c++)
        cell(f, c, fields[f->col[c].field].header, out);
    fputc('\n', out);
}

void cli_qfmt_row(const struct cli_qfmt *f, const json_t *job, double now, FILE *out)
{
    char buf[1024];
    for (int c = 0; c < f->n; c++)
        cell(f, c, fields[f->col[c].field].get(job, now, buf, sizeof buf), out);
    fputc('\n', out);
}

int cli_in_list(const char *list, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    for (const char *p = list; s; p++) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, s, n))
            return 1;
        p += len;
        if (!*p)
            break;
    }
    return 0;
}
