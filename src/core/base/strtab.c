/* strtab.c - open-addressing hash table of interned strings. */
#include "core/base/strtab.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdint.h>
#include <string.h>

struct gs_strtab {
    char **names;     /* id -> string */
    size_t count, cap;
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
        t->slots[find_slot(t, t->names[id])] = (int)id;
    return 0;
}

int gs_strtab_intern(struct gs_strtab *t, const char *s)
{
    size_t i = find_slot(t, s);
    if (t->slots[i] >= 0)
        return t->slots[i];
    if (t->count >= INT32_MAX)
        return GS_ENOMEM;
    if (gs_grow((void **)&t->names, &t->cap, t->count + 1, sizeof *t->names))
        return GS_ENOMEM;
    char *copy = gs_strdup(s);
    if (!copy)
        return GS_ENOMEM;
    if ((t->count + 1) * 2 > t->nslots) {
        if (rehash(t) < 0) {
            gs_free(copy);
            return GS_ENOMEM;
        }
        i = find_slot(t, s);
    }
    t->names[t->count] = copy;
    t->slots[i] = (int)t->count;
    return (int)t->count++;
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
