/* latency.c - the simulator's start latency draw (latency.h). */
#include "sim/latency.h"
#include "core/base/rng.h"

#include <math.h>
#include <stdint.h>

gs_time gs_latency_draw(const struct gs_policy *pol, int job, int run)
{
    if (pol->start_latency <= 0 || pol->start_latency_sigma <= 0)
        return pol->start_latency > 0 ? pol->start_latency : 0;
    uint64_t x = (uint64_t)pol->start_latency_seed * 0x9E3779B97F4A7C15ULL ^
                 (uint64_t)job << 24 ^ (uint64_t)run;
    double u1 = ((double)(gs_splitmix64(&x) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = (double)(gs_splitmix64(&x) >> 11) / 9007199254740992.0;
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    double v = (double)pol->start_latency * exp(pol->start_latency_sigma * z);
    return v < 1e15 ? (gs_time)llround(v) : (gs_time)1e15;
}

/* The engine's latency source: the draw under the engine's policy. */
static gs_time engine_latency(void *arg, const struct gs_engine *eng, int job, int run)
{
    (void)arg;
    return gs_latency_draw(gs_engine_policy(eng), job, run);
}

void gs_latency_attach(struct gs_engine *eng)
{
    gs_engine_set_latency(eng, engine_latency, NULL);
}
