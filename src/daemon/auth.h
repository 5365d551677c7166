/* auth.h - the tokens file (`--tokens T.yaml`, docs/security.md):
 *
 *   tokens:                       # bearer tokens for TCP clients
 *     - { token: S, user: alice, team: a, role: submit }
 *   users:                        # socket clients: team and role by account
 *     - { user: bob, team: b, role: read }
 *
 * role: read | submit | admin.  read: GET only; submit: also submit, cancel
 * and checkpoint its own team's jobs, as its own user; admin: everything
 * (any team, any user, node drain/resume/down).  A submit or admin token
 * names the account its jobs run as (`user:`, which must exist).  A socket
 * client not in `users:` is role submit in the team named by its primary
 * group; uid 0 is admin.  Tokens are compared in constant time (every
 * token, every byte).
 */
#ifndef GS_DAEMON_AUTH_H
#define GS_DAEMON_AUTH_H

#include <stddef.h>

#include "core/base/error.h"

enum gsd_role { GSD_ROLE_NONE, GSD_ROLE_READ, GSD_ROLE_SUBMIT, GSD_ROLE_ADMIN };

struct gsd_token {
    char *token, *team, *user; /* team "" = none (read/admin); user "" = none (read) */
    int role;
};

struct gsd_user {
    char *user, *team;         /* team "" = the primary group's name */
    int role;
};

struct gsd_tokens {
    struct gsd_token *v;
    size_t n;
    struct gsd_user *u;
    size_t nu;
};

/* Load the tokens file; 0, or GS_EINVAL/GS_EIO with "FILE:LINE: ..." in
 * err (a bad name, an unknown role, a token's user with no account).  Free
 * with gsd_tokens_fini (also after an error). */
int gsd_tokens_load(const char *path, struct gsd_tokens *out, struct gs_error *err);

/* Free what `t` owns; a zeroed struct is fine. */
void gsd_tokens_fini(struct gsd_tokens *t);

/* The entry whose token equals `bearer` (len bytes), or NULL. */
const struct gsd_token *gsd_tokens_find(const struct gsd_tokens *t, const char *bearer,
                                        size_t len);

/* The `users:` entry for account `user`, or NULL. */
const struct gsd_user *gsd_tokens_user(const struct gsd_tokens *t, const char *user);

/* Whether account `user` exists on this host (passwd database). */
int gsd_account_exists(const char *user);

#endif
