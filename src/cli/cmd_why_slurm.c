/* cmd_why_slurm.c - `gpusched why JOBID --from-slurm`: one Slurm job's
 * explanation, Slurm's own reason code beside every cause gpusched finds
 * (with numbers, what would unblock it and an estimated start from the
 * running jobs' time limits).  The daemon's `why` client command
 * (cmd_client*.c, DESIGN.md section 5) hands --from-slurm here through
 * cli_why_slurm; on a branch without it, `why` is this command alone. */
#include "cli/cli.h"
#include "cli/cli_load.h"
#include "cli/frag_slurm.h"
#include "core/diagnose/diagnose.h"
#include "io/report_diag.h"
#include "io/placement.h"
#include "sim/snapshot_run.h"

#include "io/timefmt.h"

#include <string.h>
#include <time.h>

static const char *const why_help =
    "usage: gpusched why JOBID --from-slurm [--cluster C.yaml] [--policy P.yaml]\n"
    "                    [--k K] [--json]\n"
    "\n"
    "Read the live Slurm cluster (squeue and sinfo --json through SLURM_CONF, as\n"
    "`frag --from-slurm` does) and explain why Slurm job JOBID waits: Slurm's own\n"
    "reason code (Resources, Priority, ...) beside gpusched's causes with their\n"
    "numbers, what would unblock it, and the estimated start once the running\n"
    "jobs end at their time limits (docs/slurm.md).\n"
    "\n"
    "  --from-slurm    required: read Slurm (without it `why` asks gpuschedd)\n"
    "  --cluster FILE  cluster YAML (default: Slurm's node list)\n"
    "  --policy FILE   policy of the scheduling pass (default: the defaults)\n"
    "  --k K           job size for S_k\n"
    "  --json          print JSON\n";

struct why_args {
    const char *job, *cluster, *policy;
    long long k;
    int json, from_slurm;
};

static int why_opt(int c, const char *val, void *arg)
{
    struct why_args *a = arg;
    switch (c) {
    case 'S': a->from_slurm = 1; break;
    case 'c': a->cluster = val; break;
    case 'p': a->policy = val; break;
    case 'j': a->json = 1; break;
    case 'k': return cli_parse_long("why", "--k", val, 1, 4096, &a->k);
    }
    return 0;
}

static int parse_args(int argc, char **argv, struct why_args *a)
{
    static const struct option opts[] = {
        { "from-slurm", no_argument, NULL, 'S' }, { "cluster", required_argument, NULL, 'c' },
        { "policy", required_argument, NULL, 'p' }, { "json", no_argument, NULL, 'j' },
        { "k", required_argument, NULL, 'k' },      { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const struct gs_cli_cmd cmd = { "why", why_help, opts };
    /* JOBID is the one operand: take it out before getopt sees it */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cluster") || !strcmp(argv[i], "--policy") ||
            !strcmp(argv[i], "--k")) {
            i++;
        } else if (argv[i][0] != '-' && !a->job) {
            a->job = argv[i];
            memmove(argv + i, argv + i + 1, (size_t)(argc - i - 1) * sizeof *argv);
            argc--;
            i--;
        }
    }
    int st = gs_cli_parse(&cmd, argc, argv, why_opt, a);
    if (st >= 0)
        return st;
    if (!a->from_slurm)
        return cli_failf("why", 2, "this build explains Slurm jobs only: use --from-slurm");
    if (!a->job)
        return cli_failf("why", 2, "JOBID is required (see --help)");
    return -1;
}

static void print_text(const struct why_args *a, const char *slurm_reason, const json_t *o)
{
    printf("job %s: %s\n", a->job, slurm_reason ? "pending" : "running");
    if (!slurm_reason) {
        printf("  placement:         %s\n", json_string_value(json_object_get(o, "placement")));
        return;
    }
    printf("  Slurm's reason:    %s\n", slurm_reason);
    double now = (double)time(NULL);
    char text[1024];
    const char *detail = json_string_value(json_object_get(o, "detail"));
    printf("  gpusched's reason: %s: %s\n", json_string_value(json_object_get(o, "reason")),
           detail ? gs_timefmt_text(detail, now, text, sizeof text) : "(null)");
    const json_t *rs = json_object_get(o, "reasons");
    for (size_t i = 1; i < json_array_size(rs); i++)
        printf("  also:              %s\n",
               json_string_value(json_object_get(json_array_get(rs, i), "code")));
    if (strcmp(json_string_value(json_object_get(o, "reason")), "none") == 0)
        return;
    const char *unblock = json_string_value(json_object_get(o, "unblock"));
    printf("  unblock:           %s\n",
           unblock ? gs_timefmt_text(unblock, now, text, sizeof text) : "(null)");
    const json_t *at = json_object_get(o, "est_start"), *in = json_object_get(o, "est_in");
    if (json_is_number(at)) {
        char when[32], rel[32];
        printf("  estimated start:   %s (%s; %s: running jobs end at their time limits)\n",
               gs_timefmt_iso(json_number_value(at), when, sizeof when),
               gs_timefmt_rel(json_is_number(in) ? json_number_value(in)
                                                 : json_number_value(at) - now,
                              rel, sizeof rel),
               json_string_value(json_object_get(o, "est_basis")));
    } else {
        printf("  estimated start:   unknown (running jobs without a time limit)\n");
    }
}

/* A running job's placement as text ("node-1:0,1 node-2:0", io/placement.h
 * NODES). */
static json_t *running_json(const struct gs_engine *eng, int job)
{
    struct gs_alloc al;
    char where[1024] = "";
    if (gs_engine_job_alloc(eng, job, &al) == 0)
        gs_placement_format(where, sizeof where, gs_engine_cluster(eng), al.parts, al.nparts,
                            GS_PLACEMENT_NODES);
    return json_pack("{s:s, s:s}", "state", "running", "placement", where);
}

static int explain(const struct why_args *a, struct frag_slurm *fs, struct gs_engine *eng)
{
    int job = gs_engine_job_find(eng, a->job);
    if (job < 0)
        return cli_failf("why", 1, "no job %s in Slurm's queue (pending or running with GPUs)",
                         a->job);
    struct gs_job_info ji;
    gs_engine_job_info(eng, job, &ji);
    const char *reason = frag_slurm_reason(fs, a->job);
    json_t *o;
    if (ji.state == GS_JOB_PENDING) {
        struct gs_diag d;
        if (gs_engine_explain(eng, job, &d) < 0)
            return cli_failf("why", 1, "out of memory");
        o = gs_report_diag_json(eng, &d);
    } else if (reason) { /* pending in Slurm, but it would start now */
        o = json_pack("{s:s, s:s, s:s, s:[]}", "reason", "none", "detail",
                      "fits now: gpusched would start it at once", "unblock", "", "reasons");
    } else {
        o = running_json(eng, job);
    }
    if (!o)
        return cli_failf("why", 1, "out of memory");
    json_object_set_new(o, "id", json_string(a->job));
    json_object_set_new(o, "slurm_reason", reason ? json_string(reason) : json_null());
    if (a->json) {
        cli_print_json(o);
        return 0;
    }
    print_text(a, reason, o);
    json_decref(o);
    return 0;
}

int cli_why_slurm(int argc, char **argv)
{
    struct why_args a = { 0 };
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    struct frag_slurm fs = { .cmd = "why" };
    struct gs_cluster *cl = frag_slurm_cluster(&fs, a.cluster), *idle = NULL;
    struct gs_snapshot snap = { 0 };
    struct gs_policy pol;
    struct gs_error err = { 0 };
    int status = 1, have_pol = 0;
    if (!cl || !(idle = gs_cluster_clone(cl)))
        goto out;
    if (frag_slurm_snapshot(&fs, cl, &snap, &err) < 0 || gs_cluster_seal(cl, (int)a.k, &err) < 0) {
        status = cli_fail("why", &err);
        goto out;
    }
    if (cli_load_policy("why", a.policy, &pol) < 0)
        goto out;
    have_pol = 1;
    struct gs_snapshot_jobs run;
    gs_snapshot_jobs_view(&snap, &run);
    int first;
    struct gs_engine *eng = gs_snapshot_run_jobs(idle, cl, &pol, snap.queue, snap.time, &run,
                                                 &first, &err);
    status = eng ? explain(&a, &fs, eng) : cli_fail("why", &err);
    gs_engine_destroy(eng);
out:
    if (have_pol)
        gs_policy_fini(&pol);
    gs_snapshot_fini(&snap);
    gs_cluster_destroy(idle);
    gs_cluster_destroy(cl);
    frag_slurm_fini(&fs);
    return status;
}
