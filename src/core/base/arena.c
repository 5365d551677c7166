/* arena.c - chunked bump allocator. */
#include "core/base/arena.h"
#include "core/base/alloc.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

struct gs_arena_chunk {
    struct gs_arena_chunk *next;
    size_t size;
    alignas(max_align_t) unsigned char data[];
};

void gs_arena_init(struct gs_arena *a)
{
    memset(a, 0, sizeof *a);
}

void *gs_arena_alloc(struct gs_arena *a, size_t size)
{
    const size_t align = alignof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
    if (size == 0)
        size = align;
    if (!a->head || a->head->size - a->used < size) {
        size_t payload = a->chunk_size ? a->chunk_size : 65536;
        if (payload < size)
            payload = size;
        if (payload > SIZE_MAX - sizeof(struct gs_arena_chunk))
            return NULL;
        struct gs_arena_chunk *c = gs_malloc(sizeof *c + payload);
        if (!c)
            return NULL;
        c->next = a->head;
        c->size = payload;
        a->head = c;
        a->used = 0;
    }
    void *p = a->head->data + a->used;
    a->used += size;
    return p;
}

char *gs_arena_strdup(struct gs_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = gs_arena_alloc(a, n);
    if (p)
        memcpy(p, s, n);
    return p;
}

void gs_arena_reset(struct gs_arena *a)
{
    if (!a->head)
        return;
    struct gs_arena_chunk *c = a->head->next;
    while (c) {
        struct gs_arena_chunk *next = c->next;
        gs_free(c);
        c = next;
    }
    a->head->next = NULL;
    a->used = 0;
}

void gs_arena_fini(struct gs_arena *a)
{
    gs_arena_reset(a);
    gs_free(a->head);
    a->head = NULL;
}
