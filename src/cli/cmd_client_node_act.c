/* cmd_client_node_act.c - `gpusched drain`, `resume` and `down`: a node or
 * one GPU of it (NODE:GPU or --gpu G), with a reason for drain and down
 * (POST /v1/nodes/NAME[/gpus/G]/ACTION, body {"reason": TEXT}). */
#include "cli/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACT_COMMON                                                                     \
    "  NODE:G         GPU G of the node only (as --gpu G)\n"                           \
    "  --gpu G        GPU G of the node only\n"

static const char *const drain_help =
    "usage: gpusched drain NODE[:GPU] [--gpu G] [--reason TEXT] [--json]\n"
    "\n"
    "Drain a node (or one GPU of it): its running jobs finish, nothing new\n"
    "starts there until 'gpusched resume'.  Admin; journalled.\n"
    "\n" ACT_COMMON
    "  --reason TEXT  why (at most 200 characters; shown by 'gpusched nodes' and\n"
    "                 'gpusched why')\n" GS_CLIENT_COMMON_HELP;

static const char *const resume_help =
    "usage: gpusched resume NODE[:GPU] [--gpu G] [--json]\n"
    "\n"
    "Return a drained or down node, or one GPU of it (NODE:GPU, or --gpu G:\n"
    "a GPU drained or taken down alone), to service.  Admin; journalled.\n"
    "\n" ACT_COMMON GS_CLIENT_COMMON_HELP;

static const char *const down_help =
    "usage: gpusched down NODE[:GPU] [--gpu G] [--reason TEXT] [--json]\n"
    "\n"
    "Take a node (or one GPU of it) out of service, as if it had died: the\n"
    "jobs running there lose their run at once (their processes are killed;\n"
    "each is requeued, or failed after retry.max_attempts) and its GPUs are\n"
    "offered to no one until 'gpusched resume NODE' (a GPU alone:\n"
    "'gpusched resume NODE:GPU').  Admin; journalled.\n"
    "\n" ACT_COMMON
    "  --reason TEXT  why (at most 200 characters; shown by 'gpusched nodes' and\n"
    "                 'gpusched why')\n" GS_CLIENT_COMMON_HELP;

struct act_args {
    const char *name; /* "drain" */
    const char *reason;
    int gpu;
    int takes_reason;
};

/* A GPU index 0..1000 from `s`; -1 when it is not one. */
static int gpu_index(const char *s)
{
    char *end = NULL;
    long g = strtol(s, &end, 10);
    return end == s || *end || g < 0 || g > 1000 || *s == '+' || *s == '-' ? -1 : (int)g;
}

static int act_opt(int c, const char *val, void *arg)
{
    struct act_args *a = arg;
    if (c == 'r') {
        if (a->takes_reason) {
            a->reason = val;
            return 0;
        }
        fprintf(stderr, "gpusched %s: takes no --reason\n", a->name);
        return -1;
    }
    if (c == 'g' && (a->gpu = gpu_index(val)) >= 0)
        return 0;
    fprintf(stderr, "gpusched %s: --gpu: expected a GPU index, got '%s'\n", a->name, val);
    return -1;
}

/* Split "NODE:G" (G digits) into node[] and *gpu; 0, or 2 after a message. */
static int split_target(const struct act_args *a, const char *arg, char *node, size_t n,
                        int *gpu)
{
    const char *colon = strrchr(arg, ':');
    int g = colon ? gpu_index(colon + 1) : -1;
    size_t len = g >= 0 ? (size_t)(colon - arg) : strlen(arg);
    if (len == 0 || len >= n) {
        fprintf(stderr, "gpusched %s: bad node name '%.100s'\n", a->name, arg);
        return 2;
    }
    if (g >= 0 && *gpu >= 0 && g != *gpu) {
        fprintf(stderr, "gpusched %s: %s names GPU %d but --gpu says %d\n", a->name, arg, g,
                *gpu);
        return 2;
    }
    memcpy(node, arg, len);
    node[len] = '\0';
    if (g >= 0)
        *gpu = g;
    return 0;
}

static int node_action(int argc, char **argv, const char *name, const char *help,
                       int takes_reason, const char *done)
{
    static const struct option opts[] = { GS_CLIENT_COMMON_OPTS,
                                          { "reason", required_argument, NULL, 'r' },
                                          { "gpu", required_argument, NULL, 'g' },
                                          { NULL, 0, NULL, 0 } };
    const struct gs_client_cmd cmd = { name, help, opts, 1, 1 };
    struct gs_client_opts o;
    struct act_args a = { name, NULL, -1, takes_reason };
    char **args, node[512], path[1100];
    int nargs;
    gs_client_opts_init(&o);
    int st = gs_client_parse(&cmd, argc, argv, &o, act_opt, &a, &args, &nargs);
    if (st >= 0)
        return st;
    if ((st = split_target(&a, args[0], node, sizeof node, &a.gpu)) != 0)
        return st;
    char *esc = gs_client_escape(node);
    if (!esc || strlen(esc) > 900) {
        free(esc);
        fprintf(stderr, "gpusched %s: name too long\n", name);
        return 2;
    }
    if (a.gpu >= 0)
        snprintf(path, sizeof path, "/v1/nodes/%s/gpus/%d/%s", esc, a.gpu, name);
    else
        snprintf(path, sizeof path, "/v1/nodes/%s/%s", esc, name);
    free(esc);
    json_t *body = a.reason ? json_pack("{s:s}", "reason", a.reason) : NULL, *ans = NULL;
    st = a.reason && !body ? (fprintf(stderr, "gpusched %s: --reason: not UTF-8\n", name), 2)
                           : gs_client_once(&o, "POST", path, body, &ans);
    json_decref(body);
    if (st)
        return st;
    if (o.json)
        gs_client_print_json(ans);
    else if (a.gpu >= 0)
        printf("%s gpu %d: %s\n", node, a.gpu, done);
    else
        printf("%s: %s\n", node, done);
    json_decref(ans);
    return 0;
}

int cmd_drain(int argc, char **argv)
{
    return node_action(argc, argv, "drain", drain_help, 1, "drain");
}

int cmd_resume(int argc, char **argv)
{
    return node_action(argc, argv, "resume", resume_help, 0, "up");
}

int cmd_down(int argc, char **argv)
{
    return node_action(argc, argv, "down", down_help, 1, "down");
}
