/* start_latency.c - the daemon's start latency as policy keys
 * (start_latency.h). */
#include "cli/start_latency.h"
#include "cli/cli.h"
#include "cli/client.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const help =
    "usage: gpusched start-latency [--json]\n"
    "\n"
    "The start latency gpuschedd has measured (GET /v1/cluster): from each start\n"
    "decision to the job confirmed running, in engine time, over every start\n"
    "since the daemon started; printed as the policy keys of `gpusched sim`\n"
    "(start_latency.median = exp(mean ln latency), .sigma = its standard\n"
    "deviation: the lognormal of docs/policy.md).  `sim --start-latency-from\n"
    "URL` reads the same numbers directly.\n" GS_CLIENT_COMMON_HELP;

/* The start_latency object of `j`: j's own member, or j itself. */
static int from_json(const char *cmd, const char *from, const json_t *j,
                     struct cli_start_latency *out)
{
    const json_t *o = json_object_get(j, "start_latency");
    if (!o)
        o = j;
    const json_t *n = json_object_get(o, "starts"), *m = json_object_get(o, "median"),
                 *s = json_object_get(o, "sigma");
    if (!json_is_integer(n) || !json_is_number(m) || !json_is_number(s))
        return cli_failf(cmd, 1, "%s: no start_latency {starts, median, sigma} (a gpuschedd "
                                 "without the measurement?)", from);
    out->starts = json_integer_value(n);
    out->median = json_number_value(m);
    out->sigma = json_number_value(s);
    if (out->starts <= 0)
        return cli_failf(cmd, 1, "%s: no start measured yet (start some jobs first)", from);
    if (!(out->median > 0 && out->median < 1e7) || !(out->sigma >= 0 && out->sigma <= 5))
        return cli_failf(cmd, 1, "%s: start_latency median %g s, sigma %g out of range", from,
                         out->median, out->sigma);
    return 0;
}

int cli_start_latency_read(const char *cmd, const char *from, struct cli_start_latency *out)
{
    json_t *j = NULL;
    if (strncmp(from, "http://", 7) == 0 || strncmp(from, "https://", 8) == 0) {
        struct gs_client_opts o;
        gs_client_opts_init(&o);
        o.server = from;
        if (gs_client_once(&o, "GET", "/v1/cluster", NULL, &j) != 0)
            return 1; /* the client printed why */
    } else {
        json_error_t e;
        j = json_load_file(from, 0, &e);
        if (!j)
            return cli_failf(cmd, 1, "%s:%d: %s", from, e.line, e.text);
    }
    int st = from_json(cmd, from, j, out);
    json_decref(j);
    return st;
}

void cli_start_latency_apply(const struct cli_start_latency *l, struct gs_policy *pol)
{
    pol->start_latency = (gs_time)llround(l->median * 1000.0);
    if (pol->start_latency < 1)
        pol->start_latency = 1;
    pol->start_latency_sigma = l->sigma;
}

int cmd_start_latency(int argc, char **argv)
{
    static const struct option opts[] = { GS_CLIENT_COMMON_OPTS, { NULL, 0, NULL, 0 } };
    const struct gs_client_cmd cmd = { "start-latency", help, opts, 0, 0 };
    struct gs_client_opts o;
    char **args;
    int nargs;
    gs_client_opts_init(&o);
    int st = gs_client_parse(&cmd, argc, argv, &o, NULL, NULL, &args, &nargs);
    if (st >= 0)
        return st;
    json_t *ans = NULL;
    st = gs_client_once(&o, "GET", "/v1/cluster", NULL, &ans);
    if (st)
        return st;
    struct cli_start_latency l = { 0, 0, 0 };
    st = from_json("start-latency", o.server, ans, &l);
    if (st == 0 && o.json)
        gs_client_print_json(json_object_get(ans, "start_latency"));
    else if (st == 0)
        printf("# gpuschedd %s: %lld starts, decision to running (engine time)\n"
               "start_latency: {median: %.3fs, sigma: %.3f}\n",
               o.server, (long long)l.starts, l.median, l.sigma);
    json_decref(ans);
    return st;
}
