/* auth.h - bearer tokens for the API (`--tokens T.yaml`):
 *
 *   tokens:
 *     - { token: S, team: a, role: submit }   # role: read | submit | admin
 *
 * read: GET only; submit: also submit, cancel and checkpoint its own team's
 * jobs; admin: everything (any team, node drain/resume).  Tokens are
 * compared in constant time (every token, every byte).
 */
#ifndef GS_DAEMON_AUTH_H
#define GS_DAEMON_AUTH_H

#include <stddef.h>

#include "core/base/error.h"

enum gsd_role { GSD_ROLE_NONE, GSD_ROLE_READ, GSD_ROLE_SUBMIT, GSD_ROLE_ADMIN };

struct gsd_token {
    char *token, *team;
    int role;
};

struct gsd_tokens {
    struct gsd_token *v;
    size_t n;
};

/* Load the tokens file; 0, or GS_EINVAL/GS_EIO with "FILE:LINE: ..." in
 * err.  Free with gsd_tokens_fini. */
int gsd_tokens_load(const char *path, struct gsd_tokens *out, struct gs_error *err);

void gsd_tokens_fini(struct gsd_tokens *t);

/* The entry whose token equals `bearer` (len bytes), or NULL. */
const struct gsd_token *gsd_tokens_find(const struct gsd_tokens *t, const char *bearer,
                                        size_t len);

#endif
