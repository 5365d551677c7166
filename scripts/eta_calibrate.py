#!/usr/bin/env python3
"""eta_calibrate.py - one row of the start-time promise calibration table
(docs/eta.md) for a `gpusched sim --out DIR` run.

usage: eta_calibrate.py LABEL DIR [TRACE.csv]

The figures are recomputed from DIR/jobs.csv (an independent check of
summary.json's "eta" object, which must agree within 1 s or 0.1 %: a
warning says when it does not; the class median may differ by a few
seconds because jobs that start at one instant are ordered differently).  With TRACE (an AAIC import, which keeps the log's
`observed_wait`), more rows compare the same promises with the log's real
starts (submit + observed_wait).  The naive "class median" predictor is
rebuilt online from the truth of the row: at each submit, the median wait
of the last 512 jobs of the same size class that had started (nearest
rank, as the simulator does); submit when none had.  Subsets: all jobs
with an estimate that started, and "waiting": those whose promise was not
"now".

Columns: label, truth, subset, jobs, median |error|
of the engine's estimate, of the calibrated point, of naive "now", of naive
"class median", and the P90 bound's coverage (share of jobs with a bound
that started at or before it).  Times in seconds.
"""
import csv
import json
import sys
from collections import deque

WINDOW = 512


def size_class(gpus):
    g = float(gpus)
    return 0 if g <= 1 else 1 if g <= 4 else 2 if g <= 8 else 3


def median(v):
    s = sorted(v)
    n = len(s)
    if n == 0:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def nearest_rank(v, q):
    s = sorted(v)
    k = max(1, min(len(s), int(q * len(s) + 0.999999)))
    return s[k - 1]


def row(label, truth, subset, n, raw, cal, now, cmed, cov):
    print("| %s | %s | %s | %d | %.0f | %.0f | %.0f | %.0f | %s |" % (
        label, truth, subset, n, raw, cal, now, cmed, "-" if cov is None else "%.3f" % cov))


def load(out, trace):
    """Promises of DIR/jobs.csv with their truths: the simulator's start and,
    with TRACE, the log's (submit + observed_wait)."""
    real = {}
    if trace:
        for r in csv.DictReader(open(trace, newline="")):
            if r.get("observed_wait", "") != "":
                real[r["id"]] = float(r["submit"]) + float(r["observed_wait"])
    jobs = []
    for r in csv.DictReader(open(out + "/jobs.csv", newline="")):
        if r["est_start_at_submit"] == "":
            continue
        p90 = r["est_start_p90_at_submit"]
        jobs.append({"s": float(r["submit"]), "c": size_class(r["gpus"]),
                     "est": float(r["est_start_at_submit"]),
                     "cal": float(r["est_start_cal_at_submit"]),
                     "p90": float(p90) if p90 else None, "basis": r["est_basis_at_submit"],
                     "sim": float(r["start"]) if r["start"] != "" else None,
                     "log": real.get(r["id"])})
    return jobs


def class_median(jobs, truth):
    """The naive class-median prediction of each job, online on `truth`:
    at a submit, the waits of the jobs that had started are known."""
    events = []
    for i, j in enumerate(jobs):
        events.append((j["s"], 1, i))
        if j[truth] is not None:
            events.append((j[truth], 0, i))
    events.sort()
    win = [deque(maxlen=WINDOW) for _ in range(4)]
    pred = [0.0] * len(jobs)
    for _, kind, i in events:
        j = jobs[i]
        if kind == 0:
            win[j["c"]].append(j[truth] - j["s"])
        else:
            pred[i] = j["s"] + (nearest_rank(win[j["c"]], 0.5) if win[j["c"]] else 0)
    return pred


def rows(label, jobs, truth):
    cm = class_median(jobs, truth)
    out = {}
    for subset in ("all", "waiting"):
        sel = [i for i, j in enumerate(jobs) if j[truth] is not None and
               (subset == "all" or j["basis"] != "now")]
        a = [jobs[i][truth] for i in sel]
        err = lambda key: median([abs(x - jobs[i][key]) for x, i in zip(a, sel)])
        bound = [(x, jobs[i]["p90"]) for x, i in zip(a, sel) if jobs[i]["p90"] is not None]
        cov = sum(1 for x, b in bound if x <= b) / len(bound) if bound else None
        out[subset] = (len(sel), err("est"), err("cal"), err("s"),
                       median([abs(x - cm[i]) for x, i in zip(a, sel)]), cov)
        row(label, truth, subset, *out[subset])
    return out["all"]


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    jobs = load(argv[2], argv[3] if len(argv) == 4 else None)
    mine = rows(argv[1], jobs, "sim")
    e = json.load(open(argv[2] + "/summary.json"))["eta"]["all"]
    theirs = (e["n"], e["median_abs_error_s"], e["calibrated_median_abs_error_s"],
              e["naive_now_median_abs_error_s"], e["naive_class_median_abs_error_s"])
    if any(abs(x - y) > max(1, 0.001 * abs(y)) for x, y in zip(mine[:5], theirs)):
        sys.stderr.write("eta_calibrate: %s: summary.json's eta.all %s differs from jobs.csv's "
                         "%s\n" % (argv[1], theirs, mine[:5]))
    if len(argv) == 4:
        rows(argv[1], jobs, "log")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
