/* estimate.c - per-key rings of recent run times and their quantiles. */
#include "core/jobs/estimate.h"
#include "core/jobs/jobs.h"
#include "core/base/alloc.h"
#include "core/base/stats.h"

#include <string.h>

struct ring {
    gs_time v[GS_HIST_WINDOW];
    int n, next;
    gs_time cached;            /* quantile, valid when !dirty */
    int dirty;
};

/* Open-addressing map from a 64-bit key to a ring. */
struct gs_history {
    int quantile;
    uint64_t *keys;
    struct ring *rings;
    size_t cap, count;         /* cap is a power of two; key 0 = empty */
};

struct gs_history *gs_history_create(int quantile)
{
    struct gs_history *h = gs_calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->quantile = quantile == 50 ? 50 : 90;
    return h;
}

void gs_history_destroy(struct gs_history *h)
{
    if (!h)
        return;
    gs_free(h->keys);
    gs_free(h->rings);
    gs_free(h);
}

size_t gs_history_keys(const struct gs_history *h)
{
    return h->count;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Key: level in the top 4 bits, then two ids of up to 28 and 32 bits.
 * Never 0. */
static uint64_t make_key(int level, uint64_t a, uint64_t b)
{
    return ((uint64_t)(level + 1) << 60) | ((a & 0xfffffffULL) << 32) | (b & 0xffffffffULL);
}

static struct ring *find(const struct gs_history *h, uint64_t key)
{
    if (!h->cap)
        return NULL;
    size_t mask = h->cap - 1;
    for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
        if (h->keys[i] == key)
            return &h->rings[i];
        if (h->keys[i] == 0)
            return NULL;
    }
}

static int rehash(struct gs_history *h)
{
    size_t ncap = h->cap ? h->cap * 2 : 64;
    uint64_t *keys = gs_calloc(ncap, sizeof *keys);
    struct ring *rings = gs_calloc(ncap, sizeof *rings);
    if (!keys || !rings) {
        gs_free(keys);
        gs_free(rings);
        return GS_ENOMEM;
    }
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->keys[i])
            continue;
        size_t j = mix(h->keys[i]) & (ncap - 1);
        while (keys[j])
            j = (j + 1) & (ncap - 1);
        keys[j] = h->keys[i];
        rings[j] = h->rings[i];
    }
    gs_free(h->keys);
    gs_free(h->rings);
    h->keys = keys;
    h->rings = rings;
    h->cap = ncap;
    return 0;
}

static struct ring *find_or_add(struct gs_history *h, uint64_t key)
{
    struct ring *r = find(h, key);
    if (r)
        return r;
    if ((h->count + 1) * 2 > h->cap && rehash(h) < 0)
        return NULL;
    size_t mask = h->cap - 1, i = mix(key) & mask;
    while (h->keys[i])
        i = (i + 1) & mask;
    h->keys[i] = key;
    memset(&h->rings[i], 0, sizeof h->rings[i]);
    h->count++;
    return &h->rings[i];
}

static gs_time ring_quantile(struct ring *r, int quantile)
{
    if (!r->dirty)
        return r->cached;
    double v[GS_HIST_WINDOW];
    for (int i = 0; i < r->n; i++)
        v[i] = (double)r->v[i];
    struct gs_pctl p;
    gs_pctl_compute(&p, v, (size_t)r->n);
    r->cached = (gs_time)(quantile == 50 ? p.p50 : p.p90);
    r->dirty = 0;
    return r->cached;
}

/* Keys from the engine's interned string ids (assigned in first-seen
 * order, so the same submissions give the same keys). */
static void job_keys(const struct gs_engine *eng, int job, uint64_t keys[4])
{
    const struct job *j = &eng->jobs[job];
    keys[0] = make_key(0, (uint64_t)j->user, (uint64_t)j->name);
    keys[1] = make_key(1, (uint64_t)j->team, (uint64_t)j->gpus);
    keys[2] = make_key(2, 0, (uint64_t)j->gpus);
    keys[3] = make_key(3, 0, 0);
}

/* The estimator callbacks get the job's handle (engine.h). */
static gs_time hist_estimate(void *arg, const struct gs_engine *eng, int handle)
{
    struct gs_history *h = arg;
    int job = gs_eng_slot(eng, handle);
    if (job < 0)
        return GS_TIME_NONE;
    gs_time limit = eng->jobs[job].time_limit;
    uint64_t keys[4];
    job_keys(eng, job, keys);
    for (int l = 0; l < 4; l++) {
        struct ring *r = find(h, keys[l]);
        if (r && r->n >= GS_HIST_MIN_SAMPLES) {
            gs_time e = ring_quantile(r, h->quantile);
            if (e < 1)
                e = 1;
            return limit > 0 && e > limit ? limit : e;
        }
    }
    return limit > 0 ? limit : GS_TIME_NONE;
}

static void hist_observe(void *arg, const struct gs_engine *eng, int handle, gs_time runtime)
{
    struct gs_history *h = arg;
    int job = gs_eng_slot(eng, handle);
    if (job < 0)
        return;
    uint64_t keys[4];
    job_keys(eng, job, keys);
    for (int l = 0; l < 4; l++) {
        struct ring *r = find_or_add(h, keys[l]);
        if (!r)
            return; /* out of memory: the sample is dropped, estimates stay valid */
        r->v[r->next] = runtime;
        r->next = (r->next + 1) % GS_HIST_WINDOW;
        if (r->n < GS_HIST_WINDOW)
            r->n++;
        r->dirty = 1;
    }
}

struct gs_estimator gs_history_estimator(struct gs_history *h)
{
    struct gs_estimator e = { "from_history", hist_estimate, hist_observe, h };
    return e;
}
