/* cluster_mig.c - GPUs in MIG mode: layouts, instance allocation and the
 * MIG statistics.  A GPU in MIG mode is never an idle whole GPU; jobs with
 * a MIG profile take one free instance of that profile (mig.h). */
#include "core/base/alloc.h"
#include "core/cluster/cluster_private.h"

static int pc(uint64_t x)
{
    return __builtin_popcountll(x);
}

static int ensure_mig(struct gs_cluster *cl)
{
    if (cl->mig)
        return 0;
    cl->mig = gs_calloc((size_t)cl->ngpus, sizeof *cl->mig);
    return cl->mig ? 0 : GS_ENOMEM;
}

/* Rebuild `l` instance by instance to validate it for `model`. */
static int valid_layout(int model, const struct gs_mig_layout *l)
{
    struct gs_mig_layout t = { 0 };
    if (l->n > GS_MIG_MAX_INSTANCES)
        return 0;
    for (int i = 0; i < l->n; i++)
        if (gs_mig_layout_add(model, &t, l->prof[i], l->start[i]) < 0)
            return 0;
    return 1;
}

int gs_cluster_set_mig(struct gs_cluster *cl, int node, int gpu,
                       const struct gs_mig_layout *l, struct gs_error *err)
{
    if (!cl->sealed)
        return gs_errorf(err, GS_ESTATE, "cluster is not sealed");
    if (node < 0 || (size_t)node >= cl->nnodes || gpu < 0 || gpu >= cl->nodes[node].gpus)
        return gs_errorf(err, GS_EINVAL, "no such GPU");
    struct node *n = &cl->nodes[node];
    int gi = n->first_gpu + gpu, model = cl->types[n->type].mig_model;
    const char *name = gs_cluster_node_name(cl, node);
    if (cl->users[gi] != 0)
        return gs_errorf(err, GS_ESTATE, "%s:%d is in use", name, gpu);
    if (l && model < 0)
        return gs_errorf(err, GS_EINVAL, "%s: GPU type %s has no MIG geometry", name,
                         cl->types[n->type].name);
    if (l && !valid_layout(model, l))
        return gs_errorf(err, GS_EINVAL, "%s:%d: MIG layout does not fit a %s", name, gpu,
                         gs_mig_model_name(model));
    if (ensure_mig(cl) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    uint64_t bit = 1ULL << gpu;
    gs_cl_account_node(cl, n, node, -1);
    if ((n->mig_mask & bit) && !l)
        cl->mig_gpus--;
    else if (!(n->mig_mask & bit) && l)
        cl->mig_gpus++;
    if (l) {
        n->mig_mask |= bit;
        n->idle &= ~bit;
        cl->mig[gi].l = *l;
    } else {
        n->mig_mask &= ~bit;
        n->idle |= bit;
        cl->mig[gi].l.n = 0;
    }
    cl->mig[gi].busy = 0;
    cl->idle_arr[node] = n->idle;
    cl->ver_arr[node]++;
    gs_cl_account_node(cl, n, node, +1);
    return 0;
}

uint64_t gs_cluster_mig_mask(const struct gs_cluster *cl, int node)
{
    return cl->nodes[node].mig_mask;
}

const struct gs_mig_layout *gs_cluster_gpu_mig(const struct gs_cluster *cl, int node, int gpu,
                                               unsigned *busy)
{
    const struct node *n = &cl->nodes[node];
    if (!(n->mig_mask >> gpu & 1))
        return NULL;
    const struct mig_gpu *m = &cl->mig[n->first_gpu + gpu];
    if (busy)
        *busy = m->busy;
    return &m->l;
}

int gs_cl_mig_check(const struct gs_cluster *cl, const struct gs_alloc *a,
                    struct gs_error *err)
{
    const struct gs_alloc_part *p = &a->parts[0];
    const struct node *n = &cl->nodes[p->node];
    const char *name = gs_cluster_node_name(cl, p->node);
    if (a->nparts != 1 || pc(p->mask) != 1 || !a->mig_slot)
        return gs_errorf(err, GS_EINVAL, "a MIG allocation names one GPU and one instance");
    int g = __builtin_ctzll(p->mask), gi = n->first_gpu + g;
    if (!(n->mig_mask & p->mask))
        return gs_errorf(err, GS_EINVAL, "%s:%d is not in MIG mode", name, g);
    int model = cl->types[n->type].mig_model;
    const struct mig_gpu *m = &cl->mig[gi];
    struct gs_mig_layout l = m->l;
    if (a->mig_reconf) {
        if (m->busy)
            return gs_errorf(err, GS_ENOSPC, "%s:%d: cannot repartition, instances in use",
                             name, g);
        gs_mig_layout_homogeneous(model, a->mig_reconf - 1, &l);
    }
    int slot = a->mig_slot - 1;
    if (slot >= l.n)
        return gs_errorf(err, GS_EINVAL, "%s:%d has no MIG instance %d", name, g, slot);
    if (!a->mig_reconf && (m->busy >> slot & 1))
        return gs_errorf(err, GS_ENOSPC, "%s:%d: MIG instance %d is in use", name, g, slot);
    const struct gs_mig_geom *geom = gs_mig_geom(model, l.prof[slot]);
    int64_t mem = cl->types[n->type].mem_mib * geom->mem_slices / GS_MIG_MEM_SLICES;
    if (a->milli != gs_mig_milli(geom) || a->mem_mib != mem)
        return gs_errorf(err, GS_EINVAL, "%s:%d: share or memory do not match MIG %s", name,
                         g, gs_mig_profile_name(l.prof[slot]));
    return 0;
}

void gs_cl_mig_apply(struct gs_cluster *cl, const struct gs_alloc *a, int sign)
{
    const struct gs_alloc_part *p = &a->parts[0];
    const struct node *n = &cl->nodes[p->node];
    int gi = n->first_gpu + __builtin_ctzll(p->mask), slot = a->mig_slot - 1;
    int model = cl->types[n->type].mig_model;
    struct mig_gpu *m = &cl->mig[gi];
    if (sign > 0 && a->mig_reconf)
        gs_mig_layout_homogeneous(model, a->mig_reconf - 1, &m->l);
    int c = gs_mig_layout_compute(model, &m->l, 1u << slot);
    if (sign > 0)
        m->busy |= (uint8_t)(1u << slot);
    else
        m->busy &= (uint8_t)~(1u << slot);
    cl->mig_busy_compute += (int64_t)sign * c;
}

void gs_cl_mig_recount(const struct gs_cluster *cl, int64_t *gpus, int64_t *busy_compute)
{
    *gpus = *busy_compute = 0;
    for (size_t i = 0; i < cl->nnodes; i++) {
        const struct node *n = &cl->nodes[i];
        int model = n->gpus ? cl->types[n->type].mig_model : -1;
        for (uint64_t m = n->mig_mask; m; m &= m - 1) {
            const struct mig_gpu *g = &cl->mig[n->first_gpu + __builtin_ctzll(m)];
            (*gpus)++;
            *busy_compute += gs_mig_layout_compute(model, &g->l, g->busy);
        }
    }
}
