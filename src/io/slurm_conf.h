/* slurm_conf.h - render a private Slurm 22.05 cluster's configuration
 * (slurm.conf, gres.conf, topology.conf, slurmdbd.conf) from a gpusched
 * cluster, for scripts/slurm-local.sh (docs/slurm.md).
 *
 * Every node becomes one slurmd on 127.0.0.1 with its own port; its GPUs
 * are device files under RUNDIR/dev/NODE/nvidiaI (symlinks to /dev/null,
 * made by the caller).  NVLink domains inside a node become gres.conf
 * `Links=` (GPUs of one domain are linked, others not); multi-node
 * `domain:` labels become topology/tree leaf switches (a node without a
 * label is its own leaf) under one top switch.  With `gpu_types` every GPU
 * is its own GRES type g0..gN-1 so that a job's GPU indices can be chosen
 * (`scontrol update Gres=gpu:g3:1`).  Authentication is auth/none: for
 * tests and demos on one machine only.
 */
#ifndef GS_IO_SLURM_CONF_H
#define GS_IO_SLURM_CONF_H

#include <stdio.h>

#include "core/cluster/cluster.h"

struct gs_slurm_conf {
    const char *rundir;      /* absolute runtime directory */
    const char *host;        /* NodeHostname / SlurmctldHost (hostname -s) */
    const char *name;        /* ClusterName */
    int ctld_port;
    const int *slurmd_ports; /* one per node of the cluster */
    int dbd_port;            /* 0 = no accounting */
    int db_port;             /* MariaDB port (with dbd_port) */
    int gpu_types;           /* 1 = one GRES type per GPU (g0..) */
};

/* Write slurm.conf for `cl` to `f` from `c` (all borrowed).  Node CPUs are
 * the cluster's `cpu` (rounded up) or 8 per GPU (at least 8), so a node
 * takes as many 1-CPU GPU jobs as it has GPUs.  Partitions: `gpu`
 * (default, PriorityTier 1, preemptible by requeue) and `urgent`
 * (PriorityTier 10). */
void gs_slurm_conf_write_slurm(FILE *f, const struct gs_cluster *cl,
                               const struct gs_slurm_conf *c);

/* Write gres.conf: one line per GPU with its device file and Links. */
void gs_slurm_conf_write_gres(FILE *f, const struct gs_cluster *cl,
                              const struct gs_slurm_conf *c);

/* Write topology.conf when some node has a multi-node domain label and
 * return 1; return 0 and write only a comment when none has (slurm.conf
 * then uses topology/none). */
int gs_slurm_conf_write_topology(FILE *f, const struct gs_cluster *cl);

/* Write slurmdbd.conf (StorageType mysql on 127.0.0.1:db_port). */
void gs_slurm_conf_write_dbd(FILE *f, const struct gs_slurm_conf *c);

/* Whether the cluster has a multi-node domain label (topology/tree). */
int gs_slurm_conf_has_topology(const struct gs_cluster *cl);

#endif
