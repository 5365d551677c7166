#!/bin/sh
# Refusal at the door against a real gpuschedd: a job the engine could
# never run on the cluster as configured is answered 400 naming the field
# and the reason, `gpusched submit` exits 1 printing it, and no job is
# made (the listing stays empty, the journal has no row).  The cluster
# (tests/data/cli/door-cluster.yaml) has 3 nodes x 8 H100-80G = 24 GPUs,
# 80 GB each, 8 per node and per NVLink domain; the numbers in the
# messages are those.  With partitions (door-parts.yaml) an inference job
# may use node-3 only: 8 GPUs.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/client_lib.sh"
plan 30

G=$GPUSCHED
start_daemon --cluster "$DATA/door-cluster.yaml" --policy "$DATA/live-basic.yaml"
ok $? "daemon starts on the 24-GPU cluster"

# refuse ARGS... : submit, expect exit 1; sets $out
refuse() { run "$G" submit "$@" -- sleep 1; }

refuse --gpus 100
is "$rc" 1 "--gpus 100: submit exits 1"
like "$out" "gpus: 100 requested, the cluster has 24 GPUs (field gpus, never_runs, HTTP 400)" \
    "--gpus 100: the field and the cluster's 24 GPUs"
refuse --gpu-model B200
is "$rc" 1 "--gpu-model B200: submit exits 1"
like "$out" "gpu_model: no node has a B200 GPU (the cluster has H100-80G) (field gpu_model" \
    "--gpu-model B200: names the model and the ones there are"
refuse --gpu-mem-gb 100
is "$rc" 1 "--gpu-mem-gb 100: submit exits 1"
like "$out" "gpu_mem_gb: 100 GB per GPU requested, the largest GPU has 80 GB (field gpu_mem_gb" \
    "--gpu-mem-gb 100: 80 GB is the most a GPU has"
refuse --gpus 12 --topology node
is "$rc" 1 "--gpus 12 --topology node: submit exits 1"
like "$out" "topology: node: 12 GPUs requested on one node, the largest has 8 (field topology" \
    "12 GPUs on one node: nodes have 8"
refuse --gpus 2 --gpu-model H100-80G --gpu-mem-gb 81
like "$out" "gpu_mem_gb: 81 GB per GPU requested, the largest H100-80G GPU has 80 GB" \
    "memory beside a model: the model named"

# the API's own answer: 400, code never_runs, field
body=$(curl -s -w '\n%{http_code}' -XPOST "$GPUSCHED_SERVER/v1/jobs" \
    -H 'Content-Type: application/json' -d '{"gpus":100,"command":["sleep","1"]}')
is "$(printf '%s\n' "$body" | tail -1)" 400 "POST /v1/jobs gpus 100: HTTP 400"
is "$(printf '%s\n' "$body" | head -1 | jq -r '.error.code + " " + .error.field')" "never_runs gpus" \
    "the error body: code never_runs, field gpus"
out=$("$G" submit --json --gpus 100 -- sleep 1 2>/dev/null)
is "$(printf '%s\n' "$out" | jq -r '.error.field')" gpus "--json prints the error body on stdout"

run "$G" queue --all --json
is "$(printf '%s' "$out" | jq '.jobs | length')" 0 "no job was made by any refusal"
is "$(sqlite3 "$STATE/journal.db" 'select count(*) from jobs' 2>&1)" 0 "the journal has no job row"

# what can run is taken as before: the whole cluster, a node, 80 GB
run "$G" submit --id all --gpus 24 --time-limit 1m -- sleep 1
is "$out" all "24 GPUs (the whole cluster) is taken"
run "$G" submit --id mem --gpus 1 --gpu-mem-gb 80 --gpu-model H100-80G --time-limit 1m -- sleep 1
is "$out" mem "80 GB on an H100-80G is taken"
run "$G" submit --id node --gpus 8 --topology node --time-limit 1m -- sleep 1
is "$out" node "8 GPUs on one node is taken"
is "$("$G" queue --all --json | jq '.jobs | length')" 3 "three jobs listed"
run "$G" show --json all
like "$(printf '%s' "$out" | jq -r .state)" "pending\|starting\|running\|done" "the 24-GPU job is a job"
isnt_rejected=$(printf '%s' "$out" | jq -r '.outcome != "rejected"')
is "$isnt_rejected" true "the 24-GPU job is not rejected later"
stop_daemon

# partitions: inference may use node-3's 8 GPUs only
STATE=$TMP/state2
start_daemon --cluster "$DATA/door-cluster.yaml" --policy "$DATA/door-parts.yaml"
ok $? "daemon starts with partitions serve (node-3, infer) and batch (train)"
refuse --class infer --gpus 12
is "$rc" 1 "12-GPU inference job: exit 1"
like "$out" "gpus: 12 requested, the cluster has 8 GPUs in partition serve (field gpus" \
    "its partition's 8 GPUs are named"
refuse --class train --gpus 20
is "$rc" 1 "20-GPU training job: exit 1"
like "$out" "gpus: 20 requested, the cluster has 16 GPUs (field gpus" \
    "training has the 16 GPUs of the pool"
run "$G" queue --all --json
is "$(printf '%s' "$out" | jq '.jobs | length')" 0 "no job made"
run "$G" submit --id inf8 --class infer --gpus 8 --time-limit 1m -- sleep 1
is "$rc:$out" "0:inf8" "an 8-GPU inference job is taken"
run "$G" submit --id tr16 --class train --gpus 16 --time-limit 1m -- sleep 1
is "$rc:$out" "0:tr16" "a 16-GPU training job is taken"
is "$("$G" queue --all --json | jq '[.jobs[] | select(.outcome == "rejected")] | length')" 0 \
    "none of the taken jobs is rejected later"
