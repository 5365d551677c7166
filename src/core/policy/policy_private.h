/* policy_private.h - the `partitions:` list of the policy, kept out of
 * policy.c's scalar key table (policy_part.c).  Only policy.c includes
 * this. */
#ifndef GS_CORE_POLICY_PRIVATE_H
#define GS_CORE_POLICY_PRIVATE_H

#include "core/policy/policy.h"

/* Whether `path` is "partitions" or a key under it. */
int gs_policy_part_key(const char *path);

/* Set "partitions.KEY" of the last item from text.  Errors as
 * gs_policy_set (GS_ENOENT unknown key, GS_EINVAL bad value or no item). */
int gs_policy_part_set(struct gs_policy *p, const char *path, const char *value,
                       struct gs_error *err);

/* Deep-copy src's partitions into dst (which owns none).  Returns 0 or
 * GS_ENOMEM, leaving dst without partitions. */
int gs_policy_part_copy(struct gs_policy *dst, const struct gs_policy *src);

/* Free the partitions of `p`; it is left with none. */
void gs_policy_part_fini(struct gs_policy *p);

#endif
