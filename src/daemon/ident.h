/* ident.h - who a request is, and whether it may come through the door
 * (docs/security.md).
 *
 * Identity: a Unix-socket request is its peer's uid (SO_PEERCRED), named by
 * the passwd database, its team from the tokens file's `users:` table or
 * else its primary group, its role from that table or else submit (uid 0:
 * admin).  A TCP request is its bearer token's user, team and role; without
 * a token it is refused 401, except under --trust-loopback where a loopback
 * client is admin acting as the daemon's own user.
 *
 * The door: Host must name the daemon (TCP only: DNS rebinding), an Origin
 * header must be the daemon's own or an allowed one (cross-site pages), and
 * a mutating request must say Content-Type: application/json (no simple
 * cross-site form or no-cors fetch can).
 */
#ifndef GS_DAEMON_IDENT_H
#define GS_DAEMON_IDENT_H

#include <microhttpd.h>
#include <stddef.h>

#include "daemon/auth.h"
#include "io/names.h"

/* Who made a request. */
struct gsd_ident {
    int role;                            /* enum gsd_role */
    char user[GS_NAME_ACCOUNT_MAX + 1];  /* the account its jobs run as ("" = none: read) */
    char team[GS_NAME_ACCOUNT_MAX + 1];  /* "" = none (admin/read token without team) */
    long uid;                            /* socket peer's uid, -1 over TCP */
    const char *via;                     /* "socket", "token" or "trusted-loopback" */
};

/* What the door knows; filled by gsd_door_init, read-only afterwards. */
struct gsd_door {
    const struct gsd_tokens *tokens;     /* never NULL (may be empty) */
    int have_tokens;
    int trust_loopback;
    struct gsd_ident self;               /* the daemon's own user, for trusted loopback */
    char **hosts;                        /* Host values naming the daemon (lowercase) */
    size_t nhosts;
    char **origins;                      /* allowed Origin values */
    size_t norigins;
};

/* Fill `d`: Host values localhost/127.0.0.1/[::1]/listen_host with `port`,
 * plus every server_names[i] as given; origins: "http://" + each Host plus
 * allow[i].  Returns 0 or -1 (out of memory, or no name for the daemon's
 * euid) after printing why.  Free with gsd_door_fini. */
int gsd_door_init(struct gsd_door *d, const struct gsd_tokens *tokens, int have_tokens,
                  int trust_loopback, const char *listen_host, int port,
                  const char *const *server_names, size_t nserver,
                  const char *const *allow, size_t nallow);

/* Free what gsd_door_init allocated (not the tokens); `d` is zeroed. */
void gsd_door_fini(struct gsd_door *d);

/* The identity of the request on `con` (is_unix: it came in on the Unix
 * socket).  Returns 0, or the HTTP status to refuse with (401, 403, 500)
 * with *why set to a static sentence. */
int gsd_ident_of(const struct gsd_door *d, struct MHD_Connection *con, int is_unix,
                 struct gsd_ident *id, const char **why);

/* Host, Origin and (when `mutating`) Content-Type of the request on `con`.
 * Returns 0, or the HTTP status (421 Host, 403 Origin, 415 Content-Type)
 * with *code, *field and *why set (static strings). */
int gsd_door_check(const struct gsd_door *d, struct MHD_Connection *con, int is_unix,
                   int mutating, const char **code, const char **field, const char **why);

#endif
