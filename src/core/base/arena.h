/* arena.h - bump allocator for many small objects freed together (trace
 * strings, per-pass scratch).  Memory comes from gs_malloc in chunks. */
#ifndef GS_CORE_ARENA_H
#define GS_CORE_ARENA_H

#include <stddef.h>

struct gs_arena_chunk;

struct gs_arena {
    struct gs_arena_chunk *head;
    size_t used;          /* bytes used in head */
    size_t chunk_size;    /* default chunk payload, 0 = 64 KiB */
};

/* Zero-initialise an arena (no allocation). */
void gs_arena_init(struct gs_arena *a);

/* Allocate `size` bytes aligned for any object; NULL on failure.  Valid
 * until gs_arena_reset or gs_arena_fini. */
void *gs_arena_alloc(struct gs_arena *a, size_t size);

/* Copy a NUL-terminated string into the arena; NULL on failure. */
char *gs_arena_strdup(struct gs_arena *a, const char *s);

/* Forget every allocation but keep the newest chunk for reuse. */
void gs_arena_reset(struct gs_arena *a);

/* Free every chunk. */
void gs_arena_fini(struct gs_arena *a);

#endif
