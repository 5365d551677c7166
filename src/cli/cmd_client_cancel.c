/* cmd_client_cancel.c - `gpusched cancel`: jobs by id and/or by filters
 * (--user, --team, --state, as scancel's), one POST /v1/jobs/ID/cancel
 * each on one connection, a line per job saying what happened. */
#include "cli/client.h"
#include "cli/queue_fmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cancel_help =
    "usage: gpusched cancel [JOBID...] [-u USERS] [--team T] [-t STATES] [--json]\n"
    "\n"
    "Cancel pending or running jobs (a running one is stopped: SIGTERM, then\n"
    "SIGKILL after the policy's kill_wait): the JOBIDs given and/or the live\n"
    "jobs the filters select (with both, the JOBIDs that the filters select).\n"
    "Prints one line per job, 'ID: STATE' or 'ID: not cancelled: WHY'; exits 1\n"
    "when any was not cancelled, 0 when every one was (or none matched).  One\n"
    "JOBID alone answers as before: 'ID: STATE', or the error on stderr.\n"
    "  -u, --user USERS   jobs of these users (comma list)\n"
    "  --team T           jobs of team T\n"
    "  -t, --state STATES jobs in these states (comma list, as 'gpusched queue';\n"
    "                     default pending, starting, running)\n"
    "  --json             {\"results\": [{\"id\", \"http\", \"answer\"}...]} (one JOBID\n"
    "                     alone: the answer, or the error body)\n"
    GS_CLIENT_COMMON_HELP;

struct cancel_args {
    const char *users, *team;
    unsigned states;
};

static int cancel_opt(int c, const char *val, void *arg)
{
    struct cancel_args *a = arg;
    char why[160];
    if (c == 'u') {
        a->users = val;
    } else if (c == 'T') {
        a->team = val;
    } else if (cli_qstate_parse(val, &a->states, why, sizeof why) < 0) {
        fprintf(stderr, "gpusched cancel: --state: %s\n", why);
        return -1;
    }
    return 0;
}


/* The ids of the jobs the filters select (and, when nids > 0, that are
 * among ids), as a new array of strings; NULL after printing why. */
static json_t *select_ids(const struct gs_client_opts *o, const struct cancel_args *a,
                          char **ids, int nids)
{
    char path[1024] = "/v1/jobs";
    if (a->team) {
        char *et = gs_client_escape(a->team);
        if (!et)
            return NULL;
        snprintf(path, sizeof path, "/v1/jobs?team=%s", et);
        free(et);
    }
    json_t *ans = NULL, *out = json_array();
    if (!out || gs_client_get_pages(o, path, "jobs", &ans) != 0) {
        json_decref(out);
        return NULL;
    }
    unsigned mask = a->states ? a->states
                            : (unsigned)(CLI_QST_PENDING | CLI_QST_STARTING | CLI_QST_RUNNING);
    size_t i;
    const json_t *job;
    json_array_foreach(json_object_get(ans, "jobs"), i, job) {
        const char *id = json_string_value(json_object_get(job, "id"));
        const char *user = json_string_value(json_object_get(job, "user"));
        int keep = id && (cli_qstate_of(job) & mask) && (!a->users || cli_in_list(a->users, user));
        for (int k = 0; keep && nids > 0; k++) {
            if (k == nids) {
                keep = 0;
                break;
            }
            if (!strcmp(ids[k], id))
                break;
        }
        if (keep)
            json_array_append_new(out, json_string(id));
    }
    json_decref(ans);
    return out;
}

/* One id, no filter: as every one-shot command, the answer's state on
 * stdout or the error as "gpusched: MESSAGE (..., HTTP N)" on stderr
 * (with --json the answer or the error body on stdout); 0 or 1. */
static int cancel_single(const struct gs_client_opts *o, const char *id)
{
    char path[1024], buf[64];
    if (gs_client_id_path(path, sizeof path, "/v1/jobs/", id, "/cancel") < 0) {
        fprintf(stderr, "gpusched cancel: job id too long\n");
        return 2;
    }
    json_t *ans = NULL;
    int st = gs_client_once(o, "POST", path, NULL, &ans);
    if (st)
        return st;
    if (o->json) {
        gs_client_print_json(ans);
    } else {
        const char *state = gs_client_field(ans, "state", "cancelled", buf, sizeof buf);
        printf("%s: %s\n", id, !strcmp(state, "done")
                                  ? gs_client_field(ans, "outcome", "done", buf, sizeof buf)
                                  : state);
    }
    json_decref(ans);
    return 0;
}

/* POST .../cancel for `id`; prints its line (and adds to `results` for
 * --json).  Returns 0 when cancelled, 1 when not. */
static int cancel_one(struct gs_client *c, const struct gs_client_opts *o, const char *id,
                      json_t *results)
{
    char path[1024], buf[64], esc[600];
    long status = 0;
    json_t *ans = NULL;
    if (gs_client_id_path(path, sizeof path, "/v1/jobs/", id, "/cancel") < 0) {
        printf("%.100s: not cancelled: job id too long\n", id);
        return 1;
    }
    if (gs_client_call(c, "POST", path, NULL, NULL, &status, &ans) < 0) {
        printf("%s: not cancelled: no answer\n", id);
        return 1;
    }
    int ok = status >= 200 && status < 300 && ans;
    if (o->json) {
        json_array_append_new(results, json_pack("{s:s, s:i, s:O*}", "id", id, "http",
                                                 (int)status, "answer", ans));
    } else if (ok) {
        const char *state = gs_client_field(ans, "state", "cancelled", buf, sizeof buf);
        printf("%s: %s\n", id, !strcmp(state, "done")
                                  ? gs_client_field(ans, "outcome", "done", buf, sizeof buf)
                                  : state);
    } else {
        const json_t *e = json_object_get(ans, "error");
        const char *msg = json_string_value(json_object_get(e, "message"));
        printf("%s: not cancelled: %s (HTTP %ld)\n", id,
               msg ? gs_client_field(e, "message", "?", esc, sizeof esc) : "no JSON answer",
               status);
    }
    json_decref(ans);
    return !ok;
}

int cmd_cancel(int argc, char **argv)
{
    static const struct option opts[] = {
        { "user", required_argument, NULL, 'u' },
        { "team", required_argument, NULL, 'T' },
        { "state", required_argument, NULL, 't' },
        GS_CLIENT_COMMON_OPTS,
        { NULL, 0, NULL, 0 },
    };
    const struct gs_client_cmd cmd = { "cancel", cancel_help, opts, 0, 1 << 20 };
    struct gs_client_opts o;
    struct cancel_args a = { 0 };
    char **ids;
    int nids;
    gs_client_opts_init(&o);
    int st = gs_client_parse_short(&cmd, "u:t:", argc, argv, &o, cancel_opt, &a, &ids, &nids);
    if (st >= 0)
        return st;
    int filters = a.users || a.team || a.states;
    if (!nids && !filters) {
        fprintf(stderr, "gpusched cancel: give JOBIDs or a filter (--user, --team, --state)\n");
        return 2;
    }
    if (nids == 1 && !filters)
        return cancel_single(&o, ids[0]);
    json_t *sel = filters ? select_ids(&o, &a, ids, nids) : json_array();
    for (int k = 0; sel && !filters && k < nids; k++)
        json_array_append_new(sel, json_string(ids[k]));
    struct gs_client *c = sel ? gs_client_create(&o) : NULL;
    json_t *results = json_array();
    if (!c || !results) {
        json_decref(sel);
        json_decref(results);
        gs_client_destroy(c);
        return 1;
    }
    int failed = 0;
    size_t i;
    const json_t *id;
    json_array_foreach(sel, i, id) {
        failed |= cancel_one(c, &o, json_string_value(id), results);
    }
    if (o.json) {
        json_t *doc = json_pack("{s:o}", "results", results);
        gs_client_print_json(doc);
        json_decref(doc);
    } else {
        json_decref(results);
        if (!json_array_size(sel))
            printf("no job matches\n");
    }
    gs_client_destroy(c);
    json_decref(sel);
    return failed;
}
