/* http.c - the HTTP/JSON API on libmicrohttpd (epoll, a bounded thread
 * pool: http_guard.h).  When a request's headers are in, its framing,
 * route, method and caller are checked before any body byte is read
 * (precheck); then a pool thread reads the body (at most GS_API_BODY_MAX,
 * else 413), routes, authenticates, decodes a submit body (api_codec.h, 400
 * naming the field), then hands a command to the engine thread and waits
 * for the answer, which comes once the turn that applied it is committed.
 */
#define _GNU_SOURCE
#include "daemon/daemon.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/auth.h"
#include "daemon/ident.h"
#include "daemon/dash_route.h"
#include "daemon/http_guard.h"
#include "daemon/view.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_Result_t;
#else
typedef enum MHD_Result MHD_Result_t;
#endif

struct gsd_http;

/* One listening socket's MHD daemon. */
struct listener {
    struct MHD_Daemon *d;
    struct gsd_http *h;
    int is_unix;
};

struct gsd_http {
    struct listener tcp, unx;
    struct gsd_loop *lp;
    struct gsd_tokens tokens;
    struct gsd_door door;
    struct gsd_guard *guard;
};

struct conn {
    char *body;
    size_t len, cap;
    int too_big;
    int answered;             /* precheck answered it */
};

static MHD_Result_t send_body(struct MHD_Connection *con, int status, char *body,
                              const char *type)
{
    if (!body)
        body = strdup("{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}");
    size_t n = body ? strlen(body) : 0;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(n, body ? body : (char *)"", body ? MHD_RESPMEM_MUST_FREE
                                                                          : MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type ? type : "application/json");
    if (status == 401)
        MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
    if (status == 503 || status == 507) /* journal outage, free-space floor, stopping */
        MHD_add_response_header(r, "Retry-After", "2");
    MHD_Result_t rc = MHD_queue_response(con, (unsigned)status, r);
    MHD_destroy_response(r);
    return rc;
}

static MHD_Result_t send_error(struct MHD_Connection *con, int status, const char *code,
                               const char *field, const char *msg)
{
    return send_body(con, status, gsd_error_json(status, code, field, "%s", msg), NULL);
}

/* Who the caller is and whether it may do `need` (enum gsd_role); fills
 * *id and sets *team_only for a submit role.  Returns 0, or an HTTP status
 * with *why set. */
static int authorize(struct listener *l, struct MHD_Connection *con, int need,
                     struct gsd_ident *id, const char **team_only, const char **why)
{
    *team_only = NULL;
    int st = gsd_ident_of(&l->h->door, con, l->is_unix, id, why);
    if (st)
        return st;
    if (id->role < need) {
        *why = need == GSD_ROLE_ADMIN ? "needs the admin role" : "needs the submit role";
        return 403;
    }
    if (id->role == GSD_ROLE_SUBMIT)
        *team_only = id->team;
    return 0;
}

static MHD_Result_t run_cmd(struct gsd_http *h, struct MHD_Connection *con, struct gsd_cmd *c)
{
    if (!gsd_view_answer(h->lp, c)) /* reads come from the published view */
        gsd_call(h->lp, c);
    return send_body(con, c->status, c->body, c->content_type);
}

/* Set string field `key` of the submit body to `v` and point *dst at it. */
static int set_spec_string(struct gs_api_submit *s, const char *key, const char *v,
                           const char **dst)
{
    if (json_object_set_new(s->json, key, json_string(v)) < 0)
        return -1;
    *dst = json_string_value(json_object_get(s->json, key));
    return 0;
}

/* The job's team and user from the caller's identity: a submit role acts
 * for its own team and as its own user only; an admin may name any team
 * and any user (a trace replay's; the job runs as that account).  Returns 0 or sends the refusal (*rc). */
static int owner_fields(struct MHD_Connection *con, const struct gsd_ident *id,
                        struct gs_api_submit *s, MHD_Result_t *rc)
{
    struct gs_job_spec *sp = &s->row.spec;
    int admin = id->role == GSD_ROLE_ADMIN;
    if (!admin && sp->team && strcmp(sp->team, id->team) != 0) {
        *rc = send_error(con, 403, "forbidden", "team", "you submit for your own team only");
        return -1;
    }
    if (sp->user && strcmp(sp->user, id->user) != 0 && !admin) {
        *rc = send_error(con, 403, "forbidden", "user",
                         "a job runs as its submitter; only an admin may name another user");
        return -1;
    }
    if ((!sp->team && id->team[0] && set_spec_string(s, "team", id->team, &sp->team) < 0) ||
        (!sp->user && set_spec_string(s, "user", id->user, &sp->user) < 0)) {
        *rc = send_error(con, 500, "internal", NULL, "out of memory");
        return -1;
    }
    return 0;
}

/* An Idempotency-Key: 1 to 200 printable ASCII characters. */
static int idem_ok(const char *k)
{
    size_t n = strlen(k);
    for (const char *c = k; *c; c++)
        if (*c < 0x20 || *c > 0x7e)
            return 0;
    return n > 0 && n <= 200;
}

/* POST /v1/jobs */
static MHD_Result_t submit(struct gsd_http *h, struct MHD_Connection *con, struct conn *cn,
                           const struct gsd_ident *id)
{
    struct gs_api_submit s;
    struct gs_api_error e;
    if (gs_api_submit_decode(cn->body ? cn->body : "", cn->len, &s, &e) < 0)
        return send_body(con, e.status, gs_api_error_body(&e), NULL);
    MHD_Result_t rc;
    if (owner_fields(con, id, &s, &rc) < 0) {
        gs_api_submit_fini(&s);
        return rc;
    }
    const char *idem = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Idempotency-Key");
    if (idem && !idem_ok(idem)) {
        gs_api_submit_fini(&s);
        return send_error(con, 400, "invalid", "Idempotency-Key",
                          "1 to 200 printable ASCII characters");
    }
    char owner[2 * GS_NAME_ACCOUNT_MAX + 2];
    snprintf(owner, sizeof owner, "%s/%s", id->user, id->team);
    const char *t = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "test_only");
    struct gsd_cmd c = { .kind = GSD_SUBMIT, .sub = &s, .idem = idem, .idem_owner = owner,
                         .test_only = t && strcmp(t, "0") != 0 && strcmp(t, "false") != 0 };
    rc = run_cmd(h, con, &c);
    gs_api_submit_fini(&s);
    return rc;
}

/* POST /v1/nodes/NAME[/gpus/G]/down and /drain: an optional body {"reason": S}. */
static MHD_Result_t node_down(struct gsd_http *h, struct MHD_Connection *con, struct conn *cn,
                              struct gsd_cmd *c)
{
    json_t *b = NULL;
    if (cn->len > 0) {
        json_error_t je;
        b = json_loadb(cn->body, cn->len, JSON_REJECT_DUPLICATES, &je);
        if (!json_is_object(b)) {
            json_decref(b);
            return send_error(con, 400, "malformed_json", NULL,
                              "the body must be a JSON object {\"reason\": \"...\"}");
        }
        const char *k;
        json_t *v;
        json_object_foreach(b, k, v) {
            if (strcmp(k, "reason") != 0) {
                json_decref(b);
                return send_error(con, 400, "unknown_field", "reason",
                                  "unknown field (only 'reason' is known)");
            }
            char why[96];
            if (!json_is_string(v) ||
                gs_name_check(json_string_value(v), json_string_length(v), GS_NAME_TEXT, 200,
                              why, sizeof why) < 0) {
                json_decref(b);
                return send_error(con, 400, "invalid", "reason",
                                  "reason: a string of 0 to 200 characters, no control "
                                  "character");
            }
        }
        c->reason = json_string_value(json_object_get(b, "reason"));
    }
    MHD_Result_t rc = run_cmd(h, con, c);
    json_decref(b);
    return rc;
}

static int valid_state(const char *s)
{
    static const char *const ok[] = { "pending", "starting", "running", "stopping", "done",
                                      "completed", "failed", "cancelled", "killed", "rejected",
                                      "timeout" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(s, ok[i]))
            return 1;
    return 0;
}

/* GET /v1/jobs and /v1/queue paging: ?limit=N (1..GSD_LIST_LIMIT_MAX) and ?after=CURSOR
 * (a previous page's `next`: a job's seq).  NULL, or the bad parameter. */
static const char *list_page(struct MHD_Connection *con, struct gsd_cmd *c)
{
    const char *l = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "limit");
    const char *a = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "after");
    char *end;
    if (l) {
        long v = strtol(l, &end, 10);
        if (end == l || *end || v < 1 || v > GSD_LIST_LIMIT_MAX)
            return "limit";
        c->limit = (int)v;
    }
    if (a) {
        long long v = strtoll(a, &end, 10);
        if (end == a || *end || v < 0 || *a == '-' || *a == '+')
            return "after";
        c->after = (int64_t)v;
    }
    return NULL;
}

/* GET /v1/jobs/ID/events: paged like GET /v1/jobs, answered here. */
static MHD_Result_t history(struct MHD_Connection *con, struct gsd_http *h, struct gsd_cmd *c)
{
    const char *bad = list_page(con, c);
    if (bad)
        return send_error(con, 400, "invalid", bad,
                          !strcmp(bad, "limit") ? "limit: an integer from 1 to 10000"
                                                : "after: the `next` of a previous page");
    gsd_history_answer(h->lp, c);
    return send_body(con, c->status, c->body, NULL);
}

/* /v1/jobs... : returns the command kind and sets *id, or -1 (404). */
static int job_route(const char *rest, const char *method, char *id, size_t n, int *need)
{
    const char *slash = strchr(rest, '/');
    size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
    if (len == 0 || len >= n)
        return -1;
    memcpy(id, rest, len);
    id[len] = '\0';
    int post = !strcmp(method, "POST");
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    *need = post ? 2 : 1;
    int kind = !slash                        ? GSD_GET
               : !strcmp(slash, "/cancel")     ? GSD_CANCEL
               : !strcmp(slash, "/checkpoint") ? GSD_CHECKPOINT
               : !strcmp(slash, "/explain")    ? GSD_EXPLAIN
               : !strcmp(slash, "/events")     ? GSD_HISTORY
                                               : -1;
    if (kind < 0)
        return -1;
    int wants_post = kind == GSD_CANCEL || kind == GSD_CHECKPOINT;
    return (wants_post ? post : get) ? kind : -2; /* e.g. DELETE /v1/jobs/ID: 405 */
}

static int node_action(const char *a)
{
    return !strcmp(a, "drain") ? GSD_NODE_DRAIN : !strcmp(a, "resume") ? GSD_NODE_RESUME
                                               : !strcmp(a, "down")     ? GSD_NODE_DOWN
                                                                        : -1;
}

/* /v1/nodes/NAME/ACTION or /v1/nodes/NAME/gpus/G/ACTION (ACTION: drain,
 * resume, down); *gpu = G or -1. */
static int node_route(const char *rest, const char *method, char *id, size_t n, int *need,
                      int *gpu)
{
    *need = 3;
    *gpu = -1;
    const char *slash = strchr(rest, '/');
    size_t len = slash ? (size_t)(slash - rest) : 0;
    if (!slash || len == 0 || len >= n)
        return -1;
    memcpy(id, rest, len);
    id[len] = '\0';
    const char *act = slash + 1;
    if (!strncmp(act, "gpus/", 5)) {
        char *end;
        long g = strtol(act + 5, &end, 10);
        if (end == act + 5 || *end != '/' || g < 0 || g > 1000)
            return -1;
        *gpu = (int)g;
        act = end + 1;
    }
    int kind = node_action(act);
    if (kind < 0)
        return -1;
    return strcmp(method, "POST") != 0 ? -2 : kind;
}

/* Route `url`: the command kind (or GSD_SUBMIT), -1 = 404, -2 = 405. */
static int route(const char *url, const char *method, char *id, size_t n, int *need, int *gpu)
{
    int get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST");
    *need = 1;
    if (!strcmp(url, "/v1/jobs")) {
        *need = post ? 2 : 1;
        return post ? GSD_SUBMIT : get ? GSD_LIST : -2;
    }
    if (!strncmp(url, "/v1/jobs/", 9))
        return job_route(url + 9, method, id, n, need);
    if (!strncmp(url, "/v1/nodes/", 10))
        return node_route(url + 10, method, id, n, need, gpu);
    int kind = !strcmp(url, "/v1/nodes") ? GSD_NODES : !strcmp(url, "/v1/cluster") ? GSD_CLUSTER
                                                 : !strcmp(url, "/metrics")      ? GSD_METRICS
                                                 : !strcmp(url, "/v1/dashboard") ? GSD_DASHBOARD
                                                 : !strcmp(url, "/v1/queue")     ? GSD_QUEUE
                                                                                 : -1;
    return kind >= 0 && !get ? -2 : kind;
}

/* The dashboard's page and the health routes, which need no identity;
 * 0 when `url` is none of them. */
static int open_route(struct gsd_http *h, struct MHD_Connection *con, const char *url,
                      const char *method, MHD_Result_t *rc)
{
    if (!strcmp(url, "/healthz")) {
        *rc = send_body(con, 200, strdup("ok\n"), "text/plain");
    } else if (!strcmp(url, "/readyz")) {
        int ok = gsd_loop_ready(h->lp);
        char text[400] = "not ready\n";
        if (ok)
            gsd_loop_health(h->lp, text, sizeof text);
        *rc = send_body(con, ok ? 200 : 503, strdup(text), "text/plain");
    } else if (!strcmp(url, "/") && !strcmp(method, "GET")) {
        /* the page holds no data: its polls are authorized as reads */
        *rc = send_body(con, 200, gsd_dash_page(), "text/html; charset=utf-8");
    } else {
        return 0;
    }
    return 1;
}

/* 405 with the Allow header of `url` (a route some method has). */
static MHD_Result_t send_405(struct MHD_Connection *con, const char *url)
{
    char id[512];
    int need, gpu;
    int get = route(url, "GET", id, sizeof id, &need, &gpu) >= 0;
    int post = route(url, "POST", id, sizeof id, &need, &gpu) >= 0;
    const char *allow = get && post ? "GET, HEAD, POST" : get ? "GET, HEAD" : "POST";
    char msg[64];
    snprintf(msg, sizeof msg, "method not allowed here (allowed: %s)", allow);
    char *body = gsd_error_json(405, "method_not_allowed", NULL, "%s", msg);
    struct MHD_Response *r = body ? MHD_create_response_from_buffer(strlen(body), body,
                                                                    MHD_RESPMEM_MUST_FREE)
                                  : NULL;
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Allow", allow);
    MHD_Result_t rc = MHD_queue_response(con, 405, r);
    MHD_destroy_response(r);
    return rc;
}

/* The door (Host, Origin; Content-Type for a write) and the caller, on the
 * headers alone.  Returns 0, or the HTTP status of the refusal sent (*rc). */
static int door_and_caller(struct listener *l, struct MHD_Connection *con, const char *method,
                           int need, const char **why, MHD_Result_t *rc)
{
    const char *code, *field, *team_only; /* points into `who`: not passed out */
    int mutating = strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
    struct gsd_ident who;
    int st = gsd_door_check(&l->h->door, con, l->is_unix, 0, &code, &field, why);
    if (!st && mutating)
        st = gsd_door_check(&l->h->door, con, l->is_unix, 1, &code, &field, why);
    if (st) {
        *rc = send_error(con, st, code, field, *why);
        return st;
    }
    st = authorize(l, con, need, &who, &team_only, why);
    if (st)
        *rc = send_error(con, st, st == 401 ? "unauthorized" : st == 403 ? "forbidden"
                                                                         : "internal",
                         NULL, *why);
    return st;
}

/* The checks made as soon as a request's headers are in, before any body
 * byte is read: framing (400), route and method (404, 405), the caller
 * (401, 403: the same authorize as dispatch's), the declared size (413).
 * Returns 1 when it answered (*rc set), 0 to go on reading. */
static int precheck(struct listener *l, struct MHD_Connection *con, const char *url,
                    const char *method, MHD_Result_t *rc)
{
    const char *why = "";
    char id[512];
    int need, gpu, st;
    if (gsd_guard_framing(con, &why)) {
        *rc = send_error(con, 400, "bad_framing", NULL, why);
        return 1;
    }
    const char *cl = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Content-Length");
    if (!strcmp(url, "/healthz") || !strcmp(url, "/readyz") || !strcmp(url, "/"))
        st = 0;
    else if ((st = route(url, method, id, sizeof id, &need, &gpu)) == -1)
        *rc = send_error(con, 404, "not_found", NULL, "no such route");
    else if (st == -2)
        *rc = send_405(con, url);
    else
        st = door_and_caller(l, con, method, need, &why, rc);
    if (!st && cl && strtoull(cl, NULL, 10) > GS_API_BODY_MAX)
        *rc = send_error(con, (st = 413), "too_large", NULL, "request body over 1 MiB");
    return st != 0;
}

static MHD_Result_t dispatch(struct listener *l, struct MHD_Connection *con, const char *url,
                             const char *method, struct conn *cn)
{
    struct gsd_http *h = l->h;
    MHD_Result_t rc;
    const char *code, *field, *why = "";
    int mutating = strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0;
    int health = !strcmp(url, "/healthz") || !strcmp(url, "/readyz"); /* probes: any Host */
    int st = health ? 0 : gsd_door_check(&h->door, con, l->is_unix, 0, &code, &field, &why);
    if (st)
        return send_error(con, st, code, field, why);
    if (open_route(h, con, url, method, &rc))
        return rc;
    char id[512];
    int need, gpu = -1;
    int kind = route(url, method, id, sizeof id, &need, &gpu);
    if (kind == -1)
        return send_error(con, 404, "not_found", NULL, "no such route");
    if (kind == -2)
        return send_405(con, url);
    if (mutating && (st = gsd_door_check(&h->door, con, l->is_unix, 1, &code, &field, &why)))
        return send_error(con, st, code, field, why);
    const char *team_only;
    struct gsd_ident who;
    st = authorize(l, con, need, &who, &team_only, &why);
    if (st)
        return send_error(con, st, st == 401 ? "unauthorized" : st == 403 ? "forbidden"
                                                                           : "internal",
                          NULL, why);
    if (cn->too_big)
        return send_error(con, 413, "too_large", NULL, "request body over 1 MiB");
    if (kind == GSD_SUBMIT)
        return submit(h, con, cn, &who);
    struct gsd_cmd c = { .kind = kind, .id = id, .team_only = team_only, .gpu = gpu };
    if (kind == GSD_NODE_DOWN || kind == GSD_NODE_DRAIN)
        return node_down(h, con, cn, &c);
    if (kind == GSD_DASHBOARD)
        gsd_dash_args(con, c.page);
    if (kind == GSD_HISTORY)
        return history(con, h, &c);
    if (kind == GSD_LIST) {
        c.state = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "state");
        c.team = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "team");
        if (c.state && !valid_state(c.state))
            return send_error(con, 400, "invalid", "state",
                              "state: expected pending, starting, running, stopping, done or "
                              "an outcome");
    }
    const char *bad = kind == GSD_LIST || kind == GSD_QUEUE ? list_page(con, &c) : NULL;
    if (bad)
        return send_error(con, 400, "invalid", bad,
                          !strcmp(bad, "limit") ? "limit: an integer from 1 to 10000"
                                                : "after: the `next` of a previous page");
    return run_cmd(h, con, &c);
}

static MHD_Result_t handler(void *cls, struct MHD_Connection *con, const char *url,
                            const char *method, const char *version, const char *upload,
                            size_t *upload_size, void **ptr)
{
    (void)version;
    struct listener *l = cls;
    struct conn *cn = *ptr;
    if (!cn) {
        cn = calloc(1, sizeof *cn);
        if (!cn)
            return MHD_NO;
        *ptr = cn;
        MHD_Result_t rc = MHD_YES;
        cn->answered = precheck(l, con, url, method, &rc);
        return rc;
    }
    if (cn->answered) { /* answered before its body: drop what still comes */
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        if (cn->len + *upload_size > GS_API_BODY_MAX) {
            cn->too_big = 1;
        } else {
            if (cn->len + *upload_size + 1 > cn->cap) {
                size_t cap = (cn->len + *upload_size + 1) * 2;
                char *b = realloc(cn->body, cap);
                if (!b)
                    return MHD_NO;
                cn->body = b;
                cn->cap = cap;
            }
            memcpy(cn->body + cn->len, upload, *upload_size);
            cn->len += *upload_size;
            cn->body[cn->len] = '\0';
        }
        *upload_size = 0;
        return MHD_YES;
    }
    gsd_guard_request_busy(con); /* the whole request is in: no deadline now */
    return dispatch(l, con, url, method, cn);
}

static void completed(void *cls, struct MHD_Connection *con, void **ptr,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)toe;
    gsd_guard_request_end(con);
    struct conn *cn = *ptr;
    if (cn) {
        free(cn->body);
        free(cn);
    }
    *ptr = NULL;
}

/* Serve listening socket `fd` through `l`; 0 or -1 after printing why. */
static int start_listener(struct gsd_http *h, struct listener *l, int fd, int is_unix)
{
    l->h = h;
    l->is_unix = is_unix;
    l->d = gsd_guard_start_mhd(h->guard, fd, handler, l, completed, h);
    if (!l->d) {
        fprintf(stderr, "gpuschedd: cannot start the HTTP server (%s)\n",
                is_unix ? "Unix socket" : "TCP");
        return -1;
    }
    return 0;
}

struct gsd_http *gsd_http_start(int tcp_fd, int unix_fd, const char *listen_host, int port,
                                struct gsd_loop *lp, const struct gsd_opts *o)
{
    struct gsd_http *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->lp = lp;
    if (o->tokens) {
        struct gs_error err;
        gs_error_clear(&err);
        if (gsd_tokens_load(o->tokens, &h->tokens, &err) < 0) {
            fprintf(stderr, "gpuschedd: %s\n", err.msg);
            free(h);
            return NULL;
        }
    }
    h->guard = gsd_guard_start(0);
    if (!h->guard)
        fprintf(stderr, "gpuschedd: cannot start the HTTP deadline thread (out of threads or "
                        "memory: RLIMIT_NPROC, a cgroup's pids.max)\n");
    if (!h->guard ||
        gsd_door_init(&h->door, &h->tokens, o->tokens != NULL, o->trust_loopback, listen_host,
                      port, o->server_name, (size_t)o->n_server_name, o->allow_origin,
                      (size_t)o->n_allow_origin) < 0 ||
        start_listener(h, &h->tcp, tcp_fd, 0) < 0 ||
        (unix_fd >= 0 && start_listener(h, &h->unx, unix_fd, 1) < 0)) {
        gsd_http_stop(h);
        return NULL;
    }
    return h;
}

void gsd_http_stop(struct gsd_http *h)
{
    if (!h)
        return;
    if (h->tcp.d)
        MHD_stop_daemon(h->tcp.d);
    if (h->unx.d)
        MHD_stop_daemon(h->unx.d);
    gsd_guard_stop(h->guard);
    gsd_door_fini(&h->door);
    gsd_tokens_fini(&h->tokens);
    free(h);
}
