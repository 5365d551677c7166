/* ident.c - request identity and the door checks (see ident.h). */
#define _GNU_SOURCE
#include "daemon/ident.h"

#include <errno.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

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

static int valid_account(const char *s)
{
    char why[96];
    return gs_name_check(s, strlen(s), GS_NAME_ACCOUNT, 0, why, sizeof why) == 0;
}

/* Fill id->user (and the primary group's name into group[n]) for `uid`;
 * 0 or -1 when the account has no usable name. */
static int account_of(long uid, struct gsd_ident *id, char *group, size_t n)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    int e = getpwuid_r((uid_t)uid, &pw, buf, sizeof buf, &res);
    if (e != 0 || !res || !valid_account(pw.pw_name)) {
        errno = e; /* 0: no such account, or a name not usable */
        return -1;
    }
    snprintf(id->user, sizeof id->user, "%s", pw.pw_name);
    struct group gr, *gres = NULL;
    char gbuf[4096];
    group[0] = '\0';
    if (getgrgid_r(pw.pw_gid, &gr, gbuf, sizeof gbuf, &gres) == 0 && gres &&
        valid_account(gr.gr_name))
        snprintf(group, n, "%s", gr.gr_name);
    return 0;
}

static int from_socket(const struct gsd_door *d, struct MHD_Connection *con,
                       struct gsd_ident *id, const char **why)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(con, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (!ci || getsockopt(ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
        *why = "cannot read the socket peer's credentials";
        return 500;
    }
    char group[GS_NAME_ACCOUNT_MAX + 1];
    id->uid = (long)cr.uid;
    id->via = "socket";
    if (account_of(id->uid, id, group, sizeof group) < 0) {
        *why = "the socket peer's uid has no account name this daemon accepts";
        return 403;
    }
    const struct gsd_user *u = gsd_tokens_user(d->tokens, id->user);
    id->role = cr.uid == 0 ? GSD_ROLE_ADMIN : u ? u->role : GSD_ROLE_SUBMIT;
    snprintf(id->team, sizeof id->team, "%s", u && u->team[0] ? u->team : group);
    if (!id->team[0] && id->role == GSD_ROLE_SUBMIT) {
        *why = "no team for this user (primary group unnamed; add it to users:)";
        return 403;
    }
    return 0;
}

static int from_token(const struct gsd_door *d, struct MHD_Connection *con,
                      struct gsd_ident *id, const char **why)
{
    const char *a = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Authorization");
    if (!a || strncmp(a, "Bearer ", 7) != 0) {
        if (d->trust_loopback && is_loopback(con)) {
            *id = d->self;
            return 0;
        }
        *why = "missing 'Authorization: Bearer TOKEN' (TCP clients need a token; local "
               "users can use the Unix socket)";
        return 401;
    }
    const struct gsd_token *t = gsd_tokens_find(d->tokens, a + 7, strlen(a + 7));
    if (!t) {
        *why = "unknown token";
        return 401;
    }
    id->role = t->role;
    snprintf(id->user, sizeof id->user, "%s", t->user);
    snprintf(id->team, sizeof id->team, "%s", t->team);
    id->uid = -1;
    id->via = "token";
    return 0;
}

int gsd_ident_of(const struct gsd_door *d, struct MHD_Connection *con, int is_unix,
                 struct gsd_ident *id, const char **why)
{
    memset(id, 0, sizeof *id);
    id->uid = -1;
    return is_unix ? from_socket(d, con, id, why) : from_token(d, con, id, why);
}

static int in_list(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(v[i], s))
            return 1;
    return 0;
}

/* "application/json", optionally followed by parameters (";charset=utf-8"). */
static int is_json_type(const char *ct)
{
    static const char want[] = "application/json";
    if (!ct || strncasecmp(ct, want, sizeof want - 1) != 0)
        return 0;
    ct += sizeof want - 1;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    return *ct == '\0' || *ct == ';';
}

int gsd_door_check(const struct gsd_door *d, struct MHD_Connection *con, int is_unix,
                   int mutating, const char **code, const char **field, const char **why)
{
    const char *host = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Host");
    const char *origin = MHD_lookup_connection_value(con, MHD_HEADER_KIND, "Origin");
    if (!is_unix && (!host || !in_list(d->hosts, d->nhosts, host))) {
        *code = "misdirected";
        *field = "Host";
        *why = "Host does not name this daemon (its listen address, localhost or a "
               "--server-name)";
        return 421;
    }
    if (origin && !in_list(d->origins, d->norigins, origin)) {
        *code = "forbidden";
        *field = "Origin";
        *why = "cross-origin request refused (Origin is not this daemon nor an --allow-origin)";
        return 403;
    }
    if (mutating && !is_json_type(MHD_lookup_connection_value(con, MHD_HEADER_KIND,
                                                              "Content-Type"))) {
        *code = "unsupported_media_type";
        *field = "Content-Type";
        *why = "a request that changes anything must say Content-Type: application/json";
        return 415;
    }
    return 0;
}

/* Append pre + s (+ ":port" when port > 0), lowercased, to v[n]. */
static int push(char ***v, size_t *n, const char *pre, const char *s, int port)
{
    char buf[600];
    if (port > 0)
        snprintf(buf, sizeof buf, "%s%s:%d", pre, s, port);
    else
        snprintf(buf, sizeof buf, "%s%s", pre, s);
    char **p = realloc(*v, (*n + 1) * sizeof *p);
    if (!p)
        return -1;
    *v = p;
    if (!(p[*n] = strdup(buf)))
        return -1;
    for (char *c = p[*n]; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    (*n)++;
    return 0;
}

static int self_ident(struct gsd_ident *id)
{
    char group[GS_NAME_ACCOUNT_MAX + 1];
    memset(id, 0, sizeof *id);
    id->uid = (long)geteuid();
    if (account_of(id->uid, id, group, sizeof group) < 0) {
        if (errno) /* e.g. EMFILE: the account database could not be read */
            fprintf(stderr, "gpuschedd: the daemon's uid %ld: account lookup failed: %s\n",
                    id->uid, strerror(errno));
        else
            fprintf(stderr, "gpuschedd: the daemon's uid %ld has no usable account name\n",
                    id->uid);
        return -1;
    }
    id->uid = -1;
    id->role = GSD_ROLE_ADMIN;
    id->via = "trusted-loopback";
    return 0;
}

int gsd_door_init(struct gsd_door *d, const struct gsd_tokens *tokens, int have_tokens,
                  int trust_loopback, const char *listen_host, int port,
                  const char *const *server_names, size_t nserver,
                  const char *const *allow, size_t nallow)
{
    static const char *const local[] = { "localhost", "127.0.0.1", "[::1]" };
    memset(d, 0, sizeof *d);
    d->tokens = tokens;
    d->have_tokens = have_tokens;
    d->trust_loopback = trust_loopback;
    int rc = self_ident(&d->self);
    char v6[300];
    for (size_t i = 0; rc == 0 && i < 3; i++)
        rc = push(&d->hosts, &d->nhosts, "", local[i], port);
    if (rc == 0 && listen_host && *listen_host) {
        snprintf(v6, sizeof v6, strchr(listen_host, ':') ? "[%s]" : "%s", listen_host);
        rc = push(&d->hosts, &d->nhosts, "", v6, port);
    }
    for (size_t i = 0; rc == 0 && i < nserver; i++)
        rc = push(&d->hosts, &d->nhosts, "", server_names[i], 0);
    for (size_t i = 0; rc == 0 && i < d->nhosts; i++)
        rc = push(&d->origins, &d->norigins, "http://", d->hosts[i], 0);
    for (size_t i = 0; rc == 0 && i < nallow; i++)
        rc = push(&d->origins, &d->norigins, "", allow[i], 0);
    if (rc < 0) {
        if (d->self.via)
            fprintf(stderr, "gpuschedd: out of memory\n");
        gsd_door_fini(d);
    }
    return rc;
}

void gsd_door_fini(struct gsd_door *d)
{
    for (size_t i = 0; d->hosts && i < d->nhosts; i++)
        free(d->hosts[i]);
    for (size_t i = 0; d->origins && i < d->norigins; i++)
        free(d->origins[i]);
    free(d->hosts);
    free(d->origins);
    memset(d, 0, sizeof *d);
}
