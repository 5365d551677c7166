/* intmap.h - a map from non-negative int keys to int values (open
 * addressing, linear probing, removal without tombstones).  Its size
 * follows the most entries it ever held, not the keys' range: the engine
 * maps the handles of jobs whose record moved to a reused slot with it.
 */
#ifndef GS_CORE_INTMAP_H
#define GS_CORE_INTMAP_H

#include <stddef.h>

struct gs_intmap;

/* Create an empty map; NULL on allocation failure.  Free with _destroy
 * (NULL is a no-op). */
struct gs_intmap *gs_intmap_create(void);
void gs_intmap_destroy(struct gs_intmap *m);

/* Make room for `n` entries in all, so that puts up to that many never
 * allocate.  Returns 0 or GS_ENOMEM (the map is unchanged). */
int gs_intmap_reserve(struct gs_intmap *m, size_t n);

/* Map `key` (>= 0) to `value`, replacing an earlier value (which never
 * allocates).  Returns 0, GS_EINVAL (negative key) or GS_ENOMEM. */
int gs_intmap_put(struct gs_intmap *m, int key, int value);

/* Value of `key`, or GS_ENOENT when absent. */
int gs_intmap_get(const struct gs_intmap *m, int key);

/* Remove `key`.  Returns 0 or GS_ENOENT.  Never allocates. */
int gs_intmap_del(struct gs_intmap *m, int key);

/* Number of entries; bytes allocated (for memory accounting). */
size_t gs_intmap_count(const struct gs_intmap *m);
size_t gs_intmap_bytes(const struct gs_intmap *m);

#endif
