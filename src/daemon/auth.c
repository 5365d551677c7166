/* auth.c - the tokens file and constant-time lookup (see auth.h). */
#define _GNU_SOURCE
#include "daemon/auth.h"

#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/ioutil.h"
#include "io/names.h"
#include "io/yaml_util.h"

static int role_of(const char *s)
{
    return !strcmp(s, "read") ? GSD_ROLE_READ : !strcmp(s, "submit") ? GSD_ROLE_SUBMIT
                                            : !strcmp(s, "admin")    ? GSD_ROLE_ADMIN
                                                                     : GSD_ROLE_NONE;
}

/* The string values of mapping `m` for `keys` (vals[i] NULL when absent). */
static int read_keys(struct gs_yaml *y, const yaml_node_t *m, const char *path,
                     const char *const *keys, const char **vals, int nkeys, struct gs_error *err)
{
    if (m->type != YAML_MAPPING_NODE)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s: expected a mapping", path);
    int rc = gs_yaml_check_keys(y, m, path, err);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; rc == 0 && p < m->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = gs_yaml_node(y, p->key), *v = gs_yaml_node(y, p->value);
        const char *key = gs_yaml_text(k);
        int i = 0;
        while (i < nkeys && strcmp(key, keys[i]) != 0)
            i++;
        if (i == nkeys)
            return gs_yaml_error(y, k, GS_EINVAL, err, "%s: unknown key '%s'", path, key);
        rc = gs_yaml_string(y, v, path, &vals[i], err);
    }
    return rc;
}

/* A team or user name of entry `m` (NULL = absent is fine). */
static int check_account(struct gs_yaml *y, const yaml_node_t *m, const char *path,
                         const char *key, const char *v, struct gs_error *err)
{
    char why[96];
    if (v && gs_name_check(v, strlen(v), GS_NAME_ACCOUNT, 0, why, sizeof why) < 0)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.%s: %s", path, key, why);
    return 0;
}

int gsd_account_exists(const char *user)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    return getpwnam_r(user, &pw, buf, sizeof buf, &res) == 0 && res;
}

static int one_token(struct gs_yaml *y, const yaml_node_t *m, int i, struct gsd_token *t,
                     struct gs_error *err)
{
    static const char *const keys[] = { "token", "team", "role", "user" };
    const char *v[4] = { NULL, NULL, NULL, NULL };
    char path[48];
    snprintf(path, sizeof path, "tokens[%d]", i);
    int rc = read_keys(y, m, path, keys, v, 4, err);
    if (rc == 0)
        rc = check_account(y, m, path, "team", v[1], err);
    if (rc == 0)
        rc = check_account(y, m, path, "user", v[3], err);
    if (rc < 0)
        return rc;
    int role = v[2] ? role_of(v[2]) : GSD_ROLE_NONE;
    if (!v[0] || strlen(v[0]) < 8)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.token: required, at least 8 characters",
                             path);
    if (role == GSD_ROLE_NONE)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.role: expected read, submit or admin",
                             path);
    if (!v[1] && role == GSD_ROLE_SUBMIT)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.team: required for a submit token",
                             path);
    if (!v[3] && role >= GSD_ROLE_SUBMIT)
        return gs_yaml_error(y, m, GS_EINVAL, err,
                             "%s.user: required for submit and admin tokens (the account "
                             "their jobs run as)", path);
    if (v[3] && !gsd_account_exists(v[3]))
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.user: no account '%s' on this host",
                             path, v[3]);
    t->token = strdup(v[0]);
    t->team = strdup(v[1] ? v[1] : "");
    t->user = strdup(v[3] ? v[3] : "");
    t->role = role;
    return t->token && t->team && t->user ? 0 : gs_errorf(err, GS_ENOMEM, "out of memory");
}

static int one_user(struct gs_yaml *y, const yaml_node_t *m, int i, struct gsd_user *u,
                    struct gs_error *err)
{
    static const char *const keys[] = { "user", "team", "role" };
    const char *v[3] = { NULL, NULL, NULL };
    char path[48];
    snprintf(path, sizeof path, "users[%d]", i);
    int rc = read_keys(y, m, path, keys, v, 3, err);
    if (rc == 0)
        rc = check_account(y, m, path, "user", v[0], err);
    if (rc == 0)
        rc = check_account(y, m, path, "team", v[1], err);
    if (rc < 0)
        return rc;
    if (!v[0])
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.user: required", path);
    int role = v[2] ? role_of(v[2]) : GSD_ROLE_SUBMIT;
    if (role == GSD_ROLE_NONE)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.role: expected read, submit or admin",
                             path);
    u->user = strdup(v[0]);
    u->team = strdup(v[1] ? v[1] : "");
    u->role = role;
    return u->user && u->team ? 0 : gs_errorf(err, GS_ENOMEM, "out of memory");
}

static int parse_list(struct gs_yaml *y, yaml_node_t *list, int users, struct gsd_tokens *out,
                      struct gs_error *err)
{
    const char *what = users ? "users" : "tokens";
    if (list->type != YAML_SEQUENCE_NODE)
        return gs_yaml_error(y, list, GS_EINVAL, err, "%s: expected a list", what);
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    void *v = calloc(n + 1, users ? sizeof *out->u : sizeof *out->v);
    if (!v)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    if (users)
        out->u = v;
    else
        out->v = v;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *m = gs_yaml_node(y, list->data.sequence.items.start[i]);
        int rc = users ? one_user(y, m, (int)i, &out->u[i], err)
                       : one_token(y, m, (int)i, &out->v[i], err);
        if (rc < 0)
            return rc;
        *(users ? &out->nu : &out->n) = i + 1;
    }
    return 0;
}

static int parse(struct gs_yaml *y, struct gsd_tokens *out, struct gs_error *err)
{
    yaml_node_t *root = gs_yaml_root(y);
    if (!root || root->type != YAML_MAPPING_NODE)
        return gs_errorf(err, GS_EINVAL, "%s: expected 'tokens:' and/or 'users:' lists",
                         y->name);
    int rc = gs_yaml_check_keys(y, root, "", err);
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         rc == 0 && p < root->data.mapping.pairs.top; p++) {
        const char *key = gs_yaml_text(gs_yaml_node(y, p->key));
        int users = key && !strcmp(key, "users");
        if (!key || (!users && strcmp(key, "tokens") != 0))
            return gs_yaml_error(y, gs_yaml_node(y, p->key), GS_EINVAL, err,
                                 "unknown key '%s' (expected tokens or users)",
                                 key ? key : "?");
        rc = parse_list(y, gs_yaml_node(y, p->value), users, out, err);
    }
    return rc;
}

int gsd_tokens_load(const char *path, struct gsd_tokens *out, struct gs_error *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    int rc = gs_read_file(path, &text, &len, err);
    if (rc < 0)
        return rc;
    struct gs_yaml y = { 0 };
    rc = gs_yaml_load(&y, text, len, path, err);
    if (rc == 0)
        rc = parse(&y, out, err);
    gs_yaml_fini(&y);
    free(text);
    if (rc < 0)
        gsd_tokens_fini(out);
    return rc;
}

void gsd_tokens_fini(struct gsd_tokens *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->v && i <= t->n; i++) {
        free(t->v[i].token);
        free(t->v[i].team);
        free(t->v[i].user);
    }
    for (size_t i = 0; t->u && i <= t->nu; i++) {
        free(t->u[i].user);
        free(t->u[i].team);
    }
    free(t->v);
    free(t->u);
    memset(t, 0, sizeof *t);
}

/* Equal in time that depends only on the lengths' maximum, not the bytes. */
static int ct_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = alen > blen ? alen : blen;
    volatile unsigned char diff = (unsigned char)(alen != blen);
    for (size_t i = 0; i < n; i++) {
        unsigned char x = i < alen ? (unsigned char)a[i] : 0;
        unsigned char y = i < blen ? (unsigned char)b[i] : 0;
        diff |= (unsigned char)(x ^ y);
    }
    return diff == 0;
}

const struct gsd_token *gsd_tokens_find(const struct gsd_tokens *t, const char *bearer,
                                        size_t len)
{
    const struct gsd_token *hit = NULL;
    for (size_t i = 0; i < t->n; i++) /* no early exit: every token is compared */
        if (ct_equal(t->v[i].token, strlen(t->v[i].token), bearer, len))
            hit = &t->v[i];
    return hit;
}

const struct gsd_user *gsd_tokens_user(const struct gsd_tokens *t, const char *user)
{
    for (size_t i = 0; i < t->nu; i++)
        if (!strcmp(t->u[i].user, user))
            return &t->u[i];
    return NULL;
}
