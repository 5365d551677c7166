/* quarantine.c - nodes that keep failing are kept out (loop_private.h,
 * docs/failures.md "Quarantine").
 *
 * Every `down` of a whole node (POST /v1/nodes/NAME/down) is recorded
 * with its engine time, wall time and reason.  When quarantine.failures of
 * them fall within quarantine.window (engine time), the node is
 * quarantined: its reason becomes "quarantined: 3 failures in 1h: down at
 * T1 (reason), T2, T3", a node_quarantine event and meta quarantine:NAME =
 * 1 are journalled.  A failed start that is the node's (a launch that
 * failed on the node's side, gsd_quar_note_start) counts as a failure of
 * each of the job's nodes in the same window; a node quarantined by one is
 * up, so it is drained at once.  The resume that would bring it back (its repair's
 * end) leaves it drained instead; only a resume of the drained node - the
 * operator's decision - releases it and forgets its failures.  The history
 * below the threshold is kept in memory only: a restart forgets it (a
 * quarantine survives, from the journal).
 */
#include "daemon/loop_private.h"
#include "io/job_fields.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define QMAX 16   /* quarantine.failures is at most 16 */

struct qnode {
    gs_time t[QMAX];          /* downs within the window, oldest first */
    int64_t wall[QMAX];       /* their wall time, unix ms */
    char why[QMAX][64];       /* a down's reason, or a failed start's job id */
    int start[QMAX];          /* 1 = a failed start, 0 = a down */
    int n;
    int on;                   /* quarantined */
    char *text;               /* its reason, malloc'ed */
};

struct gsd_quar {
    int nnodes;
    struct qnode *nodes;
};

static struct qnode *qnode_of(struct gsd_loop *lp, int node)
{
    if (!lp->quar) {
        int nn = gs_cluster_node_count(gs_engine_cluster(lp->eng));
        struct gsd_quar *q = calloc(1, sizeof *q);
        if (!q || !(q->nodes = calloc((size_t)nn + 1, sizeof *q->nodes))) {
            free(q);
            return NULL;
        }
        q->nnodes = nn;
        lp->quar = q;
    }
    return node >= 0 && node < lp->quar->nnodes ? &lp->quar->nodes[node] : NULL;
}

int gsd_quar_is(const struct gsd_loop *lp, int node)
{
    return lp->quar && node >= 0 && node < lp->quar->nnodes && lp->quar->nodes[node].on;
}

/* "1h", "30m", "90s", "1h30m" */
static void window_text(char *buf, size_t len, gs_time w)
{
    int64_t s = (int64_t)(w / GS_MS_PER_SEC);
    if (s % 3600 == 0)
        snprintf(buf, len, "%lldh", (long long)(s / 3600));
    else if (s % 60 == 0)
        snprintf(buf, len, "%lldm", (long long)(s / 60));
    else
        snprintf(buf, len, "%llds", (long long)s);
}

static void build_text(struct gsd_loop *lp, struct qnode *q)
{
    char buf[1024], win[32];
    window_text(win, sizeof win, lp->pol.quarantine_window);
    int n = snprintf(buf, sizeof buf, "quarantined: %d failures in %s:", q->n, win);
    for (int i = 0; i < q->n && n > 0 && (size_t)n < sizeof buf; i++) {
        char iso[40] = "?";
        gs_format_iso8601(q->wall[i], iso, sizeof iso);
        const char *sep = i ? ", " : " ";
        if (q->start[i]) /* "failed start of job X at T" */
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%sfailed start of job %s at %s", sep,
                          q->why[i], iso);
        else /* "down at T1 (why), T2 (why)": "down at" once for a run of downs */
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s%s%s%s%s", sep,
                          i == 0 || q->start[i - 1] ? "down at " : "", iso,
                          q->why[i][0] ? " (" : "", q->why[i], q->why[i][0] ? ")" : "");
    }
    free(q->text);
    q->text = strdup(buf);
}

static int journal(struct gsd_loop *lp, gs_time now, int node, int on, const char *text)
{
    const char *name = gs_cluster_node_name(gs_engine_cluster(lp->eng), node);
    char key[GS_NAME_MAX + 32], detail[GS_NAME_MAX + 1100];
    snprintf(key, sizeof key, "quarantine:%s", name);
    snprintf(detail, sizeof detail, "%s: %s", name, text);
    int rc = gs_store_event(lp->st, now, 0, on ? "node_quarantine" : "node_release", detail,
                            NULL);
    return rc == 0 ? gs_store_meta_set(lp->st, key, on, NULL) : rc;
}

/* Record a failure of node `node` at `now` (a down with its reason, or a
 * failed start with its job id); 1 when it quarantines the node, 0 when
 * not, -1 when the journal refuses. */
static int note(struct gsd_loop *lp, int node, gs_time now, int start, const char *why)
{
    int k = lp->pol.quarantine_failures;
    struct qnode *q = k > 0 ? qnode_of(lp, node) : NULL;
    if (!q || q->on)
        return 0;
    int keep = 0; /* drop what fell out of the window (and room for one more) */
    for (int i = 0; i < q->n; i++)
        if (now - q->t[i] <= lp->pol.quarantine_window && q->n - i < k) {
            q->t[keep] = q->t[i];
            q->wall[keep] = q->wall[i];
            q->start[keep] = q->start[i];
            memcpy(q->why[keep++], q->why[i], sizeof q->why[i]);
        }
    q->n = keep;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    q->t[q->n] = now;
    q->wall[q->n] = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    q->start[q->n] = start;
    snprintf(q->why[q->n++], sizeof q->why[0], "%s", why ? why : "");
    if (q->n < k)
        return 0;
    q->on = 1;
    build_text(lp, q);
    gsd_log("node %s: %s", gs_cluster_node_name(gs_engine_cluster(lp->eng), node),
            q->text ? q->text : "quarantined");
    return journal(lp, now, node, 1, q->text ? q->text : "quarantined") < 0 ? -1 : 1;
}

int gsd_quar_note_down(struct gsd_loop *lp, int node, gs_time now, const char *reason)
{
    return note(lp, node, now, 0, reason) < 0 ? -1 : 0;
}

/* Drain node `node`, just quarantined by a failed start (it is up): the
 * engine's state, the journal's node_drain event and node_state meta, as
 * an operator's drain with the quarantine text as its reason. */
static int drain(struct gsd_loop *lp, gs_time now, int node)
{
    if (gs_engine_node_state(lp->eng, node) != GS_NODE_UP)
        return 0; /* drained or down already: a resume leaves it drained */
    struct gsd_cmd c = { 0 };
    c.kind = GSD_NODE_DRAIN;
    c.id = gs_cluster_node_name(gs_engine_cluster(lp->eng), node);
    c.gpu = -1;
    c.reason = lp->quar->nodes[node].text;
    int rc = gsd_apply_node(lp, now, &c);
    free(c.body);
    return rc;
}

int gsd_quar_note_start(struct gsd_loop *lp, gs_time now, const char *job,
                        const struct gs_alloc_part *parts, int n)
{
    for (int i = 0; i < n; i++) { /* each node once: the parts name distinct nodes */
        int rc = note(lp, parts[i].node, now, 1, job);
        if (rc < 0 || (rc == 1 && drain(lp, now, parts[i].node) < 0))
            return -1;
    }
    return 0;
}

int gsd_quar_resume_state(struct gsd_loop *lp, int node, int cur)
{
    struct qnode *q = gsd_quar_is(lp, node) ? &lp->quar->nodes[node] : NULL;
    if (!q)
        return GS_NODE_UP;
    if (cur == GS_NODE_DOWN)
        return GS_NODE_DRAIN;
    q->on = 0;
    q->n = 0;
    free(q->text);
    q->text = NULL;
    return journal(lp, gsd_now(lp), node, 0, "resumed by an operator") < 0 ? -1 : GS_NODE_UP;
}

void gsd_quar_keep_reason(struct gsd_loop *lp, int node)
{
    if (!gsd_quar_is(lp, node) || !lp->quar->nodes[node].text)
        return;
    free(lp->node_reason[node]);
    lp->node_reason[node] = strdup(lp->quar->nodes[node].text);
}

void gsd_quar_restore(struct gsd_loop *lp, int node)
{
    const char *name = gs_cluster_node_name(gs_engine_cluster(lp->eng), node);
    char key[GS_NAME_MAX + 32], prefix[GS_NAME_MAX + 4], detail[GS_NAME_MAX + 1100];
    int64_t on = 0;
    snprintf(key, sizeof key, "quarantine:%s", name);
    if (gs_store_meta_get(lp->st, key, &on) != 0 || on != 1)
        return;
    struct qnode *q = qnode_of(lp, node);
    if (!q)
        return;
    q->on = 1;
    snprintf(prefix, sizeof prefix, "%s: ", name);
    free(q->text);
    q->text = gs_store_event_last(lp->st, "node_quarantine", prefix, detail, sizeof detail) == 0
                  ? strdup(detail + strlen(prefix))
                  : strdup("quarantined");
    gsd_quar_keep_reason(lp, node);
}


void gsd_quar_metrics(FILE *f, struct gsd_loop *lp)
{
    int n = 0;
    fputs("# HELP gpusched_node_quarantined 1 for a node quarantined after "
          "quarantine.failures failures (downs, failed starts) within quarantine.window "
          "(until an operator's resume)."
          "\n# TYPE gpusched_node_quarantined gauge\n", f);
    for (int i = 0; lp->quar && i < lp->quar->nnodes; i++)
        if (lp->quar->nodes[i].on) {
            fputs("gpusched_node_quarantined{node=\"", f);
            gsd_metrics_label(f, gs_cluster_node_name(gs_engine_cluster(lp->eng), i));
            fputs("\"} 1\n", f);
            n++;
        }
    fprintf(f, "# HELP gpusched_nodes_quarantined Nodes quarantined now.\n"
               "# TYPE gpusched_nodes_quarantined gauge\ngpusched_nodes_quarantined %d\n", n);
}

void gsd_quar_fini(struct gsd_loop *lp)
{
    if (!lp->quar)
        return;
    for (int i = 0; i < lp->quar->nnodes; i++)
        free(lp->quar->nodes[i].text);
    free(lp->quar->nodes);
    free(lp->quar);
    lp->quar = NULL;
}
