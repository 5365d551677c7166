/* strtab.h - string interning: maps strings (team, user, node names) to
 * dense integer ids assigned in insertion order, so ids are deterministic.
 * A string can be removed (the engine's job ids, once a job is retired):
 * its id is then given to the next new string, the last removed first, so
 * ids stay deterministic and the table stays as large as its live strings.
 */
#ifndef GS_CORE_STRTAB_H
#define GS_CORE_STRTAB_H

#include <stddef.h>

struct gs_strtab;

/* Create an empty table; NULL on allocation failure. Free with _destroy. */
struct gs_strtab *gs_strtab_create(void);

/* Free the table and all strings it holds; NULL is a no-op. */
void gs_strtab_destroy(struct gs_strtab *t);

/* Return the id of `s`, adding it if absent (ids are 0, 1, 2, ... and,
 * after removals, the removed ids, last removed first).  Returns
 * GS_ENOMEM on allocation failure. */
int gs_strtab_intern(struct gs_strtab *t, const char *s);

/* Return the id of `s`, or GS_ENOENT if it was never interned. */
int gs_strtab_find(const struct gs_strtab *t, const char *s);

/* String for `id`; borrowed until the table is destroyed (or the id is
 * removed). NULL if out of range or removed. */
const char *gs_strtab_name(const struct gs_strtab *t, int id);

/* Number of ids ever given out (ids are below it; removed ones included). */
int gs_strtab_count(const struct gs_strtab *t);

/* Remove string `id`: its memory is freed, gs_strtab_find no longer finds
 * it and the id goes to the next new string.  Never allocates.  Returns 0
 * or GS_ENOENT (out of range, or already removed). */
int gs_strtab_remove(struct gs_strtab *t, int id);

/* Number of strings held now (count less the removed ones). */
int gs_strtab_live(const struct gs_strtab *t);

#endif
