/* backend_slurm.c - `gpuschedd --backend slurm`: gpuschedd decides, a real
 * Slurm cluster runs the jobs (docs/slurm-backend.md).
 *
 * Each attempt is a new Slurm job named gs:SEQ:ATTEMPT, submitted held
 * (sbatch -H), placed (scontrol update NodeList= and, with per-GPU GRES
 * types, Gres=gpu:gI:1,...), and released once every call succeeded; a
 * failure cancels it and reports a failed launch.  One `scontrol -d -o
 * show job` per poll interval turns Slurm's states into confirmed starts
 * (with the GPU indices Slurm reports) and ends with exit codes; a released
 * job that does not run by the start deadline is cancelled and reported as
 * a failed launch, and so is an attempt on a node Slurm reports down before
 * it ran.  GPU indices Slurm chose itself (counts mode) are handed to the
 * engine (backend_slurm_gpus.c).  Signals go through scancel; the GPUs stay
 * held until Slurm reports the job gone.  A restart finds each attempt by
 * its name; an end slurmctld no longer knows comes from sacct, or is marked
 * unknown.
 */
#define _GNU_SOURCE
#include "daemon/backend_slurm.h"
#include "daemon/backend.h"
#include "daemon/daemon.h"
#include "daemon/log.h"
#include "daemon/runas.h"
#include "io/api_codec.h"
#include "io/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* One Slurm job of ours, from the last read. */
struct sjob {
    long long id;
    char name[64], state[32], nodes[512];
    int held, code;
    int64_t end_ms;
    const char *line;         /* into gsd_slurm.text */
};

struct gsd_slurm {
    int types;                /* 1 = per-GPU GRES types g0..gN */
    uint8_t *seen, *applied;    /* per cluster node: GS_NODE_* from Slurm / given */
    char *text;               /* the last read's output */
    struct sjob *jobs;
    size_t njobs, cap;
    int ok;                   /* the last read succeeded */
    int64_t read_ms;          /* wall time when the last read had returned */
};

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int is_terminal(const char *st)
{
    static const char *const live[] = { "PENDING", "RUNNING", "CONFIGURING", "COMPLETING",
                                        "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING",
                                        "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED", NULL };
    for (int i = 0; live[i]; i++)
        if (!strcmp(st, live[i]))
            return 0;
    return 1;
}

/* Read every job of ours (name gs:...) in one call. */
static int load_jobs(struct gsd_slurm *s)
{
    char *argv[] = { "scontrol", "-d", "-o", "show", "job", NULL }, *out;
    struct gs_error err;
    gs_error_clear(&err);
    s->njobs = 0;
    s->ok = 0;
    if (gsd_slurm_run(argv, &out, &err) < 0) {
        gsd_log("slurm: %s", err.msg);
        return -1;
    }
    free(s->text);
    s->text = out;
    s->read_ms = wall_ms();
    for (char *line = out, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        struct sjob j = { .line = line };
        char buf[64];
        if (gsd_slurm_field(line, "JobName", j.name, sizeof j.name) < 0 ||
            strncmp(j.name, "gs:", 3) != 0 || gsd_slurm_field(line, "JobId", buf, sizeof buf) < 0)
            continue;
        j.id = strtoll(buf, NULL, 10);
        gsd_slurm_field(line, "JobState", j.state, sizeof j.state);
        gsd_slurm_field(line, "NodeList", j.nodes, sizeof j.nodes);
        gsd_slurm_field(line, "Reason", buf, sizeof buf);
        j.held = !strcmp(buf, "JobHeldUser") || !strcmp(buf, "JobHeldAdmin");
        gsd_slurm_field(line, "ExitCode", buf, sizeof buf);
        j.code = gsd_slurm_exit_code(buf);
        gsd_slurm_field(line, "EndTime", buf, sizeof buf);
        j.end_ms = gsd_slurm_time_ms(buf);
        if (s->njobs == s->cap) {
            size_t c = s->cap ? 2 * s->cap : 256;
            struct sjob *t = realloc(s->jobs, c * sizeof *t);
            if (!t)
                return -1;
            s->jobs = t;
            s->cap = c;
        }
        s->jobs[s->njobs++] = j;
    }
    s->ok = 1;
    return 0;
}

static const struct sjob *by_id(const struct gsd_slurm *s, long long id)
{
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].id == id)
            return &s->jobs[i];
    return NULL;
}

/* The newest Slurm job with this name. */
static const struct sjob *by_name(const struct gsd_slurm *s, const char *name)
{
    const struct sjob *best = NULL;
    for (size_t i = 0; i < s->njobs; i++)
        if (!strcmp(s->jobs[i].name, name) && (!best || s->jobs[i].id > best->id))
            best = &s->jobs[i];
    return best;
}

static void tag(const struct gsd_bjob *b, char *buf, size_t n)
{
    snprintf(buf, n, "gs:%lld:%d", (long long)b->seq, b->attempt);
}

/* The backend's state (set by slurm_open). */
static struct gsd_slurm *S(const struct gsd_bctx *c)
{
    return c->state;
}

static int scancel(long long id, const char *sig)
{
    char idt[32], sigarg[32];
    snprintf(idt, sizeof idt, "%lld", id);
    snprintf(sigarg, sizeof sigarg, "--signal=%s", sig ? sig : "");
    char *a1[] = { "scancel", idt, NULL }, *a2[] = { "scancel", "--full", sigarg, idt, NULL };
    char *out;
    struct gs_error err;
    gs_error_clear(&err);
    int rc = gsd_slurm_run(sig ? a2 : a1, &out, &err);
    if (rc < 0)
        gsd_log("slurm: %s", err.msg);
    else
        free(out);
    return rc;
}

/* ---- start check: Slurm's nodes and GPUs against the cluster file ---- */

struct gres_count {
    int total, typed;         /* GPUs, of which typed gN */
};

static void count_gres(const char *gres, struct gres_count *c)
{
    *c = (struct gres_count){ 0, 0 };
    for (const char *p = gres; p && (p = strstr(p, "gpu:")); p += 4) {
        const char *q = p + 4, *colon = strchr(q, ':'), *end = q + strcspn(q, ",(");
        int n;
        if (colon && colon < end) {
            n = (int)strtol(colon + 1, NULL, 10);
            if (q[0] == 'g' && q[1] >= '0' && q[1] <= '9')
                c->typed += n;
        } else {
            n = (int)strtol(q, NULL, 10);
        }
        c->total += n;
    }
}

/* Compare one Slurm node line; returns the number of differences logged. */
static int check_node(const struct gs_cluster *cl, const char *line, char *seen, int *typed_all)
{
    char name[256], gres[1024];
    gsd_slurm_field(line, "NodeName", name, sizeof name);
    gsd_slurm_field(line, "Gres", gres, sizeof gres);
    int n = gs_cluster_find_node(cl, name);
    if (n < 0)
        return 0; /* nodes outside the cluster file are not ours */
    seen[n] = 1;
    struct gres_count c;
    count_gres(gres, &c);
    if (c.typed != c.total || c.total == 0)
        *typed_all = 0;
    if (c.total != gs_cluster_node_gpus(cl, n)) {
        gsd_log("slurm: node %s has %d GPUs in Slurm (Gres=%s), %d in the cluster file", name,
                c.total, gres, gs_cluster_node_gpus(cl, n));
        return 1;
    }
    return 0;
}

static int slurm_open(struct gsd_bctx *c)
{
    struct gsd_slurm *s = c->state = calloc(1, sizeof *s);
    char *argv[] = { "scontrol", "-o", "show", "node", NULL }, *out;
    struct gs_error err;
    gs_error_clear(&err);
    if (!s || gsd_slurm_run(argv, &out, &err) < 0) {
        gsd_log("slurm: cannot read the nodes (SLURM_CONF=%s): %s",
                getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "unset", err.msg);
        return -1;
    }
    int nn = gs_cluster_node_count(c->cl), diffs = 0, typed_all = 1;
    char *seen = calloc((size_t)nn + 1, 1);
    for (char *line = out, *nl; seen && line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        diffs += check_node(c->cl, line, seen, &typed_all);
    }
    for (int n = 0; seen && n < nn; n++)
        if (!seen[n]) {
            gsd_log("slurm: node %s of the cluster file is not in Slurm",
                    gs_cluster_node_name(c->cl, n));
            diffs++;
        }
    free(seen);
    free(out);
    const char *mode = c->opts->slurm_gpus ? c->opts->slurm_gpus : "auto";
    s->types = !strcmp(mode, "types") || (!strcmp(mode, "auto") && typed_all);
    if (!strcmp(mode, "types") && !typed_all) {
        gsd_log("slurm: --slurm-gpus types, but not every GPU has its own GRES type g0..gN");
        diffs++;
    }
    if (diffs) {
        gsd_log("slurm: %d difference(s) between Slurm and %s; not starting", diffs,
                c->opts->cluster);
        return -1;
    }
    gsd_log("slurm: %d nodes match; GPUs pinned by %s", nn,
            s->types ? "per-GPU GRES types" : "counts (indices read back)");
    s->seen = calloc((size_t)nn + 1, 1);
    s->applied = calloc((size_t)nn + 1, 1);
    if (!s->seen || !s->applied)
        return -1;
    c->next_poll = 0;
    return 0;
}

static void slurm_close(struct gsd_bctx *c)
{
    struct gsd_slurm *s = S(c);
    if (!s)
        return;
    free(s->seen);
    free(s->applied);
    free(s->text);
    free(s->jobs);
    free(s);
    c->state = NULL;
}

/* ---- launch ---- */

/* Quote s for sh in single quotes into f. */
static void sh_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* RUNDIR/job.sh: the job's env and `exec argv`. */
static int write_script(const char *path, const struct gsd_bjob *d,
                        const struct gs_api_submit *s, const char *server)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("#!/bin/sh\n# gpusched attempt (gpuschedd --backend slurm)\n", f);
    for (int i = 0; i < s->nenv; i++) {
        fputs("export ", f);
        sh_quote(f, s->env[i]);
        fputc('\n', f);
    }
    fprintf(f, "export GPUSCHED_JOB_ID=");
    sh_quote(f, d->id);
    fprintf(f, "\nexport GPUSCHED_SERVER=");
    sh_quote(f, server);
    fprintf(f, "\nexport GPUSCHED_PLACEMENT=");
    sh_quote(f, d->placement ? d->placement : "");
    fputs("\nexec", f);
    for (int i = 0; i < s->argc; i++) {
        fputc(' ', f);
        sh_quote(f, s->argv[i]);
    }
    fputc('\n', f);
    int bad = ferror(f);
    return fclose(f) || bad ? -1 : 0;
}

/* The account the Slurm job runs as (runas.h: "-" = the daemon's own):
 * 0 with *uid (-1 = the daemon's own, no --uid), or GS_EINVAL with err (no
 * such account, or the daemon is not root). */
static int job_uid(const struct gsd_bctx *c, const struct gsd_bjob *d, long *uid, long *gid,
                   struct gs_error *err)
{
    *uid = *gid = -1;
    if (c->opts->virtual_users && !gsd_runas_exists(d->user))
        return 0; /* a trace label: the daemon's own account */
    static struct gsd_runas ra; /* the engine thread's only */
    if (gsd_runas_resolve(d->user, &ra, err) < 0)
        return GS_EINVAL;
    if (ra.uid != geteuid())
        *uid = (long)ra.uid, *gid = (long)ra.gid;
    return 0;
}

/* Slurm's own record of job `id`'s user (squeue %U) must be `uid`: 0, or
 * GS_EIO with err. */
static int check_owner(long long id, long uid, struct gs_error *err)
{
    char idt[32], *o;
    snprintf(idt, sizeof idt, "%lld", id);
    char *argv[] = { "squeue", "-h", "-j", idt, "-o", "%U", NULL };
    if (gsd_slurm_run(argv, &o, err) < 0)
        return GS_EIO;
    long got = strtol(o, NULL, 10);
    free(o);
    if (got != uid)
        return gs_errorf(err, GS_EIO, "Slurm job %lld runs as uid %ld, not %ld", id, got, uid);
    return 0;
}

/* sbatch -H: the held job's id, or -1.  A job of another account than the
 * daemon's is submitted with --uid/--gid (root's sbatch) and checked
 * against Slurm's record of its user. */
static long long submit_held(struct gsd_bctx *c, struct gsd_bjob *d, const char *script,
                             const struct gs_api_submit *s, int nnodes, struct gs_error *err)
{
    long uid, gid;
    if (job_uid(c, d, &uid, &gid, err) < 0)
        return -1;
    char name[64], nn[16], out[4200], errp[4200], comment[300];
    tag(d, name, sizeof name);
    snprintf(nn, sizeof nn, "%d", nnodes);
    char path[4100];
    snprintf(out, sizeof out, "--output=%s", c->call->out_name(c->loop, d, "out", path,
                                                                sizeof path));
    snprintf(errp, sizeof errp, "--error=%s", c->call->out_name(c->loop, d, "err", path,
                                                                 sizeof path));
    if (s->out)
        snprintf(out, sizeof out, "--output=%s", s->out);
    if (s->err)
        snprintf(errp, sizeof errp, "--error=%s", s->err);
    snprintf(comment, sizeof comment, "gpusched job %s", d->id);
    char *argv[24] = { "sbatch", "-H", "--parsable", "-J", name, "-N", nn, out, errp,
                       "--open-mode=append", "--no-requeue", "--comment", comment };
    int k = 13;
    char part[300], acct[300], qos[300], cwd[4200];
    const struct gsd_opts *o = c->opts;
    if (o->slurm_partition)
        snprintf(part, sizeof part, "--partition=%s", o->slurm_partition), argv[k++] = part;
    if (o->slurm_account)
        snprintf(acct, sizeof acct, "--account=%s", o->slurm_account), argv[k++] = acct;
    if (o->slurm_qos)
        snprintf(qos, sizeof qos, "--qos=%s", o->slurm_qos), argv[k++] = qos;
    if (s->cwd)
        snprintf(cwd, sizeof cwd, "--chdir=%s", s->cwd), argv[k++] = cwd;
    char uidt[32], gidt[32];
    if (uid >= 0) {
        snprintf(uidt, sizeof uidt, "--uid=%ld", uid), argv[k++] = uidt;
        snprintf(gidt, sizeof gidt, "--gid=%ld", gid), argv[k++] = gidt;
    }
    argv[k++] = (char *)script;
    argv[k] = NULL;
    char *ans;
    if (gsd_slurm_run(argv, &ans, err) < 0)
        return -1;
    long long id = strtoll(ans, NULL, 10);
    free(ans);
    if (id <= 0)
        gs_errorf(err, GS_EIO, "sbatch: no job id in its answer");
    if (id > 0 && check_owner(id, uid >= 0 ? uid : (long)geteuid(), err) < 0) {
        scancel(id, NULL);
        return -1;
    }
    return id > 0 ? id : -1;
}

/* scontrol update (placement) then release, each checked. */
static int place_release(long long id, const char *nodes, const char *gres,
                         struct gs_error *err)
{
    char idt[48], nl[600], gr[600], *o;
    snprintf(idt, sizeof idt, "JobId=%lld", id);
    snprintf(nl, sizeof nl, "NodeList=%s", nodes);
    snprintf(gr, sizeof gr, "Gres=%s", gres);
    char *up[] = { "scontrol", "update", idt, nl, gr, NULL };
    if (gsd_slurm_run(up, &o, err) < 0)
        return -1;
    free(o);
    snprintf(idt, sizeof idt, "%lld", id);
    char *rel[] = { "scontrol", "release", idt, NULL };
    if (gsd_slurm_run(rel, &o, err) < 0)
        return -1;
    free(o);
    return 0;
}

static int slurm_launch(struct gsd_bctx *c, struct gsd_bjob *d, struct gs_error *err)
{
    char nodes[512], gres[512], dir[4096], script[4200];
    int nnodes;
    struct gs_alloc_part parts[MAX_PARTS];
    int np = c->call->placement(c->loop, d, parts, MAX_PARTS);
    if (gsd_slurm_placement_args(c->cl, parts, np, S(c)->types, nodes, sizeof nodes, gres,
                                 sizeof gres, &nnodes) < 0)
        return gs_errorf(err, GS_EINVAL, "placement %s cannot be asked of Slurm "
                         "(nodes with different GPU sets)", d->placement ? d->placement : "");
    struct gs_api_submit s;
    int rc = c->call->request(c->loop, d, &s, err);
    if (rc < 0)
        return rc;
    c->call->rundir(c->loop, d, dir, sizeof dir);
    snprintf(script, sizeof script, "%s/job.sh", dir);
    if ((mkdir(dir, 0755) < 0 && access(dir, F_OK) < 0) ||
        write_script(script, d, &s, c->opts->server_url) < 0) {
        gs_api_submit_fini(&s);
        return gs_errorf(err, GS_EIO, "%s: cannot write", script);
    }
    long long id = submit_held(c, d, script, &s, nnodes, err);
    gs_api_submit_fini(&s);
    if (id < 0)
        return GS_EIO;
    if (place_release(id, nodes, gres, err) < 0) {
        scancel(id, NULL); /* never let Slurm place it elsewhere */
        return GS_EIO;
    }
    *d->proc = (struct gsd_proc){ (pid_t)id, 0, -1 };
    d->bk->deadline = gsd_mono_ms() + c->opts->slurm_deadline_ms;
    d->bk->running = 0;
    c->next_poll = gsd_mono_ms() + 50; /* look soon: it may run at once */
    return 0;
}

static int slurm_signal(struct gsd_bctx *c, const struct gsd_proc *p, int how)
{
    (void)c;
    if (p->pid <= 0)
        return GS_ENOENT;
    static const char *const sig[] = { [GSD_SIG_TERM] = NULL, [GSD_SIG_CHECKPOINT] = "USR1",
                                       [GSD_SIG_KILL] = "KILL" };
    scancel(p->pid, sig[how]);
    return 0; /* the end shows in a later read */
}

/* ---- reading back: GPU indices, states, ends ---- */

/* First sight of the attempt running: record the GPUs Slurm gave. */
static void on_running(struct gsd_bctx *c, struct gsd_bjob *d, const struct sjob *j)
{
    char got[8192];
    d->bk->running = 1;
    gsd_slurm_actual_placement(j->line, d->placement, got, sizeof got);
    if (got[0] && (!d->placement || strcmp(got, d->placement) != 0)) {
        gsd_log("job %s: Slurm job %lld runs on %s, decided %s", d->id, j->id, got,
                d->placement ? d->placement : "");
        c->gpu_mismatches++;
        free(d->bk->actual);
        d->bk->actual = strdup(got); /* the engine follows in the next turn */
        d->bk->waits = 0;
    }
    if (d->state == GS_JOB_STARTING)
        c->call->report(c->loop, d, GSD_BR_LAUNCHED);
    c->call->report(c->loop, d, GSD_BR_DIRTY);
    c->call->report(c->loop, d, GSD_BR_WAKE);
}

/* Slurm no longer shows the attempt (it ended longer than MinJobAge ago,
 * while gpuschedd was down): its real end from sacct, or - without
 * accounting - an end marked unknown (journal event end_unknown, exit code
 * 137, counted as a backend error).  An unknown end counts as having run:
 * the attempt is never launched again. */
static void lost_end(struct gsd_bctx *c, struct gsd_bjob *d, int *code, int64_t *end_ms,
                     int *ran)
{
    struct gs_error err;
    gs_error_clear(&err);
    int sran = 0;
    if (gsd_slurm_sacct_end(d->proc->pid, code, end_ms, &sran, &err) == 0) {
        *ran = *ran || sran;
        gsd_log("job %s: Slurm job %d is gone from slurmctld; sacct: ended with exit code %d",
                d->id, (int)d->proc->pid, *code);
        return;
    }
    char detail[300];
    snprintf(detail, sizeof detail, "Slurm job %d: gone from slurmctld (MinJobAge), %.200s",
             (int)d->proc->pid, err.msg);
    gsd_log("job %s: end unknown: %s; marked ended, exit code 137", d->id, detail);
    c->call->event(c->loop, c->call->now(c->loop, GSD_NOW_TURN), d->seq, "end_unknown", detail);
    c->errors++;
    *code = 137;
    *end_ms = wall_ms();
    *ran = 1;
}

/* When the attempt ended, on the clock its start was taken from.  The start
 * is when a read first saw it RUNNING (sub-second, a little after Slurm's
 * start), so an end this daemon watched is when a read first saw it ended
 * (the same lag), but never later than the end of Slurm's whole second
 * EndTime.  Taking Slurm's EndTime alone (truncated to its second) with the
 * read's start recorded runs up to 1 s too short.  An end that no read of
 * this daemon saw coming (ended while it was down) has only Slurm's
 * EndTime. */
static int64_t end_seen(const struct gsd_slurm *s, const struct gsd_bjob *d,
                        const struct sjob *j)
{
    if (!d->bk->running)
        return j->end_ms;
    int64_t last = j->end_ms + 999;
    return s->read_ms < last ? s->read_ms : last;
}

static void on_ended(struct gsd_bctx *c, struct gsd_bjob *d, const struct sjob *j)
{
    int ran = d->bk->running || (j && j->nodes[0] && strcmp(j->nodes, "(null)") != 0);
    int code = j ? j->code : 137;
    int64_t end = j ? end_seen(S(c), d, j) : wall_ms();
    if (!j)
        lost_end(c, d, &code, &end, &ran);
    d->bk->code = !ran ? -2 : code; /* -2: a failed launch, not "never tried" */
    d->bk->end_ms = end;
    c->call->report(c->loop, d, GSD_BR_EXITED);
    c->call->report(c->loop, d, GSD_BR_WAKE);
}

/* Node states, one sinfo call: down/fail -> DOWN, drain -> DRAIN. */
static void load_nodes(struct gsd_bctx *c)
{
    char *argv[] = { "sinfo", "-h", "-N", "-o", "%N %T", NULL }, *out;
    struct gs_error err;
    gs_error_clear(&err);
    if (gsd_slurm_run(argv, &out, &err) < 0) {
        gsd_log("slurm: %s", err.msg);
        return;
    }
    for (char *line = out, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = '\0';
        int n = gs_cluster_find_node(c->cl, line);
        if (n < 0)
            continue;
        const char *st = sp + 1;
        S(c)->seen[n] = strstr(st, "down") || strstr(st, "fail") ? GS_NODE_DOWN
                        : strstr(st, "drain")                    ? GS_NODE_DRAIN
                                                                 : GS_NODE_UP;
    }
    free(out);
}

static int mark_down(void *arg, const char *name)
{
    struct gsd_bctx *c = arg;
    int n = gs_cluster_find_node(c->cl, name);
    if (n >= 0)
        S(c)->seen[n] = GS_NODE_DOWN;
    return 0;
}

/* Whether job d's placement (gsd_bcalls.placement) uses node `node`. */
static int uses_node(struct gsd_bctx *c, const struct gsd_bjob *d, int node)
{
    struct gs_alloc_part parts[MAX_PARTS];
    int n = node >= 0 ? c->call->placement(c->loop, d, parts, MAX_PARTS) : 0;
    for (int i = 0; i < n; i++)
        if (parts[i].node == node)
            return 1;
    return 0;
}

/* A node Slurm reports down: its attempts are gone (Slurm ends them as
 * NODE_FAIL); forget them so the engine's requeue launches new ones.  An
 * attempt Slurm never ran (the node went down between the decision and
 * its start) is a failed launch, told to the engine before the node
 * failure: it goes back ahead of its peers, its run not counted. */
static void forget_node_jobs(struct gsd_bctx *c, const char *name, gs_time now)
{
    struct gsd_bjob b, *d = &b;
    for (size_t i = 0; c->call->job_at(c->loop, i, &b); i++) {
        if (d->proc->pid <= 0 || !d->placement ||
            !uses_node(c, d, gs_cluster_find_node(c->cl, name)))
            continue;
        int never_ran = !d->bk->running && d->state == GS_JOB_STARTING;
        gsd_log("job %s: node %s is down in Slurm; Slurm job %d is %s", d->id, name,
                (int)d->proc->pid, never_ran ? "a failed launch (it never ran)" : "lost");
        scancel(d->proc->pid, NULL);
        *d->proc = (struct gsd_proc){ 0, 0, -1 };
        c->call->report(c->loop, d, GSD_BR_FORGOTTEN);
        d->bk->running = 0;
        d->bk->deadline = 0;
        if (never_ran)
            c->call->lost_launch(c->loop, d, now, name);
    }
}

static int slurm_apply(struct gsd_bctx *c, gs_time now)
{
    struct gsd_slurm *s = S(c);
    gsd_slurm_follow(c, now);
    for (int n = 0; n < gs_cluster_node_count(c->cl); n++) {
        int want = s->seen[n];
        if (want == s->applied[n])
            continue;
        const char *name = gs_cluster_node_name(c->cl, n);
        if (want == GS_NODE_DOWN)
            forget_node_jobs(c, name, now);
        struct gs_error err;
        gs_error_clear(&err);
        if (c->call->node_state(c->loop, now, n, want, &err) < 0) {
            gsd_log("slurm: node %s: %s", name, err.msg);
            continue;
        }
        static const char *const st[] = { "up", "drain", "down" };
        gsd_log("slurm: node %s is %s in Slurm", name, st[want]);
        s->applied[n] = (uint8_t)want;
    }
    return 0;
}

/* One live attempt against the last read. */
static void poll_job(struct gsd_bctx *c, struct gsd_bjob *d, int64_t mono)
{
    const struct sjob *j = by_id(S(c), d->proc->pid);
    if (j && !strcmp(j->state, "NODE_FAIL")) {
        /* its nodes failed (even if sinfo already shows them back):
         * the engine hears a node failure, not an end; given nodes,
         * it may have run: a lost run, not a failed launch */
        if (j->nodes[0] && strcmp(j->nodes, "(null)") != 0)
            d->bk->running = 1;
        gsd_slurm_hostlist(j->nodes, mark_down, c);
    } else if (!j || is_terminal(j->state)) {
        on_ended(c, d, j);
    } else if (!strcmp(j->state, "RUNNING")) {
        if (!d->bk->running)
            on_running(c, d, j);
    } else if (!d->bk->running && d->bk->deadline && mono > d->bk->deadline &&
               !strcmp(j->state, "PENDING")) {
        char reason[128];
        gsd_slurm_field(j->line, "Reason", reason, sizeof reason);
        gsd_log("job %s: Slurm job %lld not running after %d ms (%s); cancelling it", d->id,
                j->id, c->opts->slurm_deadline_ms, reason);
        d->bk->deadline = 0;
        scancel(j->id, NULL); /* its end (never ran) is a failed launch */
    }
}

static void slurm_poll(struct gsd_bctx *c)
{
    if (load_jobs(S(c)) < 0) {
        c->errors++;
        return;
    }
    load_nodes(c);
    int64_t mono = gsd_mono_ms();
    struct gsd_bjob b;
    for (size_t i = 0; c->call->job_at(c->loop, i, &b); i++)
        if (b.proc->pid > 0 && !b.exited)
            poll_job(c, &b, mono);
}

/* ---- restart ---- */

static void slurm_reconcile(struct gsd_bctx *c, struct gsd_bjob *d)
{
    struct gsd_slurm *s = S(c);
    if (!gs_job_state_holds(d->state))
        return;
    if (!s->ok)
        load_jobs(s);
    char name[64];
    tag(d, name, sizeof name);
    const struct sjob *j = s->ok ? by_name(s, name) : NULL;
    c->call->report(c->loop, d, GSD_BR_DIRTY);
    if (!s->ok) { /* Slurm unreachable: keep the record; the polls decide */
        if (d->proc->pid <= 0)
            gsd_backend_not_launched(c, d);
        return;
    }
    int never_ran = j && is_terminal(j->state) && (!j->nodes[0] || !strcmp(j->nodes, "(null)"));
    if (!j || never_ran) {
        if (d->proc->pid > 0 && !j) {
            on_ended(c, d, NULL);
            return;
        }
        gsd_backend_not_launched(c, d);
        return;
    }
    if (j->held) { /* submitted, never released: placement unknown */
        gsd_log("job %s: Slurm job %lld was never released; cancelling it", d->id, j->id);
        scancel(j->id, NULL);
        gsd_backend_not_launched(c, d);
        return;
    }
    *d->proc = (struct gsd_proc){ (pid_t)j->id, 0, -1 };
    d->bk->running = 0;
    d->bk->deadline = gsd_mono_ms() + c->opts->slurm_deadline_ms;
    if (d->state == GS_JOB_STOPPING && !is_terminal(j->state))
        scancel(j->id, NULL); /* the stop goes on */
    gsd_log("job %s: re-adopted Slurm job %lld (%s)", d->id, j->id, j->state);
}

static int slurm_read_exit(struct gsd_bctx *c, struct gsd_bjob *d, int *code, int64_t *end_ms)
{
    (void)c;
    *code = d->bk->code;
    *end_ms = d->bk->end_ms;
    return 0;
}

static void slurm_release(struct gsd_bctx *c, struct gsd_bjob *d)
{
    (void)c;
    if (!d->bk)
        return;
    d->bk->running = 0;
    d->bk->deadline = 0;
}

const struct gsd_backend_ops gsd_backend_slurm = {
    .name = "slurm", .host_procs = 0, .open = slurm_open, .launch = slurm_launch,
    .signal = slurm_signal, .reconcile = slurm_reconcile, .read_exit = slurm_read_exit,
    .release = slurm_release, .poll = slurm_poll, .apply = slurm_apply, .close = slurm_close,
};
