/* strtab.h - string interning: maps strings (team, user, node names) to
 * dense integer ids assigned in insertion order, so ids are deterministic.
 */
#ifndef GS_CORE_STRTAB_H
#define GS_CORE_STRTAB_H

#include <stddef.h>

struct gs_strtab;

/* Create an empty table; NULL on allocation failure. Free with _destroy. */
struct gs_strtab *gs_strtab_create(void);

/* Free the table and all strings it holds; NULL is a no-op. */
void gs_strtab_destroy(struct gs_strtab *t);

/* Return the id of `s`, adding it if absent (ids are 0, 1, 2, ...).
 * Returns GS_ENOMEM on allocation failure. */
int gs_strtab_intern(struct gs_strtab *t, const char *s);

/* Return the id of `s`, or GS_ENOENT if it was never interned. */
int gs_strtab_find(const struct gs_strtab *t, const char *s);

/* String for `id`; borrowed until the table is destroyed. NULL if out of
 * range. */
const char *gs_strtab_name(const struct gs_strtab *t, int id);

/* Number of interned strings. */
int gs_strtab_count(const struct gs_strtab *t);

#endif
