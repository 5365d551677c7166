/* backend_slurm_gpus.c - the slurm backend's GPUs: a placement (parts, or
 * its text "n1:0,n1:3,n2:0" through io/placement.h) as Slurm's NodeList
 * and per-node GRES, the placement
 * Slurm really gave (`scontrol -d show job`: GRES=gpu:...(IDX:...)), and,
 * when they differ (counts mode: Slurm picks the indices), the engine's view
 * moved to the truth (gs_engine_move_gpus).
 */
#define _GNU_SOURCE
#include "daemon/backend_slurm.h"
#include "daemon/backend.h"
#include "daemon/log.h"
#include "core/engine/engine.h"
#include "io/placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From the placement parts[n] (node ids of cl): Slurm's NodeList "n1,n2"
 * and the per-node GRES ("gpu:g0:1,gpu:g3:1" with types, else "gpu:2");
 * -1 when Slurm cannot express it (nodes with different GPU sets: GRES is
 * per node). */
int gsd_slurm_placement_args(const struct gs_cluster *cl, const struct gs_alloc_part *parts,
                             int n, int types, char *nodes, size_t nn, char *gres, size_t ng,
                             int *nnodes)
{
    if (n <= 0)
        return -1;
    size_t w = 0;
    for (int i = 0; i < n; i++) {
        if (parts[i].mask != parts[0].mask)
            return -1;
        w += (size_t)snprintf(nodes + w, nn > w ? nn - w : 0, "%s%s", i ? "," : "",
                              gs_cluster_node_name(cl, parts[i].node));
    }
    *nnodes = n;
    if (w >= nn)
        return -1;
    uint64_t mask = parts[0].mask;
    if (!types)
        return snprintf(gres, ng, "gpu:%d", __builtin_popcountll(mask)) < (int)ng ? 0 : -1;
    w = 0;
    gres[0] = '\0';
    for (int g = 0; g < 64; g++)
        if (mask >> g & 1)
            w += (size_t)snprintf(gres + w, ng > w ? ng - w : 0, "%sgpu:g%d:1", w ? "," : "", g);
    return w < ng ? 0 : -1;
}

/* Masks per node of the -d detail "Nodes=n-[1-2] ... GRES=gpu:g3:1(IDX:3),..". */
struct actual {
    char (*names)[GS_NAME_MAX + 1];
    uint64_t *masks;
    int n, cap;
    uint64_t cur;
};

static int add_actual(void *arg, const char *name)
{
    struct actual *a = arg;
    int k = 0;
    while (k < a->n && strcmp(a->names[k], name) != 0)
        k++;
    if (k == a->n) {
        if (a->n == a->cap || strlen(name) > GS_NAME_MAX)
            return -1;
        snprintf(a->names[a->n], GS_NAME_MAX + 1, "%s", name);
        a->masks[a->n++] = 0;
    }
    a->masks[k] |= a->cur;
    return 0;
}

static uint64_t idx_mask(const char *gres)
{
    uint64_t m = 0;
    for (const char *p = gres; (p = strstr(p, "(IDX:")); ) {
        p += 5;
        while (*p && *p != ')') {
            char *end;
            long lo = strtol(p, &end, 10), hi = lo;
            if (end == p)
                break;
            if (*end == '-')
                hi = strtol(end + 1, &end, 10);
            for (long g = lo; g <= hi && g < 64; g++)
                m |= 1ull << g;
            p = *end == ',' ? end + 1 : end;
        }
    }
    return m;
}

/* The placement Slurm gave, in the decided node order: "n:g,..." ("" when
 * out of memory: no mismatch is seen). */
void gsd_slurm_actual_placement(const char *line, const char *decided, char *buf, size_t n)
{
    char (*names)[GS_NAME_MAX + 1] = calloc(MAX_PARTS, sizeof *names); /* 16 KiB: heap */
    if (!names) {
        if (n)
            buf[0] = '\0';
        return;
    }
    uint64_t masks[MAX_PARTS];
    struct gs_placement_entry de[MAX_PARTS], out[MAX_PARTS];
    struct actual a = { names, masks, 0, MAX_PARTS, 0 };
    for (const char *p = line; (p = strstr(p, " Nodes=")); p += 7) {
        char nodes[512], gres[1024];
        gsd_slurm_field(p, "Nodes", nodes, sizeof nodes);
        const char *next = strstr(p + 7, " Nodes="), *g = strstr(p, " GRES=");
        if (!g || (next && g > next))
            continue;
        gsd_slurm_field(g, "GRES", gres, sizeof gres);
        a.cur = idx_mask(gres);
        gsd_slurm_hostlist(nodes, add_actual, &a);
    }
    int nd = gs_placement_scan(decided, de, MAX_PARTS, NULL), k = 0;
    nd = nd < 0 ? 0 : nd;
    for (int o = 0; o <= nd; o++) /* decided nodes in order, then any others */
        for (int i = 0; i < a.n; i++) {
            size_t len = strlen(names[i]);
            int j = 0;
            while (j < nd && !(de[j].len == len && !memcmp(de[j].name, names[i], len)))
                j++;
            if (j == o)
                out[k++] = (struct gs_placement_entry){ names[i], len, masks[i], 0 };
        }
    gs_placement_format_entries(buf, n, out, k, GS_PLACEMENT_LIST);
    free(names);
}

/* ---- counts mode: the engine's view follows the GPUs Slurm gave ---- */

#define MAX_MOVES 1024

/* The moves that turn d's decided placement into d->bk->actual: their
 * number, or -1 when it names a node the decision does not (Slurm is told
 * the nodes; only the indices inside a node can differ). */
static int job_moves(struct gsd_bctx *c, const struct gsd_bjob *d, struct gs_gpu_move *mv,
                     int cap)
{
    struct gs_alloc_part dp[MAX_PARTS], gp[MAX_PARTS];
    int nd = c->call->placement(c->loop, d, dp, MAX_PARTS);
    int ng = gs_placement_parse(c->cl, d->bk->actual, gp, MAX_PARTS, NULL);
    int n = 0;
    if (nd < 0 || ng < 0)
        return -1;
    for (int i = 0; i < ng; i++) {
        int k = 0;
        while (k < nd && dp[k].node != gp[i].node)
            k++;
        if (k == nd || n == cap)
            return -1;
        if (dp[k].mask != gp[i].mask)
            mv[n++] = (struct gs_gpu_move){ d->handle, gp[i].node, gp[i].mask };
    }
    return n;
}

/* The engine took d's real GPUs: they are its placement from now on. */
static void followed(struct gsd_bctx *c, struct gsd_bjob *d, gs_time now)
{
    char detail[160];
    snprintf(detail, sizeof detail, "Slurm gave %.60s, decided %.60s", d->bk->actual,
             d->placement ? d->placement : "");
    gsd_log("job %s: the engine follows Slurm's GPUs: %s", d->id, detail);
    c->call->event(c->loop, now, d->seq, "gpus_moved", detail);
    char *actual = d->bk->actual;
    d->bk->actual = NULL;
    c->call->set_placement(c->loop, d, actual); /* d->placement is stale from here */
}

/* Collect the moves of every job with a mismatch into mv (MAX_MOVES); a
 * job that cannot be followed is dropped (logged).  Returns the number of
 * moves; *any = some job is to follow. */
static size_t collect_moves(struct gsd_bctx *c, struct gs_gpu_move *mv, int *any)
{
    size_t n = 0;
    struct gsd_bjob b, *d = &b;
    for (size_t i = 0; c->call->job_at(c->loop, i, &b); i++) {
        if (!d->bk->actual)
            continue;
        int k = gs_job_state_holds(d->state) ? job_moves(c, d, mv + n, (int)(MAX_MOVES - n))
                                             : -2;
        if (k < 0) {
            if (k == -1)
                gsd_log("job %s: Slurm's GPUs %s cannot be followed (decided %s)", d->id,
                        d->bk->actual, d->placement ? d->placement : "");
            free(d->bk->actual);
            d->bk->actual = NULL;
            continue;
        }
        n += (size_t)k;
        *any = 1;
    }
    return n;
}

/* Hand every mismatch seen by the last poll to the engine: all in one call
 * (jobs that swapped GPUs move together), else job by job; a job whose new
 * GPUs another job still holds waits for that job's own report. */
void gsd_slurm_follow(struct gsd_bctx *c, gs_time now)
{
    struct gsd_bjob b, *d = &b;
    size_t i = 0;
    while (c->call->job_at(c->loop, i, &b) && !d->bk->actual)
        i++;
    if (!c->call->job_at(c->loop, i, &b))
        return; /* no mismatch: nothing taken */
    struct gs_gpu_move *mv = malloc(MAX_MOVES * sizeof *mv); /* 16 KiB */
    if (!mv)
        return; /* out of memory: followed at a later poll */
    int any = 0;
    size_t n = collect_moves(c, mv, &any);
    struct gs_error err;
    gs_error_clear(&err);
    if (!any) {
        free(mv);
        return;
    }
    int all = c->call->move_gpus(c->loop, now, mv, n, &err) == 0;
    for (i = 0; c->call->job_at(c->loop, i, &b); i++) {
        if (!d->bk->actual)
            continue;
        int k = all ? 0 : job_moves(c, d, mv, MAX_MOVES);
        if (all || c->call->move_gpus(c->loop, now, mv, (size_t)k, &err) == 0)
            followed(c, d, now);
        else if (!d->bk->waits++)
            gsd_log("job %s: the engine follows Slurm's GPUs once they are free in its view: %s",
                    d->id, err.msg);
    }
    free(mv);
}
