/* cmd_client_nodes.c - `gpusched nodes`, `drain`, `resume`, `down` and
 * `checkpoint` (cancel: cmd_client_cancel.c): the node table and the one-shot POST actions. */
#include "cli/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const nodes_help =
    "usage: gpusched nodes [--json]\n"
    "\n"
    "One line per node (GET /v1/nodes): its state (up, drain, down), its GPUs,\n"
    "how many are free and the free GPUs of each NVLink domain.\n" GS_CLIENT_COMMON_HELP;

static const char *const drain_help =
    "usage: gpusched drain NODE [--json]\n"
    "\n"
    "Drain a node: its running jobs finish, nothing new starts there.\n" GS_CLIENT_COMMON_HELP;

static const char *const resume_help =
    "usage: gpusched resume NODE [--json]\n"
    "\n"
    "Return a drained node to service.\n" GS_CLIENT_COMMON_HELP;

static const char *const down_help =
    "usage: gpusched down NODE [--gpu G] [--reason TEXT] [--json]\n"
    "\n"
    "Take a node (or one GPU of it) out of service, as if it had died: the\n"
    "jobs running there lose their run at once (their processes are killed;\n"
    "each is requeued, or failed after retry.max_attempts) and its GPUs are\n"
    "offered to no one until 'gpusched resume NODE'.  Admin; journalled.\n"
    "\n"
    "  --gpu G        only GPU G of the node\n"
    "  --reason TEXT  why (at most 200 characters; shown by 'gpusched nodes')\n"
    GS_CLIENT_COMMON_HELP;

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

static void print_nodes(const json_t *ans, const json_t *nodes, void *arg)
{
    (void)ans;
    (void)arg;
    char b1[32], b2[32], b3[32], b4[32];
    size_t i;
    const json_t *n;
    printf("%-16s %-6s %4s %4s %s\n", "NODE", "STATE", "GPUS", "FREE", "DOMAINS(FREE/GPUS)");
    json_array_foreach(nodes, i, n) {
        const char *free_gpus = gs_client_field(n, "free", NULL, b3, sizeof b3);
        if (!free_gpus)
            free_gpus = gs_client_field(n, "free_gpus", "?", b3, sizeof b3);
        printf("%-16s %-6s %4s %4s ", gs_client_field(n, "name", "?", b1, sizeof b1),
               gs_client_field(n, "state", "?", b4, sizeof b4),
               gs_client_field(n, "gpus", "?", b2, sizeof b2), free_gpus);
        print_domains(json_object_get(n, "domains"));
        const char *why = json_string_value(json_object_get(n, "reason"));
        if (why && *why)
            printf("  (%s)", why);
        printf("\n");
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

int cmd_drain(int argc, char **argv)
{
    return post_action(argc, argv, "drain", drain_help, "/v1/nodes/", "/drain", NULL, "drain");
}

int cmd_resume(int argc, char **argv)
{
    return post_action(argc, argv, "resume", resume_help, "/v1/nodes/", "/resume", NULL, "up");
}

struct down_args {
    const char *reason;
    int gpu;
};

static int down_opt(int c, const char *val, void *arg)
{
    struct down_args *a = arg;
    char *end = NULL;
    if (c == 'r') {
        a->reason = val;
        return 0;
    }
    long g = strtol(val, &end, 10);
    if (end == val || *end || g < 0 || g > 1000) {
        fprintf(stderr, "gpusched down: --gpu: expected a GPU index, got '%s'\n", val);
        return -1;
    }
    a->gpu = (int)g;
    return 0;
}

int cmd_down(int argc, char **argv)
{
    static const struct option opts[] = { GS_CLIENT_COMMON_OPTS,
                                          { "reason", required_argument, NULL, 'r' },
                                          { "gpu", required_argument, NULL, 'g' },
                                          { NULL, 0, NULL, 0 } };
    const struct gs_client_cmd cmd = { "down", down_help, opts, 1, 1 };
    struct gs_client_opts o;
    struct down_args a = { NULL, -1 };
    char **args;
    int nargs;
    gs_client_opts_init(&o);
    int st = gs_client_parse(&cmd, argc, argv, &o, down_opt, &a, &args, &nargs);
    if (st >= 0)
        return st;
    char *esc = gs_client_escape(args[0]);
    char path[1024];
    if (!esc || strlen(esc) > 900) {
        free(esc);
        fprintf(stderr, "gpusched down: name too long\n");
        return 2;
    }
    if (a.gpu >= 0)
        snprintf(path, sizeof path, "/v1/nodes/%s/gpus/%d/down", esc, a.gpu);
    else
        snprintf(path, sizeof path, "/v1/nodes/%s/down", esc);
    free(esc);
    json_t *body = a.reason ? json_pack("{s:s}", "reason", a.reason) : NULL, *ans = NULL;
    st = a.reason && !body ? (fprintf(stderr, "gpusched down: --reason: not UTF-8\n"), 2)
                           : gs_client_once(&o, "POST", path, body, &ans);
    json_decref(body);
    if (st)
        return st;
    if (o.json)
        gs_client_print_json(ans);
    else if (a.gpu >= 0)
        printf("%s gpu %d: down\n", args[0], a.gpu);
    else
        printf("%s: down\n", args[0]);
    json_decref(ans);
    return 0;
}

int cmd_checkpoint(int argc, char **argv)
{
    const char *env = getenv("GPUSCHED_JOB_ID");
    return post_action(argc, argv, "checkpoint", checkpoint_help, "/v1/jobs/", "/checkpoint",
                       env ? env : "", "checkpointed");
}
