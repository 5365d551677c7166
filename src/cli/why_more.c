/* why_more.c - the rest of `gpusched why` (why_more.h). */
#define _GNU_SOURCE /* clock_gettime */
#include "cli/why_more.h"
#include "cli/queue_fmt.h"
#include "io/timefmt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* "  NAME: STATE (REASON), N GPUs" for each node or GPU out of service. */
static void print_out(const json_t *nodes)
{
    char b1[64], b2[16], b3[256], b4[16], b5[16];
    size_t i, k;
    const json_t *n, *g;
    int any = 0;
    json_array_foreach(nodes, i, n) {
        const char *name = gs_client_field(n, "name", "?", b1, sizeof b1);
        const char *st = gs_client_field(n, "state", "?", b2, sizeof b2);
        if (strcmp(st, "up") != 0) {
            const char *why = gs_client_field(n, "reason", "", b3, sizeof b3);
            printf("%s  %s: %s%s%s%s, %s GPUs\n", any++ ? "" : "out of service:\n", name, st,
                   *why ? " (" : "", why, *why ? ")" : "",
                   gs_client_field(n, "gpus", "?", b4, sizeof b4));
            continue;
        }
        json_array_foreach(json_object_get(n, "gpus_out"), k, g) {
            const char *why = gs_client_field(g, "reason", "", b3, sizeof b3);
            printf("%s  %s:%s: %s%s%s%s\n", any++ ? "" : "out of service:\n", name,
                   gs_client_field(g, "gpu", "?", b4, sizeof b4),
                   gs_client_field(g, "state", "?", b5, sizeof b5), *why ? " (" : "", why,
                   *why ? ")" : "");
        }
    }
}

/* A live job: where, since when, its attempt and its time limit. */
static void print_live(const json_t *job, double now)
{
    char b1[64], b2[16], where[512], since[96], lim[32], by[96];
    double start = num(job, "start_epoch"), limit = num(job, "time_limit_s");
    const char *pl = json_string_value(json_object_get(job, "placement"));
    cli_qfmt_placement(pl ? pl : "", where, sizeof where);
    printf("%s: %s on %s since %s, attempt %s\n", gs_client_field(job, "id", "?", b1, sizeof b1),
           gs_client_field(job, "state", "?", b2, sizeof b2), *where ? where : "-",
           gs_timefmt_when(start, now, since, sizeof since),
           gs_client_field(job, "attempts", "?", lim, sizeof lim));
    if (limit > 0 && start >= 0)
        printf("  time limit %s: ends by %s\n", gs_client_hms(limit, lim, sizeof lim),
               gs_timefmt_when(start + limit, now, by, sizeof by));
    else if (json_object_get(job, "time_limit_s"))
        printf("  no time limit\n");
}

/* An ended job: outcome, exit code, when, how long it ran and where. */
static void print_done(const json_t *job, double now)
{
    char b1[64], b2[32], b3[16], when[96], ran[32], where[512], why[512];
    double start = num(job, "start_epoch"), end = num(job, "end_epoch");
    const char *pl = json_string_value(json_object_get(job, "placement"));
    const char *er = json_string_value(json_object_get(job, "end_reason"));
    cli_qfmt_placement(pl ? pl : "", where, sizeof where);
    printf("%s: %s", gs_client_field(job, "id", "?", b1, sizeof b1),
           gs_client_field(job, "outcome", "done", b2, sizeof b2));
    if (json_is_integer(json_object_get(job, "exit_code")))
        printf(" (exit code %s)", gs_client_field(job, "exit_code", "?", b3, sizeof b3));
    printf(" at %s\n", gs_timefmt_when(end, now, when, sizeof when));
    if (start >= 0 && end >= start)
        printf("  ran %s on %s from %s, attempt %s\n", gs_client_hms(end - start, ran, sizeof ran),
               *where ? where : "-", gs_timefmt_iso(start, b2, sizeof b2),
               gs_client_field(job, "attempts", "?", b3, sizeof b3));
    else
        printf("  never started\n");
    if (er && *er)
        printf("  %s\n", gs_timefmt_text(er, now, why, sizeof why));
}

int cli_why_more(const struct gs_client_opts *o, const json_t *ex)
{
    const char *st = json_string_value(json_object_get(ex, "state"));
    const char *id = json_string_value(json_object_get(ex, "id"));
    json_t *ans = NULL;
    char path[1024];
    int status;
    if (st && !strcmp(st, "pending")) {
        if ((status = gs_client_get_pages(o, "/v1/nodes", "nodes", &ans)) == 0)
            print_out(json_object_get(ans, "nodes"));
    } else if (!id || gs_client_id_path(path, sizeof path, "/v1/jobs/", id, "") < 0) {
        status = (fprintf(stderr, "gpusched why: the answer has no usable job id\n"), 1);
    } else if ((status = gs_client_once(o, "GET", path, NULL, &ans)) == 0) {
        const char *js = json_string_value(json_object_get(ans, "state"));
        if (js && !strcmp(js, "done"))
            print_done(ans, wall_now());
        else
            print_live(ans, wall_now());
    }
    json_decref(ans);
    return status;
}
