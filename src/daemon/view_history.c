/* view_history.c - GET /v1/jobs/{id}/events: every event of one job from
 * the journal's events table, oldest first, paged like GET /v1/jobs
 * (limit, after = the `next` of the previous page).  Answered on the HTTP
 * thread from a read-only journal handle of its own, so the engine thread
 * never waits for it.  The first page opens with the submit (the row's
 * submit time); the last closes with the end (the row's end time and end
 * reason) once the job has ended.
 */
#define _GNU_SOURCE
#include "daemon/loop_shared.h"

#include <stdlib.h>
#include <string.h>

#include "io/api_codec.h"

/* The journal's event kinds in the words of a job's history. */
static const char *event_word(const char *kind, const char *detail)
{
    static const char *const map[][2] = {
        { "start", "started" },       { "end", "exited" },
        { "preempt", "preempted" },   { "drain", "checkpoint_requested" },
        { "checkpoint", "checkpointed" }, { "cancel", "cancelled" },
        { "reject", "rejected" },     { "fail", "run_failed" },
        { "reserve", "reserved" },    { "requeue", "requeued" },
        { "launch_failed", "launch_failed" }, { "gpus_moved", "gpus_moved" },
        { "end_unknown", "end_unknown" },
    };
    if (!strcmp(kind, "kill"))
        return detail && strstr(detail, "node") ? "node_failure" : "killed";
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(kind, map[i][0]))
            return map[i][1];
    return kind;
}

static json_t *event_json(json_int_t seq, gs_time t, const char *word, const char *detail)
{
    char buf[40];
    json_t *e = json_object();
    if (!e)
        return NULL;
    int bad = json_object_set_new(e, "seq", seq > 0 ? json_integer(seq) : json_null()) |
              json_object_set_new(e, "time", t == GS_TIME_NONE
                                                 ? json_null()
                                                 : json_string(gs_api_rfc3339(t, buf,
                                                                              sizeof buf))) |
              json_object_set_new(e, "time_epoch", t == GS_TIME_NONE
                                                       ? json_null()
                                                       : json_real((double)t / 1000.0)) |
              json_object_set_new(e, "event", json_string(word)) |
              json_object_set_new(e, "detail", detail ? json_string(detail) : json_null());
    if (bad) {
        json_decref(e);
        return NULL;
    }
    return e;
}

struct hist_ctx {
    json_t *arr;
    int n, limit;
    int64_t last;
    int more, bad;
};

static int on_event(void *arg, int64_t seq, gs_time t, const char *kind, const char *detail)
{
    struct hist_ctx *x = arg;
    if (x->n >= x->limit) {
        x->more = 1;
        return 1;
    }
    json_t *e = event_json(seq, t, event_word(kind, detail), detail);
    if (!e || json_array_append_new(x->arr, e) < 0) {
        x->bad = 1;
        return 1;
    }
    x->n++;
    x->last = seq;
    return 0;
}

/* The job's row, copied out of the callback. */
struct hist_row {
    int64_t seq;
    gs_time submit, end;
    int done;
    char why[160];
};

static int on_row(void *arg, const struct gs_store_job *r)
{
    struct hist_row *h = arg;
    h->seq = r->seq;
    h->submit = r->submit;
    h->end = r->end;
    h->done = gsd_end_reason(r, h->why, sizeof h->why) != NULL;
    return 1;
}

/* Fill x from the journal: 0, 404 or 500 (c answered). */
static int read_events(const struct gsd_loop *lp, struct gsd_cmd *c, struct hist_ctx *x)
{
    struct gs_error err;
    struct gs_store *st = gs_store_open(gsd_shared_ofc(lp)->db_path, 0, 1, &err);
    struct hist_row h = { 0 };
    int rc = st ? gs_store_job_by_id(st, c->id, on_row, &h) : GS_EIO;
    if (rc == GS_ENOENT) {
        gs_store_close(st);
        c->status = 404;
        c->body = gsd_error_json(404, "not_found", "id", "no job '%.100s'", c->id);
        return 404;
    }
    if (rc == 1 && c->after == 0)
        json_array_append_new(x->arr, event_json(0, h.submit, "submitted", NULL));
    if (rc == 1)
        rc = gs_store_job_events(st, h.seq, c->after, x->limit + 1, on_event, x);
    gs_store_close(st);
    if (rc < 0 || x->bad) {
        c->status = 500;
        c->body = gsd_error_json(500, "internal", NULL, "journal read failed");
        return 500;
    }
    if (!x->more && h.done)
        json_array_append_new(x->arr, event_json(0, h.end, "ended", h.why));
    return 0;
}

void gsd_history_answer(const struct gsd_loop *lp, struct gsd_cmd *c)
{
    struct hist_ctx x = { .arr = json_array(), .limit = c->limit > 0 ? c->limit : GSD_LIST_LIMIT };
    json_t *o = json_object();
    if (!x.arr || !o || read_events(lp, c, &x) != 0) {
        json_decref(x.arr);
        json_decref(o);
        if (!c->body) {
            c->status = 500;
            c->body = gsd_error_json(500, "internal", NULL, "out of memory");
        }
        return;
    }
    char next[32];
    snprintf(next, sizeof next, "%lld", (long long)x.last);
    json_object_set_new(o, "id", json_string(c->id));
    json_object_set_new(o, "events", x.arr);
    if (x.more)
        json_object_set_new(o, "next", json_string(next));
    c->body = gsd_json_text(o);
    c->status = c->body ? 200 : 500;
    if (!c->body)
        c->body = gsd_error_json(500, "internal", NULL, "out of memory");
}
