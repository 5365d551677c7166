/* diagnose_explain.c - classifying a pending job's resource problem and
 * explaining it with numbers (gs_engine_explain).
 *
 * Resource codes form a ladder of relaxations; the first one that is still
 * not enough is the code (docs/diagnosis.md):
 *   shortage   idle GPUs the job may use (type, partition) < GPUs asked;
 *   memory     ... only counting GPUs with enough memory; shared jobs: a GPU
 *              has the share free but not the memory;
 *   count      no node has enough idle GPUs (multi-node jobs: the fully idle
 *              nodes plus the best other node do not add up);
 *   topology   a node has enough, but the topology rule is not met (one
 *              NVLink domain, or whole idle domains);
 *   partition  none of the above inside its partition's nodes, but it would
 *              fit now ignoring the partition.
 * The figures are exact for the single-node rules (they are the rules of
 * place.c); multi-node requests are settled with a placement test.
 */
#include "core/diagnose/diagnose_private.h"

#include <string.h>

static int popc(uint64_t x)
{
    return __builtin_popcountll(x);
}

/* Whether node `n` can serve `req` at all (GPU type, memory, partition). */
static int node_usable(const struct gs_cluster *cl, const struct gs_request *req, int n,
                       int filter, int mem)
{
    if (gs_cluster_node_gpus(cl, n) == 0)
        return 0;
    int type = gs_cluster_node_gpu_type(cl, n);
    if (req->gpu_type >= 0 && type != req->gpu_type)
        return 0;
    if (mem && req->mem_mib > 0 && gs_cluster_gpu_type_mem(cl, type) < req->mem_mib)
        return 0;
    return !(filter && req->nodes_allowed && !req->nodes_allowed[n]);
}

void gs_diag_gather(const struct gs_cluster *cl, const struct gs_request *req, int filter,
                    int mem, struct diag_figs *f)
{
    int any = req->gpu_type < 0 && !(mem && req->mem_mib > 0) &&
              !(filter && req->nodes_allowed); /* every node with GPUs is usable */
    memset(f, 0, sizeof *f);
    f->best_node = f->best_dom_node = -1;
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        int g = gs_cluster_node_gpus(cl, n);
        if (g == 0 || (!any && !node_usable(cl, req, n, filter, mem)))
            continue;
        uint64_t idle = gs_cluster_idle_mask(cl, n);
        int ni = popc(idle), nd = gs_cluster_node_domains(cl, n);
        f->free += ni;
        if (ni > f->best_node_free || f->best_node < 0) {
            f->best_node = n;
            f->best_node_free = ni;
        }
        if (ni == g) {
            f->whole_nodes++;
            f->whole_gpus += g;
        } else if (ni > f->rest_max) {
            f->rest_max = ni;
        }
        for (int d = 0; d < nd; d++) {
            int fd = nd == 1 ? ni : popc(idle & gs_cluster_domain_mask(cl, n, d));
            if (fd > f->best_dom_free || f->best_dom_node < 0) {
                f->best_dom_node = n;
                f->best_dom_free = fd;
            }
        }
    }
}

static int place_ok(const struct gs_cluster *cl, const struct gs_request *req,
                    struct gs_alloc *scratch)
{
    return gs_place(cl, NULL, req, GS_PLACE_PACK, scratch, NULL) == 0;
}

int gs_diag_decide(const struct gs_cluster *cl, const struct gs_request *req,
                   const struct diag_figs *f, struct gs_alloc *scratch)
{
    int g = req->gpus, rule = gs_place_topology(cl, req);
    if (f->free < g)
        return GS_REASON_SHORTAGE;
    if (rule == GS_TOPO_ANY)
        return place_ok(cl, req, scratch) ? GS_REASON_NONE : GS_REASON_COUNT_FRAG;
    if (g > gs_cluster_max_node_gpus(cl)) {
        if (rule == GS_TOPO_NODE || f->whole_gpus + f->rest_max < g)
            return GS_REASON_COUNT_FRAG;
        return place_ok(cl, req, scratch) ? GS_REASON_NONE : GS_REASON_TOPOLOGY_FRAG;
    }
    if (f->best_node_free < g)
        return GS_REASON_COUNT_FRAG;
    if (rule == GS_TOPO_NODE)
        return GS_REASON_NONE;
    if (rule == GS_TOPO_DOMAIN)
        return f->best_dom_free >= g ? GS_REASON_NONE : GS_REASON_TOPOLOGY_FRAG;
    return place_ok(cl, req, scratch) ? GS_REASON_NONE : GS_REASON_TOPOLOGY_FRAG;
}

int gs_diag_shared(const struct gs_cluster *cl, const struct gs_request *req, int filter,
                   struct gs_diag *d)
{
    int64_t total = 0, share_ok = 0, mem_ok = 0, best_mem = 0;
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        if (!node_usable(cl, req, n, filter, 0))
            continue;
        int64_t cap = gs_cluster_gpu_type_mem(cl, gs_cluster_node_gpu_type(cl, n));
        int64_t need = req->mem_mib >= 0 ? req->mem_mib : cap * req->milli / GS_MILLI_GPU;
        for (int g = 0; g < gs_cluster_node_gpus(cl, n); g++) {
            int fm = GS_MILLI_GPU - gs_cluster_gpu_used_milli(cl, n, g);
            int64_t fmem = cap - gs_cluster_gpu_used_mem(cl, n, g);
            total += fm;
            if (fm < req->milli)
                continue;
            share_ok++;
            best_mem = fmem > best_mem ? fmem : best_mem;
            mem_ok += fmem >= need;
        }
    }
    if (d) {
        d->mem_any_gpus = share_ok;
        d->mem_ok_gpus = mem_ok;
        d->best_mem_free_mib = best_mem;
    }
    if (share_ok == 0)
        return total >= req->milli ? GS_REASON_COUNT_FRAG : GS_REASON_SHORTAGE;
    return mem_ok == 0 ? GS_REASON_MEMORY_FRAG : GS_REASON_NONE;
}

/* Whole-GPU request: memory first (GPUs with too little memory removed),
 * then the count and topology rules. */
static int whole_code(struct gs_engine *eng, const struct gs_request *req,
                      const struct diag_figs *f)
{
    struct gs_diag_state *ds = eng->diag;
    if (f->free < req->gpus && req->mem_mib > 0) {
        struct diag_figs any;
        gs_diag_gather(eng->cl, req, 1, 0, &any);
        if (any.free >= req->gpus)
            return GS_REASON_MEMORY_FRAG;
    }
    return gs_diag_decide(eng->cl, req, f, &ds->scratch);
}

/* Would the request fit now if its partition did not restrict it? */
static int fits_outside(struct gs_engine *eng, const struct gs_request *req)
{
    struct gs_request all = *req;
    all.nodes_allowed = NULL;
    if (all.milli < GS_MILLI_GPU)
        return gs_diag_shared(eng->cl, &all, 0, NULL) == GS_REASON_NONE;
    struct diag_figs f;
    gs_diag_gather(eng->cl, &all, 0, 1, &f);
    return whole_code(eng, &all, &f) == GS_REASON_NONE;
}

/* A whole-GPU job with no type, memory, host or partition constraint and
 * the default topology: its code depends only on its GPU count, so it is
 * memoised per pass.  Read from the job record, without building the
 * request (the common case must stay cheap). */
static int plain_job(const struct gs_engine *eng, const struct job *j)
{
    return j->milli == GS_MILLI_GPU && j->gpu_type == -1 && j->mem_mib <= 0 &&
           j->cpu_milli == 0 && j->host_mem_mib == 0 && j->topology == eng->pol.topology &&
           j->gpus >= 1 && j->gpus <= DIAG_MEMO_GPUS && eng->pol.npartitions == 0;
}

/* Plain job of `g` GPUs: fewer idle GPUs in the cluster than g is a
 * shortage at O(1); otherwise the cluster figures, gathered once a pass. */
static int plain_code(struct gs_engine *eng, int job)
{
    struct gs_diag_state *ds = eng->diag;
    int g = eng->jobs[job].gpus;
    if (ds->memo_stamp[g] == ds->stamp)
        return ds->memo[g];
    int code = GS_REASON_SHORTAGE;
    if (ds->idle >= g) {
        struct gs_request req;
        gs_eng_request(eng, job, &req);
        if (ds->figs_stamp != ds->stamp) {
            gs_diag_gather(eng->cl, &req, 1, 1, &ds->figs);
            ds->figs_stamp = ds->stamp;
        }
        code = whole_code(eng, &req, &ds->figs);
    }
    ds->memo_stamp[g] = ds->stamp;
    ds->memo[g] = (int8_t)code;
    return code;
}

static int resource_code(struct gs_engine *eng, int job, int use_memo);

int gs_eng_diag_plain_code_now(struct gs_engine *eng, int job)
{
    int g = eng->jobs[job].gpus, code = GS_REASON_SHORTAGE;
    if (!plain_job(eng, &eng->jobs[job])) {
        code = resource_code(eng, job, 0); /* the path the accounting takes */
    } else if (gs_cluster_stats(eng->cl).idle_gpus >= g) { /* plain_code, fresh figures */
        struct gs_request req;
        gs_eng_request(eng, job, &req);
        struct diag_figs f;
        gs_diag_gather(eng->cl, &req, 1, 1, &f);
        code = whole_code(eng, &req, &f);
    }
    return code == GS_REASON_NONE ? GS_REASON_PRIORITY : code; /* as pass_code */
}

static int resource_code(struct gs_engine *eng, int job, int use_memo)
{
    if (eng->jobs[job].gpus == 0)
        return GS_REASON_SHORTAGE; /* host resources only */
    if (use_memo && plain_job(eng, &eng->jobs[job]))
        return plain_code(eng, job);
    struct gs_request req;
    gs_eng_request(eng, job, &req);
    int code;
    if (req.milli < GS_MILLI_GPU) {
        code = gs_diag_shared(eng->cl, &req, 1, NULL);
    } else {
        struct diag_figs f;
        gs_diag_gather(eng->cl, &req, 1, 1, &f);
        code = whole_code(eng, &req, &f);
    }
    if (code != GS_REASON_NONE && req.nodes_allowed && fits_outside(eng, &req))
        code = GS_REASON_PARTITION;
    return code;
}

int gs_diag_resource_code(struct gs_engine *eng, int job)
{
    return resource_code(eng, job, 1);
}

