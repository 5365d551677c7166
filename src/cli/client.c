/* client.c - HTTP/JSON round trips to gpuschedd for the client commands. */
#include "cli/client.h"

#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "io/names.h"

#define DEFAULT_SERVER "http://127.0.0.1:8642"
#define DEFAULT_SOCKET "/run/gpusched/gpuschedd.sock" /* docs/security.md */
#define MAX_BODY (256u << 20)   /* answers above 256 MiB are refused */
#define CONNECT_TIMEOUT_S 5L
#define TIMEOUT_S 60L

struct gs_client {
    CURL *h;
    const char *server;
    const char *token;
    char errbuf[CURL_ERROR_SIZE];
};

struct buf {
    char *p;
    size_t len, cap;
    int overflow;
};

void gs_client_opts_init(struct gs_client_opts *o)
{
    const char *s = getenv("GPUSCHED_SERVER");
    const char *t = getenv("GPUSCHED_TOKEN");
    struct stat st;
    o->server = s && *s ? s
                : stat(DEFAULT_SOCKET, &st) == 0 && S_ISSOCK(st.st_mode) ? "unix:" DEFAULT_SOCKET
                                                                          : DEFAULT_SERVER;
    o->token = t && *t ? t : NULL;
    o->json = 0;
}

int gs_client_opt(struct gs_client_opts *o, int c, const char *val)
{
    switch (c) {
    case GS_CLIENT_OPT_SERVER: o->server = val; return 1;
    case GS_CLIENT_OPT_TOKEN: o->token = val; return 1;
    case GS_CLIENT_OPT_JSON: o->json = 1; return 1;
    }
    return 0;
}

int gs_client_parse(const struct gs_client_cmd *cmd, int argc, char **argv,
                    struct gs_client_opts *o, gs_client_opt_fn on_opt, void *arg,
                    char ***args, int *nargs)
{
    return gs_client_parse_short(cmd, "", argc, argv, o, on_opt, arg, args, nargs);
}

int gs_client_parse_short(const struct gs_client_cmd *cmd, const char *shortopts, int argc,
                          char **argv, struct gs_client_opts *o, gs_client_opt_fn on_opt,
                          void *arg, char ***args, int *nargs)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, shortopts, cmd->opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(cmd->help, stdout);
            return 0;
        }
        if (c == '?') {
            fputs(cmd->help, stderr);
            return 2;
        }
        if (gs_client_opt(o, c, optarg))
            continue;
        if (!on_opt || on_opt(c, optarg, arg) < 0)
            return 2;
    }
    int n = argc - optind;
    if (n < cmd->min_args || n > cmd->max_args) {
        if (n > cmd->max_args)
            fprintf(stderr, "gpusched %s: unexpected argument '%s'\n", cmd->name,
                    argv[optind + cmd->max_args]);
        else
            fprintf(stderr, "gpusched %s: missing argument (see --help)\n", cmd->name);
        return 2;
    }
    *args = argv + optind;
    *nargs = n;
    return -1;
}

struct gs_client *gs_client_create(const struct gs_client_opts *o)
{
    static int global_done;
    if (!global_done) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
            fprintf(stderr, "gpusched: libcurl failed to initialise\n");
            return NULL;
        }
        global_done = 1;
    }
    struct gs_client *c = calloc(1, sizeof *c);
    if (!c || !(c->h = curl_easy_init())) {
        free(c);
        fprintf(stderr, "gpusched: out of memory\n");
        return NULL;
    }
    c->server = o->server;
    c->token = o->token;
    return c;
}

void gs_client_destroy(struct gs_client *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->h);
    free(c);
}

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
    struct buf *b = arg;
    size_t len = size * n;
    if (b->len + len + 1 > MAX_BODY) {
        b->overflow = 1;
        return 0; /* makes curl fail the transfer */
    }
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return 0;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
    b->p[b->len] = '\0';
    return len;
}

/* The request headers; NULL on allocation failure. */
static struct curl_slist *headers(const struct gs_client *c, int has_body, const char *idem)
/* has_body: any request but a GET (the daemon wants the type on every write) */
{
    char line[1024];
    struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json");
    if (h && has_body)
        h = curl_slist_append(h, "Content-Type: application/json");
    if (h && c->token) {
        snprintf(line, sizeof line, "Authorization: Bearer %s", c->token);
        h = curl_slist_append(h, line);
    }
    if (h && idem) {
        snprintf(line, sizeof line, "Idempotency-Key: %s", idem);
        h = curl_slist_append(h, line);
    }
    return h;
}

/* Set up the handle for one request; returns the headers to free or NULL. */
static struct curl_slist *prepare(struct gs_client *c, const char *method, const char *url,
                                  const char *body, const char *idem, struct buf *b)
{
    CURL *h = c->h;
    curl_easy_reset(h);
    struct curl_slist *hdr = headers(c, body != NULL || strcmp(method, "GET") != 0, idem);
    if (!hdr)
        return NULL;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->errbuf);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, TIMEOUT_S);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (!strncmp(c->server, "unix:", 5))
        curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->server + 5);
    if (strcmp(method, "POST") == 0) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
    } else if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
        if (body)
            curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    }
    return hdr;
}

int gs_client_call(struct gs_client *c, const char *method, const char *path,
                   const json_t *body, const char *idem_key, long *status, json_t **out)
{
    *out = NULL;
    *status = 0;
    size_t slen = strlen(c->server);
    while (slen && c->server[slen - 1] == '/')
        slen--;
    int unx = !strncmp(c->server, "unix:", 5); /* the socket path goes to curl (prepare) */
    const char *base = unx ? "http://localhost" : c->server;
    size_t blen = unx ? strlen(base) : slen;
    char *url = malloc(blen + strlen(path) + 1);
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    struct buf b = { 0 };
    struct curl_slist *hdr = NULL;
    int rc = -1;
    if (!url || (body && !text)) {
        fprintf(stderr, "gpusched: out of memory\n");
        goto out;
    }
    snprintf(url, blen + strlen(path) + 1, "%.*s%s", (int)blen, base, path);
    c->errbuf[0] = '\0';
    if (!(hdr = prepare(c, method, url, text, idem_key, &b))) {
        fprintf(stderr, "gpusched: out of memory\n");
        goto out;
    }
    CURLcode cc = curl_easy_perform(c->h);
    if (cc != CURLE_OK) {
        fprintf(stderr, "gpusched: %.*s: %s\n", (int)slen, c->server,
                b.overflow ? "answer larger than 256 MiB"
                           : c->errbuf[0] ? c->errbuf : curl_easy_strerror(cc));
        goto out;
    }
    curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, status);
    if (b.len)
        *out = json_loadb(b.p, b.len, 0, NULL);
    rc = 0;
out:
    curl_slist_free_all(hdr);
    free(b.p);
    free(text);
    free(url);
    return rc;
}

int gs_client_print_error(long status, const json_t *body)
{
    const json_t *e = json_object_get(body, "error");
    const char *msg = json_string_value(json_object_get(e, "message"));
    const char *field = json_string_value(json_object_get(e, "field"));
    const char *code = json_string_value(json_object_get(e, "code"));
    char esc[600];
    fprintf(stderr, "gpusched: %s",
            msg ? gs_name_escape(msg, esc, sizeof esc)
                : body ? "request failed" : "answer is not JSON");
    fprintf(stderr, " (");
    if (field && *field)
        fprintf(stderr, "field %s, ", field);
    if (code && *code)
        fprintf(stderr, "%s, ", code);
    fprintf(stderr, "HTTP %ld)\n", status);
    return 1;
}

int gs_client_request(struct gs_client *c, const struct gs_client_opts *o, const char *method,
                      const char *path, const json_t *body, json_t **out)
{
    long status;
    json_t *j;
    if (gs_client_call(c, method, path, body, NULL, &status, &j) < 0)
        return 1;
    if (status >= 200 && status < 300 && j) {
        *out = j;
        return 0;
    }
    if (o->json && j)
        gs_client_print_json(j);
    gs_client_print_error(status, j);
    json_decref(j);
    *out = NULL;
    return 1;
}

char *gs_client_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *r = malloc(3 * n + 1), *p = r;
    if (!r)
        return NULL;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '_' || ch == '.' || ch == '~') {
            *p++ = (char)ch;
        } else {
            *p++ = '%';
            *p++ = hex[ch >> 4];
            *p++ = hex[ch & 15];
        }
    }
    *p = '\0';
    return r;
}

void gs_client_print_json(const json_t *j)
{
    json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15)); /* 15: epochs keep ms */
    fputc('\n', stdout);
}

/* A real with at most 3 decimals, trailing zeros dropped: 1796123083.602, 0.5. */
static void fmt_real(double d, char *buf, size_t size)
{
    snprintf(buf, size, "%.3f", d);
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *e = buf + strlen(buf);
    while (e > dot + 1 && e[-1] == '0')
        *--e = '\0';
    if (e == dot + 1)
        *dot = '\0';
}

const char *gs_client_field(const json_t *o, const char *key, const char *dflt, char *buf,
                            size_t size)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_string(v)) { /* control bytes reach no terminal: \xNN */
        const char *s = json_string_value(v);
        for (const char *c = s; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                return gs_name_escape(s, buf, size);
        return s;
    }
    if (json_is_integer(v))
        snprintf(buf, size, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        fmt_real(json_real_value(v), buf, size);
    else if (json_is_true(v) || json_is_false(v))
        snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
    else
        return dflt;
    return buf;
}

const char *gs_client_hms(double seconds, char *buf, size_t size)
{
    if (!(seconds >= 0)) {
        snprintf(buf, size, "-");
        return buf;
    }
    long long s = (long long)seconds;
    long long d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;
    if (d)
        snprintf(buf, size, "%lld-%02lld:%02lld:%02lld", d, h, m, sec);
    else if (h)
        snprintf(buf, size, "%lld:%02lld:%02lld", h, m, sec);
    else
        snprintf(buf, size, "%lld:%02lld", m, sec);
    return buf;
}

const char *gs_client_utc(double epoch, char *buf, size_t size)
{
    struct tm tm;
    time_t t = (time_t)epoch;
    if (!(epoch >= 0) || !gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, size, "-");
    return buf;
}

const json_t *gs_client_list(const json_t *j, const char *key)
{
    if (json_is_array(j))
        return j;
    const json_t *v = json_object_get(j, key);
    return json_is_array(v) ? v : NULL;
}

int gs_client_parse_plain(const char *name, const char *help, int min_args, int max_args,
                          int argc, char **argv, struct gs_client_opts *o, char ***args,
                          int *nargs)
{
    static const struct option opts[] = { GS_CLIENT_COMMON_OPTS, { NULL, 0, NULL, 0 } };
    const struct gs_client_cmd cmd = { name, help, opts, min_args, max_args };
    gs_client_opts_init(o);
    return gs_client_parse(&cmd, argc, argv, o, NULL, NULL, args, nargs);
}

int gs_client_id_path(char *buf, size_t n, const char *pre, const char *id, const char *post)
{
    char *esc = gs_client_escape(id);
    int ok = esc && strlen(esc) <= 900 && snprintf(buf, n, "%s%s%s", pre, esc, post) < (int)n;
    free(esc);
    return ok ? 0 : -1;
}

int gs_client_get_list(const struct gs_client_opts *o, const char *path, const char *key,
                       const char *what, gs_client_list_fn print, void *arg)
{
    json_t *ans = NULL;
    int status = gs_client_get_pages(o, path, key, &ans);
    if (status)
        return status;
    const json_t *list = gs_client_list(ans, key);
    if (o->json)
        gs_client_print_json(ans);
    else if (!list)
        status = (fprintf(stderr, "gpusched: the answer has no %s list\n", what), 1);
    else
        print(ans, list, arg);
    json_decref(ans);
    return status;
}

int gs_client_once(const struct gs_client_opts *o, const char *method, const char *path,
                   const json_t *body, json_t **out)
{
    struct gs_client *c = gs_client_create(o);
    int status = c ? gs_client_request(c, o, method, path, body, out) : 1;
    gs_client_destroy(c);
    return status;
}
