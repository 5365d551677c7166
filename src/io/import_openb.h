/* import_openb.h - convert the Alibaba GPU-sharing cluster trace "openb"
 * (cluster-trace-gpu-v2023, the FGD paper's data; shared/traces/openb/)
 * into a native cluster YAML and trace CSV.
 *
 * Nodes CSV: sn, cpu_milli, memory_mib, gpu, model.  Each row becomes a
 * node named `sn` with `gpu` GPUs of type `model` (no model = a CPU-only
 * node), cpu = cpu_milli / 1000 cores and memory_gb = memory_mib / 1024.
 * openb has no NVLink topology: every node is one domain.  GPU memory per
 * model comes from the FGD artifact's table (P100 16280 MiB, T4 15109,
 * V100M16 16160, V100M32 32510, A10 22731); models it does not know (G1,
 * G2, G3) get GS_OPENB_DEFAULT_GPU_MIB and are reported as defaulted.
 *
 * Pods CSV: name, cpu_milli, memory_mib, num_gpu, gpu_milli, and optionally
 * gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time.
 * Each row becomes a job:
 *   id = name; gpus = num_gpu; gpu_share = gpu_milli / 1000 when num_gpu is
 *   1 (a share < 1 is GPU sharing); cpu = cpu_milli / 1000; host_mem_gb =
 *   memory_mib / 1024; gpu_model = gpu_spec ("V100M16|V100M32" keeps the
 *   alternatives); queue = qos; submit = creation_time;
 *   duration = deletion_time - scheduled_time, or, for a pod still running
 *   at the end of the trace (no deletion_time), the trace end - scheduled;
 *   a pod never scheduled lived deletion - creation (or trace end -
 *   creation) and keeps that as its duration.
 * Files without times (multigpuNN) give submit 0 and no duration (enough
 * for `gpusched fill`, not for `sim`).  pod_phase is not used (counted).
 * Every dropped or defaulted field is counted in gs_openb_stats.
 *
 * Both files are read strictly, so that nothing is lost without a word and
 * whatever imports can be written (gs_openb_write_cluster_yaml,
 * gs_trace_write_csv) and read back: a header line naming only the columns
 * above, each once; every row with the header's number of fields (empty
 * lines are skipped, CRLF and a UTF-8 byte order mark are accepted, a NUL
 * byte is an error); numbers are plain non-negative integers no larger
 * than the native formats hold (cpu_milli and memory_mib 1e12, gpu 64,
 * num_gpu 1e6, gpu_milli 1000, times 9e12 s); sn and model are printable
 * ASCII without spaces, quotes, backslashes or brackets, and sn is unique.
 * Anything else is an error naming the file and line.
 */
#ifndef GS_IO_IMPORT_OPENB_H
#define GS_IO_IMPORT_OPENB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/error.h"
#include "workload/trace.h"

#define GS_OPENB_DEFAULT_GPU_MIB 32768   /* GPU memory of a model FGD does not list */
#define GS_OPENB_MAX_MODELS 32
#define GS_OPENB_MAX_NODES 65536         /* the cluster reader's limit */

struct gs_openb_node {
    char name[64];
    char model[32];           /* "" = CPU-only node */
    int gpus;
    int64_t cpu_milli, mem_mib;
};

struct gs_openb_stats {
    int64_t nodes, gpu_nodes, gpus;
    int nmodels;
    char models[GS_OPENB_MAX_MODELS][32];
    int64_t model_gpus[GS_OPENB_MAX_MODELS];
    int model_mem_defaulted[GS_OPENB_MAX_MODELS]; /* 1 = memory not known */
    int64_t pods, cpu_only, shared, whole;
    int64_t gpu_request_milli;        /* sum of gpus x share */
    int64_t no_times;                 /* no creation_time: submit 0, no duration */
    int64_t still_running;            /* no deletion_time: ran to the trace end */
    int64_t never_scheduled;          /* no scheduled_time: duration = time alive */
    int64_t share_multi;              /* gpu_milli < 1000 with num_gpu > 1: taken whole */
    int64_t milli_ignored;            /* gpu_milli given with num_gpu = 0 */
    int64_t spec_unknown;             /* gpu_spec naming no model of the node list */
    int64_t spec_pods;                /* pods with a gpu_spec */
    int64_t phase_dropped;            /* pod_phase values not carried over */
    int64_t span_end;                 /* latest time in the pods file, s */
};

struct gs_openb_result {
    struct gs_openb_node *nodes;      /* owned */
    size_t nnodes, nodes_cap;
    struct gs_trace *trace;           /* owned */
    struct gs_openb_stats stats;
};

/* Convert the nodes CSV `nodes_text` (`nodes_len` bytes) and the pods CSV
 * `pods_text` (`pods_len` bytes); neither need be NUL-terminated, both are
 * only read (the parser works on its own copies).  `nodes_name` and
 * `pods_name` are used in messages (NULL: a generic name).  On success
 * fills `out` (release with gs_openb_result_fini) and returns 0.  Malformed
 * input is GS_EINVAL with a message naming the file and line, e.g.
 * "nodes.csv:3: gpu: at most 64 per node"; GS_ENOMEM on allocation failure.
 * On failure `out` holds nothing to free. */
int gs_openb_parse(const char *nodes_text, size_t nodes_len, const char *pods_text,
                   size_t pods_len, const char *nodes_name, const char *pods_name,
                   struct gs_openb_result *out, struct gs_error *err);

/* Read both files (gzip when a path ends in .gz, "-" = stdin) and convert
 * them as gs_openb_parse does.  GS_EIO when a file cannot be read.  On
 * failure `out` holds nothing to free. */
int gs_openb_load(const char *nodes_path, const char *pods_path, struct gs_openb_result *out,
                  struct gs_error *err);

/* gs_openb_load that reports the bytes read and the records parsed (both
 * files together) through `prog` (io/ioutil.h; may be NULL). */
struct gs_io_progress;
int gs_openb_load_progress(const char *nodes_path, const char *pods_path,
                           struct gs_io_progress *prog, struct gs_openb_result *out,
                           struct gs_error *err);

/* Write the cluster YAML (with a header comment naming what was assumed).
 * Returns 0 or GS_EIO. */
int gs_openb_write_cluster_yaml(FILE *f, const struct gs_openb_result *r, struct gs_error *err);

/* Print the conversion report (what was read, defaulted and dropped) to
 * `f`, one fact per line.  `json` != 0 prints one JSON object instead. */
void gs_openb_report(FILE *f, const struct gs_openb_result *r, int json);

/* Free what `r` owns; NULL is a no-op. */
void gs_openb_result_fini(struct gs_openb_result *r);

#endif
