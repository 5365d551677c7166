#!/bin/sh
# fill_cpu_pod.t - under `--frag-score sigmoid` a CPU-only pod is scored by
# FGD's sigmoid like any other pod (fgd_score.go), not by the quantum.
. "$(dirname "$0")/tap.sh"
plan 3
# n2 (8 cores, listed first) and n1 (16 cores), one GPU each.  Jobs: C,
# CPU-only, 5 cores; G, 1 GPU, 4 cores.  Shapes {C: 0.5, G: 0.5}; inflate
# 0.5 = the trace's own 1000 milli-GPU: no copies, the order C, G or G, C
# depends on the seed.  --ties file: ties go to n2.
# C first: before, F = 0.5 x 1000 (C strands the free GPU) + 0 (G fits) =
# 500 on both nodes.  C on n1 leaves 11 cores: G still fits, change 0; on
# n2 it leaves 3 < 4: G no longer fits, change +500.
#   quantum 2000: round(0 / 2000) = round(0.25) = 0: a tie -> n2; G then
#     fits only n1: n2 keeps a free GPU G cannot use: F = 1000, amount
#     1000 / 2000 GPUs = 50 % at 50 % arrived.
#   sigmoid: -trunc(100 / (1 + e^0)) = -50 against -trunc(100 / (1 +
#     e^0.5)) = -37: n1; G then goes to n2 (both give -500: tie -> n2);
#     n1's free GPU, 11 cores: F = 0.5 x 1000 = 500: 25 %.
# G first: G on n2 (a tie), then C changes nothing on either node (n2 has
# no free GPU; n1 keeps 11 cores) -> n2; F = 500 on n1: 25 % both ways.
printf 'cluster:\n  nodes:\n    - {name: n2, gpus: 1, cpu: 8}\n    - {name: n1, gpus: 1, cpu: 16}\n' > "$TMP/c.yaml"
printf 'id,submit,duration,gpus,cpu\nC,0,1,0,5\nG,0,1,1,4\n' > "$TMP/t.csv"
printf 'placement:\n  strategy: frag\n  frag: {quantum: 2000}\n' > "$TMP/p.yaml"
q= s=
for seed in 1 2 3 4 5 6 7 8; do
    a() { "$GPUSCHED" fill --cluster "$TMP/c.yaml" --trace "$TMP/t.csv" --policy "$TMP/p.yaml" \
        --inflate 0.5 --ties file --seeds "$seed" "$@" --json |
        jq -r '.curve[] | select(.arrived == 50) | .frag_amount'; }
    q="$q $(a)"; s="$s $(a --frag-score sigmoid)"
done
echo "# frag amount at 50 % per seed: quantum$q; sigmoid$s"
like "$q" " 50" "quantum: C first goes to the first node and strands n2's GPU (50 %)"
is "$(echo $s | tr ' ' '\n' | sort -u | tr '\n' ' ')" "25 " "sigmoid: every seed ends at 25 %"
is "$(echo $q | tr ' ' '\n' | sort -u | tr '\n' ' ')" "25 50 " "quantum: 25 % when G comes first"
