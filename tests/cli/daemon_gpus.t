#!/bin/sh
# One physical GPU, one job (issue 21): with --local-gpus N the local
# backend maps node i's GPU g to host GPU offset(i) + g (offset = the GPUs of
# the nodes before it), so the seed cluster's 4 x 8 GPUs become host GPUs
# 0..31 and no host index is given to two running jobs; a host with fewer
# GPUs than the file maps is refused at start; without GPUs the daemon runs
# in a declared virtual mode (node-local indices), shown in /v1/cluster.
# Also --virtual-users (a job of a user with no account runs as the daemon).
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/daemon_lib.sh"
plan 18

# fill: eight 4-GPU jobs fill the 32 GPUs; each records its placement and
# CUDA_VISIBLE_DEVICES and holds until all eight run; prints "PLACEMENT CVD"
fill() {
    rm -f "$TMP"/cvd.*
    for i in 1 2 3 4 5 6 7 8; do
        api POST /v1/jobs "{\"id\":\"$1$i\",\"gpus\":4,\"command\":[\"sh\",\"-c\",
            \"echo \$GPUSCHED_PLACEMENT \$CUDA_VISIBLE_DEVICES > $TMP/cvd.$i; sleep 30\"]}"
    done
    for i in 1 2 3 4 5 6 7 8; do wait_state "$1$i" running 20 >/dev/null; done
    for _ in $(seq 100); do [ "$(cat "$TMP"/cvd.* 2>/dev/null | wc -l)" = 8 ] && break; sleep 0.05; done
    api GET /v1/jobs?state=running
    echo "$(field "$body" '.jobs | length')" >"$TMP/nrun"
    cat "$TMP"/cvd.*
    for i in 1 2 3 4 5 6 7 8; do api POST "/v1/jobs/$1$i/cancel"; done
    for i in 1 2 3 4 5 6 7 8; do wait_state "$1$i" cancelled 20 >/dev/null; done
}

# physical: the seed cluster (node-1..node-4, 8 GPUs each) on 32 host GPUs
S=$TMP/p
daemon_start "$S" --local-gpus 32
ok $? "--local-gpus 32 holds the seed cluster's 4 x 8 GPUs"
like "$(cat "$TMP/daemon.err")" "GPUs: physical, 32 on this host" "the daemon says which mode it runs in"
api GET /v1/cluster
is "$(field "$body" '.gpu_mode')" physical "/v1/cluster: gpu_mode physical"
seen=$(fill p)
printf '%s\n' "$seen" | sed 's/^/#   /'
is "$(cat "$TMP/nrun")" 8 "all eight 4-GPU jobs ran at the same time"
idx=$(printf '%s\n' "$seen" | awk '{print $2}' | tr ',' '\n')
is "$(printf '%s\n' "$idx" | wc -l | tr -d ' ')" 32 "8 jobs x 4 GPUs = 32 host indices"
is "$(printf '%s\n' "$idx" | sort -n | uniq -d | tr '\n' ' ')" "" \
    "no host GPU index was given to two running jobs"
is "$(printf '%s\n' "$idx" | sort -n | uniq | tr '\n' ' ')" \
    "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 " \
    "together they are host GPUs 0..31"
# each index = 8 * (node number - 1) + the placement's GPU number
bad=$(printf '%s\n' "$seen" | awk '{ n = split($1, p, ","); split($2, c, ",");
    for (i = 1; i <= n; i++) { split(p[i], a, ":"); k = substr(a[1], 6) + 0;
        if (c[i] != 8 * (k - 1) + a[2]) print "mismatch", $0 } }')
is "$bad" "" "node-K:g is host GPU 8 (K - 1) + g (the GPUs of the nodes before it, plus g)"
daemon_stop TERM

# virtual: the same jobs see node-local indices, so the same index repeats
S=$TMP/v
daemon_start "$S" --virtual-gpus
like "$(cat "$TMP/daemon.err")" "GPUs: virtual (--virtual-gpus): each node's GPU indices are used as they are" \
    "--virtual-gpus is announced at start"
api GET /v1/cluster
is "$(field "$body" '.gpu_mode')" virtual "/v1/cluster: gpu_mode virtual"
seen=$(fill v)
is "$(printf '%s\n' "$seen" | awk '{print $2}' | tr ',' '\n' | sort -n | uniq | wc -l | tr -d ' ')" 8 \
    "virtual mode: the 32 GPUs show as indices 0..7 only (what physical mode prevents)"
daemon_stop TERM

# too few host GPUs: refused at start, saying why
"$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$TMP/r" --listen 127.0.0.1:0 \
    --local-gpus 16 >"$TMP/r.out" 2>"$TMP/r.err"
is "$?" 1 "--local-gpus 16 for a 32-GPU cluster file: the daemon exits 1"
like "$(cat "$TMP/r.err")" "the cluster file's 4 nodes have 32 GPUs, this host has 16 (--local-gpus): one physical GPU would go to two jobs" \
    "and says that one physical GPU would go to two jobs"
"$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$TMP/r" --local-gpus 8 \
    --virtual-gpus >/dev/null 2>"$TMP/r.err"
is "$?" 2 "--local-gpus with --virtual-gpus is a usage error (2)"

# the default: physical when the host has GPU devices, else virtual
ndev=$(ls /dev | grep -c '^nvidia[0-9][0-9]*$')
if [ "$ndev" -gt 0 ]; then want=physical; else want=virtual; fi
"$GPUSCHEDD" --cluster "$ROOT/examples/seed-cluster.yaml" --state "$TMP/d" --listen 127.0.0.1:0 \
    >"$TMP/d.out" 2>"$TMP/d.err" &
dp=$!
for _ in $(seq 100); do grep -qs '^listening' "$TMP/d.out" && break; kill -0 $dp 2>/dev/null || break; sleep 0.05; done
if [ "$want" = virtual ]; then
    like "$(cat "$TMP/d.err")" "GPUs: virtual (no GPU device on this host)" \
        "no flag, no /dev/nvidiaN here: virtual mode, announced"
else
    like "$(cat "$TMP/d.err")" "GPUs:" "no flag, $ndev GPU devices: physical (or refused), announced"
fi
kill $dp 2>/dev/null; wait $dp 2>/dev/null

# --virtual-users: a user without an account runs as the daemon's; a real one as itself
S=$TMP/u
daemon_start "$S"
api POST /v1/jobs '{"id":"lbl","user":"u42","command":["id","-u"]}'
api POST /v1/jobs '{"id":"real","user":"nobody","command":["id","-u"]}'
wait_state lbl completed; wait_state real completed
is "$(cat "$S/output/lbl.1.out") $(cat "$S/output/real.1.out")" "0 65534" \
    "--virtual-users: user u42 (no account) ran as the daemon (0), nobody as 65534"
like "$(cat "$TMP/daemon.err")" "virtual-users: a job whose user has no account on this host runs as the daemon's own account" \
    "--virtual-users is announced at start"
daemon_stop TERM
sanitizer_clean
