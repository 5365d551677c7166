/* vtab.h - the published view's job table (view.c): every live job's
 * object in a slot, with an index by id, kept by the engine thread from
 * one publish to the next and snapshotted into each view without copying
 * it.
 *
 * Both the slots and the index live in chunks of 64 entries shared by
 * reference count: a snapshot takes a reference to every chunk (one per
 * 64 jobs), and the engine copies a chunk before writing to it while a
 * snapshot holds it (copy-on-write).  A publish therefore costs the
 * changed jobs (a chunk copy each at most) plus a reference per chunk,
 * instead of a reference and an index entry per live job.  The index is
 * open addressing with tombstones; it is rebuilt (O(live jobs)) only when
 * entries and tombstones fill half of it, which is at least as many
 * inserts and deletes as there are live jobs after the last rebuild.
 *
 * Threads: a gsd_vtab belongs to the engine thread; a snapshot is
 * immutable and may be read and freed by any thread.
 */
#ifndef GS_DAEMON_VTAB_H
#define GS_DAEMON_VTAB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One immutable text shared by views: a job object (seq, state, outcome,
 * id and team for filters) or a whole body (seq 0). */
struct gsd_blob {
    atomic_int refs;
    int64_t seq;
    uint64_t hash;            /* of id (the index's key) */
    int state, outcome;
    size_t len;               /* of text */
    const char *id, *team;    /* into data */
    char data[];              /* text NUL id NUL team NUL */
};

struct gsd_vtab;
struct gsd_vsnap;

/* The index's hash of a job id (FNV-1a). */
uint64_t gsd_vtab_hash(const char *id);

/* A new blob of `text` (copied) with its job fields (id, team may be NULL:
 * a body); refs = 1.  NULL when text is NULL or out of memory. */
struct gsd_blob *gsd_blob_new(int64_t seq, int state, int outcome, const char *id,
                              const char *team, const char *text);

/* Take a reference (NULL is returned as is); drop one (the last frees
 * the blob; NULL is a no-op).  Any thread. */
struct gsd_blob *gsd_blob_ref(struct gsd_blob *b);
void gsd_blob_unref(struct gsd_blob *b);

/* An empty table, or NULL out of memory; gsd_vtab_free releases it (the
 * snapshots taken stay valid). */
struct gsd_vtab *gsd_vtab_new(void);
void gsd_vtab_free(struct gsd_vtab *t);

/* Put blob b (the caller's reference, taken over; b->id is the key) in
 * slot *slot, or, when *slot < 0, in a free slot that is then indexed by
 * b->id and written to *slot.  A slot keeps its id: only the same job's
 * objects replace each other there.  Returns 0, or -1 out of memory (b is
 * released; the table is then incomplete: rebuild it). */
int gsd_vtab_put(struct gsd_vtab *t, int *slot, struct gsd_blob *b);

/* Empty slot `slot` (its index entry goes too) and free it for reuse. */
void gsd_vtab_del(struct gsd_vtab *t, int slot);

/* The number of filled slots. */
size_t gsd_vtab_count(const struct gsd_vtab *t);

/* The blob in slot `slot` of the table (engine thread), or NULL. */
const struct gsd_blob *gsd_vtab_at(const struct gsd_vtab *t, int slot);

/* An immutable snapshot of the table (a reference per chunk), or NULL out
 * of memory. */
struct gsd_vsnap *gsd_vtab_snap(struct gsd_vtab *t);

/* Release a snapshot (NULL is a no-op); any thread. */
void gsd_vsnap_free(struct gsd_vsnap *s);

/* The blob in slot `slot` of a snapshot, or NULL when empty. */
const struct gsd_blob *gsd_vsnap_at(const struct gsd_vsnap *s, uint32_t slot);

/* The slot holding the job with id `id` in the snapshot, or -1. */
int gsd_vsnap_find(const struct gsd_vsnap *s, const char *id);

#endif
