/* fuzz_snapshot.c - libFuzzer target for the snapshot JSON reader, on a
 * fixed cluster built in code: node-1 .. node-4 with 8 GPUs of 80 GB each,
 * node-2 split into two NVLink domains [4, 4].  Whatever parses must leave
 * the cluster consistent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/snapshot_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct gs_cluster *make_cluster(void)
{
    static const char *const names[] = { "node-1", "node-2", "node-3", "node-4" };
    struct gs_cluster *cl = gs_cluster_create();
    if (!cl || gs_cluster_add_gpu_type(cl, "H100", 80 * 1024, NULL) < 0)
        abort();
    for (int i = 0; i < 4; i++) {
        struct gs_node_spec s = { .name = names[i], .gpus = 8, .gpu_type = 0 };
        if (i == 1) {
            s.ndomains = 2;
            s.domain_sizes[0] = s.domain_sizes[1] = 4;
        }
        if (gs_cluster_add_node(cl, &s, NULL) < 0)
            abort();
    }
    if (gs_cluster_seal(cl, 0, NULL) < 0)
        abort();
    return cl;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_cluster *cl = make_cluster();
    struct gs_snapshot snap;
    struct gs_error err;
    int rc = gs_snapshot_parse_json((const char *)data, size, "fuzz.json", cl, &snap, &err);
    if (rc == 0) {
        if (gs_cluster_check(cl, &err) != 0) {
            fprintf(stderr, "inconsistent cluster: %s\n", err.msg);
            abort();
        }
        gs_snapshot_fini(&snap);
    } else if (snap.queue) {
        abort();
    }
    gs_cluster_destroy(cl);
    return 0;
}
