/* loop_cmds.c - the write commands a turn applies (loop.c, turn): submit
 * (with its Idempotency-Key and the refusals at the door), cancel,
 * checkpoint and the node commands (loop_nodes.c), each inside the turn's
 * journal transaction and on the engine thread.  A command answers its
 * HTTP thread through c->status and c->body, or leaves the answer to the
 * turn (the job's object, rendered after the commit).
 */
#define _GNU_SOURCE
#include "daemon/loop_private.h"
#include "daemon/loop_eta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* New job id for a request without one: the next free decimal number. */
static int fresh_id(struct gsd_loop *lp, char *buf, size_t n)
{
    for (;;) {
        snprintf(buf, n, "%lld", (long long)lp->next_id++);
        if (gs_engine_job_find(lp->eng, buf) < 0 &&
            gs_store_job_by_id(lp->st, buf, NULL, NULL) == GS_ENOENT)
            return 0;
    }
}

static int found_seq(void *arg, const struct gs_store_job *j)
{
    *(int64_t *)arg = j->seq;
    return 1;
}

/* 400/409 for an engine refusal, naming the field the message starts with. */
static void engine_refusal(struct gsd_cmd *c, const struct gs_error *err)
{
    char field[64] = "";
    const char *colon = strchr(err->msg, ':');
    const char *p = strstr(err->msg, "job ");
    if (colon && (size_t)(colon - err->msg) < sizeof field) {
        memcpy(field, err->msg, (size_t)(colon - err->msg));
        field[colon - err->msg] = '\0';
        if (strchr(field, ' ') && p == err->msg) /* "job X: field ..." */
            sscanf(colon + 1, " %63[a-z_]", field);
    }
    int status = err->code == GS_EEXIST ? 409 : 400;
    c->status = status;
    c->body = gsd_error_json(status, status == 409 ? "conflict" : "invalid",
                             status == 409 ? "id" : field, "%s", err->msg);
}

/* What an Idempotency-Key lookup found: the row's seq, and whether its
 * request is the one now submitted (and, for a key journaled before keys
 * had owners, whether the row's team and user are the submitter's). */
struct idem_hit {
    int64_t seq;
    int same;
    const struct gs_api_submit *sub;
    int legacy;
};

static int idem_found(void *arg, const struct gs_store_job *j)
{
    struct idem_hit *h = arg;
    const struct gs_job_spec *sp = &h->sub->row.spec;
    json_t *old = j->request ? json_loads(j->request, 0, NULL) : NULL;
    h->seq = j->seq;
    h->same = old && json_equal(old, h->sub->json);
    json_decref(old);
    if (h->legacy && (strcmp(j->team, sp->team ? sp->team : "default") != 0 ||
                      strcmp(j->user, sp->user ? sp->user : "-") != 0))
        return 0; /* an old key of someone else's: not this submitter's */
    return 1;
}

/* Whether c's Idempotency-Key was used before by the same owner: 0 no
 * (*scoped = the key to journal, "OWNER\x1fKEY", or NULL without a key),
 * 1 yes with the same request (c answered 200, *seq = the job), 1 with c
 * answered 422 when the request differs, -1 out of memory.  Keys
 * journaled before keys had owners (no \x1f) belong to their row's team
 * and user. */
static int idem_seen(struct gsd_loop *lp, struct gsd_cmd *c, char **scoped, int64_t *seq)
{
    *scoped = NULL;
    if (!c->idem)
        return 0;
    const char *owner = c->idem_owner ? c->idem_owner : "";
    size_t n = strlen(owner) + strlen(c->idem) + 2;
    if (!(*scoped = malloc(n)))
        return -1;
    snprintf(*scoped, n, "%s\x1f%s", owner, c->idem);
    struct idem_hit h = { .sub = c->sub };
    int found = gs_store_job_by_idem(lp->st, *scoped, idem_found, &h) == 1;
    if (!found) {
        h.legacy = 1;
        found = gs_store_job_by_idem(lp->st, c->idem, idem_found, &h) == 1;
    }
    if (!found)
        return 0;
    *seq = h.seq;
    c->status = h.same ? 200 : 422;
    if (!h.same)
        c->body = gsd_error_json(422, "idempotency_conflict", "Idempotency-Key",
                                 "this Idempotency-Key was used for a different request");
    return 1;
}

static int apply_submit(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    struct gs_api_submit *s = c->sub;
    struct gs_error err;
    gs_error_clear(&err);
    if (c->test_only)
        return gsd_probe_answer(lp, c, now); /* answered; nothing journaled */
    char *idem = NULL;
    int seen = idem_seen(lp, c, &idem, seq);
    if (seen != 0) {
        free(idem);
        return seen < 0 ? -1 : 1; /* 200 the same job, or 422 answered */
    }
    if (gsd_admit_check(lp, c, now)) {
        free(idem);
        return 0; /* 400: it could never run here */
    }
    char idbuf[32];
    if (!s->has_id && (fresh_id(lp, idbuf, sizeof idbuf) < 0 ||
                       gs_api_submit_set_id(s, idbuf) < 0))
        return -1;
    if (gs_store_job_by_id(lp->st, s->row.spec.id, NULL, NULL) != GS_ENOENT) {
        c->status = 409;
        c->body = gsd_error_json(409, "conflict", "id", "job id '%.100s' already exists",
                                 s->row.spec.id);
        free(idem);
        return 0;
    }
    s->row.spec.submit = now;
    int h = gs_engine_submit(lp->eng, now, &s->row.spec, &err);
    if (h < 0) {
        engine_refusal(c, &err);
        return 0;
    }
    const struct gs_job_spec *sp = &s->row.spec;
    char *req = json_dumps(s->json, JSON_COMPACT);
    struct gs_store_job row = { .id = sp->id, .idem = idem,
                                .team = sp->team ? sp->team : "default",
                                .user = sp->user ? sp->user : "-", .gpus = sp->gpus,
                                .request = req, .state = "pending", .submit = now };
    int rc = req ? gs_store_job_insert(lp->st, &row, seq, &err) : GS_ENOMEM;
    free(idem);
    struct djob *d = rc < 0 ? NULL : gsd_job_new(lp, *seq, sp->id, row.team, row.user, sp->gpus);
    if (!d || gsd_job_index(lp, d, h) < 0) {
        free(req);
        return -1; /* the engine has it but the journal does not: fatal */
    }
    d->request = req;
    d->milli = sp->milli;
    d->submit = now;
    gsd_job_sync(lp, d);
    if (gsd_eta_submitted(lp, d) < 0)
        return -1;
    lp->submits++;
    c->status = 201;
    return 1;
}

/* The live job named by c->id that c may act on; answers c otherwise. */
static struct djob *target(struct gsd_loop *lp, struct gsd_cmd *c)
{
    struct djob *d = gsd_job_by_id(lp, c->id);
    if (!d || d->state == D_DONE) {
        int64_t seq;
        int found = gs_store_job_by_id(lp->st, c->id, found_seq, &seq) == 1;
        c->status = found ? 409 : 404;
        c->body = found ? gsd_error_json(409, "conflict", "id", "job '%.100s' has ended",
                                         c->id)
                        : gsd_error_json(404, "not_found", "id", "no job '%.100s'", c->id);
        return NULL;
    }
    if (c->team_only && strcmp(c->team_only, d->team) != 0) {
        c->status = 403;
        c->body = gsd_error_json(403, "forbidden", "team",
                                 "job '%.100s' belongs to team '%.60s'", c->id, d->team);
        return NULL;
    }
    return d;
}

static int apply_cancel(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    int held = lp->nconflicts ? gsd_conflict_cancel(lp, now, c, seq) : -2;
    if (held != -2)
        return held;
    struct djob *d = target(lp, c);
    if (!d)
        return 0;
    *seq = d->seq;
    c->status = 200;
    struct gs_error err;
    if (d->ji.state == GS_JOB_STOPPING && d->ji.stop_reason == GS_JOB_CANCELLED)
        return 1; /* already being cancelled */
    if (gs_engine_cancel(lp->eng, now, d->handle, &err) < 0) {
        c->status = 409;
        c->body = gsd_error_json(409, "conflict", "id", "%s", err.msg);
        return 0;
    }
    gsd_job_sync(lp, d);
    return 1;
}

static int apply_checkpoint(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    struct djob *d = target(lp, c);
    if (!d)
        return 0;
    struct gs_error err;
    if (gs_engine_checkpointed(lp->eng, now, d->handle, &err) < 0) {
        c->status = 409;
        c->body = gsd_error_json(409, "conflict", "id", "job '%.100s' is not running", c->id);
        return 0;
    }
    gsd_job_sync(lp, d);
    gs_store_event(lp->st, now, d->seq, "checkpoint", NULL, NULL);
    *seq = d->seq;
    c->status = 200;
    return 1;
}

/* Apply one write command inside the turn's transaction.  Returns 1 when
 * the answer is job `*seq`'s object, 0 when c is answered, -1 = fatal. */
int gsd_cmd_apply(struct gsd_loop *lp, gs_time now, struct gsd_cmd *c, int64_t *seq)
{
    switch (c->kind) {
    case GSD_SUBMIT:
        return apply_submit(lp, now, c, seq);
    case GSD_CANCEL:
        return apply_cancel(lp, now, c, seq);
    case GSD_CHECKPOINT:
        return apply_checkpoint(lp, now, c, seq);
    case GSD_NODE_DRAIN:
    case GSD_NODE_RESUME:
    case GSD_NODE_DOWN:
        return gsd_apply_node(lp, now, c);
    default:
        return 0;
    }
}

int gsd_cmd_is_write(int kind)
{
    return kind == GSD_SUBMIT || kind == GSD_CANCEL || kind == GSD_CHECKPOINT ||
           kind == GSD_NODE_DRAIN || kind == GSD_NODE_RESUME || kind == GSD_NODE_DOWN;
}
