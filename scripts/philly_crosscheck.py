#!/usr/bin/env python3
"""philly_crosscheck.py - an independent reference for docs/placement.md's
peer cross-check: strict FIFO (the head blocks, no backfill) on N nodes of 8
GPUs with one of two placement rules, restated from the peers' simulators:

  lucid     Lucid's ConsolidatePlacement (S-Lab-System-Group/Lucid,
            simulation/policy/placer/consolidate.py): a job of <= 8 GPUs
            takes the node with the fewest free GPUs that holds it (Python's
            stable sort: ties in node order); a larger job takes nodes with 8
            free GPUs in node order and, for a remainder, the node with the
            most free GPUs after them.
  tiresias  Tiresias' ms_yarn placement (SymbioticLab/Tiresias,
            simulator/switch.py try_single_node_alloc / try_cross_node_alloc):
            the first node in order with enough free GPUs; a larger job takes
            the first whole idle nodes and the remainder on the first other
            node with room.

Both simulators run FIFO the same way (Lucid policy/fifo.py, Tiresias
run_sim.py one_queue_fifo_sim_jobs): at each time, release the jobs that
end, queue the jobs that arrive, start jobs from the head while the head
fits.  Usage:

  philly_crosscheck.py RULE NODES TRACE.csv [--shuffle-ties SEED] > starts.csv

TRACE.csv has `id,submit,duration,gpus` (gpusched's trace columns); rows are
queued in file order within one second unless --shuffle-ties permutes each
same-second group (as an unstable sort may).  Writes `id,start`.
"""
import csv
import heapq
import random
import sys


def place_lucid(free, g):
    n = len(free)
    if g <= 8:
        for i in sorted(range(n), key=lambda i: free[i]):
            if free[i] >= g:
                return [(i, g)]
        return None
    order = sorted(range(n), key=lambda i: -free[i])
    whole, rem, out = g // 8, g % 8, []
    for i in order:
        if len(out) < whole:
            if free[i] < 8:
                return None
            out.append((i, 8))
            continue
        if rem == 0:
            break
        return out + [(i, rem)] if free[i] >= rem else None
    if len(out) < whole or (rem and len(out) == whole):
        return None
    return out


def place_tiresias(free, g):
    if g <= 8:
        for i, f in enumerate(free):
            if f >= g:
                return [(i, g)]
        return None
    whole, rem = g // 8, g % 8
    full = [i for i, f in enumerate(free) if f == 8][:whole]
    if len(full) < whole:
        return None
    if rem == 0:
        return [(i, 8) for i in full]
    for i, f in enumerate(free):
        if i not in full and f >= rem:
            return [(i, 8) for i in full] + [(i, rem)]
    return None


def main():
    rule, nodes, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    place = {"lucid": place_lucid, "tiresias": place_tiresias}[rule]
    jobs = [(int(r["submit"]), int(r["duration"]), int(r["gpus"]), r["id"])
            for r in csv.DictReader(open(path))]
    jobs.sort(key=lambda j: j[0])  # stable: file order within a second
    if "--shuffle-ties" in sys.argv:
        rng = random.Random(int(sys.argv[sys.argv.index("--shuffle-ties") + 1]))
        out, i = [], 0
        while i < len(jobs):
            k = i
            while k < len(jobs) and jobs[k][0] == jobs[i][0]:
                k += 1
            grp = jobs[i:k]
            rng.shuffle(grp)
            out += grp
            i = k
        jobs = out
    free = [8] * nodes
    ends = []  # (end, seq, parts)
    queue, nxt, seq, starts = [], 0, 0, {}
    head = 0
    while nxt < len(jobs) or head < len(queue):
        t = min(jobs[nxt][0] if nxt < len(jobs) else float("inf"),
                ends[0][0] if ends else float("inf"))
        while ends and ends[0][0] == t:
            for i, g in heapq.heappop(ends)[2]:
                free[i] += g
        while nxt < len(jobs) and jobs[nxt][0] == t:
            queue.append(jobs[nxt])
            nxt += 1
        while head < len(queue):
            sub, dur, g, jid = queue[head]
            parts = place(free, g)
            if parts is None:
                break
            for i, k in parts:
                free[i] -= k
            starts[jid] = t
            seq += 1
            heapq.heappush(ends, (t + dur, seq, parts))
            head += 1
        if head < len(queue) and not ends and nxt >= len(jobs):
            sys.exit("job %s can never fit" % queue[head][3])
    w = csv.writer(sys.stdout)
    w.writerow(["id", "start"])
    for j in jobs:
        w.writerow([j[3], starts[j[3]]])


if __name__ == "__main__":
    main()
