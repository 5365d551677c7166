/* policy_part.c - the `partitions:` list of the policy file.
 *
 * Each item is a mapping; the reader calls gs_policy_list_add() to open an
 * item and then sets its keys as "partitions.KEY", which land on the last
 * item.  Keys: name, nodes (a name or a bracket range, several allowed),
 * gpus or share (a GPU quota in the pool of unbound nodes), classes (train,
 * infer; several allowed), granularity (exclusive | shared), preemption
 * (inherit | none | checkpoint | immediate) and borrow (true | false).
 * Whether names match the cluster is checked when an engine is created
 * (partition.c), since a policy does not know the cluster.
 */
#include "core/policy/policy_private.h"
#include "core/base/alloc.h"
#include "core/policy/job.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "partitions"
#define MAX_PARTITIONS 64
#define MAX_NODE_ITEMS 4096

int gs_policy_part_key(const char *path)
{
    size_t n = strlen(PREFIX);
    return strncmp(path, PREFIX, n) == 0 && (path[n] == '\0' || path[n] == '.');
}

int gs_policy_is_list(const char *path)
{
    return strcmp(path, PREFIX) == 0;
}

int gs_policy_is_multi(const char *path)
{
    return strcmp(path, PREFIX ".nodes") == 0 || strcmp(path, PREFIX ".classes") == 0 ||
           strcmp(path, "retry.on") == 0;
}

static void part_init(struct gs_partition *q)
{
    memset(q, 0, sizeof *q);
    q->gpus = -1;
    q->granularity = -1;
    q->preempt_mode = GS_PREEMPT_INHERIT;
}

static void part_free(struct gs_partition *q)
{
    gs_free(q->name);
    for (int i = 0; i < q->nnodes; i++)
        gs_free(q->nodes[i]);
    gs_free(q->nodes);
    part_init(q);
}

int gs_policy_list_add(struct gs_policy *p, const char *path, struct gs_error *err)
{
    if (!gs_policy_is_list(path))
        return gs_errorf(err, GS_ENOENT, "'%s' is not a list", path);
    if (p->npartitions >= MAX_PARTITIONS)
        return gs_errorf(err, GS_ERANGE, "%s: at most %d items", path, MAX_PARTITIONS);
    void *n = gs_realloc(p->partitions, (size_t)(p->npartitions + 1) * sizeof *p->partitions);
    if (!n)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    p->partitions = n;
    part_init(&p->partitions[p->npartitions++]);
    return 0;
}

static int lookup(const char *const *names, const char *v)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], v) == 0)
            return i;
    return -1;
}

static int add_node(struct gs_partition *q, const char *key, const char *v,
                    struct gs_error *err)
{
    if (!*v)
        return gs_errorf(err, GS_EINVAL, "%s: empty node name", key);
    if (q->nnodes >= MAX_NODE_ITEMS)
        return gs_errorf(err, GS_ERANGE, "%s: too many entries", key);
    void *n = gs_realloc(q->nodes, (size_t)(q->nnodes + 1) * sizeof *q->nodes);
    if (!n)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    q->nodes = n;
    q->nodes[q->nnodes] = gs_strdup(v);
    if (!q->nodes[q->nnodes])
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    q->nnodes++;
    return 0;
}

static int set_number(const char *key, const char *v, double min, double max, double *out,
                      struct gs_error *err)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(d))
        return gs_errorf(err, GS_EINVAL, "%s: '%s' is not a number", key, v);
    if (d < min || d > max)
        return gs_errorf(err, GS_ERANGE, "%s: %s is outside [%g, %g]", key, v, min, max);
    *out = d;
    return 0;
}

/* Index of `v` in `names` into *out; -1 when absent (the caller words the
 * message). */
static int set_enum(const char *const *names, const char *v, int *out)
{
    int i = lookup(names, v);
    if (i < 0)
        return -1;
    *out = i;
    return 0;
}

static int set_field(struct gs_partition *q, const char *path, const char *key,
                     const char *v, struct gs_error *err)
{
    static const char *const classes[] = { "train", "infer", NULL };
    static const char *const gran[] = { "exclusive", "shared", NULL };
    static const char *const modes[] = { "inherit", "none", "checkpoint", "immediate", NULL };
    static const char *const bools[] = { "false", "true", NULL };
    double d = 0;
    int i, rc;
    if (strcmp(key, "name") == 0) {
        char *s = gs_strdup(v);
        if (!s)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
        gs_free(q->name);
        q->name = s;
        return 0;
    }
    if (strcmp(key, "nodes") == 0)
        return add_node(q, path, v, err);
    if (strcmp(key, "gpus") == 0) {
        rc = set_number(path, v, 0, 1 << 24, &d, err);
        if (rc == 0 && d != floor(d))
            rc = gs_errorf(err, GS_EINVAL, "%s: '%s' is not a whole GPU count", path, v);
        if (rc == 0)
            q->gpus = (int)d;
        return rc;
    }
    if (strcmp(key, "share") == 0) {
        rc = set_number(path, v, 0, 1, &d, err);
        if (rc == 0 && d <= 0)
            rc = gs_errorf(err, GS_ERANGE, "%s: share must be in (0, 1]", path);
        if (rc == 0)
            q->share = d;
        return rc;
    }
    if (strcmp(key, "classes") == 0) {
        if (set_enum(classes, v, &i) < 0)
            return gs_errorf(err, GS_EINVAL, "%s: '%s' is not train | infer", path, v);
        q->classes |= 1 << i;
        return 0;
    }
    if (strcmp(key, "granularity") == 0)
        return set_enum(gran, v, &q->granularity) == 0
                   ? 0
                   : gs_errorf(err, GS_EINVAL, "%s: '%s' is not exclusive | shared", path, v);
    if (strcmp(key, "preemption") == 0) {
        if (set_enum(modes, v, &i) < 0)
            return gs_errorf(err, GS_EINVAL,
                             "%s: '%s' is not inherit | none | checkpoint | immediate", path,
                             v);
        q->preempt_mode = i - 1; /* inherit = GS_PREEMPT_INHERIT = -1 */
        return 0;
    }
    if (strcmp(key, "borrow") == 0)
        return set_enum(bools, v, &q->borrow) == 0
                   ? 0
                   : gs_errorf(err, GS_EINVAL, "%s: '%s' is not true | false", path, v);
    return gs_errorf(err, GS_ENOENT, "unknown policy key '%s'", path);
}

int gs_policy_part_set(struct gs_policy *p, const char *path, const char *value,
                       struct gs_error *err)
{
    static const char *const known[] = { "name", "nodes", "gpus", "share", "classes",
                                         "granularity", "preemption", "borrow", NULL };
    size_t n = strlen(PREFIX);
    if (path[n] == '\0')
        return gs_errorf(err, GS_EINVAL, "%s: expected a list of mappings", path);
    const char *key = path + n + 1;
    if (lookup(known, key) < 0)
        return gs_errorf(err, GS_ENOENT, "unknown policy key '%s'", path);
    if (p->npartitions == 0)
        return gs_errorf(err, GS_EINVAL, "%s: no partition item to set", path);
    return set_field(&p->partitions[p->npartitions - 1], path, key, value ? value : "", err);
}

static int copy_one(struct gs_partition *d, const struct gs_partition *s)
{
    *d = *s;
    d->name = NULL;
    d->nodes = NULL;
    d->nnodes = 0;
    if (s->name && !(d->name = gs_strdup(s->name)))
        return GS_ENOMEM;
    if (s->nnodes > 0 && !(d->nodes = gs_calloc((size_t)s->nnodes, sizeof *d->nodes)))
        return GS_ENOMEM;
    for (int i = 0; i < s->nnodes; i++) {
        d->nodes[i] = gs_strdup(s->nodes[i]);
        if (!d->nodes[i])
            return GS_ENOMEM;
        d->nnodes = i + 1;
    }
    return 0;
}

int gs_policy_part_copy(struct gs_policy *dst, const struct gs_policy *src)
{
    dst->partitions = NULL;
    dst->npartitions = 0;
    if (src->npartitions == 0)
        return 0;
    dst->partitions = gs_calloc((size_t)src->npartitions, sizeof *dst->partitions);
    if (!dst->partitions)
        return GS_ENOMEM;
    for (int i = 0; i < src->npartitions; i++) {
        dst->npartitions = i + 1;
        if (copy_one(&dst->partitions[i], &src->partitions[i]) < 0) {
            gs_policy_part_fini(dst);
            return GS_ENOMEM;
        }
    }
    return 0;
}

void gs_policy_part_fini(struct gs_policy *p)
{
    for (int i = 0; i < p->npartitions; i++)
        part_free(&p->partitions[i]);
    gs_free(p->partitions);
    p->partitions = NULL;
    p->npartitions = 0;
}
