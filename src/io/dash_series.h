/* dash_series.h - the dashboard's recent history (issue 16): a ring of
 * samples of a live engine (util_alloc, S_k, fragmentation by form,
 * pending jobs) and of the queue waits of the jobs that started, drawn as
 * the page's charts with the HTML report's SVG primitives (io/html_svg.h).
 *
 * The daemon samples every GS_DASH_SAMPLE_S seconds (gs_dash_series_due);
 * with GS_DASH_SAMPLES samples that is the last six hours.  Each sample
 * holds the state from its time until the next sample (a step function),
 * which is how the S_k >= 1 windows are cut.
 */
#ifndef GS_IO_DASH_SERIES_H
#define GS_IO_DASH_SERIES_H

#include <jansson.h>

#include "core/engine/engine.h"
#include "core/base/types.h"

#define GS_DASH_SAMPLES 720
#define GS_DASH_SAMPLE_S 30
#define GS_DASH_WAITS 8192

struct gs_dash_series;

/* Create an empty history.  NULL on allocation failure; destroy with
 * gs_dash_series_destroy (NULL is a no-op there). */
struct gs_dash_series *gs_dash_series_create(void);
void gs_dash_series_destroy(struct gs_dash_series *s);

/* Is a sample due at `now` (none yet, or the last one `interval_s` ago)? */
int gs_dash_series_due(const struct gs_dash_series *s, gs_time now, int interval_s);

/* One sample of the engine's state at `now`: its cluster's allocation,
 * S_k, count/topology/memory fragmentation and pending jobs, plus the wait
 * of every job whose first start falls after the previous sample (all
 * jobs scanned: O(jobs)).  A sample at or before the last one replaces
 * nothing and is ignored.  Returns the number of samples kept. */
int gs_dash_series_sample(struct gs_dash_series *s, const struct gs_engine *eng, gs_time now);

/* Record one sample from given values (tests, and drivers without an
 * engine).  `util` is a share of GPUs; waits are added separately. */
void gs_dash_series_add(struct gs_dash_series *s, gs_time t, double util, int64_t sched,
                        int64_t frag_count, int64_t frag_topology, double frag_memory,
                        int pending, int k);
void gs_dash_series_add_wait(struct gs_dash_series *s, gs_time start, gs_time wait, int gpus);

/* The charts: {"util": SVG, "sk": SVG, "frag": SVG, "waits": HTML table}
 * over the samples kept, time axis ending at the last sample.  An empty
 * object when there are fewer than two samples.  New reference, NULL on
 * allocation failure. */
json_t *gs_dash_series_charts(const struct gs_dash_series *s);

#endif
