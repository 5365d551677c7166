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

/* One sample: the state from t until the next sample.  S_k and the
 * fragmentation are measured at k (the job size the page used then). */
struct gs_dash_sample {
    gs_time t;
    double util, frag_memory;
    int64_t sched, frag_count, frag_topology;
    int pending, k;
};

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
/* The same with S_k and the fragmentation measured at k (0 = the
 * cluster's k). */
int gs_dash_series_sample_k(struct gs_dash_series *s, const struct gs_engine *eng, gs_time now,
                            int k);

/* The samples kept (0 = the oldest; NULL out of range), the waits ever
 * added and the i-th newest wait kept (0 or GS_ENOENT): what a driver
 * stores to keep the history across restarts (gpuschedd's journal). */
int gs_dash_series_count(const struct gs_dash_series *s);
const struct gs_dash_sample *gs_dash_series_at(const struct gs_dash_series *s, int i);
int64_t gs_dash_series_waits_total(const struct gs_dash_series *s);
int gs_dash_series_wait_newest(const struct gs_dash_series *s, int i, gs_time *start,
                               gs_time *wait, int *gpus);

/* {samples, from, to, k}: how many samples are kept, the engine times (s)
 * of the first and last (null when none) and the last one's k.  New
 * reference, NULL on allocation failure. */
json_t *gs_dash_series_info(const struct gs_dash_series *s);

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
