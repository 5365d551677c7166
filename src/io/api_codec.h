/* api_codec.h - the daemon's HTTP/JSON API as pure functions (DESIGN.md
 * section 5): decoding a submit request body into a job spec plus how to run
 * it, and encoding a job object.  No I/O, no clock: the daemon and the fuzz
 * target fuzz/fuzz_api.c call these on plain buffers.
 *
 * A submit body is a JSON object whose keys are the trace columns
 * (io/job_fields.h, the same parser as the CSV reader; `id` optional) plus
 * `command` (a non-empty array of strings) and the optional `env` (object of
 * strings), `cwd`, `stdout`, `stderr` (strings).  Any other key is an error
 * naming it.  Column values may be JSON strings or numbers.
 */
#ifndef GS_IO_API_CODEC_H
#define GS_IO_API_CODEC_H

#include <jansson.h>
#include <stddef.h>

#include "core/base/types.h"
#include "io/job_fields.h"

/* Largest request body the decoder (and the daemon) accepts. */
#define GS_API_BODY_MAX ((size_t)1024 * 1024)

/* An API error: HTTP status, a short code ("invalid", "not_found", ...),
 * the field it concerns ("" when none) and a sentence. */
struct gs_api_error {
    int status;
    char code[32];
    char field[64];
    char message[256];
};

/* Fill `e` and return -status (so callers can `return gs_api_errorf(...)`). */
int gs_api_errorf(struct gs_api_error *e, int status, const char *code, const char *field,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* {"error": {"code", "message", "field"}} as a NUL-terminated string the
 * caller frees with free(); NULL on allocation failure. */
char *gs_api_error_body(const struct gs_api_error *e);

/* A decoded submit request.  Every string is owned by the struct. */
struct gs_api_submit {
    struct gs_job_row row;    /* spec + duration (ignored by the daemon) */
    int has_id;               /* the body named an id */
    char **argv;              /* argc strings + NULL */
    int argc;
    char **env;               /* nenv "KEY=VALUE" strings + NULL */
    int nenv;
    char *cwd, *out, *err;    /* NULL when not given */
    char **strs;              /* owned copies the spec points into */
    size_t nstrs, capstrs;
    json_t *json;             /* the parsed body (owned) */
};

/* Decode `len` bytes of `body`.  Returns 0, or a negative status with `e`
 * filled: 400 for malformed JSON (field ""), a non-object, an unknown key,
 * a value of the wrong type or out of range (field = the key, message from
 * the trace parser), a missing command; 413 when len > GS_API_BODY_MAX.
 * On error `out` owns nothing; on success free it with
 * gs_api_submit_fini. */
int gs_api_submit_decode(const char *body, size_t len, struct gs_api_submit *out,
                         struct gs_api_error *e);

/* Set the spec's id to `id` (copied); 0 or -500 on allocation failure. */
int gs_api_submit_set_id(struct gs_api_submit *s, const char *id);

/* Free what `s` owns; a zeroed struct is fine. */
void gs_api_submit_fini(struct gs_api_submit *s);

/* A start-time promise (docs/eta.md): the calibrated point users are
 * shown, its P90 bound and the engine's own estimate (UNIX ms,
 * GS_TIME_NONE = null), and the basis (borrowed). */
struct gs_api_eta {
    gs_time start, p90, engine;
    const char *basis;
};

/* A job object's fields (DESIGN.md section 5).  Times are UNIX ms or
 * GS_TIME_NONE; strings borrowed for the call; NULL outcome/placement =
 * null.  The reason is written only when reason_code is not NULL. */
struct gs_api_job {
    const char *id, *state, *outcome, *team, *user;
    int gpus;
    gs_time submit, start, end;
    gs_time first_start;      /* start of the first attempt that ran (GS_TIME_NONE = null) */
    const char *placement;
    int attempts, preemptions;
    double lost_gpu_s;
    int exit_code;            /* -1 = null */
    const char *reason_code, *reason_detail, *reason_unblock;
    gs_time estimated_start;  /* GS_TIME_NONE = null */
    const char *request;      /* the submit body the journal keeps, NULL = none */
    const char *out_dir;      /* the daemon's output directory (default files) */
    const char *end_reason;   /* why it ended (done jobs), NULL = null */
    const char *launch_error; /* NULL = the key is left out */
    int spare_rights;         /* 1: "spare_rights": true (hot spares), else no key */
    struct gs_api_eta estimate;  /* pending: the promise now; basis NULL = no key */
    struct gs_api_eta estimate_at_submit; /* the promise at submit; basis NULL = null */
};

/* A promise as {"start", "p90", "engine_start" (each RFC 3339 or null,
 * with its _epoch), "basis"}; json null for NULL.  New reference, NULL on
 * allocation failure. */
json_t *gs_api_eta_json(const struct gs_api_eta *e);

/* The job object as JSON (new reference; NULL on allocation failure).
 * With j->request, the request's fields too (gs_api_job_add_request). */
json_t *gs_api_job_json(const struct gs_api_job *j);

/* Add to job object `o` what job j's submit body (j->request) asked for,
 * defaults explicit: name, command, cwd, time_limit_s, priority, class
 * (training or inference), queue, gpu_request {count, share, mem_gb, model,
 * mig, topology}, checkpoint_interval_s, and stdout / stderr: the
 * request's paths, else the current attempt's default files
 * (gs_api_out_path; null before the first attempt) (api_record.c).  A
 * body that does not decode adds nothing.  0, or -1 on allocation
 * failure. */
int gs_api_job_add_request(json_t *o, const struct gs_api_job *j);

/* A job's default output file: DIR/ID.ATTEMPT.SFX ("out" or "err") into
 * buf.  Returns buf ("" when it does not fit). */
char *gs_api_out_path(const char *dir, const char *id, int attempt, const char *sfx, char *buf,
                      size_t n);

/* Write UNIX ms `t` as RFC 3339 UTC ("2026-12-01T10:00:00Z", with .mmm
 * when not whole seconds) into buf (>= 32 bytes).  Returns buf. */
char *gs_api_rfc3339(gs_time t, char *buf, size_t n);

#endif
