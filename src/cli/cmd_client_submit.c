/* cmd_client_submit.c - `gpusched submit`: POST /v1/jobs with the trace
 * columns as options and the command after `--`. */
#include "cli/client.h"
#include "io/job_fields.h"
#include "io/job_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const submit_help =
    "usage: gpusched submit [--gpus N] [--team T] [--time-limit 4h] ... -- COMMAND [ARG...]\n"
    "\n"
    "Submit a job to gpuschedd and print its id.  The options are the trace\n"
    "columns (docs/formats.md), with '-' for '_':\n"
    "  --id ID              job id (default: the daemon picks one)\n"
    "  --gpus N             whole GPUs (default 1; 0 = CPU only)\n"
    "  --gpu-share X        fraction of one GPU, 0 < X <= 1\n"
    "  --gpu-mem-gb G       memory per GPU\n"
    "  --mig PROFILE        MIG profile, e.g. 1g.10gb\n"
    "  --topology T         domain | node | any\n"
    "  --team T --user U --name N\n"
    "  --priority P         larger = more urgent\n"
    "  --class C            train | infer\n"
    "  --time-limit D       user-declared limit (30s, 30m, 4h, 2d)\n"
    "  --checkpoint-interval D, --checkpoint-cost D, --restore-cost D\n"
    "  --duration D         expected run time (a hint; the simulator's ground truth)\n"
    "  --queue Q --gpu-model M --cpu C --host-mem-gb G --mem-bw X\n"
    "Job options:\n"
    "  --env KEY=VALUE      add to the job's environment (repeatable)\n"
    "  --cwd DIR            working directory\n"
    "  --stdout FILE --stderr FILE   output files (default: under the state dir)\n"
    "  --idempotency-key K  retries with the same key create the job once\n"
    "  --dry-run            print the request body (JSON) and send nothing\n"
    "  --test-only          ask where and when the job would start were it\n"
    "                       submitted now (the engine's estimate); submit nothing\n"
    GS_CLIENT_COMMON_HELP;

#define OPT_COL 0x2000 /* val of the column options: OPT_COL + column */
#define OPT_ENV 0x3001
#define OPT_CWD 0x3002
#define OPT_STDOUT 0x3003
#define OPT_STDERR 0x3004
#define OPT_IDEM 0x3005
#define OPT_DRY 0x3006
#define OPT_TEST 0x3007
#define NEXTRA 11      /* the common and job options, the end row */

struct submit_args {
    json_t *req;
    const char *idem;
    int dry, test;
};

static int submit_opt(int c, const char *val, void *arg)
{
    struct submit_args *a = arg;
    struct gs_error err = { 0 };
    int rc = 0;
    const char *key = NULL;
    switch (c) {
    case OPT_ENV: rc = gs_job_request_env(a->req, val, &err); break;
    case OPT_CWD: key = "cwd"; break;
    case OPT_STDOUT: key = "stdout"; break;
    case OPT_STDERR: key = "stderr"; break;
    case OPT_IDEM: a->idem = val; return 0;
    case OPT_DRY: a->dry = 1; return 0;
    case OPT_TEST: a->test = 1; return 0;
    default: rc = gs_job_request_set(a->req, c - OPT_COL, val, &err); break;
    }
    if (key && json_object_set_new(a->req, key, json_string(val)) < 0)
        rc = gs_errorf(&err, GS_EINVAL, "%s: not UTF-8", key);
    if (rc < 0) {
        fprintf(stderr, "gpusched submit: --%s\n", err.msg);
        return -1;
    }
    return 0;
}

/* The option table: one row per trace column but submit, then the rest. */
static const struct option *submit_opts(void)
{
    static char names[GS_JCOL_COUNT][32];
    static struct option opts[GS_JCOL_COUNT + NEXTRA + 4];
    int n = 0;
    for (int col = 0; col < GS_JCOL_COUNT; col++) {
        if (col == GS_JCOL_SUBMIT)
            continue;
        opts[n++] = (struct option){ gs_job_request_option_name(col, names[col], 32),
                                     required_argument, NULL, OPT_COL + col };
    }
    const struct option rest[] = {
        { "env", required_argument, NULL, OPT_ENV },
        { "cwd", required_argument, NULL, OPT_CWD },
        { "stdout", required_argument, NULL, OPT_STDOUT },
        { "stderr", required_argument, NULL, OPT_STDERR },
        { "idempotency-key", required_argument, NULL, OPT_IDEM },
        { "dry-run", no_argument, NULL, OPT_DRY },
        { "test-only", no_argument, NULL, OPT_TEST },
        GS_CLIENT_COMMON_OPTS,
        { NULL, 0, NULL, 0 },
    };
    memcpy(opts + n, rest, sizeof rest);
    return opts;
}

/* Print the answer: the id, or the job object with --json. */
static int print_job(const struct gs_client_opts *o, const json_t *job)
{
    if (o->json) {
        gs_client_print_json(job);
        return 0;
    }
    const char *id = json_string_value(json_object_get(job, "id"));
    if (!id) {
        fprintf(stderr, "gpusched: the answer has no job id\n");
        return 1;
    }
    printf("%s\n", id);
    return 0;
}

/* --test-only's answer in one or two lines:
 * "would start now on node-1:0,node-1:1 (nodes node-1)", or
 * "would start 2026-...Z (basis reservation)" and the reason it waits. */
static void print_probe(const json_t *p)
{
    char b1[64], b2[4096], b3[64], b4[512], b5[64];
    const char *when = gs_client_field(p, "would_start", "unknown", b1, sizeof b1);
    const json_t *reason = json_object_get(p, "reason");
    if (!strcmp(when, "now")) {
        printf("would start now on %s\n", gs_client_field(p, "placement", "-", b2, sizeof b2));
        return;
    }
    const json_t *at = json_object_get(p, "estimated_start_epoch");
    printf("would start %s (basis %s)\n",
           json_is_number(at) ? gs_client_utc(json_number_value(at), b3, sizeof b3) : "unknown",
           gs_client_field(p, "basis", "unknown", b5, sizeof b5));
    if (reason)
        printf("waits: %s: %s\n", gs_client_field(reason, "code", "-", b1, sizeof b1),
               gs_client_field(reason, "detail", "", b4, sizeof b4));
}

int cmd_submit(int argc, char **argv)
{
    int dash = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            dash = i;
            break;
        }
    struct gs_client_opts o;
    gs_client_opts_init(&o);
    struct submit_args a = { json_object(), NULL, 0, 0 };
    const struct gs_client_cmd cmd = { "submit", submit_help, submit_opts(), 0, 0 };
    char **args;
    int nargs, status = 1;
    if (!a.req)
        return 1;
    int st = gs_client_parse(&cmd, dash, argv, &o, submit_opt, &a, &args, &nargs);
    struct gs_error err = { 0 };
    if (st >= 0) {
        status = st;
    } else if (gs_job_request_command(a.req, argc - dash - 1, argv + dash + 1, &err) < 0) {
        fprintf(stderr, "gpusched submit: %s\n", err.msg);
        status = 2;
    } else if (a.dry) {
        gs_client_print_json(a.req);
        status = 0;
    } else {
        struct gs_client *c = gs_client_create(&o);
        long http;
        json_t *job = NULL;
        const char *path = a.test ? "/v1/jobs?test_only=1" : "/v1/jobs";
        if (c && gs_client_call(c, "POST", path, a.req, a.idem, &http, &job) == 0) {
            if (http >= 200 && http < 300 && job && a.test && !o.json) {
                print_probe(job);
                status = 0;
            } else if (http >= 200 && http < 300 && job) {
                status = print_job(&o, job);
            } else {
                if (o.json && job)
                    gs_client_print_json(job);
                status = gs_client_print_error(http, job);
            }
        }
        json_decref(job);
        gs_client_destroy(c);
    }
    json_decref(a.req);
    return status;
}
