/* fuzz_cluster.c - libFuzzer target for the cluster YAML reader.  Whatever
 * parses must be a consistent, sealed cluster. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/cluster_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_error err;
    struct gs_cluster *cl = gs_cluster_parse_yaml((const char *)data, size, "fuzz.yaml", &err);
    if (cl) {
        if (gs_cluster_check(cl, &err) != 0 || gs_cluster_gpu_count(cl) <= 0) {
            fprintf(stderr, "inconsistent cluster: %s\n", err.msg);
            abort();
        }
        gs_cluster_destroy(cl);
    }
    return 0;
}
