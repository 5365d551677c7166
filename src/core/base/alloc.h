/* alloc.h - the replaceable allocator every core allocation goes through.
 *
 * Core code never calls malloc directly; it calls gs_malloc & co., which
 * forward to hooks that tests can replace to inject allocation failures
 * (an OOM sweep).  On failure core functions return GS_ENOMEM; they never
 * abort.  The hooks are the one process-wide setting of the core: they hold
 * no scheduling state and are installed once, before engines are created.
 */
#ifndef GS_CORE_ALLOC_H
#define GS_CORE_ALLOC_H

#include <stddef.h>

struct gs_alloc_hooks {
    void *(*malloc_fn)(size_t size);
    void *(*realloc_fn)(void *ptr, size_t size);
    void (*free_fn)(void *ptr);
};

/* Install allocation hooks; NULL restores the C library's allocator. */
void gs_alloc_set_hooks(const struct gs_alloc_hooks *hooks);

/* Allocate `size` bytes; returns NULL on failure (or for size 0). */
void *gs_malloc(size_t size);

/* Allocate and zero `n * size` bytes; returns NULL on failure or overflow. */
void *gs_calloc(size_t n, size_t size);

/* Resize `ptr` (may be NULL); returns NULL on failure, leaving ptr valid. */
void *gs_realloc(void *ptr, size_t size);

/* Free memory from gs_malloc/gs_calloc/gs_realloc; NULL is a no-op. */
void gs_free(void *ptr);

/* Grow `*arr` (element size `elem`) so it holds at least `need` elements,
 * doubling capacity `*cap`.  Returns 0 or GS_ENOMEM (arr left unchanged). */
int gs_grow(void **arr, size_t *cap, size_t need, size_t elem);

/* Duplicate a NUL-terminated string; NULL on failure. Free with gs_free. */
char *gs_strdup(const char *s);

#endif
