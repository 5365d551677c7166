/* client_page.c - the list commands' paging: GET a list route page by page
 * (`next` -> `after=`, docs/daemon.md) into one answer, then put the
 * pending jobs last in queue order (their `queue_pos`). */
#include "cli/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append the array `key` of `more` to that of `ans`; move `next` over. */
static int take_page(json_t *ans, json_t *more, const char *key)
{
    json_t *a = json_object_get(ans, key), *b = json_object_get(more, key);
    if (!json_is_array(a) || !json_is_array(b) || json_array_extend(a, b) < 0)
        return -1;
    json_t *now = json_object_get(more, "now_epoch"); /* the clock of the last page */
    if (now)
        json_object_set(ans, "now_epoch", now);
    json_t *next = json_object_get(more, "next");
    if (next)
        json_object_set(ans, "next", next);
    else
        json_object_del(ans, "next");
    return 0;
}

struct item {
    json_t *j;
    size_t i;
    int pending;
    json_int_t pos;
};

static int item_cmp(const void *pa, const void *pb)
{
    const struct item *a = pa, *b = pb;
    if (a->pending != b->pending)
        return a->pending - b->pending;
    if (a->pending && a->pos != b->pos)
        return a->pos < b->pos ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i; /* stable: submission order */
}

/* The jobs as the unpaged listing had them: the others in submission
 * order, then the pending ones in the order of the next pass. */
static int order_pending(json_t *list)
{
    size_t n = json_array_size(list);
    struct item *it = n ? malloc(n * sizeof *it) : NULL;
    if (n && !it)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *j = json_array_get(list, i);
        const char *st = json_string_value(json_object_get(j, "state"));
        json_t *pos = json_object_get(j, "queue_pos");
        it[i] = (struct item){ json_incref(j), i, st && !strcmp(st, "pending") && pos,
                               json_integer_value(pos) };
    }
    if (n > 1)
        qsort(it, n, sizeof *it, item_cmp);
    json_array_clear(list);
    int rc = 0;
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(list, it[i].j) < 0)
            rc = -1;
    free(it);
    return rc;
}

int gs_client_get_pages(const struct gs_client_opts *o, const char *path, const char *key,
                        json_t **out)
{
    struct gs_client *c = gs_client_create(o);
    json_t *ans = NULL;
    int status = c ? gs_client_request(c, o, "GET", path, NULL, &ans) : 1;
    const char *next;
    while (status == 0 && (next = json_string_value(json_object_get(ans, "next")))) {
        size_t n = strlen(path) + strlen(next) + 16;
        char *p = malloc(n);
        json_t *more = NULL;
        if (p)
            snprintf(p, n, "%s%safter=%s", path, strchr(path, '?') ? "&" : "?", next);
        status = p ? gs_client_request(c, o, "GET", p, NULL, &more) : 1;
        free(p);
        if (status == 0 && take_page(ans, more, key) < 0)
            status = (fprintf(stderr, "gpusched: a page of %s has no %s list\n", path, key), 1);
        json_decref(more);
    }
    gs_client_destroy(c);
    json_t *list = json_object_get(ans, key);
    if (status == 0 && !strcmp(key, "jobs") && json_is_array(list) && order_pending(list) < 0)
        status = (fprintf(stderr, "gpusched: out of memory\n"), 1);
    if (status) {
        json_decref(ans);
        ans = NULL;
    }
    *out = ans;
    return status;
}
