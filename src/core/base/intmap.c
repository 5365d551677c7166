/* intmap.c - open-addressing int -> int map (intmap.h).  Slots hold a key
 * (-1 = empty) and its value; the table is a power of two at most half
 * full, and removal moves the later entries of the probe run back into
 * the hole (so lookups never meet tombstones). */
#include "core/base/intmap.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdint.h>
#include <string.h>

struct ent {
    int key, value;
};

struct gs_intmap {
    struct ent *e;
    size_t n, nslots; /* entries; slots (0 or a power of two) */
};

static size_t home(const struct gs_intmap *m, int key)
{
    uint64_t h = (uint64_t)(uint32_t)key * 0x9E3779B97F4A7C15ULL; /* Fibonacci hashing */
    return (size_t)(h >> 32) & (m->nslots - 1);
}

static size_t find(const struct gs_intmap *m, int key)
{
    size_t i = home(m, key);
    while (m->e[i].key >= 0 && m->e[i].key != key)
        i = (i + 1) & (m->nslots - 1);
    return i;
}

struct gs_intmap *gs_intmap_create(void)
{
    return gs_calloc(1, sizeof(struct gs_intmap));
}

void gs_intmap_destroy(struct gs_intmap *m)
{
    if (!m)
        return;
    gs_free(m->e);
    gs_free(m);
}

int gs_intmap_reserve(struct gs_intmap *m, size_t n)
{
    size_t want = m->nslots ? m->nslots : 16;
    while (n * 2 > want) {
        if (want > SIZE_MAX / 4 / sizeof *m->e)
            return GS_ENOMEM;
        want *= 2;
    }
    if (want == m->nslots)
        return 0;
    struct ent *e = gs_malloc(want * sizeof *e);
    if (!e)
        return GS_ENOMEM;
    memset(e, 0xff, want * sizeof *e);
    struct gs_intmap old = *m;
    m->e = e;
    m->nslots = want;
    for (size_t i = 0; i < old.nslots; i++)
        if (old.e[i].key >= 0)
            m->e[find(m, old.e[i].key)] = old.e[i];
    gs_free(old.e);
    return 0;
}

int gs_intmap_put(struct gs_intmap *m, int key, int value)
{
    if (key < 0)
        return GS_EINVAL;
    if (m->n > 0 && m->e[find(m, key)].key == key) { /* a replacement never allocates */
        m->e[find(m, key)].value = value;
        return 0;
    }
    if (gs_intmap_reserve(m, m->n + 1) < 0)
        return GS_ENOMEM;
    size_t i = find(m, key);
    if (m->e[i].key < 0) {
        m->e[i].key = key;
        m->n++;
    }
    m->e[i].value = value;
    return 0;
}

int gs_intmap_get(const struct gs_intmap *m, int key)
{
    if (key < 0 || m->n == 0)
        return GS_ENOENT;
    size_t i = find(m, key);
    return m->e[i].key == key ? m->e[i].value : GS_ENOENT;
}

int gs_intmap_del(struct gs_intmap *m, int key)
{
    if (key < 0 || m->n == 0)
        return GS_ENOENT;
    size_t i = find(m, key), mask = m->nslots - 1;
    if (m->e[i].key != key)
        return GS_ENOENT;
    for (size_t j = (i + 1) & mask; m->e[j].key >= 0; j = (j + 1) & mask) {
        size_t h = home(m, m->e[j].key);
        /* the entry at j may fill the hole at i unless its home lies in (i, j] */
        int between = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (!between) {
            m->e[i] = m->e[j];
            i = j;
        }
    }
    m->e[i].key = -1;
    m->n--;
    return 0;
}

size_t gs_intmap_count(const struct gs_intmap *m)
{
    return m->n;
}

size_t gs_intmap_bytes(const struct gs_intmap *m)
{
    return sizeof *m + m->nslots * sizeof *m->e;
}
