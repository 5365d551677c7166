/* auth.c - the tokens file and constant-time lookup (see auth.h). */
#define _GNU_SOURCE
#include "daemon/auth.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/ioutil.h"
#include "io/yaml_util.h"

static int role_of(const char *s)
{
    return !strcmp(s, "read") ? GSD_ROLE_READ : !strcmp(s, "submit") ? GSD_ROLE_SUBMIT
                                            : !strcmp(s, "admin")    ? GSD_ROLE_ADMIN
                                                                     : GSD_ROLE_NONE;
}

static int one_token(struct gs_yaml *y, const yaml_node_t *m, int i, struct gsd_token *t,
                     struct gs_error *err)
{
    char path[48];
    snprintf(path, sizeof path, "tokens[%d]", i);
    if (m->type != YAML_MAPPING_NODE)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s: expected a mapping", path);
    int rc = gs_yaml_check_keys(y, m, path, err);
    const char *tok = NULL, *team = NULL, *role = NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; rc == 0 && p < m->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = gs_yaml_node(y, p->key), *v = gs_yaml_node(y, p->value);
        const char *key = gs_yaml_text(k);
        const char **dst = !strcmp(key, "token") ? &tok : !strcmp(key, "team") ? &team
                                                        : !strcmp(key, "role") ? &role
                                                                               : NULL;
        if (!dst)
            return gs_yaml_error(y, k, GS_EINVAL, err, "%s: unknown key '%s'", path, key);
        rc = gs_yaml_string(y, v, path, dst, err);
    }
    if (rc < 0)
        return rc;
    if (!tok || strlen(tok) < 8)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.token: required, at least 8 characters",
                             path);
    if (!role || role_of(role) == GSD_ROLE_NONE)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.role: expected read, submit or admin",
                             path);
    if (!team && role_of(role) == GSD_ROLE_SUBMIT)
        return gs_yaml_error(y, m, GS_EINVAL, err, "%s.team: required for a submit token",
                             path);
    t->token = strdup(tok);
    t->team = strdup(team ? team : "");
    t->role = role_of(role);
    return t->token && t->team ? 0 : gs_errorf(err, GS_ENOMEM, "out of memory");
}

static int parse(struct gs_yaml *y, struct gsd_tokens *out, struct gs_error *err)
{
    yaml_node_t *root = gs_yaml_root(y);
    if (!root || root->type != YAML_MAPPING_NODE)
        return gs_errorf(err, GS_EINVAL, "%s: expected 'tokens:' with a list", y->name);
    yaml_node_t *list = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
         p++) {
        const char *key = gs_yaml_text(gs_yaml_node(y, p->key));
        if (key && !strcmp(key, "tokens"))
            list = gs_yaml_node(y, p->value);
        else
            return gs_yaml_error(y, gs_yaml_node(y, p->key), GS_EINVAL, err,
                                 "unknown key '%s'", key ? key : "?");
    }
    if (!list || list->type != YAML_SEQUENCE_NODE)
        return gs_errorf(err, GS_EINVAL, "%s: tokens: expected a list", y->name);
    size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
    out->v = calloc(n + 1, sizeof *out->v);
    if (!out->v)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int rc = one_token(y, gs_yaml_node(y, list->data.sequence.items.start[i]), (int)i,
                           &out->v[i], err);
        if (rc < 0)
            return rc;
        out->n = i + 1;
    }
    return 0;
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
    for (size_t i = 0; t && t->v && i <= t->n; i++) {
        free(t->v[i].token);
        free(t->v[i].team);
    }
    if (t) {
        free(t->v);
        memset(t, 0, sizeof *t);
    }
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
