/* strtab.c - open-addressing hash table of interned strings (linear
 * probing; removal shifts the entries of its probe run back, so no
 * tombstones), with a stack of removed ids that intern reuses, newest
 * first. */
#include "core/base/strtab.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdint.h>
#include <string.h>

struct gs_strtab {
    char **names;     /* id -> string, NULL once removed */
    size_t count, cap;
    int *free_ids;    /* removed ids, reused last-removed first; room for cap */
    size_t nfree;
    int *slots;       /* hash slot -> id, -1 empty */
    size_t nslots;    /* power of two */
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

struct gs_strtab *gs_strtab_create(void)
{
    struct gs_strtab *t = gs_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->nslots = 64;
    t->slots = gs_malloc(t->nslots * sizeof *t->slots);
    if (!t->slots) {
        gs_free(t);
        return NULL;
    }
    memset(t->slots, 0xff, t->nslots * sizeof *t->slots);
    return t;
}

void gs_strtab_destroy(struct gs_strtab *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->count; i++)
        gs_free(t->names[i]);
    gs_free(t->names);
    gs_free(t->free_ids);
    gs_free(t->slots);
    gs_free(t);
}

static size_t find_slot(const struct gs_strtab *t, const char *s)
{
    size_t mask = t->nslots - 1;
    size_t i = (size_t)hash_str(s) & mask;
    while (t->slots[i] >= 0 && strcmp(t->names[t->slots[i]], s) != 0)
        i = (i + 1) & mask;
    return i;
}

static int rehash(struct gs_strtab *t)
{
    size_t n = t->nslots * 2;
    int *slots = gs_malloc(n * sizeof *slots);
    if (!slots)
        return GS_ENOMEM;
    memset(slots, 0xff, n * sizeof *slots);
    gs_free(t->slots);
    t->slots = slots;
    t->nslots = n;
    for (size_t id = 0; id < t->count; id++)
        if (t->names[id])
            t->slots[find_slot(t, t->names[id])] = (int)id;
    return 0;
}

/* Grow names[] and free_ids[] together so a removal never allocates. */
static int grow_names(struct gs_strtab *t)
{
    size_t cap = t->cap;
    if (gs_grow((void **)&t->names, &cap, t->count + 1, sizeof *t->names))
        return GS_ENOMEM;
    size_t fcap = t->cap;
    if (cap != t->cap && gs_grow((void **)&t->free_ids, &fcap, cap, sizeof *t->free_ids))
        return GS_ENOMEM; /* names[] is merely larger than needed */
    t->cap = cap;
    return 0;
}

int gs_strtab_intern(struct gs_strtab *t, const char *s)
{
    size_t i = find_slot(t, s);
    if (t->slots[i] >= 0)
        return t->slots[i];
    if (t->nfree == 0 && (t->count >= INT32_MAX || grow_names(t) < 0))
        return GS_ENOMEM;
    char *copy = gs_strdup(s);
    if (!copy)
        return GS_ENOMEM;
    size_t live = t->count - t->nfree;
    if ((live + 1) * 2 > t->nslots) {
        if (rehash(t) < 0) {
            gs_free(copy);
            return GS_ENOMEM;
        }
        i = find_slot(t, s);
    }
    int id = t->nfree > 0 ? t->free_ids[--t->nfree] : (int)t->count++;
    t->names[id] = copy;
    t->slots[i] = id;
    return id;
}

/* Remove hash entry i and move the later entries of its probe run back
 * into the hole when their home is not between the hole and them. */
static void unlink_slot(struct gs_strtab *t, size_t i)
{
    size_t mask = t->nslots - 1;
    for (size_t j = (i + 1) & mask; t->slots[j] >= 0; j = (j + 1) & mask) {
        size_t home = (size_t)hash_str(t->names[t->slots[j]]) & mask;
        /* the entry at j may fill the hole at i unless home lies in (i, j] */
        int between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!between) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i] = -1;
}

int gs_strtab_remove(struct gs_strtab *t, int id)
{
    if (id < 0 || (size_t)id >= t->count || !t->names[id])
        return GS_ENOENT;
    unlink_slot(t, find_slot(t, t->names[id]));
    gs_free(t->names[id]);
    t->names[id] = NULL;
    t->free_ids[t->nfree++] = id;
    return 0;
}

int gs_strtab_live(const struct gs_strtab *t)
{
    return (int)(t->count - t->nfree);
}

int gs_strtab_find(const struct gs_strtab *t, const char *s)
{
    int id = t->slots[find_slot(t, s)];
    return id >= 0 ? id : GS_ENOENT;
}

const char *gs_strtab_name(const struct gs_strtab *t, int id)
{
    if (id < 0 || (size_t)id >= t->count)
        return NULL;
    return t->names[id];
}

int gs_strtab_count(const struct gs_strtab *t)
{
    return (int)t->count;
}
