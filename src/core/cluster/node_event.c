/* node_event.c - lists of node events (node_event.h). */
#include "core/cluster/node_event.h"
#include "core/base/alloc.h"
#include "core/base/error.h"

#include <stdlib.h>

void gs_node_events_fini(struct gs_node_events *ev)
{
    if (!ev)
        return;
    gs_free(ev->ev);
    ev->ev = NULL;
    ev->n = ev->cap = 0;
}

int gs_node_events_append(struct gs_node_events *ev, const struct gs_node_event *e)
{
    if (gs_grow((void **)&ev->ev, &ev->cap, ev->n + 1, sizeof *ev->ev))
        return GS_ENOMEM;
    ev->ev[ev->n++] = *e;
    return 0;
}

/* Merge sort: stable, O(n log n) for generated lists of any length. */
static void msort(struct gs_node_event *a, struct gs_node_event *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort(a, tmp, h);
    msort(a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = a[j].time < a[i].time ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    for (k = 0; k < n; k++)
        a[k] = tmp[k];
}

void gs_node_events_sort(struct gs_node_events *ev)
{
    if (ev->n < 2)
        return;
    struct gs_node_event *tmp = gs_malloc(ev->n * sizeof *tmp);
    if (tmp) {
        msort(ev->ev, tmp, ev->n);
        gs_free(tmp);
        return;
    }
    for (size_t i = 1; i < ev->n; i++) { /* no memory: insertion, still stable */
        struct gs_node_event e = ev->ev[i];
        size_t j = i;
        for (; j > 0 && ev->ev[j - 1].time > e.time; j--)
            ev->ev[j] = ev->ev[j - 1];
        ev->ev[j] = e;
    }
}
