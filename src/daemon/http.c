/* http.c - the HTTP/JSON API on libmicrohttpd (one thread per connection).
 * A connection thread reads the body (at most GS_API_BODY_MAX, else 413),
 * routes, authenticates, decodes a submit body (api_codec.h, 400 naming the
 * field), then hands a command to the engine thread and waits for the
 * answer, which comes once the turn that applied it is committed.
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
#include "daemon/dash_route.h"
#include "daemon/view.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_Result_t;
#else
typedef enum MHD_Result MHD_Result_t;
#endif

struct gsd_http {
    struct MHD_Daemon *d;
    struct gsd_loop *lp;
    struct gsd_tokens tokens;
    int have_tokens;
};

struct conn {
    char *body;
    size_t len, cap;
    int too_big;
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

static int is_loopback(struct MHD_Connection *con)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || !ci->client_addr)
        return 0;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr) >> 24) ==
               127;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
        static const unsigned char v4map[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
        return IN6_IS_ADDR_LOOPBACK(a) || (!memcmp(a->s6_addr, v4map, 12) && a->s6_addr[12] == 127);
    }
    return 0;
}

/* Check the caller for `need`; sets *team_only for submit tokens.  Returns
 * 0, or an HTTP status with *why set. */
static int authorize(struct gsd_http *h, struct MHD_Connection *con, int need,
                     const char **team_only, const char **why)
{
    *team_only = NULL;
    if (!h->have_tokens) {
        *why = "without --tokens only loopback clients are served";
        return is_loopback(con) ? 0 : 403;
    }
    const char *a = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Authorization");
    if (!a || strncmp(a, "Bearer ", 7) != 0) {
        *why = "missing 'Authorization: Bearer TOKEN'";
        return 401;
    }
    const struct gsd_token *t = gsd_tokens_find(&h->tokens, a + 7, strlen(a + 7));
    if (!t) {
        *why = "unknown token";
        return 401;
    }
    if (t->role < need) {
        *why = need == 3 ? "needs an admin token" : "needs a submit token";
        return 403;
    }
    if (t->role == 2)
        *team_only = t->team;
    return 0;
}

static MHD_Result_t run_cmd(struct gsd_http *h, struct MHD_Connection *con, struct gsd_cmd *c)
{
    if (!gsd_view_answer(h->lp, c)) /* reads come from the published view */
        gsd_call(h->lp, c);
    return send_body(con, c->status, c->body, c->content_type);
}

/* POST /v1/jobs */
static MHD_Result_t submit(struct gsd_http *h, struct MHD_Connection *con, struct conn *cn,
                           const char *team_only)
{
    struct gs_api_submit s;
    struct gs_api_error e;
    if (gs_api_submit_decode(cn->body ? cn->body : "", cn->len, &s, &e) < 0)
        return send_body(con, e.status, gs_api_error_body(&e), NULL);
    const char *team = s.row.spec.team;
    if (team_only && team && strcmp(team, team_only) != 0) {
        gs_api_submit_fini(&s);
        return send_error(con, 403, "forbidden", "team",
                          "this token submits for its own team only");
    }
    if (team_only && !team) {
        json_object_set_new(s.json, "team", json_string(team_only));
        s.row.spec.team = json_string_value(json_object_get(s.json, "team"));
    }
    const char *idem = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Idempotency-Key");
    if (idem && (strlen(idem) == 0 || strlen(idem) > 200)) {
        gs_api_submit_fini(&s);
        return send_error(con, 400, "invalid", "Idempotency-Key", "1 to 200 characters");
    }
    struct gsd_cmd c = { .kind = GSD_SUBMIT, .sub = &s, .idem = idem };
    MHD_Result_t rc = run_cmd(h, con, &c);
    gs_api_submit_fini(&s);
    return rc;
}

/* POST /v1/nodes/NAME[/gpus/G]/down: an optional body {"reason": S}. */
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
            if (!json_is_string(v) || json_string_length(v) > 200 ||
                strlen(json_string_value(v)) != json_string_length(v)) {
                json_decref(b);
                return send_error(con, 400, "invalid", "reason",
                                  "reason: a string of 0 to 200 characters");
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
                                      "completed", "failed", "cancelled", "killed", "rejected" };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(s, ok[i]))
            return 1;
    return 0;
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
    *need = post ? 2 : 1;
    if (!slash)
        return post ? -2 : GSD_GET;
    if (!strcmp(slash, "/cancel"))
        return post ? GSD_CANCEL : -2;
    if (!strcmp(slash, "/checkpoint"))
        return post ? GSD_CHECKPOINT : -2;
    if (!strcmp(slash, "/explain"))
        return post ? -2 : GSD_EXPLAIN;
    return -1;
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
    int get = !strcmp(method, "GET"), post = !strcmp(method, "POST");
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

static MHD_Result_t dispatch(struct gsd_http *h, struct MHD_Connection *con, const char *url,
                             const char *method, struct conn *cn)
{
    if (!strcmp(url, "/healthz"))
        return send_body(con, 200, strdup("ok\n"), "text/plain");
    if (!strcmp(url, "/readyz")) {
        int ok = gsd_loop_ready(h->lp);
        char text[400] = "not ready\n";
        if (ok)
            gsd_loop_health(h->lp, text, sizeof text);
        return send_body(con, ok ? 200 : 503, strdup(text), "text/plain");
    }
    if (!strcmp(url, "/") && !strcmp(method, "GET")) {
        /* the dashboard's page holds no data (its polls are authorized as
         * reads); without --tokens it stays on loopback like the API */
        if (!h->have_tokens && !is_loopback(con))
            return send_error(con, 403, "forbidden", NULL,
                              "without --tokens only loopback clients are served");
        return send_body(con, 200, gsd_dash_page(), "text/html; charset=utf-8");
    }
    char id[512];
    int need, gpu = -1;
    int kind = route(url, method, id, sizeof id, &need, &gpu);
    if (kind == -1)
        return send_error(con, 404, "not_found", NULL, "no such route");
    if (kind == -2)
        return send_error(con, 405, "method_not_allowed", NULL, "method not allowed here");
    const char *team_only, *why = "";
    int st = authorize(h, con, need, &team_only, &why);
    if (st)
        return send_error(con, st, st == 401 ? "unauthorized" : "forbidden", NULL, why);
    if (cn->too_big)
        return send_error(con, 413, "too_large", NULL, "request body over 1 MiB");
    if (kind == GSD_SUBMIT)
        return submit(h, con, cn, team_only);
    struct gsd_cmd c = { .kind = kind, .id = id, .team_only = team_only, .gpu = gpu };
    if (kind == GSD_NODE_DOWN)
        return node_down(h, con, cn, &c);
    if (kind == GSD_DASHBOARD)
        gsd_dash_args(con, c.page);
    if (kind == GSD_LIST) {
        c.state = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "state");
        c.team = MHD_lookup_connection_value(con, MHD_GET_ARGUMENT_KIND, "team");
        if (c.state && !valid_state(c.state))
            return send_error(con, 400, "invalid", "state",
                              "state: expected pending, starting, running, stopping, done or "
                              "an outcome");
    }
    return run_cmd(h, con, &c);
}

static MHD_Result_t handler(void *cls, struct MHD_Connection *con, const char *url,
                            const char *method, const char *version, const char *upload,
                            size_t *upload_size, void **ptr)
{
    (void)version;
    struct gsd_http *h = cls;
    struct conn *cn = *ptr;
    if (!cn) {
        cn = calloc(1, sizeof *cn);
        if (!cn)
            return MHD_NO;
        *ptr = cn;
        const char *cl = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoull(cl, NULL, 10) > GS_API_BODY_MAX)
            return send_error(con, 413, "too_large", NULL, "request body over 1 MiB");
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
    return dispatch(h, con, url, method, cn);
}

static void completed(void *cls, struct MHD_Connection *con, void **ptr,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)con;
    (void)toe;
    struct conn *cn = *ptr;
    if (cn) {
        free(cn->body);
        free(cn);
    }
    *ptr = NULL;
}

struct gsd_http *gsd_http_start(int fd, struct gsd_loop *lp, const char *tokens_path)
{
    struct gsd_http *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->lp = lp;
    if (tokens_path) {
        struct gs_error err;
        gs_error_clear(&err);
        if (gsd_tokens_load(tokens_path, &h->tokens, &err) < 0) {
            fprintf(stderr, "gpuschedd: %s\n", err.msg);
            free(h);
            return NULL;
        }
        h->have_tokens = 1;
    }
    h->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                                MHD_USE_ERROR_LOG,
                            0, NULL, NULL, handler, h, MHD_OPTION_LISTEN_SOCKET, fd,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)512,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, h, MHD_OPTION_END);
    if (!h->d) {
        fprintf(stderr, "gpuschedd: cannot start the HTTP server\n");
        gsd_tokens_fini(&h->tokens);
        free(h);
        return NULL;
    }
    return h;
}

void gsd_http_stop(struct gsd_http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    gsd_tokens_fini(&h->tokens);
    free(h);
}
