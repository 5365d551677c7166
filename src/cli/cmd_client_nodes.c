/* cmd_client_nodes.c - `gpusched nodes` and `checkpoint` (drain, resume,
 * down: cmd_client_node_act.c; cancel: cmd_client_cancel.c). */
#include "cli/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const nodes_help =
    "usage: gpusched nodes [--json]\n"
    "\n"
    "One line per node (GET /v1/nodes): its state (up, drain, down), its GPUs,\n"
    "how many are free, their type and the free GPUs of each NVLink domain,\n"
    "then the reason of a drain or down (--reason); below a node, one line per\n"
    "GPU drained or down alone (NODE:GPU, its state and reason).\n" GS_CLIENT_COMMON_HELP;

static const char *const checkpoint_help =
    "usage: gpusched checkpoint [JOBID] [--json]\n"
    "\n"
    "Tell gpuschedd that a running job has just written a checkpoint, so a\n"
    "preemption loses only the work done since.  Called by the job itself:\n"
    "JOBID defaults to $GPUSCHED_JOB_ID, and --server to $GPUSCHED_SERVER, which\n"
    "the daemon sets in every job's environment.\n" GS_CLIENT_COMMON_HELP;

/* A domain entry as "free/total" (objects) or the number itself. */
static void print_domains(const json_t *doms)
{
    size_t i;
    const json_t *d;
    char b1[32], b2[32];
    if (!json_is_array(doms)) {
        printf("-");
        return;
    }
    json_array_foreach(doms, i, d) {
        if (json_is_object(d))
            printf("%s%s/%s", i ? " " : "", gs_client_field(d, "free", "?", b1, sizeof b1),
                   gs_client_field(d, "gpus", "?", b2, sizeof b2));
        else if (json_is_integer(d))
            printf("%s%lld", i ? " " : "", (long long)json_integer_value(d));
    }
}

/* One line per GPU drained or down alone (its state is not the node's):
 * "  NODE:G  STATE  (REASON)". */
static void print_gpus_out(const json_t *n)
{
    char b1[32], b2[32], b3[32], b4[256], b5[32], at[160];
    size_t i;
    const json_t *g;
    const char *ns = gs_client_field(n, "state", "?", b5, sizeof b5);
    json_array_foreach(json_object_get(n, "gpus_out"), i, g) {
        const char *st = gs_client_field(g, "state", "?", b3, sizeof b3);
        if (!strcmp(st, ns))
            continue;
        const char *why = gs_client_field(g, "reason", "", b4, sizeof b4);
        snprintf(at, sizeof at, "%s:%s", gs_client_field(n, "name", "?", b1, sizeof b1),
                 gs_client_field(g, "gpu", "?", b2, sizeof b2));
        if (*why)
            printf("  %-14s %-6s (%s)\n", at, st, why);
        else
            printf("  %-14s %s\n", at, st);
    }
}

static void print_nodes(const json_t *ans, const json_t *nodes, void *arg)
{
    (void)ans;
    (void)arg;
    char b1[32], b2[32], b3[32], b4[32], b5[64], b6[256];
    size_t i;
    const json_t *n;
    printf("%-16s %-6s %4s %4s %-8s %s\n", "NODE", "STATE", "GPUS", "FREE", "TYPE",
           "DOMAINS(FREE/GPUS)");
    json_array_foreach(nodes, i, n) {
        const char *free_gpus = gs_client_field(n, "free", NULL, b3, sizeof b3);
        if (!free_gpus)
            free_gpus = gs_client_field(n, "free_gpus", "?", b3, sizeof b3);
        printf("%-16s %-6s %4s %4s %-8s ", gs_client_field(n, "name", "?", b1, sizeof b1),
               gs_client_field(n, "state", "?", b4, sizeof b4),
               gs_client_field(n, "gpus", "?", b2, sizeof b2), free_gpus,
               gs_client_field(n, "gpu_type", "-", b5, sizeof b5));
        print_domains(json_object_get(n, "domains"));
        const char *why = gs_client_field(n, "reason", "", b6, sizeof b6);
        if (*why)
            printf("  (%s)", why);
        printf("\n");
        print_gpus_out(n);
    }
}

int cmd_nodes(int argc, char **argv)
{
    struct gs_client_opts o;
    char **args;
    int nargs;
    int st = gs_client_parse_plain("nodes", nodes_help, 0, 0, argc, argv, &o, &args, &nargs);
    if (st >= 0)
        return st;
    return gs_client_get_list(&o, "/v1/nodes", "nodes", "node", print_nodes, NULL);
}

/* One POST action on the object named by the operand (or `dflt` when the
 * operand is missing): POST pre + escaped name + post; prints
 * "NAME: STATE" (the answer's state, or `done`) or the JSON. */
static int post_action(int argc, char **argv, const char *name, const char *help,
                       const char *pre, const char *post, const char *dflt,
                       const char *done)
{
    struct gs_client_opts o;
    char **args;
    int nargs;
    int st = gs_client_parse_plain(name, help, dflt ? 0 : 1, 1, argc, argv, &o, &args, &nargs);
    if (st >= 0)
        return st;
    const char *target = nargs ? args[0] : dflt;
    if (!target || !*target) {
        fprintf(stderr, "gpusched %s: no job id (give JOBID or set GPUSCHED_JOB_ID)\n", name);
        return 2;
    }
    char path[1024];
    if (gs_client_id_path(path, sizeof path, pre, target, post) < 0) {
        fprintf(stderr, "gpusched %s: name too long\n", name);
        return 2;
    }
    json_t *ans = NULL;
    int status = gs_client_once(&o, "POST", path, NULL, &ans);
    if (status)
        return status;
    char buf[32];
    if (o.json)
        gs_client_print_json(ans);
    else
        printf("%s: %s\n", target, gs_client_field(ans, "state", done, buf, sizeof buf));
    json_decref(ans);
    return 0;
}

int cmd_checkpoint(int argc, char **argv)
{
    const char *env = getenv("GPUSCHED_JOB_ID");
    return post_action(argc, argv, "checkpoint", checkpoint_help, "/v1/jobs/", "/checkpoint",
                       env ? env : "", "checkpointed");
}
