/* yaml_util.h - a thin layer over libyaml's document API for the YAML
 * readers (cluster, policy): loading with located errors, typed scalar
 * access that names file, line and key path, and the guards untrusted
 * input needs (duplicate keys, NUL characters, alias blow-up).
 */
#ifndef GS_IO_YAML_UTIL_H
#define GS_IO_YAML_UTIL_H

#include <stddef.h>
#include <yaml.h>

#include "core/base/error.h"

struct gs_yaml {
    yaml_document_t doc;
    const char *name;       /* file name for messages (borrowed) */
    long visits_left;       /* node visits allowed before giving up */
    int loaded;
};

/* Parse `len` bytes of `text` (no NUL needed) as one YAML document.
 * Returns 0, or GS_EINVAL with "NAME:LINE: ..." for malformed YAML, a
 * second document or a NUL character in a value; GS_ENOMEM.  Free with
 * gs_yaml_fini (also after a failed load). */
int gs_yaml_load(struct gs_yaml *y, const char *text, size_t len, const char *name,
                 struct gs_error *err);

/* Free the document; safe on a zeroed or failed gs_yaml. */
void gs_yaml_fini(struct gs_yaml *y);

/* Root node, or NULL for an empty document (comments/whitespace only). */
yaml_node_t *gs_yaml_root(struct gs_yaml *y);

/* Node by id (from a pair or sequence item); NULL if out of range. */
yaml_node_t *gs_yaml_node(struct gs_yaml *y, int id);

/* 1-based line of a node. */
long gs_yaml_line(const yaml_node_t *n);

/* Whether `n` is a null scalar (empty, ~, null, Null, NULL; plain). */
int gs_yaml_is_null(const yaml_node_t *n);

/* Scalar text (NUL-terminated) or NULL when `n` is not a scalar. */
const char *gs_yaml_text(const yaml_node_t *n);

/* "a mapping", "a sequence" or "a value", for messages. */
const char *gs_yaml_kind(const yaml_node_t *n);

/* Fill `err` with "NAME:LINE: " + the message (LINE of node `n`) and
 * return `code`. */
int gs_yaml_error(struct gs_yaml *y, const yaml_node_t *n, int code, struct gs_error *err,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Count one visit of a node.  Aliases let a small document reach the same
 * node many times (and even itself); past 4 visits per node on average the
 * reader stops with GS_EINVAL.  Returns 0 or a negative code. */
int gs_yaml_visit(struct gs_yaml *y, const yaml_node_t *n, struct gs_error *err);

/* Check that mapping `m` has only scalar keys, none twice.  `path` names
 * the mapping in messages ("" for the top level).  Returns 0 or GS_EINVAL
 * ("NAME:LINE: PATH: duplicate key 'k'"), GS_ENOMEM. */
int gs_yaml_check_keys(struct gs_yaml *y, const yaml_node_t *m, const char *path,
                       struct gs_error *err);

/* Typed scalars: on failure GS_EINVAL with
 * "NAME:LINE: PATH: expected ..., got 'TEXT'" (or "got a mapping"). */
int gs_yaml_int(struct gs_yaml *y, const yaml_node_t *n, const char *path, long min, long max,
                long *out, struct gs_error *err);
int gs_yaml_number(struct gs_yaml *y, const yaml_node_t *n, const char *path, double min,
                   double max, double *out, struct gs_error *err);
/* A scalar string (may be empty); the text is borrowed from the document. */
int gs_yaml_string(struct gs_yaml *y, const yaml_node_t *n, const char *path,
                   const char **out, struct gs_error *err);

#endif
