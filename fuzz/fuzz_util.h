/* fuzz_util.h - checks shared by the importer fuzz targets (fuzz_aaic.c,
 * fuzz_openb.c): write a trace to memory, compare two job specs field by
 * field, count an input's data lines and check an error's place.  Every
 * failed check prints what it saw and aborts, which libFuzzer reports as a
 * crash (and the replay driver as a failed run). */
#ifndef GS_FUZZ_UTIL_H
#define GS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/trace_csv.h"

static inline void fz_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz check failed: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

static inline int fz_same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Every field the native trace format carries. */
static inline int fz_same_job(const struct gs_job_spec *a, const struct gs_job_spec *b)
{
    return fz_same_str(a->id, b->id) && a->submit == b->submit && a->gpus == b->gpus &&
           a->milli == b->milli && a->mem_mib == b->mem_mib && a->topology == b->topology &&
           a->priority == b->priority && a->klass == b->klass && fz_same_str(a->team, b->team) &&
           fz_same_str(a->user, b->user) && fz_same_str(a->name, b->name) &&
           fz_same_str(a->queue, b->queue) && fz_same_str(a->gpu_model, b->gpu_model) &&
           fz_same_str(a->mig, b->mig) && a->time_limit == b->time_limit &&
           a->ckpt_interval == b->ckpt_interval && a->ckpt_cost == b->ckpt_cost &&
           a->restore_cost == b->restore_cost && a->cpu_milli == b->cpu_milli &&
           a->host_mem_mib == b->host_mem_mib && a->mem_bw == b->mem_bw;
}

/* Parse `text` (`len` bytes) with the native trace reader and require the
 * same jobs and durations as `tr`, in the same order.  Returns the parsed
 * trace; the caller destroys it. */
static inline struct gs_trace *fz_trace_reads_back(const struct gs_trace *tr, const char *text,
                                                   size_t len, int need_duration)
{
    struct gs_error err;
    struct gs_trace *again = gs_trace_parse_csv(text, len, "rt.csv", need_duration, &err);
    if (!again) {
        fprintf(stderr, "%.*s", (int)(len < 4000 ? len : 4000), text);
        fz_fail("the written trace does not parse", err.msg);
    }
    if (gs_trace_count(again) != gs_trace_count(tr))
        fz_fail("the written trace has another job count", NULL);
    for (size_t i = 0; i < gs_trace_count(tr); i++) {
        if (!fz_same_job(gs_trace_job(tr, i), gs_trace_job(again, i)) ||
            gs_trace_duration(tr, i) != gs_trace_duration(again, i)) {
            fprintf(stderr, "%.*s", (int)(len < 4000 ? len : 4000), text);
            fz_fail("a job changed in the write/read round trip", gs_trace_job(tr, i)->id);
        }
    }
    return again;
}

/* Lines of text[0..len) that are not blank, where blank means: nothing
 * but bytes for which `blank_byte` is true before the "\n" (one "\r" before
 * the "\n" is part of the line break).  A UTF-8 byte order mark at the
 * start is skipped when `bom` is set. */
static inline size_t fz_count_lines(const char *text, size_t len, int bom,
                                    int (*blank_byte)(char))
{
    size_t p = 0, n = 0;
    if (bom && len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        p = 3;
    while (p < len) {
        const char *nl = memchr(text + p, '\n', len - p);
        size_t eol = nl ? (size_t)(nl - text) : len, next = nl ? eol + 1 : len;
        if (eol > p && text[eol - 1] == '\r')
            eol--;
        int blank = 1;
        for (size_t i = p; i < eol && blank; i++)
            blank = blank_byte(text[i]);
        n += !blank;
        p = next;
    }
    return n;
}

/* An error's message must start with "NAME:" (the file) and, when a line
 * number follows, name a line that exists (1 .. newlines + 1). */
static inline void fz_check_place(const struct gs_error *err, const char *name,
                                  const char *text, size_t len)
{
    size_t nl = strlen(name);
    if (strncmp(err->msg, name, nl) != 0 || err->msg[nl] != ':')
        fz_fail("the error message does not start with the file name", err->msg);
    const char *p = err->msg + nl + 1;
    if (*p < '0' || *p > '9')
        return;
    long line = strtol(p, NULL, 10);
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    if (line < 1 || (size_t)line > lines)
        fz_fail("the error message names a line the input does not have", err->msg);
}

#endif
