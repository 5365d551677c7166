/* fill_score.c - the FGD artifact's baseline score plugins, re-implemented
 * for the fill experiment (hkust-adsl/kubernetes-scheduler-simulator,
 * pkg/simulator/plugin/: random_score.go, dot_product_score.go,
 * gpu_clustering_score.go, gpu_packing_score.go, best_fit_score.go,
 * fgd_score.go; GPU selection in open_gpu_share.go).
 *
 * Every plugin gives each feasible node an integer score in 0..100 (higher
 * is better, as in the Kubernetes scheduling framework); the highest wins
 * and ties go to the smallest node name, as in the artifact's patched
 * kube-scheduler (the integer truncation plus this tie-break is an
 * implicit packing rule that matters for the results).  random gives the
 * maximum to one uniformly chosen feasible node.  A job's whole GPUs are
 * the lowest-index fully free GPUs of the node; a share of one GPU goes to
 * the best-fitting GPU (random: a random fitting GPU; fgd: the GPU whose
 * fragmentation decrease scores highest).  Normalisation constants are the
 * artifact's: 128 cores and 8 GPUs.  docs/placement.md lists where this
 * differs from the artifact.
 */
#include "sim/fill_private.h"
#include "core/policy/policy.h"

#include <math.h>
#include <string.h>

#define MAX_CPU 128000.0   /* MaxSpecCpu, milli-cores */
#define MAX_GPU 8000.0     /* MaxSpecGpu, milli-GPU */
#define MAX_SCORE 100

static int free_milli(const struct fill *f, int n, int g)
{
    if (gs_cluster_mig_mask(f->cl, n) >> g & 1)
        return 0;
    return GS_MILLI_GPU - gs_cluster_gpu_used_milli(f->cl, n, g);
}

static int64_t node_free_milli(const struct fill *f, int n)
{
    int64_t s = 0;
    for (int g = 0; g < gs_cluster_node_gpus(f->cl, n); g++)
        s += free_milli(f, n, g);
    return s;
}

static int64_t cpu_free(const struct fill *f, int n)
{
    int64_t cap = gs_cluster_node_cpu(f->cl, n);
    return cap ? cap - gs_cluster_node_cpu_used(f->cl, n) : (int64_t)MAX_CPU;
}

static int type_ok(const struct fill *f, int n, const struct fjob *j)
{
    int t = gs_cluster_node_gpu_type(f->cl, n);
    if (j->type == -2 || (j->type >= 0 && t != j->type))
        return 0;
    return !j->types || (t >= 0 && t < 64 && (j->types >> t & 1));
}

int gs_fill_feasible(const struct fill *f, int n, const struct fjob *j)
{
    int64_t cpu = gs_cluster_node_cpu(f->cl, n), mem = gs_cluster_node_mem(f->cl, n);
    if ((cpu && gs_cluster_node_cpu_used(f->cl, n) + j->cpu > cpu) ||
        (mem && gs_cluster_node_mem_used(f->cl, n) + j->mem > mem))
        return 0;
    if (j->gpus == 0)
        return 1;
    if (!type_ok(f, n, j))
        return 0;
    int fit = 0;
    for (int g = 0; g < gs_cluster_node_gpus(f->cl, n); g++)
        fit += free_milli(f, n, g) >= j->milli;
    return fit >= j->gpus;
}

double gs_fill_frag_after(const struct fill *f, int n, const struct fjob *j, uint64_t take,
                          int gpu)
{
    struct gs_frag_node st;
    gs_frag_node_load(f->cl, n, NULL, &st);
    for (uint64_t m = take; m; m &= m - 1) {
        int g = __builtin_ctzll(m);
        st.free_milli[g] = 0;
        st.free_mem[g] = 0;
    }
    st.whole &= ~take;
    if (gpu >= 0) {
        st.free_milli[gpu] -= j->milli;
        st.whole &= ~(1ULL << gpu);
    }
    if (st.cpu_free != INT64_MAX)
        st.cpu_free -= j->cpu;
    return gs_frag_node_score(f->cl, n, &st, &f->dist);
}

/* The lowest-index fully free GPUs for a whole-GPU job. */
static uint64_t whole_gpus(const struct fill *f, int n, int count)
{
    uint64_t m = 0;
    for (int g = 0; g < gs_cluster_node_gpus(f->cl, n) && count > 0; g++) {
        if (free_milli(f, n, g) == GS_MILLI_GPU) {
            m |= 1ULL << g;
            count--;
        }
    }
    return m;
}

/* The GPU of a shared job on node n: best fit (random: any fitting). */
static int share_gpu(struct fill *f, int n, const struct fjob *j, int random)
{
    int best = -1, seen = 0;
    for (int g = 0; g < gs_cluster_node_gpus(f->cl, n); g++) {
        int fm = free_milli(f, n, g);
        if (fm < j->milli)
            continue;
        if (random) {
            if (gs_rng_below(&f->rng, (uint64_t)++seen) == 0)
                best = g;
        } else if (best < 0 || fm < free_milli(f, n, best)) {
            best = g;
        }
    }
    return best;
}

static double sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* fgd_score.go: the score of the fragmentation decrease; for a shared job
 * the best GPU's (first on ties). */
static int score_fgd(const struct fill *f, int n, const struct fjob *j, int *gpu)
{
    *gpu = -1;
    if (j->gpus == 0 || j->milli >= GS_MILLI_GPU) {
        uint64_t take = j->gpus ? whole_gpus(f, n, j->gpus) : 0;
        double d = f->fc.f[n] - gs_fill_frag_after(f, n, j, take, -1);
        return (int)(sigmoid(d / 1000) * MAX_SCORE);
    }
    int best = -1;
    for (int g = 0; g < gs_cluster_node_gpus(f->cl, n); g++) {
        if (free_milli(f, n, g) < j->milli)
            continue;
        double d = f->fc.f[n] - gs_fill_frag_after(f, n, j, 0, g);
        int s = (int)(sigmoid(d / 1000) * MAX_SCORE);
        if (*gpu < 0 || s > best) {
            best = s;
            *gpu = g;
        }
    }
    return best;
}

/* gpu_packing_score.go */
static int score_packing(const struct fill *f, int n, const struct fjob *j)
{
    if (j->gpus == 0)
        return 0;
    int ng = gs_cluster_node_gpus(f->cl, n), full_free = 0;
    for (int g = 0; g < ng; g++)
        full_free += free_milli(f, n, g) == GS_MILLI_GPU;
    if (full_free == ng) {
        int s = MAX_SCORE / 3 - full_free;
        return s > full_free ? s : full_free;
    }
    /* the GPUs it would use: least free first */
    int need = j->gpus, use_full = 0, ratio = 0;
    uint64_t used = 0;
    while (need > 0) {
        int best = -1;
        for (int g = 0; g < ng; g++)
            if (!(used >> g & 1) && free_milli(f, n, g) >= j->milli &&
                (best < 0 || free_milli(f, n, g) < free_milli(f, n, best)))
                best = g;
        if (best < 0)
            return 0;
        used |= 1ULL << best;
        use_full += free_milli(f, n, best) == GS_MILLI_GPU;
        ratio += free_milli(f, n, best) * 100 / GS_MILLI_GPU;
        need--;
    }
    if (use_full > 0) {
        int s = MAX_SCORE / 2 - use_full;
        return s > MAX_SCORE / 3 ? s : MAX_SCORE / 3;
    }
    int s = MAX_SCORE - ratio / 10;
    return s > MAX_SCORE / 2 ? s : MAX_SCORE / 2;
}

/* gpu_clustering_score.go */
static int score_clustering(const struct fill *f, int n, const struct fjob *j)
{
    if (j->cls < 0)
        return 0;
    int64_t left = node_free_milli(f, n);
    int base = (int)((MAX_SCORE / 4) * ((int64_t)MAX_GPU - left) / (int64_t)MAX_GPU);
    uint64_t aff = f->aff[n];
    if (aff >> j->cls & 1)
        return base + (aff == (1ULL << j->cls) ? MAX_SCORE * 3 / 4 : MAX_SCORE * 2 / 4);
    return base + (aff == 0 ? MAX_SCORE / 4 : 0);
}

/* dot_product_score.go (-dimext merge -norm max): the smaller the dot
 * product of request and free vectors, the higher the score. */
static int score_dotprod(const struct fill *f, int n, const struct fjob *j)
{
    double cpu = (double)cpu_free(f, n) / MAX_CPU * ((double)j->cpu / MAX_CPU);
    double gpu = (double)node_free_milli(f, n) / MAX_GPU *
                 ((double)j->gpus * j->milli / MAX_GPU);
    return (int)(MAX_SCORE * (1.0 - (cpu + gpu) / 2));
}

/* best_fit_score.go */
static int score_bestfit(const struct fill *f, int n, const struct fjob *j)
{
    double s = 0.5 * (double)(cpu_free(f, n) - j->cpu) / MAX_CPU +
               0.5 * (double)(node_free_milli(f, n) - (int64_t)j->gpus * j->milli) / MAX_GPU;
    return (int)((1.0 - s) * MAX_SCORE);
}

static int node_score(struct fill *f, int n, const struct fjob *j, int *gpu)
{
    *gpu = -1;
    switch (f->o->policy) {
    case GS_FILL_DOTPROD: return score_dotprod(f, n, j);
    case GS_FILL_CLUSTERING: return score_clustering(f, n, j);
    case GS_FILL_PACKING: return score_packing(f, n, j);
    case GS_FILL_BESTFIT: return score_bestfit(f, n, j);
    case GS_FILL_FGD: return score_fgd(f, n, j, gpu);
    default: return 0; /* random: every feasible node ties */
    }
}

static void emit(struct fill *f, int n, const struct fjob *j, int gpu)
{
    if (j->gpus == 0) {
        f->host_node = n;
        return;
    }
    f->a.nparts = 1;
    f->a.parts[0].node = n;
    f->a.milli = j->milli;
    f->a.mem_mib = 0;
    f->a.cpu_milli = j->cpu;
    f->a.host_mem_mib = j->mem;
    f->a.mig_slot = f->a.mig_reconf = 0;
    if (j->milli >= GS_MILLI_GPU) {
        f->a.parts[0].mask = whole_gpus(f, n, j->gpus);
        return;
    }
    if (gpu < 0)
        gpu = share_gpu(f, n, j, f->o->policy == GS_FILL_RANDOM);
    int64_t cap = gs_cluster_gpu_type_mem(f->cl, gs_cluster_node_gpu_type(f->cl, n));
    f->a.parts[0].mask = gpu >= 0 ? 1ULL << gpu : 0; /* 0: fails the commit (never: n fits) */
    f->a.mem_mib = cap * j->milli / GS_MILLI_GPU;
}

/* kube-scheduler's NormalizeScore for bestfit: min-max to 0..100 over the
 * feasible nodes (integer arithmetic, as the artifact). */
static void normalize(int *score, const int *node, int n)
{
    int hi = score[0], lo = score[0];
    for (int i = 1; i < n; i++) {
        hi = score[i] > hi ? score[i] : hi;
        lo = score[i] < lo ? score[i] : lo;
    }
    for (int i = 0; i < n; i++)
        score[i] = hi == lo ? 0 : (score[i] - lo) * MAX_SCORE / (hi - lo);
    (void)node;
}

/* The highest score wins; ties go to the smallest node name, as in the
 * artifact's patched kube-scheduler (reproducible runs); with the random
 * tie order (the artifact's random name prefixes) to the first node of the
 * permuted cluster. */
static int select_host(const struct fill *f, const int *score, const int *node, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (score[i] > score[best] ||
            (score[i] == score[best] && !f->tie_by_index &&
             strcmp(gs_cluster_node_name(f->cl, node[i]),
                    gs_cluster_node_name(f->cl, node[best])) < 0))
            best = i; /* tie_by_index: the candidates are in index order */
    return best;
}

int gs_fill_baseline(struct fill *f, const struct fjob *j)
{
    int nn = gs_cluster_node_count(f->cl), n = 0;
    for (int i = 0; i < nn; i++)
        if (gs_fill_feasible(f, i, j))
            f->cand[n++] = i;
    if (n == 0)
        return GS_ENOSPC;
    int pick = 0;
    if (f->o->policy == GS_FILL_RANDOM) {
        pick = (int)gs_rng_below(&f->rng, (uint64_t)n); /* one node gets the max score */
    } else if (n > 1) { /* kube-scheduler does not score a single feasible node */
        for (int i = 0; i < n; i++) {
            int gpu;
            f->score[i] = node_score(f, f->cand[i], j, &gpu);
        }
        if (f->o->policy == GS_FILL_BESTFIT)
            normalize(f->score, f->cand, n);
        pick = select_host(f, f->score, f->cand, n);
    }
    int gpu = -1;
    if (f->o->policy == GS_FILL_FGD && j->gpus == 1 && j->milli < GS_MILLI_GPU)
        score_fgd(f, f->cand[pick], j, &gpu);
    emit(f, f->cand[pick], j, gpu);
    return 0;
}
