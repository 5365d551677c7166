/* cli_out.c - temporary file + rename for every file a command writes. */
#include "cli/cli_out.h"
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* DIR/.NAME.tmp.PID beside `path`; 0, or -1 when the name does not fit. */
static int temp_name(char *buf, size_t n, const char *path)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    int w = snprintf(buf, n, "%.*s.%s.tmp.%ld", dirlen, path, base, (long)getpid());
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* Temporary files not yet renamed or removed, so that a run stopped by a
 * signal (Ctrl-C, kill, a closed pipe) removes them on its way out.  The one
 * process-wide table of this CLI invocation; a file-static because a signal
 * handler can reach nothing else. */
#define MAX_LIVE 16
static char live[MAX_LIVE][4096];
static volatile sig_atomic_t live_on[MAX_LIVE];

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (live_on[i])
            unlink(live[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track(const char *tmp)
{
    static int installed;
    if (!installed) {
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            sigaction(sigs[i], &sa, NULL);
        installed = 1;
    }
    for (int i = 0; i < MAX_LIVE; i++)
        if (!live_on[i]) {
            snprintf(live[i], sizeof live[i], "%s", tmp);
            live_on[i] = 1;
            return;
        }
}

static void untrack(const char *tmp)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (live_on[i] && strcmp(live[i], tmp) == 0)
            live_on[i] = 0;
}

int cli_out_open(const char *cmd, struct cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path ? path : "-";
    if (strcmp(o->path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    struct stat st;
    int in_place = stat(o->path, &st) == 0 && !S_ISREG(st.st_mode);
    if (!in_place && temp_name(o->tmp, sizeof o->tmp, o->path) < 0)
        return cli_failf(cmd, 1, "%s: file name too long", o->path);
    if (!in_place)
        track(o->tmp);
    o->f = fopen(in_place ? o->path : o->tmp, "w");
    if (!o->f) {
        untrack(o->tmp);
        int e = errno;
        o->tmp[0] = '\0';
        return cli_failf(cmd, 1, "%s: %s", o->path, strerror(e));
    }
    return 0;
}

int cli_out_close(const char *cmd, struct cli_out *o)
{
    if (!o->f)
        return 1;
    FILE *f = o->f;
    o->f = NULL;
    if (f == stdout) {
        o->closed_ok = fflush(f) == 0 && !ferror(f);
        return o->closed_ok ? 0 : 1; /* main's cli_close_stdout says why */
    }
    errno = 0;
    int bad = fflush(f) != 0 || ferror(f);
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad) {
        o->closed_ok = 1;
        return 0;
    }
    cli_out_discard(o);
    return cli_failf(cmd, 1, "%s: write failed%s%s", o->path, e ? ": " : "",
                     e ? strerror(e) : "");
}

int cli_out_commit(const char *cmd, struct cli_out *o)
{
    if (!o->closed_ok)
        return 1;
    o->closed_ok = 0;
    if (!o->tmp[0])
        return 0;
    if (rename(o->tmp, o->path) == 0) {
        untrack(o->tmp);
        o->tmp[0] = '\0';
        return 0;
    }
    int e = errno;
    cli_out_discard(o);
    return cli_failf(cmd, 1, "%s: %s", o->path, strerror(e));
}

void cli_out_discard(struct cli_out *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    o->f = NULL;
    o->closed_ok = 0;
    if (o->tmp[0]) {
        unlink(o->tmp);
        untrack(o->tmp);
    }
    o->tmp[0] = '\0';
}

int cli_out_finish(const char *cmd, struct cli_out *o, int ok)
{
    if (!ok) {
        cli_out_discard(o);
        return 1;
    }
    if (cli_out_close(cmd, o))
        return 1;
    return cli_out_commit(cmd, o);
}
