/* fuzz_openb.c - libFuzzer target for the openb importer
 * (io/import_openb.h, gs_openb_parse), which reads two files.  The input
 * is split at its first NUL byte: the bytes before it are the nodes CSV
 * ("nodes.csv"), the bytes after it the pods CSV ("pods.csv").  An input
 * without a NUL byte is all nodes file and an empty pods file.  (NUL is
 * never valid inside either file, so the split loses nothing; a second NUL
 * lands in the pods file and must be rejected there.)
 *
 * Besides "no crash, no leak, no UB" it checks:
 *   - on success, that no row is lost: every non-empty line after each
 *     header is a node or a pod, and the counts of the report add up
 *     (nodes, GPU nodes, GPUs per model; pods = CPU-only + sharing + whole);
 *   - that the trace can be written (gs_trace_write_csv) and read back by
 *     the native reader with the same jobs and durations;
 *   - that the cluster YAML, when it has GPUs (a cluster needs some), is
 *     read back by gs_cluster_parse_yaml with the same nodes, GPUs, CPU
 *     and memory;
 *   - that both reports (text and JSON) can be printed;
 *   - on error, that the return code is err.code, `out` holds nothing and
 *     the message names the file (and, when it gives one, a real line). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cluster/cluster.h"
#include "fuzz_util.h"
#include "io/cluster_yaml.h"
#include "io/import_openb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int openb_blank(char ch)
{
    (void)ch;
    return 0;   /* only an empty line is skipped */
}

static void check_counts(const struct gs_openb_result *r, const char *nodes, size_t nlen,
                         const char *pods, size_t plen)
{
    const struct gs_openb_stats *s = &r->stats;
    size_t nl = fz_count_lines(nodes, nlen, 1, openb_blank);
    size_t pl = fz_count_lines(pods, plen, 1, openb_blank);
    if (nl < 1 || pl < 1 || nl - 1 != r->nnodes || (int64_t)r->nnodes != s->nodes)
        fz_fail("nodes lost: not one node per line after the header", NULL);
    if (pl - 1 != gs_trace_count(r->trace) || (int64_t)(pl - 1) != s->pods)
        fz_fail("pods lost: not one job per line after the header", NULL);
    if (s->cpu_only + s->shared + s->whole != s->pods)
        fz_fail("pods != cpu_only + shared + whole", NULL);
    int64_t gpus = 0, gpu_nodes = 0, by_model = 0;
    for (size_t i = 0; i < r->nnodes; i++) {
        gpus += r->nodes[i].gpus;
        gpu_nodes += r->nodes[i].gpus > 0;
    }
    for (int m = 0; m < s->nmodels; m++)
        by_model += s->model_gpus[m];
    if (gpus != s->gpus || by_model != s->gpus || gpu_nodes != s->gpu_nodes)
        fz_fail("GPU counts of the report disagree with the nodes", NULL);
}

static char *write_mem(const struct gs_openb_result *r, int what, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    struct gs_error err;
    if (!f)
        abort();
    if (what == 0 && gs_trace_write_csv(f, r->trace, &err) != 0)
        fz_fail("gs_trace_write_csv failed", err.msg);
    if (what == 1 && gs_openb_write_cluster_yaml(f, r, &err) != 0)
        fz_fail("gs_openb_write_cluster_yaml failed", err.msg);
    if (what >= 2)
        gs_openb_report(f, r, what == 3);
    fclose(f);
    return text;
}

static void check_cluster(const struct gs_openb_result *r, const char *yaml, size_t len)
{
    struct gs_error err;
    struct gs_cluster *cl = gs_cluster_parse_yaml(yaml, len, "c.yaml", &err);
    if (!cl) {
        fprintf(stderr, "%.*s", (int)(len < 4000 ? len : 4000), yaml);
        fz_fail("the written cluster does not parse", err.msg);
    }
    if ((size_t)gs_cluster_node_count(cl) != r->nnodes ||
        gs_cluster_gpu_count(cl) != r->stats.gpus)
        fz_fail("the written cluster has other node or GPU counts", NULL);
    for (size_t i = 0; i < r->nnodes; i++) {
        const struct gs_openb_node *n = &r->nodes[i];
        int id = gs_cluster_find_node(cl, n->name);
        if (id < 0 || gs_cluster_node_gpus(cl, id) != n->gpus ||
            gs_cluster_node_cpu(cl, id) != n->cpu_milli ||
            gs_cluster_node_mem(cl, id) != n->mem_mib)
            fz_fail("a node changed in the written cluster", n->name);
        if (n->gpus > 0 &&
            strcmp(gs_cluster_gpu_type_name(cl, gs_cluster_node_gpu_type(cl, id)), n->model) != 0)
            fz_fail("a node's GPU model changed in the written cluster", n->name);
    }
    gs_cluster_destroy(cl);
}

static void check_outputs(const struct gs_openb_result *r)
{
    size_t len;
    char *text = write_mem(r, 0, &len);
    gs_trace_destroy(fz_trace_reads_back(r->trace, text, len, 0));
    free(text);
    text = write_mem(r, 1, &len);
    if (r->stats.gpus > 0)
        check_cluster(r, text, len);
    free(text);
    free(write_mem(r, 2, &len));
    free(write_mem(r, 3, &len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nodes = (const char *)data, *pods = "";
    size_t nlen = size, plen = 0;
    const char *z = memchr(nodes, '\0', size);
    if (z) {
        nlen = (size_t)(z - nodes);
        pods = z + 1;
        plen = size - nlen - 1;
    }
    struct gs_openb_result r;
    struct gs_error err;
    int rc = gs_openb_parse(nodes, nlen, pods, plen, "nodes.csv", "pods.csv", &r, &err);
    if (rc == 0) {
        check_counts(&r, nodes, nlen, pods, plen);
        check_outputs(&r);
        gs_openb_result_fini(&r);
        return 0;
    }
    if (rc != err.code || (rc != GS_EINVAL && rc != GS_ENOMEM))
        fz_fail("the return code is not err.code (EINVAL or ENOMEM)", err.msg);
    if (r.nodes || r.trace || r.nnodes)
        fz_fail("a failed import left something in out", err.msg);
    if (rc == GS_EINVAL) {
        int in_pods = strncmp(err.msg, "pods.csv", 8) == 0;
        fz_check_place(&err, in_pods ? "pods.csv" : "nodes.csv", in_pods ? pods : nodes,
                       in_pods ? plen : nlen);
    }
    return 0;
}
