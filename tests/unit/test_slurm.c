/* test_slurm.c - Slurm's text forms (io/slurm_util.c), the live-state
 * reader on JSON recorded from the private Slurm 22.05 cluster
 * (io/slurm_state.c, tests/data/slurm/), the conf renderer
 * (io/slurm_conf.c), a snapshot's running jobs and node states
 * (io/snapshot_running.c) and the sacct importer (io/import_sacct.c).
 * Expected numbers are derived in the comments. */
#define _DEFAULT_SOURCE /* setenv, tzset, open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/alloc.h"
#include "io/cluster_yaml.h"
#include "io/import_sacct.h"
#include "io/ioutil.h"
#include "io/slurm_conf.h"
#include "io/slurm_state.h"
#include "io/slurm_util.h"
#include "io/snapshot_json.h"

static void test_durations(void **state)
{
    (void)state;
    gs_time ms;
    /* 1 day + 2 h + 3 min + 4 s = 86400 + 7200 + 180 + 4 = 93784 s */
    assert_int_equal(gs_slurm_parse_duration("1-02:03:04", &ms), 0);
    assert_int_equal(ms, 93784000);
    assert_int_equal(gs_slurm_parse_duration("02:03:04", &ms), 0); /* 7384 s */
    assert_int_equal(ms, 7384000);
    assert_int_equal(gs_slurm_parse_duration("03:04", &ms), 0); /* MM:SS = 184 s */
    assert_int_equal(ms, 184000);
    assert_int_equal(gs_slurm_parse_duration("1-02", &ms), 0); /* D-HH = 93600 s */
    assert_int_equal(ms, 93600000);
    assert_int_equal(gs_slurm_parse_duration("00:00:01.500", &ms), 0);
    assert_int_equal(ms, 1500);
    const char *bad[] = { "12", "1:2:3:4", "a", "1-", ":3", "1-02:03:04x", "", "01:02." };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(gs_slurm_parse_duration(bad[i], &ms), GS_EINVAL);
    /* limits: plain numbers are minutes; the no-limit words give 1 */
    assert_int_equal(gs_slurm_parse_limit("30", &ms), 0);
    assert_int_equal(ms, 1800000);
    assert_int_equal(gs_slurm_parse_limit("1-00:00:00", &ms), 0);
    assert_int_equal(ms, 86400000);
    assert_int_equal(gs_slurm_parse_limit("UNLIMITED", &ms), 1);
    assert_int_equal(ms, 0);
    assert_int_equal(gs_slurm_parse_limit("Partition_Limit", &ms), 1);
    assert_int_equal(gs_slurm_parse_limit("soon", &ms), GS_EINVAL);
}

static void test_times(void **state)
{
    (void)state;
    int64_t s;
    setenv("TZ", "UTC", 1);
    tzset();
    /* Slurm itself printed this pair on the private cluster (TZ UTC):
     * sacct -P Submit "2026-12-01T11:07:14", sacct --json 1796123234 */
    assert_int_equal(gs_slurm_parse_time("2026-12-01T11:07:14", &s), 0);
    assert_int_equal(s, 1796123234);
    assert_int_equal(gs_slurm_parse_time("Unknown", &s), 1);
    assert_int_equal(gs_slurm_parse_time("None", &s), 1);
    assert_int_equal(gs_slurm_parse_time("2026-13-01T00:00:00", &s), GS_EINVAL);
    assert_int_equal(gs_slurm_parse_time("2026-12-01 11:07:14", &s), GS_EINVAL);
}

static int collect(const char *name, void *arg)
{
    char *buf = arg;
    strcat(buf, name);
    strcat(buf, " ");
    return 0;
}

static void test_hostlists(void **state)
{
    (void)state;
    char buf[512] = "";
    assert_int_equal(gs_slurm_hostlist_expand("gpu[01-04,07],x", collect, buf), 6);
    assert_string_equal(buf, "gpu01 gpu02 gpu03 gpu04 gpu07 x ");
    buf[0] = '\0';
    assert_int_equal(gs_slurm_hostlist_expand("r[1-2]n[1-2]", collect, buf), 4);
    assert_string_equal(buf, "r1n1 r1n2 r2n1 r2n2 ");
    buf[0] = '\0';
    assert_int_equal(gs_slurm_hostlist_expand("node-[2-3]", collect, buf), 2);
    assert_string_equal(buf, "node-2 node-3 ");
    const char *bad[] = { "a[1-", "a[3-1]", "a,,b", "a[1-2]]", "a[[1]]", "a[x]", "a," };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        buf[0] = '\0';
        assert_int_equal(gs_slurm_hostlist_expand(bad[i], collect, buf), GS_EINVAL);
    }
}

static void test_tres_gres(void **state)
{
    (void)state;
    assert_int_equal(gs_slurm_tres_gpus("billing=1,cpu=1,gres/gpu=8,node=1"), 8);
    assert_int_equal(gs_slurm_tres_gpus("cpu=1,gres/gpu:a100=4,gres/gpu:h100=2"), 6);
    assert_int_equal(gs_slurm_tres_gpus("gres/gpu=2,gres/gpu:a100=2"), 2); /* untyped wins */
    assert_int_equal(gs_slurm_tres_gpus("cpu=1,mem=1G"), 0);
    assert_int_equal(gs_slurm_tres_gpus("gres/gpu=x"), GS_EINVAL);
    assert_int_equal(gs_slurm_gres_gpus("gpu:8"), 8);
    assert_int_equal(gs_slurm_gres_gpus("gpu:a100:4(S:0)"), 4);
    assert_int_equal(gs_slurm_gres_gpus("gpu:g0:1,gpu:g1:1,gpu:g2:1"), 3);
    assert_int_equal(gs_slurm_gres_gpus("gres:gpu:6"), 6);
    assert_int_equal(gs_slurm_gres_gpus("(null)"), 0);
    uint64_t m;
    assert_int_equal(gs_slurm_gres_idx("gpu:6(IDX:0-5)", &m), 0);
    assert_int_equal(m, 0x3f);
    assert_int_equal(gs_slurm_gres_idx("gpu:g3:1(IDX:3),gpu:g5:1(IDX:5)", &m), 0);
    assert_int_equal(m, 0x28); /* bits 3 and 5 */
    assert_int_equal(gs_slurm_gres_idx("gpu:2", &m), GS_EINVAL);
    assert_int_equal(gs_slurm_gres_idx("gpu:2(IDX:64)", &m), GS_EINVAL);
}

static char *slurp(const char *path, size_t *len)
{
    char *buf;
    struct gs_error err = { 0 };
    if (gs_read_file(path, &buf, len, &err) < 0)
        fail_msg("%s", err.msg);
    return buf;
}

/* Recorded on the private cluster (examples/seed-cluster.yaml): jobs 6
 * (6 GPUs on node-1), 7 (5 on node-2), 9 (8 on node-3), 8 (1 on node-4)
 * running, job 10 (8 GPUs, 20 min) pending for Resources. */
static void test_state_recorded(void **state)
{
    (void)state;
    size_t nq, ni;
    char *sq = slurp("tests/data/slurm/squeue-seed.json", &nq);
    char *si = slurp("tests/data/slurm/sinfo-seed.json", &ni);
    struct gs_slurm_state st;
    struct gs_error err = { 0 };
    if (gs_slurm_state_parse(sq, nq, si, ni, 1796200000, &st, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(st.jobs_running, 4);
    assert_int_equal(st.jobs_pending, 1);
    json_t *run = json_object_get(st.snapshot, "running");
    assert_int_equal(json_array_size(run), 4);
    int seen = 0;
    for (size_t i = 0; i < 4; i++) {
        json_t *e = json_array_get(run, i);
        if (strcmp(json_string_value(json_object_get(e, "id")), "6") == 0) {
            assert_string_equal(json_string_value(json_object_get(e, "placement")),
                                "node-1:0,1,2,3,4,5");
            assert_int_equal(json_integer_value(json_object_get(e, "time_limit")), 3600);
            seen = 1;
        }
    }
    assert_true(seen);
    json_t *q = json_array_get(json_object_get(st.snapshot, "queue"), 0);
    assert_string_equal(json_string_value(json_object_get(q, "id")), "10");
    assert_int_equal(json_integer_value(json_object_get(q, "gpus")), 8);
    assert_int_equal(json_integer_value(json_object_get(q, "time_limit")), 1200);
    assert_string_equal(json_string_value(json_object_get(q, "slurm_reason")), "Resources");
    /* the cluster from sinfo: 4 nodes x 8 GPUs; the snapshot leaves
     * 8-6 + 8-5 + 0 + 8-1 = 12 free, no node with 8: S_8 = 0 */
    struct gs_cluster *cl = gs_slurm_state_cluster(&st, 0, &err);
    assert_non_null(cl);
    assert_int_equal(gs_cluster_node_count(cl), 4);
    char *text = json_dumps(st.snapshot, 0);
    struct gs_snapshot snap;
    if (gs_snapshot_parse_json(text, strlen(text), "slurm", cl, &snap, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(gs_cluster_stats(cl).idle_gpus, 12);
    assert_int_equal(gs_cluster_stats(cl).sched, 0);
    assert_int_equal(gs_trace_count(snap.running), 4);
    gs_snapshot_fini(&snap);
    free(text);
    gs_cluster_destroy(cl);
    gs_slurm_state_fini(&st);
    /* errors name the command */
    assert_int_equal(gs_slurm_state_parse("{}", 2, si, ni, 0, &st, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "squeue"));
    assert_int_equal(gs_slurm_state_parse(sq, nq, "[", 1, 0, &st, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "sinfo"));
    /* recorded: squeue --json against a controller that does not answer */
    size_t nu;
    char *un = slurp("tests/data/slurm/squeue-unreachable.json", &nu);
    assert_int_equal(gs_slurm_state_parse(un, nu, si, ni, 0, &st, &err), GS_EIO);
    assert_string_equal(err.msg, "squeue: Failed while looking for jobs (Unspecified error): is"
                                 " Slurm reachable (SLURM_CONF)?");
    assert_int_equal(gs_slurm_check("squeue", un, nu, &err), GS_EIO);
    assert_int_equal(gs_slurm_check("squeue", sq, nq, &err), 0);
    gs_free(un);
    gs_free(sq);
    gs_free(si);
}

static struct gs_cluster *yaml_cluster(const char *y)
{
    struct gs_error err = { 0 };
    struct gs_cluster *cl = gs_cluster_parse_yaml(y, strlen(y), "c.yaml", &err);
    if (!cl)
        fail_msg("%s", err.msg);
    return cl;
}

static char *render(void (*fn)(FILE *, const struct gs_cluster *, const struct gs_slurm_conf *),
                    const struct gs_cluster *cl, const struct gs_slurm_conf *c)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    fn(f, cl, c);
    fclose(f);
    return buf;
}

static void test_conf(void **state)
{
    (void)state;
    struct gs_cluster *cl = yaml_cluster(
        "cluster:\n  gpu_types: {H100: {memory_gb: 80}}\n  nodes:\n"
        "    - {name: 'a[1-2]', gpus: 8, gpu_type: H100, nvlink_domains: [4, 4], domain: nvl-x}\n"
        "    - {name: b1, gpus: 2, gpu_type: H100}\n");
    int ports[3] = { 7001, 7002, 7003 };
    struct gs_slurm_conf c = { "/r", "vm", "t", 7000, ports, 0, 0, 0 };
    char *s = render(gs_slurm_conf_write_slurm, cl, &c);
    assert_non_null(strstr(s, "NodeName=a1 NodeHostname=vm NodeAddr=127.0.0.1 Port=7001 "
                              "CPUs=64 RealMemory=1024 Gres=gpu:8 Features=H100,nvl-x"));
    assert_non_null(strstr(s, "NodeName=b1 NodeHostname=vm NodeAddr=127.0.0.1 Port=7003 "
                              "CPUs=16"));
    assert_non_null(strstr(s, "TopologyPlugin=topology/tree"));
    assert_non_null(strstr(s, "SlurmctldPort=7000"));
    free(s);
    s = render(gs_slurm_conf_write_gres, cl, &c);
    /* GPU 0 of a [4, 4] node is linked to 1-3, not to 4-7 */
    assert_non_null(strstr(s, "NodeName=a1 Name=gpu File=/r/dev/a1/nvidia0 "
                              "Links=-1,1,1,1,0,0,0,0\n"));
    assert_non_null(strstr(s, "NodeName=a2 Name=gpu File=/r/dev/a2/nvidia6 "
                              "Links=0,0,0,0,1,1,-1,1\n"));
    free(s);
    c.gpu_types = 1;
    s = render(gs_slurm_conf_write_slurm, cl, &c);
    assert_non_null(strstr(s, "Gres=gpu:g0:1,gpu:g1:1,gpu:g2:1,gpu:g3:1,gpu:g4:1,gpu:g5:1,"
                              "gpu:g6:1,gpu:g7:1 "));
    free(s);
    s = render(gs_slurm_conf_write_gres, cl, &c);
    assert_non_null(strstr(s, "NodeName=b1 Name=gpu Type=g1 File=/r/dev/b1/nvidia1"));
    free(s);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_int_equal(gs_slurm_conf_write_topology(f, cl), 1);
    fclose(f);
    assert_non_null(strstr(buf, "SwitchName=d-nvl-x Nodes=a1,a2\n"));
    assert_non_null(strstr(buf, "SwitchName=n-b1 Nodes=b1\n"));
    assert_non_null(strstr(buf, "SwitchName=top Switches=d-nvl-x,n-b1\n"));
    free(buf);
    gs_cluster_destroy(cl);
}

static const char *const seed_yaml =
    "cluster:\n  gpu_types: {H100: {memory_gb: 80}}\n  nodes:\n"
    "    - {name: 'node-[1-4]', gpus: 8, gpu_type: H100}\n";

static void test_snapshot_running(void **state)
{
    (void)state;
    struct gs_cluster *cl = yaml_cluster(seed_yaml);
    const char *js = "{\"time\": 100, \"running\": ["
                     "{\"id\": \"a\", \"placement\": \"node-1:0-5\", \"start\": 50,"
                     " \"time_limit\": \"01:00:00\"},"
                     "{\"id\": \"b\", \"placement\": \"node-2:0,1 node-3:7\", \"start\": 60}],"
                     " \"nodes\": {\"node-4\": \"drain\"}}";
    struct gs_snapshot s;
    struct gs_error err = { 0 };
    if (gs_snapshot_parse_json(js, strlen(js), "s.json", cl, &s, &err) < 0)
        fail_msg("%s", err.msg);
    /* 32 - 6 - 3 - 8 (node-4 drained) = 15 free */
    assert_int_equal(gs_cluster_stats(cl).idle_gpus, 15);
    assert_int_equal(gs_trace_count(s.running), 2);
    assert_int_equal(gs_trace_job(s.running, 0)->time_limit, 3600000);
    assert_int_equal(gs_trace_job(s.running, 1)->gpus, 3);
    assert_int_equal(s.node_state[3], GS_NODE_DRAIN);
    gs_snapshot_fini(&s);
    gs_cluster_destroy(cl);
    static const struct { const char *js, *msg; } bad[] = {
        { "{\"running\": [{\"id\": \"a\", \"placement\": \"node-9:0\", \"start\": 1}]}",
          "no node 'node-9'" },
        { "{\"running\": [{\"id\": \"a\", \"placement\": \"node-1:0,0\", \"start\": 1}]}",
          "at byte 9: GPU 0 of node-1 given twice" }, /* io/placement.h */
        { "{\"running\": [{\"id\": \"a\", \"placement\": \"node-1:0\", \"start\": 1, \"gpus\": 2}]}",
          "gpus 2 but the placement has 1" },
        { "{\"running\": [{\"id\": \"a\", \"placement\": \"node-1:0\"}]}", "are required" },
        { "{\"running\": [{\"id\": \"a\", \"placement\": \"node-1:0\", \"start\": 1},"
          " {\"id\": \"b\", \"placement\": \"node-1:0\", \"start\": 1}]}", "running[1] (b)" },
        { "{\"nodes\": {\"node-1\": \"broken\"}}", "expected \"up\", \"drain\" or \"down\"" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cl = yaml_cluster(seed_yaml);
        int rc = gs_snapshot_parse_json(bad[i].js, strlen(bad[i].js), "s.json", cl, &s, &err);
        gs_cluster_destroy(cl);
        assert_int_equal(rc, i == 4 ? GS_ENOSPC : GS_EINVAL); /* 4: GPU 0 taken twice */
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
        assert_null(s.running);
    }
}

static void test_sacct(void **state)
{
    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    /* job 1: preempted after 10 s, requeued, then 60 s; job 2 on two
     * nodes; job 3 a step row; job 4 never started */
    const char *txt =
        "Submit|JobID|Start|End|Elapsed|AllocTRES|NNodes|NodeList|State|Account|Timelimit\n"
        "2026-01-01T00:00:00|1|2026-01-01T00:00:05|2026-01-01T00:00:15|00:00:10|gres/gpu=4|1|g1|PREEMPTED|a|01:00:00\n"
        "2026-01-01T00:00:15|1|2026-01-01T00:03:00|2026-01-01T00:04:00|00:01:00|gres/gpu=4|1|g1|COMPLETED|a|01:00:00\n"
        "2026-01-01T00:00:02|2|2026-01-01T00:00:02|2026-01-01T00:00:32|00:00:30|gres/gpu=16|2|g[2-3]|COMPLETED||UNLIMITED\n"
        "2026-01-01T00:00:02|2.batch|2026-01-01T00:00:02|2026-01-01T00:00:32|00:00:30|gres/gpu=8|1|g2|COMPLETED||\n"
        "2026-01-01T00:00:03|4|Unknown|Unknown|00:00:00||1|None assigned|CANCELLED by 0|a|10\n";
    struct gs_sacct_result r;
    struct gs_error err = { 0 };
    if (gs_sacct_parse(txt, strlen(txt), "a.txt", &r, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(r.stats.rows, 5);
    assert_int_equal(r.stats.steps, 1);
    assert_int_equal(r.stats.jobs, 2);
    assert_int_equal(r.stats.runs_lost, 1);
    assert_true(r.stats.lost_gpu_s == 40.0); /* 4 GPUs x 10 s */
    assert_int_equal(r.stats.dropped[GS_SACCT_DROP_NEVER_STARTED], 1);
    assert_int_equal(r.stats.no_limit, 1);
    assert_int_equal(r.stats.no_account, 1);
    /* order by submit: job 1 (0 s), job 2 (2 s) */
    const struct gs_job_spec *j1 = gs_trace_job(r.trace, 0), *j2 = gs_trace_job(r.trace, 1);
    assert_string_equal(j1->id, "1");
    assert_int_equal(j1->submit, 0);
    assert_int_equal(gs_trace_duration(r.trace, 0), 60000);
    assert_int_equal(j1->gpus, 4);
    assert_int_equal(j1->time_limit, 3600000);
    assert_int_equal(r.extra[0].runs, 2);
    assert_int_equal(r.extra[0].first_start, 5);
    assert_int_equal(r.extra[0].start, 180);
    assert_string_equal(j2->id, "2");
    assert_int_equal(j2->submit, 2000);
    assert_int_equal(j2->gpus, 16);
    assert_string_equal(r.extra[1].nodelist, "g2 g3");
    assert_int_equal(r.stats.submit_min, 1767225600); /* 2026-01-01T00:00:00Z */
    gs_sacct_result_fini(&r);
    assert_int_equal(gs_sacct_parse("JobID|Start\n1|x\n", 16, "b.txt", &r, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "b.txt:1: no Submit column"));
    assert_int_equal(gs_sacct_parse("{\"jobs\": 1}", 11, "c.json", &r, &err), GS_EINVAL);
    assert_null(r.trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_durations),      cmocka_unit_test(test_times),
        cmocka_unit_test(test_hostlists),      cmocka_unit_test(test_tres_gres),
        cmocka_unit_test(test_state_recorded), cmocka_unit_test(test_conf),
        cmocka_unit_test(test_snapshot_running), cmocka_unit_test(test_sacct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
