/* fuzz_sim_events.c - libFuzzer target: the simulator and the live
 * lifecycle on fuzzed traces and node events, with gs_engine_check after
 * every step.
 *
 * Input: byte 0 picks the policy and the driver; the rest is split at its
 * first NUL byte: before it a trace CSV (gs_trace_parse_csv, durations
 * required), after it a node-event CSV (gs_node_events_parse) on a fixed
 * cluster built in code (n1, n2: 8 GPUs; n3: 4 GPUs in domains [2, 2]).
 * At most 48 jobs and 48 events are replayed (longer inputs are cut), so
 * each input runs in milliseconds.
 *   byte 0 & 3: 0 fifo + pack, 1 priority + EASY backfill, 2 priority +
 *               immediate preemption, 3 priority + checkpoint preemption
 *               with a grace, frag placement;
 *   byte 0 & 4: the live driver below instead of gs_sim_run: every START is
 *               confirmed one second later (or fails to launch, for one
 *               job in five on its first attempt), every stop is confirmed
 *               one second later, a job exits when its work is done (or
 *               with code 1, for one job in seven).
 * Properties: gs_sim_run with opts.check never reports GS_ESTATE (an
 * invariant broken); in the live driver gs_engine_check passes after every
 * call, every call the driver makes is accepted, gs_engine_queue_list lists
 * exactly the pending jobs after each step, and ended jobs it retires
 * (handles divisible by 3) are unknown afterwards. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/engine.h"
#include "io/node_events_csv.h"
#include "io/trace_csv.h"
#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_JOBS 48
#define MAX_EVENTS 48
#define MAX_STEPS 20000

static struct gs_cluster *make_cluster(void)
{
    static const char *const names[] = { "n1", "n2", "n3" };
    struct gs_cluster *cl = gs_cluster_create();
    if (!cl || gs_cluster_add_gpu_type(cl, "H100", 80 * 1024, NULL) < 0)
        abort();
    for (int i = 0; i < 3; i++) {
        struct gs_node_spec s = { .name = names[i], .gpus = i == 2 ? 4 : 8, .gpu_type = 0 };
        if (i == 2) {
            s.ndomains = 2;
            s.domain_sizes[0] = s.domain_sizes[1] = 2;
        }
        if (gs_cluster_add_node(cl, &s, NULL) < 0)
            abort();
    }
    if (gs_cluster_seal(cl, 0, NULL) < 0)
        abort();
    return cl;
}

static void set(struct gs_policy *p, const char *k, const char *v)
{
    if (gs_policy_set(p, k, v, NULL) != 0)
        abort();
}

static void make_policy(struct gs_policy *p, int kind)
{
    gs_policy_init(p);
    if (kind == 0)
        return;
    set(p, "queue.policy", "priority_with_backfill");
    if (kind >= 2) {
        set(p, "queue.policy", "priority");
        set(p, "preemption.mode", kind == 2 ? "immediate" : "checkpoint");
        set(p, "preemption.min_runtime", "0s");
    }
    if (kind == 3) {
        set(p, "preemption.grace", "30s");
        set(p, "placement.strategy", "frag");
    }
}

static void check(const struct gs_engine *eng)
{
    struct gs_error err;
    if (gs_engine_check(eng, &err) != 0) {
        fprintf(stderr, "invariant broken: %s\n", err.msg);
        abort();
    }
}

static void must(int rc, const char *what, const struct gs_error *err)
{
    if (rc < 0) {
        fprintf(stderr, "%s refused: %d %s\n", what, rc, err->msg);
        abort();
    }
}

/* The queue listing holds exactly the pending jobs; ended jobs with a
 * handle divisible by 3 are retired (and must then be unknown). */
static void list_and_retire(struct gs_engine *eng)
{
    int q[MAX_JOBS + 1];
    int n = gs_engine_queue_list(eng, q, MAX_JOBS + 1);
    if (n != gs_engine_pending_count(eng))
        abort();
    for (int i = 0; i < n && i <= MAX_JOBS; i++) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, q[i], &ji) != 0 || ji.state != GS_JOB_PENDING)
            abort();
    }
    for (int h = 0; h < gs_engine_job_count(eng); h += 3) {
        struct gs_job_info ji;
        if (gs_engine_job_info(eng, h, &ji) != 0 || !gs_job_state_terminal(ji.state))
            continue;
        if (gs_engine_retire(eng, h, NULL) != 0 || gs_engine_job_info(eng, h, &ji) != GS_ENOENT)
            abort();
    }
    check(eng);
}

/* The live driver's view of one job: when its pending confirmation is due. */
struct lj {
    gs_time confirm;         /* STARTING / STOPPING: when the driver answers */
};

/* Earliest time after `t` at which something happens: a submission, a
 * node event, an engine wakeup, a confirmation due, a running job's end;
 * GS_TIME_INF when nothing will. */
static gs_time next_instant(const struct gs_engine *eng, const struct gs_trace *tr,
                            const size_t *order, size_t next, const struct gs_node_events *ne,
                            size_t nev, const struct lj *lj, const size_t *trace_of, gs_time t)
{
    gs_time best = gs_engine_next_wakeup(eng, t);
    if (next < gs_trace_count(tr) && gs_trace_job(tr, order[next])->submit < best)
        best = gs_trace_job(tr, order[next])->submit;
    if (nev < ne->n && ne->ev[nev].time < best)
        best = ne->ev[nev].time;
    for (int h = 0; h < gs_engine_job_count(eng); h++) {
        struct gs_job_info ji;
        gs_time end;
        if (gs_engine_job_info(eng, h, &ji) != 0)
            continue;
        if ((ji.state == GS_JOB_STARTING || ji.state == GS_JOB_STOPPING) &&
            lj[h].confirm < best)
            best = lj[h].confirm;
        if (ji.state == GS_JOB_RUNNING &&
            gs_engine_job_eta(eng, h, gs_trace_duration(tr, trace_of[h]), &end) == 0 &&
            end < best)
            best = end;
    }
    return best > t ? best : t + 1;
}

/* Answer what is due at `t` for job `h` (trace index `ti`). */
static void answer(struct gs_engine *eng, const struct gs_trace *tr, size_t ti, int h,
                   struct lj *lj, gs_time t)
{
    struct gs_job_info ji;
    struct gs_error err;
    if (gs_engine_job_info(eng, h, &ji) != 0)
        return;
    if (ji.state == GS_JOB_STARTING && lj[h].confirm <= t) {
        if (h % 5 == 0 && ji.attempts == 1)
            must(gs_engine_launch_failed(eng, t, h, &err), "launch_failed", &err);
        else
            must(gs_engine_started(eng, t, h, &err), "started", &err);
    } else if (ji.state == GS_JOB_STOPPING && lj[h].confirm <= t) {
        must(gs_engine_exited(eng, t, h, 143, &err), "exited (stop)", &err);
    } else if (ji.state == GS_JOB_RUNNING) {
        gs_time end;
        if (gs_engine_job_eta(eng, h, gs_trace_duration(tr, ti), &end) == 0 && end <= t)
            must(gs_engine_exited(eng, t, h, h % 7 == 3 ? 1 : 0, &err), "exited", &err);
        else
            return;
    } else {
        return;
    }
    check(eng);
}

struct live_obs {
    struct lj *lj;
};

static void on_live_event(void *arg, const struct gs_event *ev)
{
    struct live_obs *o = arg;
    if (ev->kind == GS_EV_START || ev->kind == GS_EV_KILL || ev->kind == GS_EV_PREEMPT ||
        ev->kind == GS_EV_CANCEL)
        o->lj[ev->job].confirm = ev->time + 1000;
}

/* Submissions and node events of instant `t`. */
static void feed(struct gs_engine *eng, const struct gs_trace *tr, const size_t *order,
                 size_t *next, const struct gs_node_events *ne, size_t *nev,
                 size_t *trace_of, gs_time t)
{
    size_t n = gs_trace_count(tr);
    struct gs_error err;
    for (; *nev < ne->n && ne->ev[*nev].time == t; (*nev)++) {
        const struct gs_node_event *e = &ne->ev[*nev];
        int rc = e->gpu < 0 ? gs_engine_node_set_state(eng, t, e->node, e->state, &err)
                            : gs_engine_gpu_set_state(eng, t, e->node, e->gpu, e->state, &err);
        must(rc, "node event", &err);
        check(eng);
    }
    for (; *next < n && gs_trace_job(tr, order[*next])->submit == t; (*next)++) {
        int h = gs_engine_submit(eng, t, gs_trace_job(tr, order[*next]), &err);
        if (h >= 0) /* a bad or duplicate row is refused */
            trace_of[h] = order[*next];
        check(eng);
    }
}

static void run_live(const struct gs_cluster *cl, const struct gs_policy *pol,
                     const struct gs_trace *tr, const struct gs_node_events *ne)
{
    struct gs_error err;
    struct gs_engine *eng = gs_engine_create(cl, pol, &err);
    size_t n = gs_trace_count(tr), *order = gs_trace_order(tr);
    struct lj *lj = calloc(n + 1, sizeof *lj);
    size_t *trace_of = calloc(n + 1, sizeof *trace_of);
    if (!eng || !lj || !trace_of || (n && !order))
        abort();
    struct live_obs obs = { lj };
    gs_engine_set_observer(eng, on_live_event, &obs);
    gs_engine_set_live(eng, 1);
    size_t next = 0, nev = 0;
    gs_time t = 0;
    for (int steps = 0; steps < MAX_STEPS; steps++) {
        for (int h = 0; h < gs_engine_job_count(eng); h++)
            answer(eng, tr, trace_of[h], h, lj, t);
        feed(eng, tr, order, &next, ne, &nev, trace_of, t);
        must(gs_engine_step(eng, t, &err), "step", &err);
        check(eng);
        list_and_retire(eng);
        if (next == n && nev == ne->n && gs_engine_running_count(eng) == 0)
            break; /* what still waits needs GPUs that never come back */
        gs_time nt = next_instant(eng, tr, order, next, ne, nev, lj, trace_of, t);
        if (nt == GS_TIME_INF)
            break;
        t = nt;
    }
    gs_engine_destroy(eng);
    free(lj);
    free(trace_of);
    free(order);
}

static void run_sim(const struct gs_cluster *cl, const struct gs_policy *pol,
                    const struct gs_trace *tr, const struct gs_node_events *ne)
{
    struct gs_sim_opts o = { 0 };
    o.check = 1;
    o.node_events = ne;
    struct gs_sim_result r;
    struct gs_error err;
    int rc = gs_sim_run(cl, pol, tr, &o, &r, &err);
    if (rc == GS_ESTATE) {
        fprintf(stderr, "invariant broken: %s\n", err.msg);
        abort();
    }
    if (rc == 0)
        gs_sim_result_fini(&r);
}

/* Keep the first MAX_JOBS jobs with durations capped at 10 days. */
static struct gs_trace *cut(const struct gs_trace *tr)
{
    struct gs_trace *out = gs_trace_create();
    if (!out)
        abort();
    for (size_t i = 0; i < gs_trace_count(tr) && i < MAX_JOBS; i++) {
        gs_time d = gs_trace_duration(tr, i);
        if (d > (gs_time)864000000)
            d = 864000000;
        if (gs_trace_add(out, gs_trace_job(tr, i), d) < 0)
            abort();
    }
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    const char *nul = memchr(text, '\0', len);
    size_t tlen = nul ? (size_t)(nul - text) : len;
    struct gs_error err;
    struct gs_trace *full = gs_trace_parse_csv(text, tlen, "fuzz.csv", 1, &err);
    if (!full)
        return 0;
    struct gs_cluster *cl = make_cluster();
    struct gs_node_events ne = { 0 };
    if (nul && gs_node_events_parse(nul + 1, len - tlen - 1, "events.csv", cl,
                                    gs_trace_epoch(full), &ne, &err) != 0) {
        if (ne.ev)
            abort(); /* nothing left behind on error */
        ne.n = 0;
    }
    if (ne.n > MAX_EVENTS)
        ne.n = MAX_EVENTS;
    struct gs_trace *tr = cut(full);
    struct gs_policy pol;
    make_policy(&pol, mode & 3);
    if (mode & 4)
        run_live(cl, &pol, tr, &ne);
    else
        run_sim(cl, &pol, tr, &ne);
    gs_policy_fini(&pol);
    gs_node_events_fini(&ne);
    gs_trace_destroy(tr);
    gs_trace_destroy(full);
    gs_cluster_destroy(cl);
    return 0;
}
