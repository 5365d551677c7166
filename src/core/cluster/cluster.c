/* cluster.c - cluster model and incremental schedulability bookkeeping. */
#include "core/cluster/cluster.h"
#include "core/base/alloc.h"
#include "core/cluster/cluster_private.h"

#include <string.h>

static int popcount64(uint64_t x)
{
    return __builtin_popcountll(x);
}

static uint64_t low_mask(int n)
{
    return n >= 64 ? ~0ULL : ((1ULL << n) - 1);
}

/* Free the per-GPU and per-node arrays that gs_cluster_seal allocates and
 * leave them NULL (a failed seal may be retried). */
static void free_seal_arrays(struct gs_cluster *cl)
{
    gs_free(cl->milli);
    gs_free(cl->mem);
    gs_free(cl->users);
    gs_free(cl->full);
    gs_free(cl->idle_arr);
    gs_free(cl->ndom_arr);
    gs_free(cl->part_arr);
    gs_free(cl->ver_arr);
    cl->milli = NULL;
    cl->mem = NULL;
    cl->users = NULL;
    cl->full = NULL;
    cl->idle_arr = NULL;
    cl->ndom_arr = NULL;
    cl->part_arr = NULL;
    cl->ver_arr = NULL;
}

struct gs_cluster *gs_cluster_create(void)
{
    struct gs_cluster *cl = gs_calloc(1, sizeof *cl);
    if (!cl)
        return NULL;
    cl->names = gs_strtab_create();
    cl->labels = gs_strtab_create();
    if (!cl->names || !cl->labels) {
        gs_cluster_destroy(cl);
        return NULL;
    }
    return cl;
}

void gs_cluster_destroy(struct gs_cluster *cl)
{
    if (!cl)
        return;
    gs_free(cl->types);
    gs_free(cl->nodes);
    gs_strtab_destroy(cl->names);
    gs_strtab_destroy(cl->labels);
    free_seal_arrays(cl);
    gs_free(cl->mig);
    gs_dom_index_destroy(cl->dix);
    gs_free(cl);
}

int gs_cluster_add_gpu_type(struct gs_cluster *cl, const char *name,
                            int64_t mem_mib, struct gs_error *err)
{
    size_t len = name ? strlen(name) : 0;
    if (len == 0 || len >= GS_NAME_MAX)
        return gs_errorf(err, GS_EINVAL, "gpu type name must be 1-%d characters",
                         GS_NAME_MAX - 1);
    if (mem_mib <= 0)
        return gs_errorf(err, GS_EINVAL, "gpu type '%s': memory must be > 0", name);
    if (gs_cluster_find_gpu_type(cl, name) >= 0)
        return gs_errorf(err, GS_EEXIST, "gpu type '%s' defined twice", name);
    if (gs_grow((void **)&cl->types, &cl->types_cap, cl->ntypes + 1, sizeof *cl->types))
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    struct gpu_type *t = &cl->types[cl->ntypes];
    memset(t, 0, sizeof *t);
    memcpy(t->name, name, len + 1); /* len < GS_NAME_MAX, checked above */
    t->mem_mib = mem_mib;
    t->mig_model = -1;
    return (int)cl->ntypes++;
}

int gs_cluster_set_gpu_type_mig(struct gs_cluster *cl, int type, int model)
{
    if (type < 0 || (size_t)type >= cl->ntypes || model < -1 || model >= GS_MIG_MODELS)
        return GS_EINVAL;
    cl->types[type].mig_model = model;
    return 0;
}

int gs_cluster_gpu_type_mig(const struct gs_cluster *cl, int type)
{
    return type >= 0 && (size_t)type < cl->ntypes ? cl->types[type].mig_model : -1;
}

int gs_cluster_find_gpu_type(const struct gs_cluster *cl, const char *name)
{
    for (size_t i = 0; i < cl->ntypes; i++)
        if (strcmp(cl->types[i].name, name) == 0)
            return (int)i;
    return GS_ENOENT;
}

static int check_node_spec(const struct gs_cluster *cl, const struct gs_node_spec *s,
                           struct gs_error *err)
{
    if (!s->name || !*s->name || strlen(s->name) >= GS_NAME_MAX)
        return gs_errorf(err, GS_EINVAL, "node name must be 1-%d characters",
                         GS_NAME_MAX - 1);
    if (s->gpus < 0 || s->gpus > GS_MAX_NODE_GPUS)
        return gs_errorf(err, GS_EINVAL, "node '%s': gpus must be 0-%d", s->name,
                         GS_MAX_NODE_GPUS);
    if (s->gpus > 0 && (s->gpu_type < 0 || (size_t)s->gpu_type >= cl->ntypes))
        return gs_errorf(err, GS_EINVAL, "node '%s': unknown gpu type", s->name);
    if (s->ndomains < 0 || s->ndomains > GS_MAX_NODE_DOMAINS)
        return gs_errorf(err, GS_EINVAL, "node '%s': at most %d nvlink domains",
                         s->name, GS_MAX_NODE_DOMAINS);
    int sum = 0;
    for (int d = 0; d < s->ndomains; d++) {
        if (s->domain_sizes[d] <= 0)
            return gs_errorf(err, GS_EINVAL, "node '%s': nvlink domain sizes must be > 0",
                             s->name);
        sum += s->domain_sizes[d];
    }
    if (s->ndomains > 0 && sum != s->gpus)
        return gs_errorf(err, GS_EINVAL,
                         "node '%s': nvlink_domains sum to %d but the node has %d gpus",
                         s->name, sum, s->gpus);
    if (s->cpu_milli < 0 || s->mem_mib < 0)
        return gs_errorf(err, GS_EINVAL, "node '%s': cpu and memory must be >= 0", s->name);
    return 0;
}

static int intern_label(struct gs_cluster *cl, const char *label)
{
    if (!label || !*label)
        return -1;
    return gs_strtab_intern(cl->labels, label);
}

static void fill_domains(struct node *n, const struct gs_node_spec *s)
{
    if (s->ndomains == 0 || s->gpus == 0) {
        n->ndom = s->gpus > 0 ? 1 : 0;
        n->dom_mask[0] = low_mask(s->gpus);
        return;
    }
    int at = 0;
    n->ndom = s->ndomains;
    for (int d = 0; d < s->ndomains; d++) {
        n->dom_mask[d] = low_mask(s->domain_sizes[d]) << at;
        at += s->domain_sizes[d];
    }
}

int gs_cluster_add_node(struct gs_cluster *cl, const struct gs_node_spec *s,
                        struct gs_error *err)
{
    if (cl->sealed)
        return gs_errorf(err, GS_ESTATE, "cluster is sealed; cannot add nodes");
    int rc = check_node_spec(cl, s, err);
    if (rc < 0)
        return rc;
    if (gs_strtab_find(cl->names, s->name) >= 0)
        return gs_errorf(err, GS_EEXIST, "node '%s' defined twice", s->name);
    /* the node name is interned last: a failure before it leaves no trace
     * that would make a retry look like a duplicate */
    int rack = intern_label(cl, s->rack);
    int mdom = intern_label(cl, s->mdomain);
    if ((s->rack && *s->rack && rack < 0) || (s->mdomain && *s->mdomain && mdom < 0) ||
        gs_grow((void **)&cl->nodes, &cl->nodes_cap, cl->nnodes + 1, sizeof *cl->nodes))
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int id = gs_strtab_intern(cl->names, s->name);
    if (id < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    struct node *n = &cl->nodes[cl->nnodes];
    memset(n, 0, sizeof *n);
    n->gpus = s->gpus;
    n->first_gpu = (int)cl->ngpus;
    n->type = s->gpus > 0 ? s->gpu_type : -1;
    n->rack = rack;
    n->mdomain = mdom;
    n->cpu = s->cpu_milli;
    n->mem = s->mem_mib;
    fill_domains(n, s);
    n->idle = low_mask(s->gpus);
    for (int d = 0; d < n->ndom; d++) {
        int size = popcount64(n->dom_mask[d]);
        if (size > cl->max_domain)
            cl->max_domain = size;
    }
    if (s->gpus > cl->max_node)
        cl->max_node = s->gpus;
    cl->ngpus += s->gpus;
    return (int)cl->nnodes++;
}

uint64_t gs_cluster_take_whole_domains(const struct gs_cluster *cl, int node, uint64_t idle,
                                       int k)
{
    const struct node *n = &cl->nodes[node];
    int need = k;
    uint64_t take = 0;
    for (int d = 0; d < n->ndom && need > 0; d++) {
        int size = popcount64(n->dom_mask[d]);
        if ((idle & n->dom_mask[d]) == n->dom_mask[d] && size <= need) {
            take |= n->dom_mask[d];
            need -= size;
        }
    }
    if (need == 0)
        return take;
    int best = -1, best_free = 1 << 30;
    for (int d = 0; d < n->ndom; d++) {
        int f = popcount64(idle & ~take & n->dom_mask[d]);
        if (f >= need && f < best_free) {
            best = d;
            best_free = f;
        }
    }
    if (best < 0)
        return 0;
    uint64_t avail = idle & ~take & n->dom_mask[best];
    for (int i = 0; i < need; i++) {
        uint64_t bit = avail & -avail;
        take |= bit;
        avail &= ~bit;
    }
    return take;
}

/* k-jobs that fit a node when k is larger than every domain of the cluster:
 * repeatedly apply the whole-domain placement rule. */
static int sched_whole_domains(const struct gs_cluster *cl, int node, uint64_t idle, int k)
{
    int count = 0;
    for (uint64_t take; (take = gs_cluster_take_whole_domains(cl, node, idle, k)) != 0;) {
        idle &= ~take;
        count++;
    }
    return count;
}

int gs_cluster_node_sched(const struct gs_cluster *cl, int node, uint64_t idle, int k)
{
    const struct node *n = &cl->nodes[node];
    if (k <= 0 || k > n->gpus)
        return 0;
    if (k <= cl->max_domain) {
        int s = 0;
        for (int d = 0; d < n->ndom; d++)
            s += popcount64(idle & n->dom_mask[d]) / k;
        return s;
    }
    return sched_whole_domains(cl, node, idle, k);
}

/* Remove (sign -1) or add (sign +1) a node's contribution to the stats. */
void gs_cl_account_node(struct gs_cluster *cl, struct node *n, int node, int sign)
{
    int idle = popcount64(n->idle);
    if (sign > 0) {
        if (n->gpus >= cl->k && cl->k > 0) {
            n->sched = gs_cluster_node_sched(cl, node, n->idle, cl->k);
            int unbounded = idle / cl->k;
            n->frag_topo = cl->k * (unbounded - n->sched);
            if (n->frag_topo < 0)
                n->frag_topo = 0;
        } else {
            n->sched = 0;
            n->frag_topo = 0;
        }
    }
    cl->idle_gpus += (int64_t)sign * idle;
    cl->sched_nodes += (int64_t)sign * n->sched;
    cl->frag_topo += (int64_t)sign * n->frag_topo;
    /* nodes smaller than k pool their GPUs only when k is larger than every
     * node: then jobs span whole nodes; otherwise the topology rule keeps a
     * k-GPU job on one node and small nodes cannot serve it */
    if (n->gpus < cl->k && n->gpus > 0 && idle == n->gpus && cl->k > cl->max_node)
        cl->whole_idle_small += (int64_t)sign * n->gpus;
    if (sign > 0 && cl->dix)
        gs_dom_index_update(cl->dix, cl, node);
}

int gs_cluster_seal(struct gs_cluster *cl, int k, struct gs_error *err)
{
    if (cl->nnodes == 0 || cl->ngpus == 0)
        return gs_errorf(err, GS_EINVAL, "cluster has no GPUs");
    if (k < 0)
        return gs_errorf(err, GS_EINVAL, "schedulability k must be >= 0");
    if (!cl->sealed) {
        if (!cl->dix)
            cl->dix = gs_dom_index_create(cl); /* kept across a failed seal */
        if (!cl->dix)
            return gs_errorf(err, GS_ENOMEM, "out of memory");
        cl->milli = gs_calloc((size_t)cl->ngpus, sizeof *cl->milli);
        cl->mem = gs_calloc((size_t)cl->ngpus, sizeof *cl->mem);
        cl->users = gs_calloc((size_t)cl->ngpus, sizeof *cl->users);
        cl->full = gs_calloc(cl->nnodes, sizeof *cl->full);
        cl->idle_arr = gs_calloc(cl->nnodes, sizeof *cl->idle_arr);
        cl->ndom_arr = gs_calloc(cl->nnodes, sizeof *cl->ndom_arr);
        cl->part_arr = gs_calloc(cl->nnodes, sizeof *cl->part_arr);
        cl->ver_arr = gs_calloc(cl->nnodes, sizeof *cl->ver_arr);
        if (!cl->milli || !cl->mem || !cl->users || !cl->full || !cl->idle_arr ||
            !cl->ndom_arr || !cl->part_arr || !cl->ver_arr) {
            free_seal_arrays(cl);
            return gs_errorf(err, GS_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < cl->nnodes; i++) {
            cl->full[i] = low_mask(cl->nodes[i].gpus);
            cl->idle_arr[i] = cl->nodes[i].idle;
            cl->ndom_arr[i] = (uint8_t)cl->nodes[i].ndom;
        }
    } else {
        for (size_t i = 0; i < cl->nnodes; i++)
            gs_cl_account_node(cl, &cl->nodes[i], (int)i, -1);
    }
    cl->sealed = 1;
    cl->k = k ? k : cl->max_domain;
    for (size_t i = 0; i < cl->nnodes; i++)
        gs_cl_account_node(cl, &cl->nodes[i], (int)i, +1);
    return 0;
}

static void *dup_array(const void *src, size_t n, size_t elem)
{
    if (n == 0)
        return NULL;
    void *p = gs_malloc(n * elem);
    if (p)
        memcpy(p, src, n * elem);
    return p;
}

static struct gs_strtab *dup_strtab(const struct gs_strtab *src)
{
    struct gs_strtab *t = gs_strtab_create();
    if (!t)
        return NULL;
    for (int i = 0; i < gs_strtab_count(src); i++) {
        if (gs_strtab_intern(t, gs_strtab_name(src, i)) < 0) {
            gs_strtab_destroy(t);
            return NULL;
        }
    }
    return t;
}

struct gs_cluster *gs_cluster_clone(const struct gs_cluster *cl)
{
    struct gs_cluster *c = gs_calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *cl;
    c->types = dup_array(cl->types, cl->ntypes, sizeof *cl->types);
    c->types_cap = cl->ntypes;
    c->nodes = dup_array(cl->nodes, cl->nnodes, sizeof *cl->nodes);
    c->nodes_cap = cl->nnodes;
    c->names = dup_strtab(cl->names);
    c->labels = dup_strtab(cl->labels);
    size_t g = cl->sealed ? (size_t)cl->ngpus : 0;
    c->milli = dup_array(cl->milli, g, sizeof *cl->milli);
    c->mem = dup_array(cl->mem, g, sizeof *cl->mem);
    c->users = dup_array(cl->users, g, sizeof *cl->users);
    c->full = dup_array(cl->full, cl->sealed ? cl->nnodes : 0, sizeof *cl->full);
    c->mig = cl->mig ? dup_array(cl->mig, g, sizeof *cl->mig) : NULL;
    c->dix = cl->dix ? gs_dom_index_clone(cl->dix, cl->nnodes) : NULL;
    size_t nn = cl->sealed ? cl->nnodes : 0;
    c->idle_arr = dup_array(cl->idle_arr, nn, sizeof *cl->idle_arr);
    c->ndom_arr = dup_array(cl->ndom_arr, nn, sizeof *cl->ndom_arr);
    c->part_arr = dup_array(cl->part_arr, nn, sizeof *cl->part_arr);
    c->ver_arr = dup_array(cl->ver_arr, nn, sizeof *cl->ver_arr);
    if ((cl->ntypes && !c->types) || (cl->nnodes && !c->nodes) || !c->names ||
        !c->labels || (g && (!c->milli || !c->mem || !c->users || !c->full)) ||
        (cl->mig && !c->mig) || (cl->dix && !c->dix) || (nn && (!c->idle_arr || !c->ndom_arr || !c->part_arr || !c->ver_arr))) {
        gs_cluster_destroy(c);
        return NULL;
    }
    return c;
}

int gs_cluster_node_count(const struct gs_cluster *cl) { return (int)cl->nnodes; }
int64_t gs_cluster_gpu_count(const struct gs_cluster *cl) { return cl->ngpus; }
int gs_cluster_gpu_type_count(const struct gs_cluster *cl) { return (int)cl->ntypes; }
int gs_cluster_max_domain(const struct gs_cluster *cl) { return cl->max_domain; }
int gs_cluster_max_node_gpus(const struct gs_cluster *cl) { return cl->max_node; }

const char *gs_cluster_gpu_type_name(const struct gs_cluster *cl, int type)
{
    return type >= 0 && (size_t)type < cl->ntypes ? cl->types[type].name : NULL;
}

int64_t gs_cluster_gpu_type_mem(const struct gs_cluster *cl, int type)
{
    return type >= 0 && (size_t)type < cl->ntypes ? cl->types[type].mem_mib : 0;
}

int gs_cluster_find_node(const struct gs_cluster *cl, const char *name)
{
    return gs_strtab_find(cl->names, name);
}

const char *gs_cluster_node_name(const struct gs_cluster *cl, int node)
{
    return gs_strtab_name(cl->names, node);
}

int gs_cluster_node_gpus(const struct gs_cluster *cl, int node) { return cl->nodes[node].gpus; }
int gs_cluster_node_gpu_type(const struct gs_cluster *cl, int node) { return cl->nodes[node].type; }
int gs_cluster_node_first_gpu(const struct gs_cluster *cl, int node) { return cl->nodes[node].first_gpu; }
int gs_cluster_node_domains(const struct gs_cluster *cl, int node) { return cl->nodes[node].ndom; }
int gs_cluster_node_rack(const struct gs_cluster *cl, int node) { return cl->nodes[node].rack; }
int gs_cluster_node_mdomain(const struct gs_cluster *cl, int node) { return cl->nodes[node].mdomain; }
int64_t gs_cluster_node_cpu(const struct gs_cluster *cl, int node) { return cl->nodes[node].cpu; }
int64_t gs_cluster_node_mem(const struct gs_cluster *cl, int node) { return cl->nodes[node].mem; }
int64_t gs_cluster_node_cpu_used(const struct gs_cluster *cl, int node) { return cl->nodes[node].cpu_used; }
int64_t gs_cluster_node_mem_used(const struct gs_cluster *cl, int node) { return cl->nodes[node].mem_used; }
uint64_t gs_cluster_idle_mask(const struct gs_cluster *cl, int node) { return cl->nodes[node].idle; }
const uint64_t *gs_cluster_full_view(const struct gs_cluster *cl) { return cl->full; }
const uint64_t *gs_cluster_idle_masks(const struct gs_cluster *cl) { return cl->idle_arr; }
const uint8_t *gs_cluster_domain_counts(const struct gs_cluster *cl) { return cl->ndom_arr; }
const uint64_t *gs_cluster_shared_masks(const struct gs_cluster *cl) { return cl->part_arr; }
const uint32_t *gs_cluster_node_versions(const struct gs_cluster *cl) { return cl->ver_arr; }

uint64_t gs_cluster_domain_mask(const struct gs_cluster *cl, int node, int d)
{
    const struct node *n = &cl->nodes[node];
    return d >= 0 && d < n->ndom ? n->dom_mask[d] : 0;
}

const char *gs_cluster_label_name(const struct gs_cluster *cl, int id)
{
    return gs_strtab_name(cl->labels, id);
}

int gs_cluster_gpu_used_milli(const struct gs_cluster *cl, int node, int gpu)
{
    return cl->milli[cl->nodes[node].first_gpu + gpu];
}

int64_t gs_cluster_gpu_used_mem(const struct gs_cluster *cl, int node, int gpu)
{
    return cl->mem[cl->nodes[node].first_gpu + gpu];
}

int gs_cluster_gpu_users(const struct gs_cluster *cl, int node, int gpu)
{
    return cl->users[cl->nodes[node].first_gpu + gpu];
}

static int check_part(const struct gs_cluster *cl, const struct gs_alloc *a,
                      const struct gs_alloc_part *p, struct gs_error *err)
{
    if (p->node < 0 || (size_t)p->node >= cl->nnodes)
        return gs_errorf(err, GS_EINVAL, "allocation names node %d, not in cluster",
                         (int)p->node);
    const struct node *n = &cl->nodes[p->node];
    const char *name = gs_cluster_node_name(cl, p->node);
    if (p->mask == 0 || (p->mask & ~low_mask(n->gpus)))
        return gs_errorf(err, GS_EINVAL, "allocation names GPUs %s has not got", name);
    if (!a->mig_slot && (p->mask & n->mig_mask))
        return gs_errorf(err, GS_ENOSPC, "%s:%d is in MIG mode", name,
                         __builtin_ctzll(p->mask & n->mig_mask));
    int64_t cap = cl->types[n->type].mem_mib;
    for (uint64_t m = p->mask; m; m &= m - 1) {
        int g = __builtin_ctzll(m);
        int gi = n->first_gpu + g;
        if (cl->milli[gi] + a->milli > GS_MILLI_GPU)
            return gs_errorf(err, GS_ENOSPC, "%s:%d has %d milli-GPU free, need %d",
                             name, g, GS_MILLI_GPU - cl->milli[gi], a->milli);
        if (cl->mem[gi] + a->mem_mib > cap)
            return gs_errorf(err, GS_ENOSPC, "%s:%d has %lld MiB free, need %lld", name, g,
                             (long long)(cap - cl->mem[gi]), (long long)a->mem_mib);
    }
    return 0;
}

int gs_cluster_can_alloc(const struct gs_cluster *cl, const struct gs_alloc *a,
                         struct gs_error *err)
{
    if (!cl->sealed)
        return gs_errorf(err, GS_ESTATE, "cluster is not sealed");
    if (a->nparts <= 0 || a->milli <= 0 || a->milli > GS_MILLI_GPU || a->mem_mib < 0)
        return gs_errorf(err, GS_EINVAL, "allocation is empty or has a bad share");
    for (int i = 0; i < a->nparts; i++) {
        for (int j = 0; j < i; j++)
            if (a->parts[j].node == a->parts[i].node)
                return gs_errorf(err, GS_EINVAL, "allocation names a node twice");
        int rc = check_part(cl, a, &a->parts[i], err);
        if (rc < 0)
            return rc;
    }
    if (a->mig_slot || a->mig_reconf) {
        int rc = gs_cl_mig_check(cl, a, err);
        if (rc < 0)
            return rc;
    }
    const struct node *n = &cl->nodes[a->parts[0].node];
    if ((n->cpu && n->cpu_used + a->cpu_milli > n->cpu) ||
        (n->mem && n->mem_used + a->host_mem_mib > n->mem))
        return gs_errorf(err, GS_ENOSPC, "%s lacks host CPU or memory",
                         gs_cluster_node_name(cl, a->parts[0].node));
    return 0;
}

/* A GPU that is partly used: some share on it, but not all, not MIG. */
static int is_shared(const struct gs_cluster *cl, const struct node *n, int g)
{
    int gi = n->first_gpu + g;
    return cl->users[gi] > 0 && cl->milli[gi] < GS_MILLI_GPU && !(n->mig_mask >> g & 1);
}

/* Apply (sign +1) or undo (sign -1) an allocation that is known to be valid. */
static void apply(struct gs_cluster *cl, const struct gs_alloc *a, int sign)
{
    if (a->mig_slot)
        gs_cl_mig_apply(cl, a, sign);
    for (int i = 0; i < a->nparts; i++) {
        const struct gs_alloc_part *p = &a->parts[i];
        struct node *n = &cl->nodes[p->node];
        gs_cl_account_node(cl, n, p->node, -1);
        for (uint64_t m = p->mask; m; m &= m - 1) {
            int g = __builtin_ctzll(m);
            int gi = n->first_gpu + g;
            cl->shared_gpus -= is_shared(cl, n, g);
            cl->milli[gi] += sign * a->milli;
            cl->mem[gi] += sign * a->mem_mib;
            cl->users[gi] += sign;
            if (cl->users[gi] == 0 && !(n->mig_mask >> g & 1))
                n->idle |= 1ULL << g;
            else
                n->idle &= ~(1ULL << g);
            cl->shared_gpus += is_shared(cl, n, g);
            if (is_shared(cl, n, g))
                cl->part_arr[p->node] |= 1ULL << g;
            else
                cl->part_arr[p->node] &= ~(1ULL << g);
        }
        cl->used_milli += sign * (int64_t)a->milli * popcount64(p->mask);
        cl->idle_arr[p->node] = n->idle;
        cl->ver_arr[p->node]++;
        gs_cl_account_node(cl, n, p->node, +1);
    }
    struct node *n0 = &cl->nodes[a->parts[0].node];
    cl->ver_arr[a->parts[0].node]++;
    n0->cpu_used += sign * a->cpu_milli;
    n0->mem_used += sign * a->host_mem_mib;
}

int gs_cluster_alloc(struct gs_cluster *cl, const struct gs_alloc *a, struct gs_error *err)
{
    int rc = gs_cluster_can_alloc(cl, a, err);
    if (rc < 0)
        return rc;
    apply(cl, a, +1);
    return 0;
}

int gs_cluster_release(struct gs_cluster *cl, const struct gs_alloc *a, struct gs_error *err)
{
    if (!cl->sealed || a->nparts <= 0)
        return gs_errorf(err, GS_ESTATE, "nothing to release");
    for (int i = 0; i < a->nparts; i++) {
        const struct gs_alloc_part *p = &a->parts[i];
        if (p->node < 0 || (size_t)p->node >= cl->nnodes)
            return gs_errorf(err, GS_ESTATE, "release names an unknown node");
        const struct node *n = &cl->nodes[p->node];
        for (uint64_t m = p->mask; m; m &= m - 1) {
            int g = __builtin_ctzll(m), gi = n->first_gpu + g;
            int mig_ok = !a->mig_slot ||
                         (cl->mig && a->mig_slot <= cl->mig[gi].l.n &&
                          (cl->mig[gi].busy >> (a->mig_slot - 1) & 1));
            if (cl->users[gi] <= 0 || cl->milli[gi] < a->milli || cl->mem[gi] < a->mem_mib ||
                !mig_ok)
                return gs_errorf(err, GS_ESTATE, "release of %s:%d, which is not allocated",
                                 gs_cluster_node_name(cl, p->node), g);
        }
    }
    struct gs_alloc undo = *a;
    undo.mig_reconf = 0; /* a release never repartitions */
    apply(cl, &undo, -1);
    return 0;
}

int gs_cluster_host_take(struct gs_cluster *cl, int node, int64_t cpu_milli, int64_t mem_mib,
                         int sign, struct gs_error *err)
{
    if (!cl->sealed || node < 0 || (size_t)node >= cl->nnodes || cpu_milli < 0 || mem_mib < 0 ||
        (sign != 1 && sign != -1))
        return gs_errorf(err, GS_EINVAL, "bad host allocation");
    struct node *n = &cl->nodes[node];
    int64_t cpu = n->cpu_used + sign * cpu_milli, mem = n->mem_used + sign * mem_mib;
    if (cpu < 0 || mem < 0)
        return gs_errorf(err, GS_ESTATE, "%s: giving back host resources not taken",
                         gs_cluster_node_name(cl, node));
    if ((n->cpu && cpu > n->cpu) || (n->mem && mem > n->mem))
        return gs_errorf(err, GS_ENOSPC, "%s lacks host CPU or memory",
                         gs_cluster_node_name(cl, node));
    n->cpu_used = cpu;
    n->mem_used = mem;
    cl->ver_arr[node]++;
    return 0;
}

struct gs_cluster_stats gs_cluster_stats(const struct gs_cluster *cl)
{
    struct gs_cluster_stats s;
    s.k = cl->k;
    s.gpus = cl->ngpus;
    s.idle_gpus = cl->idle_gpus;
    s.used_milli = cl->used_milli;
    s.sched = cl->sched_nodes + (cl->k > 0 ? cl->whole_idle_small / cl->k : 0);
    int64_t frag = cl->idle_gpus - (int64_t)cl->k * s.sched;
    s.frag_topology = cl->frag_topo;
    s.frag_count = frag - cl->frag_topo;
    s.shared_gpus = cl->shared_gpus;
    s.mig_gpus = cl->mig_gpus;
    s.mig_free_compute = (int64_t)GS_MIG_COMPUTE * cl->mig_gpus - cl->mig_busy_compute;
    s.frag_memory = 0;
    s.frag_mig = 0;
    return s;
}

/* Per-GPU invariants; adds the GPU's share to *used and partial GPUs to
 * *shared. */
static int check_gpus(const struct gs_cluster *cl, int64_t *used, int64_t *shared,
                      struct gs_error *err)
{
    for (size_t i = 0; i < cl->nnodes; i++) {
        const struct node *n = &cl->nodes[i];
        int64_t cap = n->gpus ? cl->types[n->type].mem_mib : 0;
        for (int g = 0; g < n->gpus; g++) {
            int gi = n->first_gpu + g;
            int idle = (n->idle >> g) & 1, mig = (n->mig_mask >> g) & 1;
            if (cl->idle_arr[i] != n->idle ||
                (int)(cl->part_arr[i] >> g & 1) != is_shared(cl, n, g))
                return gs_errorf(err, GS_ESTATE, "node %s: mask copies stale",
                                 gs_cluster_node_name(cl, (int)i));
            *used += cl->milli[gi];
            *shared += is_shared(cl, n, g);
            if (cl->milli[gi] < 0 || cl->milli[gi] > GS_MILLI_GPU || cl->mem[gi] < 0 ||
                cl->mem[gi] > cap || cl->users[gi] < 0 ||
                idle != (cl->users[gi] == 0 && !mig) ||
                (mig && cl->users[gi] != popcount64(cl->mig[gi].busy)))
                return gs_errorf(err, GS_ESTATE, "GPU %s:%d state inconsistent",
                                 gs_cluster_node_name(cl, (int)i), g);
        }
    }
    return 0;
}

int gs_cluster_check(const struct gs_cluster *cl, struct gs_error *err)
{
    if (!cl->sealed)
        return 0;
    struct gs_cluster *fresh = gs_cluster_clone(cl);
    if (!fresh)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    int64_t used = 0, shared = 0, mig_gpus = 0, mig_busy = 0;
    int rc = check_gpus(cl, &used, &shared, err);
    if (rc == 0) {
        /* recount the incremental statistics from scratch */
        fresh->idle_gpus = fresh->sched_nodes = fresh->whole_idle_small = fresh->frag_topo = 0;
        for (size_t i = 0; i < fresh->nnodes; i++)
            gs_cl_account_node(fresh, &fresh->nodes[i], (int)i, +1);
        gs_cl_mig_recount(cl, &mig_gpus, &mig_busy);
        struct gs_cluster_stats a = gs_cluster_stats(cl), b = gs_cluster_stats(fresh);
        if (used != cl->used_milli || a.k != b.k || a.idle_gpus != b.idle_gpus ||
            a.used_milli != b.used_milli || a.sched != b.sched ||
            a.frag_count != b.frag_count || a.frag_topology != b.frag_topology ||
            shared != cl->shared_gpus || mig_gpus != cl->mig_gpus ||
            mig_busy != cl->mig_busy_compute)
            rc = gs_errorf(err, GS_ESTATE, "incremental statistics drifted");
        else if (cl->dix && gs_dom_index_check(cl->dix, cl) < 0)
            rc = gs_errorf(err, GS_ESTATE, "domain index drifted");
    }
    gs_cluster_destroy(fresh);
    return rc;
}

int gs_cluster_best_domain(const struct gs_cluster *cl, int gpus, int spread, int *node,
                           uint64_t *dmask)
{
    if (!cl->dix)
        return GS_ENOTSUP;
    return gs_dom_index_best(cl->dix, cl, gpus, spread, node, dmask);
}
