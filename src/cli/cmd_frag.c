/* cmd_frag.c - `gpusched frag`: schedulability and fragmentation of one
 * snapshot of which GPUs are busy. */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/frag_html.h"
#include "cli/frag_pending.h"
#include "cli/frag_slurm.h"
#include "core/place/frag.h"
#include "io/frag_json.h"
#include "report/report.h"
#include "io/snapshot_json.h"

#include <jansson.h>
#include <string.h>

static const char *const frag_help =
    "usage: gpusched frag --cluster C.yaml --state S.json [--k K] [--policy P.yaml]\n"
    "                     [--json] [--html FILE]\n"
    "\n"
    "Read a snapshot (which GPUs are busy, and optionally a queue) and print\n"
    "how many GPUs are free, the schedulability S_k (how many k-GPU jobs could\n"
    "start at once under the topology rule; k defaults to the largest NVLink\n"
    "domain), which nodes or domains can take such a job, and the fragmented\n"
    "GPUs split into count and topology forms.  For a snapshot with a queue, it\n"
    "runs one scheduling pass and says why each queued job waits: the reason\n"
    "code with its numbers, what would unblock it and an estimated start\n"
    "(docs/diagnosis.md).\n"
    "\n"
    "  --cluster FILE  cluster YAML\n"
    "  --state FILE    snapshot JSON (docs/formats.md)\n"
    "  --k K           job size for S_k (default: largest NVLink domain)\n"
    "  --policy FILE   policy for the queue's pass (default: the defaults)\n"
    "  --json          print JSON\n"
    "\n"
    "  --from-slurm    read the live Slurm cluster instead of --state (squeue and\n"
    "                  sinfo --json, found through SLURM_CONF; docs/slurm.md);\n"
    "                  without --cluster the cluster is Slurm's node list\n"
    "  --save-snapshot FILE  with --from-slurm: write the snapshot read (replay it\n"
    "                  later with --state FILE, no Slurm needed)\n"
    "  --save-cluster FILE   with --from-slurm: write Slurm's nodes as a cluster YAML\n"
    "  --html FILE     also write the dashboard page of the snapshot (the cluster\n"
    "                  map, the queue with reasons, teams; docs/dashboard.md)\n";

struct frag_args {
    const char *cluster, *state, *policy, *html;
    long long k;
    int json;
    int from_slurm;
    struct frag_slurm slurm;
};

static int frag_opt(int c, const char *val, void *arg)
{
    struct frag_args *a = arg;
    switch (c) {
    case 'c': a->cluster = val; break;
    case 's': a->state = val; break;
    case 'p': a->policy = val; break;
    case 'k': return cli_parse_long("frag", "--k", val, 1, 4096, &a->k);
    case 'j': a->json = 1; break;
    case 'S': a->from_slurm = 1; break;
    case 'W': a->slurm.save_snapshot = val; break;
    case 'C': a->slurm.save_cluster = val; break;
    case 'H': a->html = val; break;
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct frag_args *a)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' }, { "state", required_argument, NULL, 's' },
        { "k", required_argument, NULL, 'k' },       { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },          { "policy", required_argument, NULL, 'p' },
        { "from-slurm", no_argument, NULL, 'S' },
        { "save-snapshot", required_argument, NULL, 'W' },
        { "save-cluster", required_argument, NULL, 'C' },
        { "html", required_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "frag", frag_help, opts };
    int st = gs_cli_parse(&cmd, argc, argv, frag_opt, a);
    if (st >= 0)
        return st;
    if (a->from_slurm && a->state)
        return cli_failf("frag", 2, "--from-slurm and --state exclude each other");
    if (!a->from_slurm && (!a->cluster || !a->state))
        return cli_failf("frag", 2, "--cluster and --state (or --from-slurm) are required"
                         " (see --help)");
    return -1;
}

/* Distinct shapes of the snapshot's queue (n = 0 when it has none): what
 * memory and expected fragmentation are measured against. */
static void queue_dist(const struct gs_cluster *cl, const struct gs_snapshot *snap,
                       struct gs_shape_dist *d)
{
    gs_frag_queue_init(d);
    for (size_t i = 0; snap->queue && i < gs_trace_count(snap->queue); i++)
        gs_frag_queue_add(cl, d, gs_trace_job(snap->queue, i));
    gs_shape_dist_equal_weights(d);
}

static json_t *frag_json(const struct gs_cluster *cl, const struct gs_snapshot *snap)
{
    struct gs_shape_dist d;
    queue_dist(cl, snap, &d);
    return gs_frag_json(cl, snap->time, &d);
}

static void print_text(const struct gs_cluster *cl, const struct gs_snapshot *snap)
{
    struct gs_shape_dist qd;
    queue_dist(cl, snap, &qd);
    struct gs_cluster_stats s = gs_cluster_stats(cl);
    printf("%-16s %6s  %-14s fits a job of %d GPUs\n", "node", "free", "domains free", s.k);
    for (int n = 0; n < gs_cluster_node_count(cl); n++) {
        uint64_t idle = gs_cluster_idle_mask(cl, n);
        char doms[96] = "", part[16];
        for (int d = 0; d < gs_cluster_node_domains(cl, n); d++) {
            snprintf(part, sizeof part, "%s%d", d ? "+" : "",
                     __builtin_popcountll(idle & gs_cluster_domain_mask(cl, n, d)));
            strncat(doms, part, sizeof doms - strlen(doms) - 1);
        }
        int fits = gs_cluster_node_sched(cl, n, idle, s.k);
        printf("%-16s %3d/%-2d  %-14s %s\n", gs_cluster_node_name(cl, n),
               __builtin_popcountll(idle), gs_cluster_node_gpus(cl, n), doms,
               fits ? "yes" : "no");
    }
    json_t *units = gs_frag_units_json(cl, s.k);
    printf("\nfree GPUs: %lld of %lld\n", (long long)s.idle_gpus, (long long)s.gpus);
    printf("schedulability S_%d = %lld", s.k, (long long)s.sched);
    if (units && json_array_size(units) > 0) {
        printf(" (can take a job of %d GPUs:", s.k);
        for (size_t i = 0; i < json_array_size(units); i++)
            printf(" %s", json_string_value(json_array_get(units, i)));
        printf(")");
    }
    printf("\nfragmentation: %lld free GPUs cannot serve a job of %d GPUs (count %lld,"
           " topology %lld)\n",
           (long long)s.frag_count + (long long)s.frag_topology, s.k, (long long)s.frag_count,
           (long long)s.frag_topology);
    printf("memory fragmentation: %.2f GPUs of free memory on partly used GPUs that %s\n",
           gs_frag_memory(cl, &qd), qd.n ? "no queued job can use" : "(no queue) count whole");
    if (s.mig_gpus > 0)
        printf("MIG: %lld GPUs, %lld free compute slices, %.2f GPUs in instances no queued"
               " job asks for\n",
               (long long)s.mig_gpus, (long long)s.mig_free_compute, gs_frag_mig(cl, &qd));
    json_decref(units);
}

int cmd_frag(int argc, char **argv)
{
    struct frag_args a = { .slurm.cmd = "frag" };
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    struct gs_cluster *cl = a.from_slurm ? frag_slurm_cluster(&a.slurm, a.cluster)
                                         : cli_load_cluster("frag", a.cluster);
    if (!cl) {
        frag_slurm_fini(&a.slurm);
        return 1;
    }
    struct gs_snapshot snap = { 0 };
    struct gs_error err = { 0 };
    int status = 0;
    struct gs_cluster *idle = gs_cluster_clone(cl); /* before the snapshot's GPUs */
    if (!idle) {
        status = cli_failf("frag", 1, "out of memory");
    } else if ((a.from_slurm ? frag_slurm_snapshot(&a.slurm, cl, &snap, &err)
                             : gs_snapshot_load_json(a.state, cl, &snap, &err)) < 0 ||
               gs_cluster_seal(cl, (int)a.k, &err) < 0) {
        status = cli_fail("frag", &err);
    } else if (a.json) {
        json_t *o = frag_json(cl, &snap), *pending = json_array();
        status = frag_pending(a.policy, idle, cl, &snap, pending);
        if (o && snap.queue && gs_trace_count(snap.queue) > 0)
            json_object_set(o, "pending", pending);
        if (o && a.from_slurm)
            frag_slurm_json(&a.slurm, o);
        json_decref(pending);
        if (status == 0)
            status = cli_print_json(o);
        else
            json_decref(o);
    } else {
        print_text(cl, &snap);
        if (a.from_slurm)
            frag_slurm_print(&a.slurm);
        status = frag_pending(a.policy, idle, cl, &snap, NULL);
    }
    if (status == 0 && a.html && !err.code)
        status = frag_html(a.html, a.policy, idle, cl, &snap);
    frag_slurm_fini(&a.slurm);
    gs_snapshot_fini(&snap);
    gs_cluster_destroy(idle);
    gs_cluster_destroy(cl);
    return status;
}
