/* client.h - what the client commands of `gpusched` (submit, queue, show,
 * cancel, why, nodes, drain, resume, checkpoint, replay) share: the common
 * options (--server, --token, --json), one HTTP/JSON round trip to
 * gpuschedd over libcurl (DESIGN.md section 5) and the way errors print.
 *
 * Exit statuses: 0 ok, 1 the request failed (no answer, non-2xx, bad JSON),
 * 2 usage error.  Errors print as "gpusched: MESSAGE" on stderr; a server
 * error names its `error.field` and `error.code` and the HTTP status.
 */
#ifndef GS_CLI_CLIENT_H
#define GS_CLI_CLIENT_H

#include <getopt.h>
#include <jansson.h>

/* Option values shared by the client commands, from gs_client_opt. */
struct gs_client_opts {
    const char *server; /* --server, else $GPUSCHED_SERVER, else the default socket
                           when it exists, else http://127.0.0.1:8642; "unix:PATH" = a
                           Unix socket */
    const char *token;  /* --token, else $GPUSCHED_TOKEN, else NULL */
    int json;           /* --json: print the API's JSON */
};

/* getopt_long rows of the common options, to copy into a command's table
 * (their vals are GS_CLIENT_OPT_*). */
#define GS_CLIENT_OPT_SERVER 0x1001
#define GS_CLIENT_OPT_TOKEN 0x1002
#define GS_CLIENT_OPT_JSON 0x1003
#define GS_CLIENT_COMMON_OPTS                                           \
    { "server", required_argument, NULL, GS_CLIENT_OPT_SERVER },        \
    { "token", required_argument, NULL, GS_CLIENT_OPT_TOKEN },          \
    { "json", no_argument, NULL, GS_CLIENT_OPT_JSON },                  \
    { "help", no_argument, NULL, 'h' }

/* Help text for the common options, to append to a command's help. */
#define GS_CLIENT_COMMON_HELP                                                       \
    "\nCommon options:\n"                                                           \
    "  --server URL   gpuschedd's address: http://HOST:PORT or unix:PATH (env\n"    \
    "                 GPUSCHED_SERVER; default unix:/run/gpusched/gpuschedd.sock\n" \
    "                 when it exists, else http://127.0.0.1:8642)\n"                \
    "  --token S      bearer token (env GPUSCHED_TOKEN)\n"                          \
    "  --json         print the API's JSON instead of text\n"                       \
    "  --help         this text\n"

/* Fill `o` with the defaults from the environment. */
void gs_client_opts_init(struct gs_client_opts *o);

/* Handle option `c` if it is a common one: returns 1 when handled, 0 when
 * `c` is not a common option. */
int gs_client_opt(struct gs_client_opts *o, int c, const char *val);

/* A client command's command line: options, then operands (job ids, node
 * names).  Everything is borrowed. */
struct gs_client_cmd {
    const char *name;          /* "show": used in messages */
    const char *help;          /* printed by --help and after a bad option */
    const struct option *opts; /* getopt_long rows, GS_CLIENT_COMMON_OPTS included */
    int min_args, max_args;    /* operands allowed */
};

/* Command-specific option handler: returns 0, or -1 after printing its own
 * error.  NULL when the command has only the common options. */
typedef int (*gs_client_opt_fn)(int c, const char *val, void *arg);

/* Read argv (argv[0] is the command) into `o` and through on_opt; the
 * operands end up in (*args)[0 .. *nargs-1] (pointers into argv).  Returns
 * -1 when the command should go on, else the exit status: 0 after --help,
 * 2 after a bad option, a failed on_opt or a wrong number of operands. */
int gs_client_parse(const struct gs_client_cmd *cmd, int argc, char **argv,
                    struct gs_client_opts *o, gs_client_opt_fn on_opt, void *arg,
                    char ***args, int *nargs);

/* gs_client_parse with getopt short options `shortopts` ("u:t:j:") as well. */
int gs_client_parse_short(const struct gs_client_cmd *cmd, const char *shortopts, int argc,
                          char **argv, struct gs_client_opts *o, gs_client_opt_fn on_opt,
                          void *arg, char ***args, int *nargs);

/* gs_client_parse for a command that takes only the common options and
 * min_args .. max_args operands: fills `o` from the environment first
 * (gs_client_opts_init).  Returns as gs_client_parse. */
int gs_client_parse_plain(const char *name, const char *help, int min_args, int max_args,
                          int argc, char **argv, struct gs_client_opts *o, char ***args,
                          int *nargs);

/* Write pre + URL-escaped `id` + post into buf[0 .. n).  Returns 0, or -1
 * when the id does not fit in 900 escaped bytes or allocation fails (the
 * caller says so). */
int gs_client_id_path(char *buf, size_t n, const char *pre, const char *id, const char *post);

/* One connection to gpuschedd; reuses its TCP connection between requests. */
struct gs_client;

/* Create a client for o->server (borrowed for the client's life).  Returns
 * NULL after printing the error. */
struct gs_client *gs_client_create(const struct gs_client_opts *o);

/* Free the client; NULL is a no-op. */
void gs_client_destroy(struct gs_client *c);

/* Send `method` `path` (e.g. "/v1/jobs?state=pending"; the caller escapes
 * path segments with gs_client_escape) with `body` as JSON (NULL = no body)
 * and, when `idem_key` is not NULL, an Idempotency-Key header.  On an answer
 * stores the HTTP status in *status and the parsed JSON in *out (NULL when
 * the body is empty or not JSON; caller decrefs) and returns 0.  Returns -1
 * after printing "gpusched: SERVER: reason" when no answer came (the
 * connection failed or timed out). */
int gs_client_call(struct gs_client *c, const char *method, const char *path,
                   const json_t *body, const char *idem_key, long *status, json_t **out);

/* Like gs_client_call, then check the answer: a 2xx with JSON returns 0 with
 * *out set (caller decrefs).  Anything else prints the error (with --json
 * also the error body on stdout) and returns 1. */
int gs_client_request(struct gs_client *c, const struct gs_client_opts *o, const char *method,
                      const char *path, const json_t *body, json_t **out);

/* One request on a connection of its own (create, gs_client_request,
 * destroy): 0 with *out set (caller decrefs), or 1 as gs_client_request. */
int gs_client_once(const struct gs_client_opts *o, const char *method, const char *path,
                   const json_t *body, json_t **out);

/* Print "gpusched: MESSAGE (field F, CODE, HTTP STATUS)" from an API error
 * body (any of them may be missing); returns 1. */
int gs_client_print_error(long status, const json_t *body);

/* URL-escape `s` for use as one path segment into a malloc'd string
 * (caller frees with free); NULL on allocation failure. */
char *gs_client_escape(const char *s);

/* Print `j` as indented JSON on stdout (does not decref). */
void gs_client_print_json(const json_t *j);

/* A field of object `o` as text for tables: strings as they are (one with
 * a control byte escaped into `buf` as \xNN: nothing from the server
 * reaches the terminal raw), integers and reals as numbers, null/missing as
 * `dflt`.  Returns a pointer to `buf`
 * or into `o` (borrowed while `o` lives). */
const char *gs_client_field(const json_t *o, const char *key, const char *dflt, char *buf,
                            size_t size);

/* Seconds as Slurm prints elapsed time: M:SS, H:MM:SS or D-HH:MM:SS;
 * negative or NaN gives "-".  Writes into `buf` and returns it. */
const char *gs_client_hms(double seconds, char *buf, size_t size);

/* UNIX seconds as RFC 3339 UTC ("2026-12-01T11:15:29Z"); negative gives
 * "-".  Writes into `buf` (>= 32 bytes) and returns it. */
const char *gs_client_utc(double epoch, char *buf, size_t size);

/* The list of items of a list answer: `j` itself when it is an array, else
 * its member `key` when that is an array, else NULL (borrowed). */
const json_t *gs_client_list(const json_t *j, const char *key);

/* Prints the list `list` of answer `ans` (both borrowed) for
 * gs_client_get_list. */
typedef void (*gs_client_list_fn)(const json_t *ans, const json_t *list, void *arg);

/* GET `path` and every further page (`next` -> `&after=`; client_page.c)
 * into one answer (*out, owned by the caller; no `next`); a `jobs` list
 * is put back in the unpaged order (pending last, by `queue_pos`).
 * Returns 0, or 1 (reported on stderr) with *out NULL. */
int gs_client_get_pages(const struct gs_client_opts *o, const char *path, const char *key,
                        json_t **out);

/* The list commands' tail: GET `path` page by page (gs_client_get_pages); with --json
 * print the whole answer, else hand its list under `key` (gs_client_list)
 * to `print`, or say "gpusched: the answer has no WHAT list" on stderr
 * when it has none.  Returns the exit status: 0, or 1 (the request failed,
 * already reported, or no list). */
int gs_client_get_list(const struct gs_client_opts *o, const char *path, const char *key,
                       const char *what, gs_client_list_fn print, void *arg);

/* Each client command: argc/argv start at the command name; returns the
 * exit status. */
int cmd_submit(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_checkpoint(int argc, char **argv);
int cmd_nodes(int argc, char **argv);
int cmd_drain(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_history(int argc, char **argv); /* cmd_client_history.c */
int cmd_jobs(int argc, char **argv);    /* cmd_client_jobs.c */

#endif
