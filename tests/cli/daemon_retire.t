#!/bin/sh
# gpuschedd retires a job from the engine once its final state is
# journaled (gs_engine_retire, loop_jobs.c gsd_flush_rows), so the engine's
# memory follows the live jobs: 4 waves of 8 one-GPU jobs ("true") on the
# seed cluster (32 GPUs), each wave submitted once the previous one has
# completed and left the engine.  At most one wave (8 jobs) is ever held at
# once, so the engine never allocates more than 8 job records (without
# retirement it would hold all 32).  Retired jobs stay answerable from the
# journal, and their ids stay taken there.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 8

metric() { curl -s "$URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
# until the engine holds no job (10 s at most)
wait_held0() {
    _w=200
    while [ "$_w" -gt 0 ]; do
        [ "$(metric gpusched_engine_jobs_held)" = 0 ] && return 0
        sleep 0.05
        _w=$((_w - 1))
    done
    return 1
}

daemon_start "$TMP/s"
held_ok=0
for w in 1 2 3 4; do
    for i in 1 2 3 4 5 6 7 8; do
        api POST /v1/jobs "{\"id\":\"w$w-$i\",\"gpus\":1,\"command\":[\"true\"]}"
    done
    for i in 1 2 3 4 5 6 7 8; do
        wait_state "w$w-$i" completed || held_ok=1
    done
    wait_held0 || held_ok=1
done
ok $held_ok "every wave completes and leaves the engine"
is "$(metric gpusched_engine_jobs_held)" 0 "the engine holds no job once all 32 are journaled"
rec=$(metric gpusched_engine_job_records)
echo "# job records: $rec"
ok $([ -n "$rec" ] && [ "$rec" -ge 1 ] && [ "$rec" -le 8 ] && echo 0 || echo 1) \
    "at most 8 job records for 32 jobs (a wave's worth; the slots are reused)"
is "$(curl -s "$URL/metrics" | awk '$1 ~ /^gpusched_jobs_ended_total/ && /completed/ { s += $2 } END { print s }')" \
    32 "all 32 count as completed"
api GET /v1/jobs/w1-3
is "$code $(field "$body" '.state + " " + .outcome')" "200 done completed" \
    "a retired job is still answered from the journal"
api POST /v1/jobs '{"id":"w1-3","gpus":1,"command":["true"]}'
is "$code" 409 "a retired job's id stays taken (the journal knows it)"
api POST /v1/jobs '{"id":"after","gpus":1,"command":["true"]}'
wait_state after completed
ok $? "a new job runs after all that"
daemon_stop
sanitizer_clean
