/* slurm_conf.c - slurm.conf, gres.conf, topology.conf and slurmdbd.conf of
 * a private Slurm cluster (slurm_conf.h).  Facts behind each setting are in
 * ../shared/slurm/NOTES.md and docs/slurm.md. */
#include "io/slurm_conf.h"

#include <ctype.h>
#include <string.h>

/* Copy `s` with every character Slurm does not accept in a switch or
 * feature name replaced by '_'. */
static void safe_name(char *out, size_t n, const char *s)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n; i++)
        out[i] = (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_') ? s[i] : '_';
    out[i] = '\0';
}

static int node_cpus(const struct gs_cluster *cl, int n)
{
    int64_t milli = gs_cluster_node_cpu(cl, n);
    if (milli > 0)
        return (int)((milli + 999) / 1000);
    int g = gs_cluster_node_gpus(cl, n) * 8;
    return g < 8 ? 8 : g;
}

int gs_slurm_conf_has_topology(const struct gs_cluster *cl)
{
    for (int n = 0; n < gs_cluster_node_count(cl); n++)
        if (gs_cluster_node_mdomain(cl, n) >= 0)
            return 1;
    return 0;
}

static void write_header(FILE *f, const struct gs_cluster *cl, const struct gs_slurm_conf *c)
{
    const char *r = c->rundir;
    fprintf(f, "# Private Slurm cluster rendered by `gpusched slurm-conf` (docs/slurm.md).\n"
               "# auth/none: tests and demos on one machine only.\n"
               "ClusterName=%s\nSlurmctldHost=%s(127.0.0.1)\nSlurmctldPort=%d\n"
               "SlurmUser=root\nSlurmdUser=root\nAuthType=auth/none\nCredType=cred/none\n"
               "# a requeued job may start again cred_expire + 1 s later (default 121 s)\n"
               "AuthInfo=cred_expire=5\n",
            c->name, c->host, c->ctld_port);
    fprintf(f, "StateSaveLocation=%s/state\nSlurmdSpoolDir=%s/spool/%%n\n"
               "SlurmctldPidFile=%s/run/slurmctld.pid\nSlurmdPidFile=%s/run/slurmd-%%n.pid\n"
               "SlurmctldLogFile=%s/log/slurmctld.log\nSlurmdLogFile=%s/log/slurmd-%%n.log\n",
            r, r, r, r, r, r);
    fputs("SlurmdParameters=config_overrides\nReturnToService=2\n"
          "SchedulerType=sched/backfill\nSchedulerParameters=batch_sched_delay=0,"
          "sched_min_interval=0,sched_interval=2,bf_interval=2\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
          "GresTypes=gpu\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
          "MpiDefault=none\nLaunchParameters=use_interactive_step\n"
          "PriorityType=priority/multifactor\nPreemptType=preempt/partition_prio\n"
          "PreemptMode=REQUEUE\nKillWait=2\nMinJobAge=600\nInactiveLimit=0\n"
          "SlurmctldTimeout=30\nSlurmdTimeout=60\nJobAcctGatherType=jobacct_gather/none\n",
          f);
    fprintf(f, "TopologyPlugin=topology/%s\n", gs_slurm_conf_has_topology(cl) ? "tree" : "none");
    if (c->dbd_port > 0)
        fprintf(f, "AccountingStorageType=accounting_storage/slurmdbd\n"
                   "AccountingStorageHost=127.0.0.1\nAccountingStoragePort=%d\n"
                   "AccountingStorageTRES=gres/gpu\nJobCompType=jobcomp/none\n",
                c->dbd_port);
    else
        fputs("AccountingStorageType=accounting_storage/none\n", f);
}

static void write_node(FILE *f, const struct gs_cluster *cl, const struct gs_slurm_conf *c,
                       int n)
{
    char feat[GS_NAME_MAX + 1], dom[GS_NAME_MAX + 1];
    int g = gs_cluster_node_gpus(cl, n);
    int64_t mem = gs_cluster_node_mem(cl, n);
    fprintf(f, "NodeName=%s NodeHostname=%s NodeAddr=127.0.0.1 Port=%d CPUs=%d RealMemory=%lld",
            gs_cluster_node_name(cl, n), c->host, c->slurmd_ports[n], node_cpus(cl, n),
            (long long)(mem > 0 ? mem : 1024));
    if (g > 0 && c->gpu_types) {
        fputs(" Gres=", f);
        for (int i = 0; i < g; i++)
            fprintf(f, "%sgpu:g%d:1", i ? "," : "", i);
    } else if (g > 0) {
        fprintf(f, " Gres=gpu:%d", g);
    }
    safe_name(feat, sizeof feat,
              g > 0 ? gs_cluster_gpu_type_name(cl, gs_cluster_node_gpu_type(cl, n)) : "cpu");
    fprintf(f, " Features=%s", feat);
    if (gs_cluster_node_mdomain(cl, n) >= 0) {
        safe_name(dom, sizeof dom, gs_cluster_label_name(cl, gs_cluster_node_mdomain(cl, n)));
        fprintf(f, ",%s", dom);
    }
    fputs(" State=UNKNOWN\n", f);
}

void gs_slurm_conf_write_slurm(FILE *f, const struct gs_cluster *cl,
                               const struct gs_slurm_conf *c)
{
    write_header(f, cl, c);
    for (int n = 0; n < gs_cluster_node_count(cl); n++)
        write_node(f, cl, c, n);
    fputs("PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP PriorityTier=1 "
          "PreemptMode=REQUEUE\n"
          "PartitionName=urgent Nodes=ALL MaxTime=INFINITE State=UP PriorityTier=10\n",
          f);
}

/* Links= for GPU `g` of node `n`: -1 for itself, 1 to the GPUs of its
 * NVLink domain, 0 to the others. */
static void write_links(FILE *f, const struct gs_cluster *cl, int n, int g)
{
    uint64_t mine = 0;
    for (int d = 0; d < gs_cluster_node_domains(cl, n); d++)
        if (gs_cluster_domain_mask(cl, n, d) & (1ULL << g))
            mine = gs_cluster_domain_mask(cl, n, d);
    fputs(" Links=", f);
    for (int j = 0; j < gs_cluster_node_gpus(cl, n); j++)
        fprintf(f, "%s%d", j ? "," : "", j == g ? -1 : (mine >> j) & 1 ? 1 : 0);
}

void gs_slurm_conf_write_gres(FILE *f, const struct gs_cluster *cl,
                              const struct gs_slurm_conf *c)
{
    fputs("# One line per GPU: device file (a symlink to /dev/null) and NVLink links.\n", f);
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        const char *name = gs_cluster_node_name(cl, n);
        for (int g = 0; g < gs_cluster_node_gpus(cl, n); g++) {
            fprintf(f, "NodeName=%s Name=gpu", name);
            if (c->gpu_types)
                fprintf(f, " Type=g%d", g);
            fprintf(f, " File=%s/dev/%s/nvidia%d", c->rundir, name, g);
            if (gs_cluster_node_gpus(cl, n) > 1)
                write_links(f, cl, n, g);
            fputc('\n', f);
        }
    }
}

/* The leaf switch name of node `n`: "d-LABEL", or "n-NODE" for a node
 * without a multi-node domain. */
static void leaf_name(char *out, size_t size, const struct gs_cluster *cl, int n)
{
    char s[GS_NAME_MAX + 1];
    int md = gs_cluster_node_mdomain(cl, n);
    safe_name(s, sizeof s, md >= 0 ? gs_cluster_label_name(cl, md) : gs_cluster_node_name(cl, n));
    snprintf(out, size, "%s-%s", md >= 0 ? "d" : "n", s);
}

int gs_slurm_conf_write_topology(FILE *f, const struct gs_cluster *cl)
{
    if (!gs_slurm_conf_has_topology(cl)) {
        fputs("# no multi-node NVLink domain: topology/none\n", f);
        return 0;
    }
    fputs("# One leaf switch per multi-node NVLink domain (a node without one is its own).\n",
          f);
    int nn = gs_cluster_node_count(cl);
    char leaf[GS_NAME_MAX + 8], other[GS_NAME_MAX + 8];
    for (int n = 0; n < nn; n++) {
        leaf_name(leaf, sizeof leaf, cl, n);
        int seen = 0;
        for (int m = 0; m < n && !seen; m++) {
            leaf_name(other, sizeof other, cl, m);
            seen = strcmp(leaf, other) == 0;
        }
        if (seen)
            continue;
        fprintf(f, "SwitchName=%s Nodes=", leaf);
        for (int m = n, first = 1; m < nn; m++) {
            leaf_name(other, sizeof other, cl, m);
            if (strcmp(leaf, other) == 0) {
                fprintf(f, "%s%s", first ? "" : ",", gs_cluster_node_name(cl, m));
                first = 0;
            }
        }
        fputc('\n', f);
    }
    fputs("SwitchName=top Switches=", f);
    int first = 1;
    for (int n = 0; n < nn; n++) {
        leaf_name(leaf, sizeof leaf, cl, n);
        int seen = 0;
        for (int m = 0; m < n && !seen; m++) {
            leaf_name(other, sizeof other, cl, m);
            seen = strcmp(leaf, other) == 0;
        }
        if (!seen) {
            fprintf(f, "%s%s", first ? "" : ",", leaf);
            first = 0;
        }
    }
    fputc('\n', f);
    return 1;
}

void gs_slurm_conf_write_dbd(FILE *f, const struct gs_slurm_conf *c)
{
    fprintf(f, "# slurmdbd of the private cluster (docs/slurm.md); auth/none.\n"
               "AuthType=auth/none\nDbdHost=%s\nDbdAddr=127.0.0.1\nDbdPort=%d\n"
               "SlurmUser=root\nStorageType=accounting_storage/mysql\n"
               "StorageHost=127.0.0.1\nStoragePort=%d\nStorageUser=root\n"
               "StorageLoc=slurm_acct_db\nPidFile=%s/run/slurmdbd.pid\n"
               "LogFile=%s/log/slurmdbd.log\n",
            c->host, c->dbd_port, c->db_port, c->rundir, c->rundir);
}
