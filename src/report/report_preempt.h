/* report_preempt.h - the preemption, job-class, SLO and checkpoint-advice
 * part of the `sim` summary (issue 5), as JSON keys and as text, and the
 * per-class table of `compare`.
 */
#ifndef GS_REPORT_REPORT_PREEMPT_H
#define GS_REPORT_REPORT_PREEMPT_H

#include <jansson.h>
#include <stdio.h>

#include "core/metrics/metrics.h"

/* Add "preemption", "classes" and "checkpoint_advice" to summary object
 * `o` (allocation failures leave keys out). */
void gs_report_preempt_json(json_t *o, const struct gs_summary *s);

/* Print the class / preemption / advice section when it says something:
 * inference jobs, preemptions or checkpoint time exist. */
void gs_report_preempt_text(FILE *f, const struct gs_summary *s);

/* Whether the section has anything to say (see above). */
int gs_report_preempt_relevant(const struct gs_summary *s);

/* `compare`: the header and one row per policy of the class table
 * (inference SLO attainment and waits, training waits, preemptions and the
 * GPU-hours they cost, util_effective). */
void gs_report_class_header(FILE *f);
void gs_report_class_row(FILE *f, const char *name, const struct gs_summary *s);

#endif
