/* spares.c - hot spares (policy spares.nodes, spares.min_gpus;
 * docs/failures.md): idle nodes kept free for the restart of large jobs
 * hit by a node failure.  The spares are not fixed nodes: at every
 * placement they are the spares.nodes highest-numbered nodes whose GPUs
 * are all idle, so a node freed by any job refills the pool before other
 * jobs may use it, and a spare that fails is replaced by the next idle
 * node.  Only the placement's allowed nodes change (gs_eng_request). */
#include "core/base/alloc.h"
#include "core/jobs/jobs.h"

int gs_eng_spares_init(struct gs_engine *eng)
{
    if (eng->pol.spares_nodes <= 0)
        return 0;
    int n = gs_cluster_node_count(eng->cl);
    eng->spare_mask = gs_malloc((size_t)(n > 0 ? n : 1));
    return eng->spare_mask ? 0 : GS_ENOMEM;
}

const unsigned char *gs_eng_spare_nodes(const struct gs_engine *eng, const struct job *j,
                                        const unsigned char *allowed)
{
    if (!eng->spare_mask || gs_eng_spare_user(eng, j))
        return allowed;
    int n = gs_cluster_node_count(eng->cl), kept = 0;
    const uint64_t *idle = gs_cluster_idle_masks(eng->cl), *full = gs_cluster_full_view(eng->cl);
    unsigned char *m = eng->spare_mask;
    for (int i = n - 1; i >= 0; i--) {
        int spare = kept < eng->pol.spares_nodes && idle[i] == full[i] && full[i] != 0;
        kept += spare;
        m[i] = (unsigned char)(!spare && (!allowed || allowed[i]));
    }
    return m;
}
