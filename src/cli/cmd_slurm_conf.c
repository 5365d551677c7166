/* cmd_slurm_conf.c - `gpusched slurm-conf`: lay out the runtime directory
 * of a private Slurm cluster for scripts/slurm-local.sh: the conf files
 * (io/slurm_conf.h), fake GPU device files, free ports, and a ports.env
 * the script sources. */
#define _DEFAULT_SOURCE /* symlink, gethostname */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "io/slurm_conf.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const conf_help =
    "usage: gpusched slurm-conf --cluster C.yaml --rundir DIR [--gpu-types]\n"
    "                           [--accounting] [--name NAME]\n"
    "\n"
    "Render a private Slurm 22.05 cluster for one machine from a cluster file\n"
    "(used by scripts/slurm-local.sh; docs/slurm.md): DIR/etc/slurm.conf,\n"
    "gres.conf, topology.conf (and slurmdbd.conf with --accounting), fake GPU\n"
    "device files DIR/dev/NODE/nvidiaI (symlinks to /dev/null), one free port\n"
    "per daemon on 127.0.0.1, DIR/nodes.txt (one node name a line) and\n"
    "DIR/ports.env (CTLD_PORT=, DBD_PORT=, DB_PORT=).\n"
    "\n"
    "  --cluster FILE  cluster YAML\n"
    "  --rundir DIR    runtime directory (created; absolute or relative)\n"
    "  --gpu-types     one GRES type per GPU (g0, g1, ...): GPU indices can be chosen\n"
    "  --accounting    also slurmdbd + MariaDB ports and slurmdbd.conf\n"
    "  --name NAME     ClusterName (default gpusched)\n";

struct conf_args {
    const char *cluster, *rundir, *name;
    int gpu_types, accounting;
};

static int conf_opt(int c, const char *val, void *arg)
{
    struct conf_args *a = arg;
    switch (c) {
    case 'c': a->cluster = val; break;
    case 'r': a->rundir = val; break;
    case 'n': a->name = val; break;
    case 't': a->gpu_types = 1; break;
    case 'a': a->accounting = 1; break;
    }
    return 0;
}

/* Pick `n` distinct free TCP ports on 127.0.0.1: bind each to port 0 and
 * keep all bound until every one is known.  Returns 0 or -1 (errno). */
static int free_ports(int *ports, int n)
{
    int *fds = calloc((size_t)n, sizeof *fds), rc = 0, i;
    if (!fds)
        return -1;
    for (i = 0; i < n && rc == 0; i++) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = 0,
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof sa;
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&sa, sizeof sa) < 0 ||
            getsockname(fds[i], (struct sockaddr *)&sa, &len) < 0)
            rc = -1;
        else
            ports[i] = ntohs(sa.sin_port);
    }
    for (int j = 0; j < i; j++)
        if (fds[j] >= 0)
            close(fds[j]);
    free(fds);
    return rc;
}

static int fail_errno(const char *cmd, const char *path)
{
    cli_failf(cmd, 1, "%s: %s", path, strerror(errno));
    return -1;
}

static int mkdirs(const char *cmd, const char *root, const char *sub)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, sub);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return fail_errno(cmd, path);
        *p = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return fail_errno(cmd, path);
    return 0;
}

/* DIR/dev/NODE/nvidiaI -> /dev/null for every GPU. */
static int make_devices(const struct gs_cluster *cl, const char *rundir)
{
    char sub[512], path[4096];
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        snprintf(sub, sizeof sub, "dev/%s", gs_cluster_node_name(cl, n));
        if (mkdirs("slurm-conf", rundir, sub) < 0)
            return -1;
        for (int g = 0; g < gs_cluster_node_gpus(cl, n); g++) {
            snprintf(path, sizeof path, "%s/%s/nvidia%d", rundir, sub, g);
            unlink(path);
            if (symlink("/dev/null", path) < 0)
                return fail_errno("slurm-conf", path);
        }
    }
    return 0;
}

typedef void (*writer_fn)(FILE *f, const struct gs_cluster *cl, const struct gs_slurm_conf *c);

static void topo_writer(FILE *f, const struct gs_cluster *cl, const struct gs_slurm_conf *c)
{
    (void)c;
    gs_slurm_conf_write_topology(f, cl);
}

static void dbd_writer(FILE *f, const struct gs_cluster *cl, const struct gs_slurm_conf *c)
{
    (void)cl;
    gs_slurm_conf_write_dbd(f, c);
}

static int write_file(const char *dir, const char *name, writer_fn fn,
                      const struct gs_cluster *cl, const struct gs_slurm_conf *c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = cli_open_out("slurm-conf", path);
    if (!f)
        return -1;
    fn(f, cl, c);
    if (strcmp(name, "etc/slurmdbd.conf") == 0)
        chmod(path, 0600); /* slurmdbd refuses a readable one */
    return cli_close("slurm-conf", f, path) == 0 ? 0 : -1;
}

static int write_lists(const struct gs_cluster *cl, const struct gs_slurm_conf *c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nodes.txt", c->rundir);
    FILE *f = cli_open_out("slurm-conf", path);
    if (!f)
        return -1;
    for (int n = 0; n < gs_cluster_node_count(cl); n++)
        fprintf(f, "%s\n", gs_cluster_node_name(cl, n));
    if (cli_close("slurm-conf", f, path) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/ports.env", c->rundir);
    if (!(f = cli_open_out("slurm-conf", path)))
        return -1;
    fprintf(f, "CTLD_PORT=%d\nDBD_PORT=%d\nDB_PORT=%d\nHOST=%s\n", c->ctld_port, c->dbd_port,
            c->db_port, c->host);
    return cli_close("slurm-conf", f, path) == 0 ? 0 : -1;
}

static int render(const struct gs_cluster *cl, struct gs_slurm_conf *c, int accounting)
{
    static const char *const dirs[] = { "etc", "state", "spool", "log", "run" };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (mkdirs("slurm-conf", c->rundir, dirs[i]) < 0)
            return 1;
    int nn = gs_cluster_node_count(cl), np = nn + 1 + (accounting ? 2 : 0);
    int *ports = calloc((size_t)np, sizeof *ports);
    if (!ports || free_ports(ports, np) < 0) {
        free(ports);
        return cli_failf("slurm-conf", 1, "cannot find free ports: %s", strerror(errno));
    }
    c->ctld_port = ports[nn];
    c->slurmd_ports = ports;
    if (accounting) {
        c->dbd_port = ports[nn + 1];
        c->db_port = ports[nn + 2];
    }
    int rc = make_devices(cl, c->rundir) < 0 ||
             write_file(c->rundir, "etc/slurm.conf", gs_slurm_conf_write_slurm, cl, c) < 0 ||
             write_file(c->rundir, "etc/gres.conf", gs_slurm_conf_write_gres, cl, c) < 0 ||
             write_file(c->rundir, "etc/topology.conf", topo_writer, cl, c) < 0 ||
             (accounting &&
              write_file(c->rundir, "etc/slurmdbd.conf", dbd_writer, cl, c) < 0) ||
             write_lists(cl, c) < 0;
    free(ports);
    return rc ? 1 : 0;
}

int cmd_slurm_conf(int argc, char **argv)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "rundir", required_argument, NULL, 'r' },
        { "name", required_argument, NULL, 'n' },    { "gpu-types", no_argument, NULL, 't' },
        { "accounting", no_argument, NULL, 'a' },    { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "slurm-conf", conf_help, opts };
    struct conf_args a = { 0 };
    int st = gs_cli_parse(&cmd, argc, argv, conf_opt, &a);
    if (st >= 0)
        return st;
    if (!a.cluster || !a.rundir)
        return cli_failf("slurm-conf", 2, "--cluster and --rundir are required (see --help)");
    if (mkdirs("slurm-conf", a.rundir, ".") < 0)
        return 1;
    char *root = realpath(a.rundir, NULL), host[256] = "localhost";
    if (!root)
        return cli_failf("slurm-conf", 1, "%s: %s", a.rundir, strerror(errno));
    if (gethostname(host, sizeof host - 1) == 0)
        host[strcspn(host, ".")] = '\0';
    struct gs_cluster *cl = cli_load_cluster("slurm-conf", a.cluster);
    struct gs_slurm_conf c = { .rundir = root, .host = host,
                               .name = a.name ? a.name : "gpusched", .gpu_types = a.gpu_types };
    int status = cl ? render(cl, &c, a.accounting) : 1;
    gs_cluster_destroy(cl);
    free(root);
    return status;
}
