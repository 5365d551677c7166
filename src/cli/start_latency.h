/* start_latency.h - the daemon's measured start latency (decision to
 * confirmed running, engine time; gpuschedd's /v1/cluster `start_latency`)
 * carried into the simulator's policy keys start_latency.median / .sigma,
 * so that a live-vs-sim comparison uses the daemon's own number
 * (docs/daemon.md, "Start latency"). */
#ifndef GS_CLI_START_LATENCY_H
#define GS_CLI_START_LATENCY_H

#include <stdint.h>

#include "core/policy/policy.h"

/* What the daemon measured: starts confirmed, median (s) and sigma of the
 * lognormal fitted to them (exp and standard deviation of mean ln). */
struct cli_start_latency {
    int64_t starts;
    double median, sigma;
};

/* Read the measurement from `from`: an http:// or https:// URL of a
 * gpuschedd (GET /v1/cluster; the token from $GPUSCHED_TOKEN), or a file
 * holding that answer or `gpusched start-latency --json`'s.  Returns 0, or
 * 1 after printing "gpusched CMD: ..." (no answer, no start_latency object,
 * no start measured yet). */
int cli_start_latency_read(const char *cmd, const char *from, struct cli_start_latency *out);

/* Set the policy's start_latency.median and .sigma from `l` (the seed is
 * kept). */
void cli_start_latency_apply(const struct cli_start_latency *l, struct gs_policy *pol);

/* `gpusched start-latency`: print the daemon's measurement as policy keys. */
int cmd_start_latency(int argc, char **argv);

#endif
