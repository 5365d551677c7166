/* placement.c - the placement codec (placement.h): one scanner that reads
 * the grammar item by item, two consumers of its items (entries by name,
 * parts by node id), and one writer for the five styles. */
#include "io/placement.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* One item as read: `name` (NULL for a bare continuation), GPUs lo..hi. */
struct item {
    const char *name;
    size_t len, pos;
    int lo, hi;
};

typedef int (*item_fn)(void *arg, const struct item *it, struct gs_error *err);

/* The index at s[0..n): its value, or -1 (not all digits, or >= 64). */
static int index_of(const char *s, size_t n)
{
    int v = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || v >= GS_MAX_NODE_GPUS)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v < GS_MAX_NODE_GPUS ? v : -1;
}

/* The GPUs part "lo" or "lo-hi" of the item at text[pos..], n bytes. */
static int read_gpus(const char *s, size_t n, size_t pos, struct item *it, struct gs_error *err)
{
    const char *dash = memchr(s, '-', n);
    size_t ln = dash ? (size_t)(dash - s) : n;
    it->lo = index_of(s, ln);
    it->hi = dash ? index_of(dash + 1, n - ln - 1) : it->lo;
    if (it->lo < 0 || it->hi < 0)
        return gs_errorf(err, GS_EINVAL,
                         "at byte %zu: '%.*s' is not a GPU index 0-%d or a range lo-hi", pos,
                         (int)(n > 40 ? 40 : n), s, GS_MAX_NODE_GPUS - 1);
    if (it->hi < it->lo)
        return gs_errorf(err, GS_EINVAL, "at byte %zu: the range %d-%d runs backwards", pos,
                         it->lo, it->hi);
    return 0;
}

/* Split the item at text[pos..pos+n) into node and GPUs. */
static int read_item(const char *text, size_t pos, size_t n, int have_node, struct item *it,
                     struct gs_error *err)
{
    const char *s = text + pos, *colon = NULL;
    for (size_t i = 0; i < n; i++)
        colon = s[i] == ':' ? s + i : colon;
    it->pos = pos;
    it->name = NULL;
    it->len = 0;
    if (!colon && !have_node)
        return gs_errorf(err, GS_EINVAL, "at byte %zu: '%.*s' names no node (expected NODE:GPUS)",
                         pos, (int)(n > 40 ? 40 : n), s);
    if (colon) {
        it->name = s;
        it->len = (size_t)(colon - s);
        if (it->len == 0)
            return gs_errorf(err, GS_EINVAL, "at byte %zu: empty node name", pos);
        if (it->len >= GS_NAME_MAX)
            return gs_errorf(err, GS_EINVAL, "at byte %zu: node name longer than %d bytes", pos,
                             GS_NAME_MAX - 1);
    }
    size_t g = colon ? (size_t)(colon - s) + 1 : 0;
    return read_gpus(s + g, n - g, pos + g, it, err);
}

/* Read `text` item by item, calling fn for each. */
static int scan(const char *text, item_fn fn, void *arg, struct gs_error *err)
{
    const char *p = text ? text : "";
    size_t i = strspn(p, " ");
    int have_node = 0;
    while (p[i]) {
        size_t n = strcspn(p + i, ", ");
        if (n == 0)
            return gs_errorf(err, GS_EINVAL, "at byte %zu: empty entry", i);
        struct item it = { NULL, 0, 0, 0, 0 };
        int rc = read_item(p, i, n, have_node, &it, err);
        if (rc == 0)
            rc = fn(arg, &it, err);
        if (rc < 0)
            return rc;
        have_node = 1;
        i += n;
        if (p[i] == ',') {
            if (!p[++i] || p[i] == ',' || p[i] == ' ')
                return gs_errorf(err, GS_EINVAL, "at byte %zu: empty entry after ','", i);
        } else {
            i += strspn(p + i, " ");
        }
    }
    return 0;
}

/* Add GPUs lo..hi of the item to *mask; `who` names the node. */
static int add_gpus(uint64_t *mask, const struct item *it, const char *who, size_t wl,
                    struct gs_error *err)
{
    for (int g = it->lo; g >= 0 && g <= it->hi && g < GS_MAX_NODE_GPUS; g++) {
        if (*mask >> g & 1)
            return gs_errorf(err, GS_EINVAL, "at byte %zu: GPU %d of %.*s given twice", it->pos,
                             g, (int)wl, who);
        *mask |= 1ULL << g;
    }
    return 0;
}

struct entries {
    struct gs_placement_entry *e;
    int n, cap, cur;
};

static int add_entry(void *arg, const struct item *it, struct gs_error *err)
{
    struct entries *s = arg;
    if (it->name) {
        int k = 0;
        while (k < s->n && !(s->e[k].len == it->len && !memcmp(s->e[k].name, it->name, it->len)))
            k++;
        if (k == s->n) {
            if (k == s->cap)
                return gs_errorf(err, GS_ENOSPC, "at byte %zu: more than %d nodes", it->pos,
                                 s->cap);
            s->e[s->n++] = (struct gs_placement_entry){ it->name, it->len, 0, it->pos };
        }
        s->cur = k;
    }
    struct gs_placement_entry *e = &s->e[s->cur];
    return add_gpus(&e->mask, it, e->name, e->len, err);
}

int gs_placement_scan(const char *text, struct gs_placement_entry *out, int cap,
                      struct gs_error *err)
{
    struct entries s = { out, 0, cap, -1 };
    int rc = scan(text, add_entry, &s, err);
    return rc < 0 ? rc : s.n;
}

struct parts {
    const struct gs_cluster *cl;
    struct gs_alloc_part *p;
    int n, cap, cur;
};

static int add_part(void *arg, const struct item *it, struct gs_error *err)
{
    struct parts *s = arg;
    if (it->name) {
        char name[GS_NAME_MAX];
        memcpy(name, it->name, it->len); /* len < GS_NAME_MAX (read_item) */
        name[it->len] = '\0';
        int node = gs_cluster_find_node(s->cl, name);
        if (node < 0)
            return gs_errorf(err, GS_EINVAL, "no node '%s' in the cluster (at byte %zu)", name,
                             it->pos);
        int k = 0;
        while (k < s->n && s->p[k].node != node)
            k++;
        if (k == s->n) {
            if (k == s->cap)
                return gs_errorf(err, GS_ENOSPC, "at byte %zu: more than %d nodes", it->pos,
                                 s->cap);
            s->p[s->n++] = (struct gs_alloc_part){ node, 0 };
        }
        s->cur = k;
    }
    struct gs_alloc_part *p = &s->p[s->cur];
    const char *who = gs_cluster_node_name(s->cl, p->node);
    int ng = gs_cluster_node_gpus(s->cl, p->node);
    if (it->hi >= ng)
        return gs_errorf(err, GS_EINVAL, "GPU %d of %s (at byte %zu): %s has GPUs 0-%d", it->hi,
                         who, it->pos, who, ng - 1);
    return add_gpus(&p->mask, it, who, strlen(who), err);
}

int gs_placement_parse(const struct gs_cluster *cl, const char *text,
                       struct gs_alloc_part *parts, int cap, struct gs_error *err)
{
    struct parts s = { cl, parts, 0, cap, -1 };
    int rc = scan(text, add_part, &s, err);
    return rc < 0 ? rc : s.n;
}

/* snprintf into a growing text that stops writing once full. */
struct out {
    char *buf;
    size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
                      o->len < o->size ? o->size - o->len : 0, fmt, ap);
    va_end(ap);
    if (w > 0)
        o->len += (size_t)w;
}

/* The run of set bits starting at the lowest bit of m: its last bit. */
static int run_end(uint64_t m, int lo)
{
    int hi = lo;
    while (hi < 63 && (m >> (hi + 1) & 1))
        hi++;
    return hi;
}

static uint64_t past(uint64_t m, int hi)
{
    return hi >= 63 ? 0 : m & ~((2ULL << hi) - 1);
}

/* One entry in `style`; *first says whether nothing was written yet. */
static void put_entry(struct out *o, const struct gs_placement_entry *e, int style, int *first)
{
    int nm = (int)e->len;
    if (style == GS_PLACEMENT_NODES || style == GS_PLACEMENT_RANGES) {
        put(o, "%s%.*s:", *first ? "" : " ", nm, e->name);
        *first = 0;
    }
    const char *sep = "";
    for (uint64_t m = e->mask; m;) {
        int lo = __builtin_ctzll(m), hi = style == GS_PLACEMENT_RANGES ||
                                                  style == GS_PLACEMENT_RUNS
                                              ? run_end(m, lo)
                                              : lo;
        m = past(m, hi);
        if (style == GS_PLACEMENT_LIST || style == GS_PLACEMENT_WORDS) {
            put(o, "%s%.*s:%d", *first ? "" : style == GS_PLACEMENT_LIST ? "," : " ", nm,
                e->name, lo);
        } else if (style == GS_PLACEMENT_RUNS) {
            put(o, "%s%.*s:%d", *first ? "" : ",", nm, e->name, lo);
            if (hi > lo)
                put(o, "-%d", hi);
        } else {
            put(o, "%s%d", sep, lo);
            if (hi > lo)
                put(o, "-%d", hi);
            sep = ",";
        }
        *first = 0;
    }
}

size_t gs_placement_format_entries(char *buf, size_t size, const struct gs_placement_entry *e,
                                   int n, int style)
{
    struct out o = { buf, size, 0 };
    if (buf && size)
        buf[0] = '\0';
    int first = 1;
    for (int i = 0; i < n; i++)
        put_entry(&o, &e[i], style, &first);
    return o.len;
}

size_t gs_placement_format(char *buf, size_t size, const struct gs_cluster *cl,
                           const struct gs_alloc_part *parts, int nparts, int style)
{
    struct out o = { buf, size, 0 };
    if (buf && size)
        buf[0] = '\0';
    int first = 1;
    for (int i = 0; i < nparts; i++) {
        const char *name = gs_cluster_node_name(cl, parts[i].node);
        struct gs_placement_entry e = { name, strlen(name), parts[i].mask, 0 };
        put_entry(&o, &e, style, &first);
    }
    return o.len;
}
