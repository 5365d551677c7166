/* nodes.c - node and GPU states: up, drain, down (engine.h, node events).
 *
 * A GPU is in service when it and its node are up.  A GPU out of service
 * (drained or down) is taken from the cluster in the engine's own name as
 * soon as nothing runs on it: a whole-GPU allocation that no job owns, so
 * placement never offers it, S_k and fragmentation count it as not free
 * and the availability profile plans it busy until further notice (the
 * next pass re-plans reservations around it).  When it returns to service
 * it is given back.  Down also ends the runs on it (lifecycle.c's
 * gs_eng_fail_run): they are requeued or failed at once.
 *
 * Limits: a MIG GPU (never idle as a whole) and a shared GPU still partly
 * used are taken only once empty; until then a drained one may still take
 * a new MIG instance or share.
 */
#include "core/jobs/jobs.h"
#include "core/base/alloc.h"

#include <string.h>

struct gs_eng_nodes {
    int nnodes;
    int8_t *state;              /* per node, enum gs_node_state */
    uint64_t *gpu_down, *gpu_drain; /* per node: GPUs set down / drained alone */
    uint64_t *out;              /* per node: GPUs taken out of service */
    struct gs_alloc_part part;  /* scratch of one-part allocations */
};

void gs_eng_nodes_destroy(struct gs_eng_nodes *nd)
{
    if (!nd)
        return;
    gs_free(nd->state);
    gs_free(nd->gpu_down);
    gs_free(nd->gpu_drain);
    gs_free(nd->out);
    gs_free(nd);
}

static struct gs_eng_nodes *nodes_of(struct gs_engine *eng)
{
    if (eng->nodes)
        return eng->nodes;
    int n = gs_cluster_node_count(eng->cl);
    struct gs_eng_nodes *nd = gs_calloc(1, sizeof *nd);
    if (!nd)
        return NULL;
    nd->nnodes = n;
    nd->state = gs_calloc((size_t)n, sizeof *nd->state);
    nd->gpu_down = gs_calloc((size_t)n, sizeof *nd->gpu_down);
    nd->gpu_drain = gs_calloc((size_t)n, sizeof *nd->gpu_drain);
    nd->out = gs_calloc((size_t)n, sizeof *nd->out);
    if (!nd->state || !nd->gpu_down || !nd->gpu_drain || !nd->out) {
        gs_eng_nodes_destroy(nd);
        return NULL;
    }
    eng->nodes = nd;
    return nd;
}

static uint64_t all_gpus(const struct gs_cluster *cl, int node)
{
    int g = gs_cluster_node_gpus(cl, node);
    return g >= 64 ? ~0ULL : (1ULL << g) - 1;
}

/* GPUs of `node` that should be out of service. */
static uint64_t unwanted(const struct gs_engine *eng, int node)
{
    const struct gs_eng_nodes *nd = eng->nodes;
    if (nd->state[node] != GS_NODE_UP)
        return all_gpus(eng->cl, node);
    return nd->gpu_down[node] | nd->gpu_drain[node];
}

static struct gs_alloc one_part(struct gs_eng_nodes *nd, int node, uint64_t mask)
{
    struct gs_alloc a;
    memset(&a, 0, sizeof a);
    nd->part.node = node;
    nd->part.mask = mask;
    a.nparts = a.cap = 1;
    a.parts = &nd->part;
    a.milli = GS_MILLI_GPU;
    return a;
}

/* Bring `node`'s out-of-service set in line with its states. */
static void sync_node(struct gs_engine *eng, int node)
{
    struct gs_eng_nodes *nd = eng->nodes;
    uint64_t want = unwanted(eng, node);
    uint64_t back = nd->out[node] & ~want;
    if (back) {
        struct gs_alloc a = one_part(nd, node, back);
        gs_cluster_release(eng->cl, &a, NULL);
        gs_profile_vacate(eng->profile, eng->cl, &a);
        nd->out[node] &= ~back;
        eng->releases++;
        eng->pass_blocked = 0;
    }
    uint64_t take = want & ~nd->out[node] & gs_cluster_idle_mask(eng->cl, node);
    if (take) {
        struct gs_alloc a = one_part(nd, node, take);
        if (gs_cluster_alloc(eng->cl, &a, NULL) == 0) {
            gs_profile_occupy(eng->profile, &a, GS_TIME_INF);
            nd->out[node] |= take;
            eng->releases++; /* GPUs changed hands: a blocked pass looks again */
            eng->pass_blocked = 0;
        }
    }
}

void gs_eng_nodes_released(struct gs_engine *eng, const struct gs_alloc *a)
{
    if (!eng->nodes)
        return;
    for (int i = 0; i < a->nparts; i++)
        if (unwanted(eng, a->parts[i].node) & a->parts[i].mask)
            sync_node(eng, a->parts[i].node);
}

/* Whether job `job`'s allocation touches `mask` of `node`. */
static int uses(const struct gs_engine *eng, int job, int node, uint64_t mask)
{
    struct gs_alloc a;
    gs_eng_job_alloc(eng, &eng->jobs[job], &a);
    for (int i = 0; i < a.nparts; i++)
        if (a.parts[i].node == node && (a.parts[i].mask & mask))
            return 1;
    return 0;
}

/* End the runs on `mask` of `node`: it went down. */
static int fail_runs(struct gs_engine *eng, gs_time now, int node, uint64_t mask)
{
    /* downward: a removal moves the last entry (already visited) into i */
    for (size_t i = eng->nrunning; i-- > 0;) {
        if (i >= eng->nrunning)
            continue;
        int job = eng->running[i];
        if (!uses(eng, job, node, mask))
            continue;
        int stopping = eng->jobs[job].state == GS_JOB_STOPPING;
        if (gs_eng_fail_run(eng, job, now, 0) < 0)
            return GS_ENOMEM;
        /* requeued by this failure: its other GPUs may be held (retry.hold).
           Out of memory there only loses the hold (plain expedited requeue):
           the node event itself is carried out whole */
        if (!stopping && eng->jobs[job].state == GS_JOB_PENDING)
            (void)gs_eng_rhold_begin(eng, job, now, node, mask);
    }
    return 0;
}

static int check_args(const struct gs_engine *eng, int node, int state, struct gs_error *err)
{
    if (node < 0 || node >= gs_cluster_node_count(eng->cl))
        return gs_errorf(err, GS_EINVAL, "no node with index %d", node);
    if (state < GS_NODE_UP || state > GS_NODE_DOWN)
        return gs_errorf(err, GS_EINVAL, "node %s: bad state %d",
                         gs_cluster_node_name(eng->cl, node), state);
    return 0;
}

int gs_engine_node_set_state(struct gs_engine *eng, gs_time now, int node, int state,
                             struct gs_error *err)
{
    int rc = check_args(eng, node, state, err);
    if (rc < 0 || (rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    struct gs_eng_nodes *nd = nodes_of(eng);
    if (!nd)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    nd->state[node] = (int8_t)state;
    if (state == GS_NODE_DOWN && fail_runs(eng, now, node, all_gpus(eng->cl, node)) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    if (state != GS_NODE_UP) /* out of service: no longer held for a restart */
        gs_eng_rhold_node(eng, now, node, all_gpus(eng->cl, node));
    sync_node(eng, node);
    return 0;
}

int gs_engine_gpu_set_state(struct gs_engine *eng, gs_time now, int node, int gpu, int state,
                            struct gs_error *err)
{
    int rc = check_args(eng, node, state, err);
    if (rc < 0)
        return rc;
    if (gpu < 0 || gpu >= gs_cluster_node_gpus(eng->cl, node))
        return gs_errorf(err, GS_EINVAL, "node %s: no GPU %d",
                         gs_cluster_node_name(eng->cl, node), gpu);
    if ((rc = gs_eng_check_time(eng, now, err)) < 0)
        return rc;
    struct gs_eng_nodes *nd = nodes_of(eng);
    if (!nd)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    uint64_t bit = 1ULL << gpu;
    nd->gpu_down[node] &= ~bit;
    nd->gpu_drain[node] &= ~bit;
    if (state == GS_NODE_DOWN)
        nd->gpu_down[node] |= bit;
    else if (state == GS_NODE_DRAIN)
        nd->gpu_drain[node] |= bit;
    if (state == GS_NODE_DOWN && fail_runs(eng, now, node, bit) < 0)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    if (state != GS_NODE_UP)
        gs_eng_rhold_node(eng, now, node, bit);
    sync_node(eng, node);
    return 0;
}

int gs_engine_node_state(const struct gs_engine *eng, int node)
{
    if (node < 0 || node >= gs_cluster_node_count(eng->cl))
        return GS_EINVAL;
    return eng->nodes ? eng->nodes->state[node] : GS_NODE_UP;
}

int gs_engine_gpu_state(const struct gs_engine *eng, int node, int gpu)
{
    int ns = gs_engine_node_state(eng, node);
    if (ns < 0 || gpu < 0 || gpu >= gs_cluster_node_gpus(eng->cl, node))
        return GS_EINVAL;
    if (!eng->nodes)
        return GS_NODE_UP;
    uint64_t bit = 1ULL << gpu;
    if (ns == GS_NODE_DOWN || (eng->nodes->gpu_down[node] & bit))
        return GS_NODE_DOWN;
    if (ns == GS_NODE_DRAIN || (eng->nodes->gpu_drain[node] & bit))
        return GS_NODE_DRAIN;
    return GS_NODE_UP;
}

uint64_t gs_eng_nodes_out(const struct gs_engine *eng, int node)
{
    return eng->nodes ? eng->nodes->out[node] : 0;
}
