/* cli.c - shared helpers for the subcommands. */
#include "cli/cli.h"
#include "io/cluster_yaml.h"
#include "io/policy_yaml.h"
#include "io/trace_csv.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_fail(const char *cmd, const struct gs_error *err)
{
    fprintf(stderr, "gpusched %s: %s\n", cmd, err->msg[0] ? err->msg : gs_strerror(err->code));
    return 1;
}

int cli_failf(const char *cmd, int status, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gpusched %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

struct gs_cluster *cli_load_cluster(const char *cmd, const char *path)
{
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_load_yaml(path, &err);
    if (!cl)
        cli_fail(cmd, &err);
    return cl;
}

int cli_load_policy(const char *cmd, const char *path, struct gs_policy *out)
{
    struct gs_error err = { 0 };
    if (!path) {
        gs_policy_init(out);
        return 0;
    }
    int rc = gs_policy_load_yaml(path, out, &err);
    if (rc < 0)
        cli_fail(cmd, &err);
    return rc;
}

struct gs_trace *cli_load_trace(const char *cmd, const char *path, int need_duration)
{
    struct gs_error err = { 0 };
    struct gs_trace *tr = gs_trace_load_csv(path, need_duration, &err);
    if (!tr)
        cli_fail(cmd, &err);
    return tr;
}

FILE *cli_open_out(const char *cmd, const char *path)
{
    if (!path || strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        cli_failf(cmd, 1, "%s: %s", path, strerror(errno));
    return f;
}

int cli_close(const char *cmd, FILE *f, const char *path)
{
    if (f == stdout) /* main's cli_close_stdout says why, once */
        return fflush(f) != 0 || ferror(f) ? 1 : 0;
    if (ferror(f) | fclose(f))
        return cli_failf(cmd, 1, "%s: write failed", path);
    return 0;
}

int cli_parse_long(const char *cmd, const char *opt, const char *text, long long min,
                   long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || errno || v < min || v > max)
        return cli_failf(cmd, -1, "%s: '%s' is not an integer in [%lld, %lld]", opt, text,
                         min, max);
    *out = v;
    return 0;
}

int cli_parse_double(const char *cmd, const char *opt, const char *text, double min,
                     double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !(v >= min && v <= max))
        return cli_failf(cmd, -1, "%s: '%s' is not a number in [%g, %g]", opt, text, min,
                         max);
    *out = v;
    return 0;
}

int cli_print_json(void *json)
{
    json_t *j = json;
    if (!j) {
        fprintf(stderr, "gpusched: out of memory building JSON (nothing printed)\n");
        return 1;
    }
    int rc = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    fputc('\n', stdout);
    json_decref(j);
    return rc < 0 ? 1 : 0;
}

void cli_guard_std_fds(void)
{
    /* Lowest free descriptor first: opening in order 0, 1, 2 refills exactly
     * the closed ones.  Stdout gets /dev/null read-only, so every write to it
     * fails (EBADF) and cli_close_stdout reports it; a later fopen can then
     * never become fd 1 and receive what was meant for stdout. */
    static const int modes[3] = { O_WRONLY, O_RDONLY, O_RDONLY };
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int got = open("/dev/null", modes[fd]);
            if (got >= 0 && got != fd)
                close(got);
        }
}

int cli_close_stdout(const char *cmd)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = errno;
    bad |= ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad)
        return 0;
    return cli_failf(cmd, 1, "stdout: write failed%s%s (the output is incomplete)",
                     e ? ": " : "", e ? strerror(e) : "");
}
