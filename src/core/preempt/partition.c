/* partition.c - partitions: which nodes a job may use and whose GPU quota
 * it counts against (docs/preemption.md).
 *
 * A partition is either bound to nodes (`nodes:` names or bracket ranges;
 * its jobs run only there and nobody else's do: a hard partition) or a
 * GPU quota (`gpus:` or `share:` of the cluster's GPUs) in the pool of
 * nodes that no partition is bound to.  A quota partition with `borrow`
 * may exceed its quota using the idle quota of other quota partitions; its
 * jobs then hold borrowed GPUs, which the owners reclaim by preemption
 * (preempt.c).  A job belongs to the partition named by its `queue` label
 * when that partition allows its class, else to the first partition that
 * allows its class; with partitions configured, a job that fits none is
 * rejected.  `granularity: exclusive` gives a fractional job a whole GPU.
 */
#include "core/preempt/preempt_private.h"
#include "core/base/alloc.h"

#include <stdio.h>
#include <string.h>

#define NAME_BUF 160

/* Mark node `name` in `set`; 0, or GS_EINVAL when there is no such node. */
static int mark_node(const struct gs_cluster *cl, unsigned char *set, const char *name)
{
    int n = gs_cluster_find_node(cl, name);
    if (n < 0)
        return GS_EINVAL;
    set[n] = 1;
    return 0;
}

static int mark_spec(const struct gs_cluster *cl, unsigned char *set, const char *spec,
                     int depth);

/* Expand one range "lo-hi" (or a single number) of the first bracket of
 * "pre[...]post" and mark what each value gives (`post` may hold more
 * brackets).  Keeps the width of `lo` as written, so "gpu[01-10]" gives
 * gpu01 (formats.md).  Returns 0 or GS_EINVAL. */
static int mark_range(const struct gs_cluster *cl, unsigned char *set, const char *pre,
                      size_t npre, const char *tok, size_t ntok, const char *post, int depth)
{
    char buf[NAME_BUF];
    long lo = 0, hi = -1;
    size_t i = 0, width = 0;
    while (i < ntok && tok[i] >= '0' && tok[i] <= '9' && lo < 100000000)
        lo = lo * 10 + (tok[i++] - '0');
    width = i;
    if (width == 0)
        return GS_EINVAL;
    hi = lo;
    if (i < ntok && tok[i] == '-') {
        size_t j = ++i;
        for (hi = 0; i < ntok && tok[i] >= '0' && tok[i] <= '9' && hi < 100000000; i++)
            hi = hi * 10 + (tok[i] - '0');
        if (i == j)
            return GS_EINVAL;
    }
    if (i != ntok || hi < lo || hi - lo > 100000)
        return GS_EINVAL;
    for (long v = lo; v <= hi; v++) {
        int n = snprintf(buf, sizeof buf, "%.*s%0*ld%s", (int)npre, pre, (int)width, v, post);
        if (n < 0 || n >= (int)sizeof buf || mark_spec(cl, set, buf, depth + 1) < 0)
            return GS_EINVAL;
    }
    return 0;
}

/* Mark the nodes named by `spec`: a node name or a bracket expression as
 * in the cluster file ("node-[1-4]", "n[1,3-5]", "r[1-2]n[1-2]"). */
static int mark_spec(const struct gs_cluster *cl, unsigned char *set, const char *spec,
                     int depth)
{
    const char *lb = strchr(spec, '['), *rb = lb ? strchr(lb, ']') : NULL;
    if (!lb)
        return mark_node(cl, set, spec);
    if (!rb || depth > 8 || strlen(rb + 1) >= NAME_BUF)
        return GS_EINVAL;
    for (const char *p = lb + 1; p < rb;) {
        const char *comma = memchr(p, ',', (size_t)(rb - p));
        const char *end = comma ? comma : rb;
        if (mark_range(cl, set, spec, (size_t)(lb - spec), p, (size_t)(end - p), rb + 1,
                       depth) < 0)
            return GS_EINVAL;
        p = end + 1;
    }
    return 0;
}

static const char *part_name(const struct gs_policy *pol, int i, char *buf, size_t n)
{
    const char *name = pol->partitions[i].name;
    if (name && *name)
        return name;
    snprintf(buf, n, "#%d", i + 1);
    return buf;
}

/* Node set of a node-bound partition; every node must be in at most one. */
static int bind_nodes(struct gs_engine *eng, int i, unsigned char *taken, struct gs_error *err)
{
    const struct gs_partition *q = &eng->pol.partitions[i];
    struct part_rt *r = &eng->pre->parts[i];
    int nn = gs_cluster_node_count(eng->cl);
    char nb[16];
    const char *name = part_name(&eng->pol, i, nb, sizeof nb);
    if (q->gpus >= 0 || q->share > 0)
        return gs_errorf(err, GS_EINVAL, "partition %s: give nodes or gpus/share, not both",
                         name);
    r->own = gs_calloc((size_t)nn, 1);
    if (!r->own)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    for (int k = 0; k < q->nnodes; k++)
        if (mark_spec(eng->cl, r->own, q->nodes[k], 0) < 0)
            return gs_errorf(err, GS_EINVAL, "partition %s: no node '%s' in the cluster",
                             name, q->nodes[k]);
    for (int n = 0; n < nn; n++) {
        if (!r->own[n])
            continue;
        if (taken[n])
            return gs_errorf(err, GS_EINVAL, "partition %s: node %s is already in another "
                             "partition", name, gs_cluster_node_name(eng->cl, n));
        taken[n] = 1;
    }
    r->bound = 1;
    r->allowed = r->own;
    return 0;
}

static void copy_settings(struct part_rt *r, const struct gs_partition *q, int64_t gpus)
{
    r->classes = q->classes;
    r->granularity = q->granularity;
    r->mode = q->preempt_mode;
    r->borrow = q->borrow;
    r->limit = -1;
    if (q->gpus >= 0)
        r->limit = (int64_t)q->gpus * GS_MILLI_GPU;
    else if (q->share > 0)
        r->limit = (int64_t)(q->share * (double)gpus + 0.5) * GS_MILLI_GPU;
}

/* Quota partitions share the pool: the nodes no partition is bound to. */
static int make_pool(struct gs_engine *eng, unsigned char *taken, struct gs_error *err)
{
    struct gs_preempt *pre = eng->pre;
    int nn = gs_cluster_node_count(eng->cl), any_bound = 0, free_nodes = 0;
    for (int n = 0; n < nn; n++) {
        any_bound |= taken[n];
        free_nodes += !taken[n];
    }
    if (any_bound) {
        for (int n = 0; n < nn; n++)
            taken[n] = !taken[n];
        pre->pool = taken; /* ownership moves to pre */
    } else {
        gs_free(taken);
    }
    for (int i = 0; i < pre->nparts; i++) {
        if (pre->parts[i].bound)
            continue;
        char nb[16];
        if (free_nodes == 0)
            return gs_errorf(err, GS_EINVAL, "partition %s: every node is bound to another "
                             "partition", part_name(&eng->pol, i, nb, sizeof nb));
        pre->parts[i].allowed = pre->pool;
    }
    return 0;
}

int gs_eng_part_init(struct gs_engine *eng, struct gs_error *err)
{
    struct gs_preempt *pre = eng->pre;
    int np = eng->pol.npartitions, nn = gs_cluster_node_count(eng->cl);
    if (np == 0)
        return 0;
    pre->parts = gs_calloc((size_t)np, sizeof *pre->parts);
    unsigned char *taken = gs_calloc((size_t)nn, 1);
    if (!pre->parts || !taken) {
        gs_free(taken);
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    }
    pre->nparts = np;
    int64_t gpus = gs_cluster_gpu_count(eng->cl);
    for (int i = 0; i < np; i++) {
        const struct gs_partition *q = &eng->pol.partitions[i];
        copy_settings(&pre->parts[i], q, gpus);
        int rc = q->nnodes > 0 ? bind_nodes(eng, i, taken, err) : 0;
        if (rc < 0) {
            gs_free(taken);
            return rc;
        }
    }
    return make_pool(eng, taken, err);
}

void gs_eng_part_fini(struct gs_engine *eng)
{
    struct gs_preempt *pre = eng->pre;
    for (int i = 0; i < pre->nparts; i++)
        gs_free(pre->parts[i].own);
    gs_free(pre->parts);
    gs_free(pre->pool);
    pre->parts = NULL;
    pre->pool = NULL;
    pre->nparts = 0;
}

static int allows(const struct part_rt *r, int klass)
{
    return r->classes == 0 || (r->classes & (1 << klass));
}

int gs_eng_part_pick(const struct gs_engine *eng, struct job *j, const char *label)
{
    const struct gs_preempt *pre = eng->pre;
    j->part = 0;
    if (!pre || pre->nparts == 0)
        return 0;
    int pick = -1;
    for (int i = 0; i < pre->nparts && label && *label; i++) {
        const char *name = eng->pol.partitions[i].name;
        if (name && strcmp(name, label) == 0 && allows(&pre->parts[i], j->klass))
            pick = i;
    }
    for (int i = 0; i < pre->nparts && pick < 0; i++)
        if (allows(&pre->parts[i], j->klass))
            pick = i;
    if (pick < 0)
        return GS_ENOENT;
    j->part = (uint8_t)(pick + 1);
    if (pre->parts[pick].granularity == GS_SHARING_EXCLUSIVE && j->milli < GS_MILLI_GPU) {
        j->milli = GS_MILLI_GPU;
        j->mem_mib = -1;
    }
    return 0;
}

const unsigned char *gs_eng_part_nodes_of(const struct gs_engine *eng, int part)
{
    return part > 0 ? eng->pre->parts[part - 1].allowed : NULL;
}

const unsigned char *gs_eng_part_nodes(const struct gs_engine *eng, int job)
{
    return gs_eng_part_nodes_of(eng, eng->jobs[job].part);
}

uint64_t gs_eng_part_queue_group(const struct gs_engine *eng, int job)
{
    return 1ULL << (eng->jobs[job].part % 64);
}

void gs_eng_part_account(struct gs_engine *eng, int job, int sign)
{
    const struct job *j = &eng->jobs[job];
    if (j->part > 0)
        eng->pre->parts[j->part - 1].used += sign * (int64_t)j->gpus * j->milli;
}

/* GS_HOOK_STARTED / GS_HOOK_STOPPED: the partition's usage. */
static void part_started(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    gs_eng_part_account(eng, job, +1);
}

static void part_stopped(struct gs_engine *eng, int job, gs_time t)
{
    (void)t;
    gs_eng_part_account(eng, job, -1);
}

void gs_eng_part_hooks(struct gs_eng_hooks *h)
{
    gs_eng_hook_add(h, GS_HOOK_STARTED, part_started);
    gs_eng_hook_add(h, GS_HOOK_STOPPED, part_stopped);
    h->part_pick = gs_eng_part_pick;
    h->part_nodes = gs_eng_part_nodes_of;
}

/* Idle quota of quota partitions other than `except`, minus what is
 * already lent out. */
static int64_t lendable(const struct gs_preempt *pre, int except)
{
    int64_t unused = 0, borrowed = 0;
    for (int i = 0; i < pre->nparts; i++) {
        const struct part_rt *r = &pre->parts[i];
        if (i == except || r->limit < 0)
            continue;
        if (r->used < r->limit)
            unused += r->limit - r->used;
        else
            borrowed += r->used - r->limit;
    }
    return unused - borrowed;
}

int gs_eng_part_quota_ok(const struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    if (j->part <= 0)
        return 1;
    const struct part_rt *r = &eng->pre->parts[j->part - 1];
    int64_t need = (int64_t)j->gpus * j->milli;
    if (r->limit < 0 || r->used + need <= r->limit)
        return 1;
    return r->borrow && r->used + need - r->limit <= lendable(eng->pre, j->part - 1);
}

int gs_eng_part_over(const struct gs_engine *eng, int job)
{
    int p = eng->jobs[job].part;
    if (p <= 0)
        return 0;
    const struct part_rt *r = &eng->pre->parts[p - 1];
    return r->limit >= 0 && r->used > r->limit;
}

int gs_eng_part_within(const struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    if (j->part <= 0)
        return 0;
    const struct part_rt *r = &eng->pre->parts[j->part - 1];
    return r->limit >= 0 && r->used + (int64_t)j->gpus * j->milli <= r->limit;
}

int gs_eng_part_job_mode(const struct gs_engine *eng, int job)
{
    const struct job *j = &eng->jobs[job];
    if (j->part > 0 && eng->pre->parts[j->part - 1].mode != GS_PREEMPT_INHERIT)
        return eng->pre->parts[j->part - 1].mode;
    int m = eng->pol.preempt_class[j->klass == GS_CLASS_INFER];
    return m != GS_PREEMPT_INHERIT ? m : eng->pol.preempt_mode;
}

const char *gs_engine_partition_name(const struct gs_engine *eng, int handle)
{
    int job = gs_eng_slot(eng, handle);
    if (job < 0 || eng->jobs[job].part <= 0)
        return NULL;
    const char *name = eng->pol.partitions[eng->jobs[job].part - 1].name;
    return name ? name : "";
}
