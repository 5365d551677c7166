/* frag_slurm.c - a live Slurm cluster for `frag` and `why` (frag_slurm.h). */
#define _DEFAULT_SOURCE /* clock_gettime */
#include "cli/frag_slurm.h"
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_OUTPUT (1L << 30)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Run argv (found on PATH), its stdout into *out (malloc'd, NUL-ended),
 * its stderr to ours.  Returns 0, or -1 after printing why. */
static int run_capture(const char *cmd, char *const argv[], char **out, size_t *len)
{
    int fd[2];
    if (pipe(fd) < 0) {
        cli_failf(cmd, 1, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        cli_failf(cmd, 1, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "gpusched %s: cannot run %s: %s\n", cmd, argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    ssize_t r = 0;
    while (buf && (r = read(fd[0], buf + n, cap - n - 1)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || (n += (size_t)r) + 1 >= cap) {
            char *nb = r < 0 || cap >= (size_t)MAX_OUTPUT ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!buf || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        free(buf);
        cli_failf(cmd, 1, "'%s %s' failed (exit %d): is Slurm reachable (SLURM_CONF)?",
                  argv[0], argv[1], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

static int read_slurm(struct frag_slurm *fs)
{
    char *sq = NULL, *si = NULL;
    size_t nsq = 0, nsi = 0;
    char *const squeue[] = { "squeue", "--json", NULL };
    char *const sinfo[] = { "sinfo", "--json", NULL };
    double t0 = now_ms();
    if (run_capture(fs->cmd, squeue, &sq, &nsq) < 0) /* unreachable: fail before sinfo waits too */
        return -1;
    struct gs_error err = { 0 };
    if (gs_slurm_check("squeue", sq, nsq, &err) < 0) {
        free(sq);
        cli_fail(fs->cmd, &err);
        return -1;
    }
    if (run_capture(fs->cmd, sinfo, &si, &nsi) < 0) {
        free(sq);
        return -1;
    }
    fs->read_ms = now_ms() - t0;
    int rc = gs_slurm_state_parse(sq, nsq, si, nsi, (int64_t)time(NULL), &fs->st, &err);
    free(sq);
    free(si);
    return rc < 0 ? (cli_fail(fs->cmd, &err), -1) : 0;
}

struct gs_cluster *frag_slurm_cluster(struct frag_slurm *fs, const char *cluster_path)
{
    if (read_slurm(fs) < 0)
        return NULL;
    if (fs->save_cluster) {
        FILE *f = cli_open_out(fs->cmd, fs->save_cluster);
        if (!f)
            return NULL;
        gs_slurm_state_write_cluster(f, &fs->st);
        if (cli_close(fs->cmd, f, fs->save_cluster) != 0)
            return NULL;
    }
    if (cluster_path)
        return cli_load_cluster(fs->cmd, cluster_path);
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_slurm_state_cluster(&fs->st, 0, &err);
    if (!cl)
        cli_fail(fs->cmd, &err);
    return cl;
}

int frag_slurm_snapshot(struct frag_slurm *fs, struct gs_cluster *cl, struct gs_snapshot *snap,
                        struct gs_error *err)
{
    char *text = json_dumps(fs->st.snapshot, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    if (!text)
        return gs_errorf(err, GS_ENOMEM, "out of memory");
    if (fs->save_snapshot) {
        FILE *f = cli_open_out(fs->cmd, fs->save_snapshot);
        int ok = f && fprintf(f, "%s\n", text) >= 0;
        if (!f || cli_close(fs->cmd, f, fs->save_snapshot) != 0 || !ok) {
            free(text);
            return gs_errorf(err, GS_EIO, "%s: cannot write the snapshot", fs->save_snapshot);
        }
    }
    int rc = gs_snapshot_parse_json(text, strlen(text), "slurm", cl, snap, err);
    free(text);
    return rc;
}

static const json_t *node_of(const struct frag_slurm *fs, const char *name)
{
    for (size_t i = 0; i < json_array_size(fs->st.nodes); i++) {
        const json_t *n = json_array_get(fs->st.nodes, i);
        if (strcmp(json_string_value(json_object_get(n, "name")), name) == 0)
            return n;
    }
    return NULL;
}

void frag_slurm_json(const struct frag_slurm *fs, json_t *frag)
{
    json_t *nodes = json_object_get(frag, "nodes"), *down = json_array();
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        json_t *o = json_array_get(nodes, i);
        const json_t *n = node_of(fs, json_string_value(json_object_get(o, "name")));
        const char *st = n ? json_string_value(json_object_get(n, "state")) : "unknown";
        json_object_set_new(o, "state", json_string(st));
        if (n && *json_string_value(json_object_get(n, "reason")))
            json_object_set(o, "state_reason", json_object_get(n, "reason"));
        if (strcmp(st, "up") != 0)
            json_array_append(down, json_object_get(o, "name"));
    }
    json_object_set_new(frag, "unavailable", down);
    json_t *pending = json_object_get(frag, "pending");
    for (size_t i = 0; i < json_array_size(pending); i++) {
        json_t *p = json_array_get(pending, i);
        const char *r = frag_slurm_reason(fs, json_string_value(json_object_get(p, "id")));
        json_object_set_new(p, "slurm_reason", r ? json_string(r) : json_null());
    }
    json_object_set_new(frag, "slurm",
                        json_pack("{s:i, s:i, s:i, s:f}", "running", fs->st.jobs_running,
                                  "pending", fs->st.jobs_pending, "other", fs->st.jobs_other,
                                  "read_ms", fs->read_ms));
}

void frag_slurm_print(const struct frag_slurm *fs)
{
    int any = 0;
    for (size_t i = 0; i < json_array_size(fs->st.nodes); i++) {
        const json_t *n = json_array_get(fs->st.nodes, i);
        const char *st = json_string_value(json_object_get(n, "state"));
        if (strcmp(st, "up") == 0)
            continue;
        if (!any++)
            printf("\nnodes out of service (their GPUs are not counted free):\n");
        printf("  %-16s %-6s %s\n", json_string_value(json_object_get(n, "name")), st,
               json_string_value(json_object_get(n, "reason")));
    }
    printf("\nSlurm: %d running jobs with GPUs, %d pending (read in %.0f ms)\n",
           fs->st.jobs_running, fs->st.jobs_pending, fs->read_ms);
}

const char *frag_slurm_reason(const struct frag_slurm *fs, const char *id)
{
    const json_t *q = json_object_get(fs->st.snapshot, "queue");
    for (size_t i = 0; i < json_array_size(q); i++) {
        const json_t *e = json_array_get(q, i);
        if (strcmp(json_string_value(json_object_get(e, "id")), id) == 0)
            return json_string_value(json_object_get(e, "slurm_reason"));
    }
    return NULL;
}

void frag_slurm_fini(struct frag_slurm *fs)
{
    gs_slurm_state_fini(&fs->st);
}
