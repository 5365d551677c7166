#!/usr/bin/env python3
"""aaic-order.py - docs/aaic-replay.md section 3.8: does AAIC start jobs in
submit order?  For an imported quarter (gpusched import --format aaic
--trace-out Q.csv) and, optionally, a replay's jobs.csv:

  - identical jobs (same user, GPUs, walltime_req, queue), consecutive in
    submit order, both waited > 60 s: how many started out of submit order,
    by how much, and whether the first to start had the smaller id;
  - per heavy user: most jobs running at once, jobs that waited > 600 s and
    how many of those started within 15 s after one of the user's own
    jobs ended;
  - 1-GPU jobs, per queue, that started > 60 s before an older waiting
    4-8 GPU job.

Usage: aaic-order.py Q.csv [REPLAY_DIR]
"""
import bisect
import collections
import csv
import sys


def load(trace, replay):
    rep = {}
    if replay:
        rep = {r["id"]: float(r["wait"]) for r in csv.DictReader(open(replay + "/jobs.csv"))}
    jobs = []
    for r in csv.DictReader(open(trace)):
        s = float(r["submit"])
        w = rep[r["id"]] if replay else float(r["observed_wait"])
        jobs.append(dict(id=r["id"], num=int(r["id"].split("-")[0]), sub=s, st=s + w,
                         end=s + w + float(r["duration"]), g=int(r["gpus"]), u=r["user"],
                         q=r["queue"], tl=r["time_limit"], w=w))
    return jobs


def identical(jobs):
    by = collections.defaultdict(list)
    for j in jobs:
        by[(j["u"], j["g"], j["tl"], j["q"])].append(j)
    pairs = smaller_id = 0
    gaps, big_first_smaller = [], 0
    for v in by.values():
        v.sort(key=lambda j: (j["sub"], j["num"]))
        for a, b in zip(v, v[1:]):
            if a["w"] > 60 and b["w"] > 60 and b["sub"] > a["sub"]:
                pairs += 1
                smaller_id += a["num"] < b["num"]
                if b["st"] < a["st"] - 1:
                    gaps.append(a["st"] - b["st"])
                    if a["st"] - b["st"] > 600:
                        big_first_smaller += b["num"] < a["num"]
    gaps.sort()
    big = sum(1 for g in gaps if g > 600)
    print("identical consecutive pairs that both waited: %d; started out of submit order: %d "
          "(median inversion %.0f s, %d by more than 10 min, in which the first to start has "
          "the smaller id %d times); ids follow submit order in %d pairs"
          % (pairs, len(gaps), gaps[len(gaps) // 2] if gaps else 0, big, big_first_smaller,
             smaller_id))


def users(jobs):
    per = collections.defaultdict(list)
    for j in jobs:
        per[j["u"]].append(j)
    rows = []
    for u, us in per.items():
        ev = sorted([(j["st"], 1) for j in us] + [(j["end"], -1) for j in us])
        run = most = 0
        for _, d in ev:
            run += d
            most = max(most, run)
        ends = sorted(j["end"] for j in us)
        delayed = [j for j in us if j["w"] > 600]
        after = 0
        for j in delayed:
            i = bisect.bisect_left(ends, j["st"] - 15)
            after += i < len(ends) and ends[i] <= j["st"] + 1
        rows.append((len(delayed), u, len(us), most, after))
    for d, u, n, most, after in sorted(rows, reverse=True)[:6]:
        print("user %s: %d jobs, most running at once %d, %d waited > 600 s, %d of them started "
              "within 15 s after one of the user's own jobs ended" % (u, n, most, d, after))


def overtakes(jobs):
    big = sorted([j for j in jobs if 4 <= j["g"] <= 8 and j["w"] > 600], key=lambda j: j["sub"])
    subs = [b["sub"] for b in big]
    over, tot = collections.Counter(), collections.Counter()
    for j in jobs:
        if j["g"] != 1:
            continue
        tot[j["q"]] += 1
        for b in big[:bisect.bisect_left(subs, j["sub"])]:
            if b["st"] > j["st"] + 60:
                over[j["q"]] += 1
                break
    print("1-GPU jobs that started > 60 s before an older waiting 4-8 GPU job: " +
          ", ".join("queue %s %d of %d" % (k, over[k], tot[k]) for k in sorted(tot)))


def main():
    jobs = load(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    identical(jobs)
    if len(sys.argv) == 2:
        users(jobs)
        overtakes(jobs)


if __name__ == "__main__":
    main()
