/* report_whatif.h - `gpusched whatif` output: the table of runs and the
 * verdict paragraph, as text and JSON.
 */
#ifndef GS_REPORT_REPORT_WHATIF_H
#define GS_REPORT_REPORT_WHATIF_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "sim/whatif.h"

/* Name of a verdict call ("fragmentation", "shortage", "no_queue",
 * "unknown"). */
const char *gs_whatif_call_name(int call);

/* Name of a cause as verdict.cause has it: "none" (no queue), "shortage",
 * "fragmentation", "policy", "quota", "mixed". */
const char *gs_whatif_cause_name(int cause);

/* Compact duration: "45s", "12m", "3.4h". */
void gs_report_short_dur(char *buf, size_t n, double sec);

/* Print the table: one row per run, wait p50/p90/p99 overall and per size
 * class, util_alloc, util_effective, mean S_k and the share of time with
 * S_k >= 1. */
void gs_report_whatif_table(FILE *f, const struct gs_whatif *w);

/* The verdict paragraph (plain text, several sentences, numbers included)
 * into buf. */
void gs_report_whatif_verdict(char *buf, size_t n, const struct gs_whatif *w);

/* The verdict as JSON (report_verdict.c): {cause, call, text, attribution,
 * bound, fixes, ...} with the numbers behind it (new reference, NULL on
 * allocation failure). */
json_t *gs_report_verdict_json(const struct gs_whatif *w);

/* Everything as one JSON object {runs: [...], verdict: {...}} (new
 * reference, NULL on allocation failure). */
json_t *gs_report_whatif_json(const struct gs_whatif *w);

#endif
