/* cmd_client_history.c - `gpusched history JOBID`: every event of one job
 * with its time (GET /v1/jobs/ID/events, every page), as sacct's and
 * scontrol's users would look for it: submitted, reserved, started,
 * checkpointed, preempted, requeued, node failure, ended. */
#include "cli/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char history_help[] =
    "usage: gpusched history JOBID [--json]\n"
    "\n"
    "Every event of job JOBID from the daemon's journal, oldest first, one per\n"
    "line: TIME (UTC), EVENT, DETAIL.  Events: submitted, reserved (first\n"
    "reservation of a wait: its planned start), started (attempt N on GPUs),\n"
    "checkpoint_requested, checkpointed, preempted, node_failure, run_failed,\n"
    "launch_failed, exited (exit N), requeued, cancelled, ended (with the\n"
    "reason).  --json prints the API's answer {id, events[]} (all pages).\n" GS_CLIENT_COMMON_HELP;

static void print_events(const json_t *ans, const json_t *list, void *arg)
{
    (void)ans;
    (void)arg;
    char b1[64], b2[64], b3[512];
    size_t i;
    const json_t *e;
    printf("%-24s %-21s %s\n", "TIME", "EVENT", "DETAIL");
    json_array_foreach(list, i, e) {
        const json_t *t = json_object_get(e, "time_epoch");
        printf("%-24s %-21s %s\n",
               json_is_number(t) ? gs_client_utc(json_number_value(t), b1, sizeof b1) : "-",
               gs_client_field(e, "event", "-", b2, sizeof b2),
               gs_client_field(e, "detail", "", b3, sizeof b3));
    }
}

int cmd_history(int argc, char **argv)
{
    struct gs_client_opts o;
    char **args;
    int nargs;
    int st = gs_client_parse_plain("history", history_help, 1, 1, argc, argv, &o, &args, &nargs);
    if (st >= 0)
        return st;
    char path[1024];
    if (gs_client_id_path(path, sizeof path, "/v1/jobs/", args[0], "/events") < 0) {
        fprintf(stderr, "gpusched history: job id too long\n");
        return 2;
    }
    return gs_client_get_list(&o, path, "events", "events", print_events, NULL);
}
