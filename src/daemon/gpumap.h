/* gpumap.h - which of this host's GPUs a placement names (local backend).
 *
 * One physical GPU is never given to two jobs.  In physical mode node i's
 * GPU g is host GPU offset(i) + g, where offset(i) is the sum of the GPU
 * counts of the nodes before it in the cluster file, so the nodes of a
 * multi-node cluster file map to disjoint host indices (node-1:0 -> 0,
 * node-2:0 -> 8 with 8-GPU nodes); the daemon refuses to start when the
 * host has fewer GPUs than the file maps.  The host's count is declared
 * with --local-gpus N or found as the /dev/nvidiaN devices.  In virtual
 * mode (--virtual-gpus, or by default on a host without any GPU device:
 * demos and tests) each node's own indices are used as they are, so jobs
 * on different nodes may see the same CUDA_VISIBLE_DEVICES index; there is
 * no physical GPU to share.  The mode is printed at start and is
 * `gpu_mode` in GET /v1/cluster.
 */
#ifndef GS_DAEMON_GPUMAP_H
#define GS_DAEMON_GPUMAP_H

struct gs_cluster;
struct gsd_loop;

/* How --local-gpus / --virtual-gpus were given. */
enum gsd_gpu_mode { GSD_GPUS_AUTO, GSD_GPUS_PHYSICAL, GSD_GPUS_VIRTUAL };

/* The GPU devices of this host (/dev/nvidia0, /dev/nvidia1, ...). */
int gsd_gpumap_host_gpus(void);

/* Decide the mode for cluster `cl` from the options (mode, declared host
 * count `host_gpus`, -1 = none), print it on stderr, and fill lp->gpu_mode
 * and lp->gpu_offset (one per node, physical mode).  0, or -1 after saying
 * why the host cannot hold the cluster file's GPUs. */
int gsd_gpumap_open(struct gsd_loop *lp, const struct gs_cluster *cl);

/* Host GPU index of GPU g of node `node`: g in virtual mode, offset + g in
 * physical mode. */
int gsd_gpumap_index(const struct gsd_loop *lp, int node, int g);

/* "physical" or "virtual" (the local backend), for /v1/cluster. */
const char *gsd_gpumap_mode_name(const struct gsd_loop *lp);

#endif
