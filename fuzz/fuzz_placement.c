/* fuzz_placement.c - libFuzzer target for the placement codec
 * (io/placement.h).  The input is the placement text (cut at a NUL byte).
 * Invariants: a refusal has a message naming a byte offset (or the
 * cluster's node); an accepted text scans to entries with 1..63-byte names
 * that are all distinct and hold GPUs; every style written from them scans
 * back to the same entries and writes the same bytes again; against a fixed
 * cluster (node-1..node-3: 8 GPUs, "a:b": 4) a parsed placement's GPUs
 * exist, and its LIST form parses back to the same parts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster/cluster.h"
#include "io/placement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 64

static struct gs_cluster *cluster(void)
{
    static struct gs_cluster *cl;
    if (cl)
        return cl;
    cl = gs_cluster_create();
    if (!cl || gs_cluster_add_gpu_type(cl, "H100", 81920, NULL) < 0)
        abort();
    static const char *const names[] = { "node-1", "node-2", "node-3", "a:b" };
    for (int i = 0; i < 4; i++) {
        struct gs_node_spec s = { 0 };
        s.name = names[i];
        s.gpus = i < 3 ? 8 : 4;
        if (gs_cluster_add_node(cl, &s, NULL) < 0)
            abort();
    }
    if (gs_cluster_seal(cl, 0, NULL) < 0)
        abort();
    return cl;
}

static void same_entries(const struct gs_placement_entry *a, int na,
                         const struct gs_placement_entry *b, int nb)
{
    if (na != nb)
        abort();
    for (int i = 0; i < na; i++)
        if (a[i].len != b[i].len || memcmp(a[i].name, b[i].name, a[i].len) != 0 ||
            a[i].mask != b[i].mask)
            abort();
}

static void check_entries(const struct gs_placement_entry *e, int n)
{
    for (int i = 0; i < n; i++) {
        if (e[i].len == 0 || e[i].len >= GS_NAME_MAX || e[i].mask == 0 ||
            memchr(e[i].name, ',', e[i].len) || memchr(e[i].name, ' ', e[i].len))
            abort();
        for (int j = 0; j < i; j++)
            if (e[j].len == e[i].len && !memcmp(e[j].name, e[i].name, e[i].len))
                abort();
    }
    for (int st = GS_PLACEMENT_LIST; st <= GS_PLACEMENT_RUNS; st++) {
        size_t len = gs_placement_format_entries(NULL, 0, e, n, st);
        char *t = malloc(len + 1), *u = malloc(len + 1);
        struct gs_placement_entry back[CAP];
        struct gs_error err;
        if (!t || !u || gs_placement_format_entries(t, len + 1, e, n, st) != len ||
            strlen(t) != len)
            abort();
        int nb = gs_placement_scan(t, back, CAP, &err);
        if (nb < 0)
            abort();
        same_entries(e, n, back, nb);
        gs_placement_format_entries(u, len + 1, back, nb, st);
        if (strcmp(t, u) != 0)
            abort();
        free(t);
        free(u);
    }
}

static void check_parts(const char *text)
{
    const struct gs_cluster *cl = cluster();
    struct gs_alloc_part p[CAP], q[CAP];
    struct gs_error err;
    err.msg[0] = '\0';
    int n = gs_placement_parse(cl, text, p, CAP, &err);
    if (n < 0) {
        if (!strstr(err.msg, "byte"))
            abort();
        return;
    }
    for (int i = 0; i < n; i++)
        if (p[i].node < 0 || p[i].mask == 0 ||
            (p[i].mask >> gs_cluster_node_gpus(cl, p[i].node)) != 0)
            abort();
    char buf[4096];
    if (gs_placement_format(buf, sizeof buf, cl, p, n, GS_PLACEMENT_LIST) >= sizeof buf)
        return;
    if (gs_placement_parse(cl, buf, q, CAP, &err) != n)
        abort();
    for (int i = 0; i < n; i++)
        if (p[i].node != q[i].node || p[i].mask != q[i].mask)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct gs_placement_entry e[CAP];
    struct gs_error err;
    err.msg[0] = '\0';
    int n = gs_placement_scan(text, e, CAP, &err);
    if (n < 0) {
        if ((n != GS_EINVAL && n != GS_ENOSPC) || strncmp(err.msg, "at byte ", 8) != 0)
            abort();
    } else {
        check_entries(e, n);
    }
    check_parts(text);
    free(text);
    return 0;
}
