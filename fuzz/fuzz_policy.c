/* fuzz_policy.c - libFuzzer target for the policy YAML reader.  On error
 * the policy must own nothing; on success it must copy and free cleanly. */
#include <stdint.h>
#include <stdlib.h>

#include "io/policy_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_error err;
    struct gs_policy p, copy;
    int rc = gs_policy_parse_yaml((const char *)data, size, "fuzz.yaml", &p, &err);
    if (rc != 0) {
        if (p.quotas || p.nquotas || p.partitions || p.npartitions || rc != err.code)
            abort();
        return 0;
    }
    if (gs_policy_copy(&copy, &p) == 0)
        gs_policy_fini(&copy);
    gs_policy_fini(&p);
    return 0;
}
