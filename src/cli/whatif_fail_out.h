/* whatif_fail_out.h - whatif_fail_out.c: how `whatif --failures` prints its
 * grid (sim/whatif_fail.h): a table, the verdict line, or JSON. */
#ifndef GS_CLI_WHATIF_FAIL_OUT_H
#define GS_CLI_WHATIF_FAIL_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "sim/whatif_fail.h"

/* The verdict: which change (checkpoint interval, spares, both) raises the
 * targets' ETTR most, with the figures, into `buf` (always terminated). */
void cli_wfail_verdict(char *buf, size_t len, const struct gs_wfail *w);

/* The header lines and one table row per run of the grid, on `out`. */
void cli_wfail_table(FILE *out, const struct gs_wfail *w, const struct gs_failure_model *m);

/* {targets, young_daly_s, runs: [...], verdict: {...}} (new reference, NULL
 * on allocation failure). */
json_t *cli_wfail_json(const struct gs_wfail *w);

#endif
