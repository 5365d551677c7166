/* alloc.c - allocation hooks (see alloc.h for why they exist). */
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct gs_alloc_hooks hooks = { malloc, realloc, free };

void gs_alloc_set_hooks(const struct gs_alloc_hooks *h)
{
    if (h)
        hooks = *h;
    else {
        hooks.malloc_fn = malloc;
        hooks.realloc_fn = realloc;
        hooks.free_fn = free;
    }
}

void *gs_malloc(size_t size)
{
    return size ? hooks.malloc_fn(size) : NULL;
}

void *gs_calloc(size_t n, size_t size)
{
    if (n == 0 || size == 0 || n > SIZE_MAX / size)
        return NULL;
    void *p = hooks.malloc_fn(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *gs_realloc(void *ptr, size_t size)
{
    if (size == 0)
        return NULL;
    return hooks.realloc_fn(ptr, size);
}

void gs_free(void *ptr)
{
    if (ptr)
        hooks.free_fn(ptr);
}

int gs_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem)
            return GS_ENOMEM;
        ncap *= 2;
    }
    void *p = gs_realloc(*arr, ncap * elem);
    if (!p)
        return GS_ENOMEM;
    *arr = p;
    *cap = ncap;
    return 0;
}

char *gs_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = gs_malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}
