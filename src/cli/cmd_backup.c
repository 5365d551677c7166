/* cmd_backup.c - `gpusched backup`: a consistent copy of a (running)
 * gpuschedd's journal with SQLite's online backup API, on the daemon's
 * host (docs/operations.md, "Backup and restore"). */
#include "cli/cli.h"
#include "io/store.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char *const help =
    "usage: gpusched backup --state DIR --to FILE\n"
    "       gpusched backup --journal FILE --to FILE\n"
    "\n"
    "Copy gpuschedd's journal (DIR/journal.db) to FILE while the daemon runs:\n"
    "SQLite's online backup API on a read-only connection of its own, so the copy\n"
    "is the journal as of one commit (every job acknowledged before the backup\n"
    "began is in it) and the daemon goes on writing.  FILE must not exist; it is\n"
    "written as FILE.tmp, fsynced and renamed, then checked (quick_check).  Run it\n"
    "on the daemon's host as a user who can read the state directory.  To restore:\n"
    "stop the daemon, put FILE as journal.db in an empty state directory (or the\n"
    "old one, with journal.db-wal and journal.db-shm removed) and start it there.\n"
    "\n"
    "  --state DIR     the daemon's state directory (its journal.db)\n"
    "  --journal FILE  a journal file named directly\n"
    "  --to FILE       where the copy goes (must not exist)\n"
    "  -h, --help      this text; --version: the version and commit\n";

int cmd_backup(int argc, char **argv)
{
    static const struct option opts[] = {
        { "state", required_argument, NULL, 's' }, { "journal", required_argument, NULL, 'j' },
        { "to", required_argument, NULL, 't' },    { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *state = NULL, *journal = NULL, *to = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's': state = optarg; break;
        case 'j': journal = optarg; break;
        case 't': to = optarg; break;
        case 'h': fputs(help, stdout); return 0;
        default: fputs(help, stderr); return 2;
        }
    }
    if (optind < argc || !to || !state == !journal) {
        fprintf(stderr, "gpusched backup: give --to FILE and one of --state DIR or "
                        "--journal FILE\n%s", help);
        return 2;
    }
    char src[4200];
    if (state)
        snprintf(src, sizeof src, "%s/journal.db", state);
    else
        snprintf(src, sizeof src, "%s", journal);
    struct gs_error err;
    gs_error_clear(&err);
    int64_t jobs = 0;
    if (gs_store_backup(src, to, &jobs, &err) < 0) {
        fprintf(stderr, "gpusched backup: %s\n", err.msg);
        return 1;
    }
    struct gs_store_health h;
    if (gs_store_health_of(to, &h, &err) != 0) {
        fprintf(stderr, "gpusched backup: the copy %s does not check: %s\n", to,
                h.check[0] ? h.check : err.msg);
        return 1;
    }
    printf("backup: %lld jobs (last seq %lld) from %s to %s; integrity %s\n",
           (long long)jobs, (long long)h.last_seq, src, to, h.check);
    return 0;
}
