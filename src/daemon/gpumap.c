/* gpumap.c - node GPUs to host GPU indices (see gpumap.h). */
#define _GNU_SOURCE
#include "daemon/gpumap.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/loop_private.h"

int gsd_gpumap_host_gpus(void)
{
    DIR *d = opendir("/dev");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *p = de->d_name;
        if (strncmp(p, "nvidia", 6) != 0 || !p[6])
            continue;
        for (p += 6; isdigit((unsigned char)*p); p++)
            ;
        n += *p == '\0'; /* nvidia0, not nvidiactl or nvidia-uvm */
    }
    closedir(d);
    return n;
}

int gsd_gpumap_open(struct gsd_loop *lp, const struct gs_cluster *cl)
{
    int nn = gs_cluster_node_count(cl), total = 0;
    int host = lp->sh.opts.local_gpus >= 0 ? lp->sh.opts.local_gpus : gsd_gpumap_host_gpus();
    lp->gpu_mode = lp->sh.opts.gpu_mode;
    if (lp->gpu_mode == GSD_GPUS_AUTO)
        lp->gpu_mode = host > 0 ? GSD_GPUS_PHYSICAL : GSD_GPUS_VIRTUAL;
    if (lp->gpu_mode == GSD_GPUS_VIRTUAL) {
        gsd_log("GPUs: virtual (%s): each node's GPU indices are used as they are, so jobs "
                "on different nodes may see the same CUDA_VISIBLE_DEVICES; for demos and "
                "tests, not for real GPUs",
                lp->sh.opts.gpu_mode == GSD_GPUS_VIRTUAL ? "--virtual-gpus"
                                                      : "no GPU device on this host");
        return 0;
    }
    free(lp->gpu_offset);
    lp->gpu_offset = calloc((size_t)nn + 1, sizeof *lp->gpu_offset);
    if (!lp->gpu_offset)
        return -1;
    for (int n = 0; n < nn; n++) {
        lp->gpu_offset[n] = total;
        total += gs_cluster_node_gpus(cl, n);
    }
    if (total > host) {
        gsd_log("GPUs: the cluster file's %d nodes have %d GPUs, this host has %d%s: one "
                "physical GPU would go to two jobs; declare the host's GPUs with "
                "--local-gpus N, or run with --virtual-gpus (demos, tests)",
                nn, total, host, lp->sh.opts.local_gpus >= 0 ? " (--local-gpus)" : "");
        return -1;
    }
    gsd_log("GPUs: physical, %d on this host; node i's GPU g is host GPU %s + g "
            "(%s -> 0..%d%s)",
            host, nn > 1 ? "(GPUs of the nodes before i)" : "0", gs_cluster_node_name(cl, 0),
            gs_cluster_node_gpus(cl, 0) - 1, nn > 1 ? ", ..." : "");
    return 0;
}

int gsd_gpumap_index(const struct gsd_loop *lp, int node, int g)
{
    if (lp->gpu_mode != GSD_GPUS_PHYSICAL || !lp->gpu_offset || node < 0)
        return g;
    return lp->gpu_offset[node] + g;
}

const char *gsd_gpumap_mode_name(const struct gsd_loop *lp)
{
    return lp->gpu_mode == GSD_GPUS_PHYSICAL ? "physical" : "virtual";
}
