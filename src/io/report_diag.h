/* report_diag.h - the diagnosis part of the reports (issue 6): waiting
 * time by reason, the five symptom checks, and one pending job's
 * explanation as text and JSON (`frag --state`, the daemon).
 */
#ifndef GS_IO_REPORT_DIAG_H
#define GS_IO_REPORT_DIAG_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/diagnose/diagnose.h"
#include "core/engine/engine.h"
#include "core/metrics/metrics.h"
#include "core/metrics/symptoms.h"

/* Add "wait_reasons" (waiting GPU-hours and shares per reason, overall and
 * per size class) and "symptoms" (the five checks) to summary object `o`.
 * `pol` may be NULL.  Allocation failures leave keys out. */
void gs_report_waits_json(json_t *o, const struct gs_summary *s, const struct gs_policy *pol);

/* Print the waiting-reason table and the symptoms that fired. */
void gs_report_waits_text(FILE *f, const struct gs_summary *s, const struct gs_policy *pol);

/* One sentence with the numbers of symptom `id` (fired or not). */
void gs_report_symptom_msg(char *buf, size_t n, const struct gs_symptoms *y, int id);

/* The symptoms as a JSON array [{name, fired, message, values}] (new
 * reference, NULL on allocation failure). */
json_t *gs_report_symptoms_json(const struct gs_symptoms *y);

/* "detail": the dominant reason's numbers in one sentence, e.g. "20 GPUs
 * free; node-3 has 8 free but split 4+4 across NVLink domains; the largest
 * free block inside one domain is 7 (node-4)". */
void gs_report_diag_detail(char *buf, size_t n, const struct gs_engine *eng,
                           const struct gs_diag *d);

/* "unblock": what would let the job start, in one sentence. */
void gs_report_diag_unblock(char *buf, size_t n, const struct gs_engine *eng,
                            const struct gs_diag *d);

/* A pending job's entry of `frag`'s "pending" list: {id, reason, detail,
 * unblock, reasons: [{code, ...numbers}], est_start, est_in, est_basis,
 * est_duration} (times in seconds; null when unknown).  New reference. */
json_t *gs_report_diag_json(const struct gs_engine *eng, const struct gs_diag *d);

#endif
