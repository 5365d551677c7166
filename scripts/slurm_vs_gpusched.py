#!/usr/bin/env python3
"""slurm_vs_gpusched.py - the two halves of scripts/slurm-vs-gpusched.sh
that are easier in Python (stdlib only):

  submit TRACE SCALE OUT.csv
      Run (a): submit every trace job straight to Slurm with sbatch at
      submit/SCALE wall seconds after the start (submit order, ties in trace
      order, as `gpusched replay`), each `sleep duration/SCALE`, named
      sl:ID, --gres=gpu:G on one node (G > 8: G/8 whole nodes of 8), time
      limit ceil(time_limit/SCALE/60) whole minutes (Slurm's unit; at least
      1).  Slurm's own scheduler decides.  Writes id,slurm_id,due,lag_ms and
      prints the start epoch (the trace's zero) on stdout.

  report DIR SCALE [--k 8] [--order-tol 2] [--unit min|s]
      Read both runs from Slurm's accounting (DIR/acct.txt: sacct -a -X -D
      -P with SLURM_TIME_FORMAT=%s), the simulated schedule (DIR/sim/jobs.csv)
      and gpuschedd's own (DIR/b-live.csv) and print the side-by-side table;
      writes DIR/report.json, DIR/schedules.csv, DIR/s8.csv.

Definitions (docs/slurm-backend.md, "Same workload, two schedulers"):
  engine time  (wall epoch - the run's zero) x SCALE, in seconds.  Slurm's
               Start/End are whole seconds (truncated): the midpoint
               Start + 0.5 s is used, so a time is known to +-0.5 s of wall
               time (+-30 engine s at SCALE 60); a wait below 0 is 0.
  wait         start - the trace's submit (the user's submit, not Slurm's
               Submit, which for run (b) is gpuschedd's launch time).
  S_k(t)       sum over nodes of floor(free GPUs / k): the seed's nodes are
               one NVLink domain each, so this is gpusched's S_k
               (docs/metrics.md); time-weighted over [first submit, last
               end] like `sim`, and sampled every engine minute.
  percentiles  linear interpolation (docs/metrics.md).
  run (b) id   gs:SEQ:ATTEMPT -> the gpusched job of journal seq SEQ
               (DIR/b-map.csv, read from gpuschedd's journal).
"""
import csv
import json
import math
import re
import subprocess
import sys
import time

CLASSES = [1, 2, 4, 8, 16]


def die(msg):
    sys.stderr.write("slurm_vs_gpusched.py: %s\n" % msg)
    sys.exit(1)


def read_trace(path):
    rows = list(csv.DictReader(open(path, newline="")))
    for i, r in enumerate(rows):
        for f in ("id", "submit", "duration", "gpus"):
            if not r.get(f):
                die("%s:%d: field '%s' missing" % (path, i + 2, f))
        try:
            r["submit"], r["duration"] = float(r["submit"]), float(r["duration"])
            r["gpus"] = int(r["gpus"])
            r["time_limit"] = float(r["time_limit"]) if r.get("time_limit") else None
        except ValueError as e:
            die("%s:%d: %s" % (path, i + 2, e))
        r["pos"] = i
    # gpusched replay's order: submit, ties in trace order
    return sorted(rows, key=lambda r: (r["submit"], r["pos"]))


def sbatch_argv(job, scale):
    g = job["gpus"]
    if g > 8 and g % 8:
        die("job %s: %d GPUs is not whole 8-GPU nodes" % (job["id"], g))
    nodes, per = (g // 8, 8) if g > 8 else (1, g)
    argv = ["sbatch", "--parsable", "-J", "sl:" + job["id"], "-N", str(nodes),
            "--gres=gpu:%d" % per, "-o", "/dev/null", "--no-requeue"]
    if job["time_limit"]:
        argv += ["-t", str(max(1, math.ceil(job["time_limit"] / scale / 60 - 1e-9)))]
    return argv + ["--wrap", "sleep %.3f" % (job["duration"] / scale)]


def cmd_submit(trace, scale, out):
    jobs = read_trace(trace)
    t0 = time.time()
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "slurm_id", "due", "lag_ms"])
        for j in jobs:
            due = t0 + j["submit"] / scale
            d = due - time.time()
            if d > 0:
                time.sleep(d)
            lag = time.time() - due
            p = subprocess.run(sbatch_argv(j, scale), capture_output=True, text=True)
            if p.returncode != 0:
                die("sbatch for job %s failed: %s" % (j["id"], p.stderr.strip()))
            w.writerow([j["id"], p.stdout.strip().split(";")[0], "%.3f" % due,
                        "%.1f" % (lag * 1e3)])
            f.flush()
    print("%.6f" % t0)


def expand_nodes(s):
    """Slurm hostlist 'node-[1-2,4],gpu7' -> ['node-1', 'node-2', 'node-4', 'gpu7']."""
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]*)\])?", s):
        pre, rng = m.group(1), m.group(2)
        if rng is None:
            out.append(pre)
            continue
        for part in rng.split(","):
            a, _, b = part.partition("-")
            for n in range(int(a), int(b or a) + 1):
                out.append("%s%0*d" % (pre, len(a), n))
    return out


def pct(vals, q):
    if not vals:
        return None
    v = sorted(vals)
    x = q * (len(v) - 1)
    lo = int(math.floor(x))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (x - lo)


def node_gpus(path):
    """sinfo -h -N -o '%N %G' -> {node: GPUs} (gpu:8, gpu:g0:1,...)."""
    gpus = {}
    for line in open(path):
        f = line.split()
        if len(f) < 2:
            continue
        n = sum(int(x.split(":")[-1].split("(")[0]) for x in f[1].split(",")
                if x.startswith("gpu"))
        gpus[f[0]] = n
    return gpus


ACCT_FIELDS = ("JobID", "JobName", "State", "Start", "End", "NodeList", "AllocTRES")


def read_acct(path):
    """sacct -P rows by JobName (a list each: every record must be one)."""
    by = {}
    rd = csv.DictReader(open(path, newline=""), delimiter="|")
    miss = [f for f in ACCT_FIELDS if f not in (rd.fieldnames or [])]
    if miss:
        die("%s: no field %s (sacct -P --format=%s)" % (path, miss[0], ",".join(ACCT_FIELDS)))
    for r in rd:
        by.setdefault(r["JobName"], []).append(r)
    return by


def acct_alloc(r):
    m = re.search(r"gres/gpu=(\d+)", r["AllocTRES"])
    g = int(m.group(1)) if m else 0
    nodes = expand_nodes(r["NodeList"])
    return g, {n: g // len(nodes) for n in nodes}


def slurm_run(name, jobs, recs, t0, scale, key):
    """One run's schedule from its Slurm records; key(job) -> JobName."""
    sched, problems, once = [], [], 0
    for j in jobs:
        rs = recs.get(key(j), [])
        once += len(rs) == 1 and rs[0]["State"] == "COMPLETED"
        if len(rs) != 1:
            problems.append("%s: %d Slurm records" % (j["id"], len(rs)))
            continue
        r = rs[0]
        if r["State"] != "COMPLETED":
            problems.append("%s: Slurm state %s" % (j["id"], r["State"]))
        if not r["Start"].isdigit() or not r["End"].isdigit():
            problems.append("%s: Slurm job %s has Start '%s', End '%s' (not run, or not "
                            "epoch seconds: SLURM_TIME_FORMAT=%%s)" %
                            (j["id"], r["JobID"], r["Start"], r["End"]))
            continue
        g, alloc = acct_alloc(r)
        if g != j["gpus"]:
            problems.append("%s: Slurm gave %d GPUs, asked %d" % (j["id"], g, j["gpus"]))
        st = (int(r["Start"]) + 0.5 - t0) * scale
        en = (int(r["End"]) + 0.5 - t0) * scale
        sched.append({"id": j["id"], "gpus": j["gpus"], "submit": j["submit"],
                      "start": st, "end": en, "wait": max(0.0, st - j["submit"]),
                      "alloc": alloc, "slurm_id": r["JobID"]})
    return {"name": name, "jobs": sched, "problems": problems, "once": once}


def placement_alloc(pl):
    alloc = {}
    for tok in pl.split():
        n = tok.split(":")[0]
        alloc[n] = alloc.get(n, 0) + 1
    return alloc


def sim_run(path, jobs):
    rows = {r["id"]: r for r in csv.DictReader(open(path, newline=""))}
    sched = []
    for j in jobs:
        r = rows[j["id"]]
        sched.append({"id": j["id"], "gpus": j["gpus"], "submit": float(r["submit"]),
                      "start": float(r["start"]), "end": float(r["end"]),
                      "wait": float(r["wait"]), "alloc": placement_alloc(r["placement"]),
                      "placement": r["placement"]})
    return {"name": "sim", "jobs": sched, "problems": [], "once": len(sched)}


def s_k(sched, gpus, k, span0):
    """Time-weighted mean and share >= 1 of S_k over [span0, last end], and
    its value at every engine minute (the value holding just after it)."""
    ev = sorted([(j["start"], j["alloc"], 1) for j in sched] +
                [(j["end"], j["alloc"], -1) for j in sched], key=lambda e: e[0])
    end = max(j["end"] for j in sched)
    used = {n: 0 for n in gpus}
    segs, i = [], 0  # (from, to, S_k) pieces
    while i < len(ev):
        te = ev[i][0]
        while i < len(ev) and ev[i][0] == te:
            for n, g in ev[i][1].items():
                used[n] = used.get(n, 0) + ev[i][2] * g
            i += 1
        nt = max(te, span0)
        segs.append([nt, None, sum((gpus[n] - used[n]) // k for n in gpus)])
    segs.insert(0, [span0, None, sum(gpus[n] // k for n in gpus)])
    for a, b in zip(segs, segs[1:]):
        a[1] = b[0]
    segs[-1][1] = end
    span = end - span0
    area = sum((b - a) * v for a, b, v in segs)
    ge1 = sum(b - a for a, b, v in segs if v >= 1)
    series, m = [], math.ceil(span0 / 60) * 60.0
    for a, b, v in segs:
        while m < b:
            series.append((m, v))
            m += 60
    if m <= end:
        series.append((m, segs[-1][2]))
    return {"mean": area / span if span > 0 else None,
            "share_ge1": ge1 / span if span > 0 else None,
            "series": series, "span": span}


def waits(sched):
    out = {}
    for c in CLASSES + ["all"]:
        v = [j["wait"] for j in sched if c == "all" or j["gpus"] == c]
        out[str(c)] = {"n": len(v), "p50": pct(v, .5), "p90": pct(v, .9), "p99": pct(v, .99),
                       "mean": sum(v) / len(v) if v else None}
    return out


def agreement(live, sim, scale, tol_wall):
    """gpuschedd (b-live.csv engine starts, Slurm's nodes) against sim."""
    s = {j["id"]: j for j in sim["jobs"]}
    tol = tol_wall * scale
    ids = [j["id"] for j in live["jobs"]]
    inv, inv0, nodes_diff = [], 0, []
    for a in ids:
        for b in ids:
            if s[a]["start"] < s[b]["start"]:
                la, lb = live["by"][a]["start"], live["by"][b]["start"]
                if la > lb:
                    inv0 += 1
                    if la > lb + tol:
                        inv.append((a, b, la - lb))
    for j in live["jobs"]:
        if sorted(j["alloc"]) != sorted(s[j["id"]]["alloc"]):
            nodes_diff.append((j["id"], sorted(s[j["id"]]["alloc"]), sorted(j["alloc"])))
    d = sorted(live["by"][i]["start"] - s[i]["start"] for i in ids)
    return {"pairs_inverted": inv0, "pairs_inverted_beyond_tol": len(inv),
            "tol_engine_s": tol, "inversions": inv[:10], "nodes_differ": nodes_diff,
            "gpus_differ": [i for i in ids if live["by"][i].get("placement") !=
                            s[i]["placement"]],
            "start_diff": {"p50": pct(d, .5), "p90": pct(d, .9), "max": d[-1] if d else None,
                           "min": d[0] if d else None}}


def fmt(x, unit):
    return "%7s" % ("-" if x is None else "%.0f" % (x / unit))


def series_step(span):
    """Print S_k every step engine seconds: a round step, at most ~25 rows."""
    for m in (1, 2, 5, 10, 15, 30, 60, 120, 240):
        if span / (60 * m) <= 25:
            return 60 * m
    return 480 * 60


def print_table(rep, runs, scale, unit):
    n = len(runs[0]["jobs"])
    un = "minutes" if unit == 60 else "seconds"
    print("Same workload, two schedulers: %d jobs on %d nodes, 1 s of wall time = %g s"
          % (n, rep["nodes"], scale))
    print("Waits in %s of engine time, read from Slurm's accounting for both live runs." % un)
    print("Jobs with exactly one Slurm job, COMPLETED: Slurm %d of %d, gpuschedd %d of %d.\n"
          % (rep["runs"]["slurm"]["ran_once"], n, rep["runs"]["gpuschedd"]["ran_once"], n))
    print("%-6s %4s   %-23s   %-23s   %-23s" % ("", "", "Slurm (backfill, cons_tres)",
                                                "gpuschedd on Slurm", "gpusched sim"))
    print("%-6s %4s   %s" % ("GPUs", "jobs", "   ".join(["    p50     p90     p99"] * 3)))
    for c in CLASSES + ["all"]:
        w = [rep["runs"][r["name"]]["wait"][str(c)] for r in runs]
        if w[0]["n"] == 0:
            continue
        print("%-6s %4d   %s" % (c, w[0]["n"], "   ".join(
            fmt(x["p50"], unit) + " " + fmt(x["p90"], unit) + " " + fmt(x["p99"], unit)
            for x in w)))
    k = rep["k"]
    s = [rep["runs"][r["name"]]["s_k"] for r in runs]
    print()
    print("%-11s   %s" % ("S_%d mean" % k, "   ".join("%23.2f " % x["mean"] for x in s)))
    print("%-11s   %s" % ("S_%d >= 1" % k, "   ".join("%22.0f%% " % (100 * x["share_ge1"])
                                                  for x in s)))
    print("%-11s   %s" % ("makespan h", "   ".join("%23.2f " % (x["span"] / 3600) for x in s)))
    ser = [dict(x["series"]) for x in s]
    t, last = min(min(x) for x in ser), max(max(x) for x in ser)
    step = series_step(last - t)
    print("\nS_%d over time (engine time; the value just after each mark):" % k)
    print("%8s  %8s %10s %6s" % ("t (h)", "Slurm", "gpuschedd", "sim"))
    while t <= last:
        print("%8.2f  %s" % (t / 3600, " ".join("%8s" % x.get(t, "") for x in ser)))
        t += step
    a = rep["agreement"]
    print("\ngpuschedd on Slurm vs gpusched sim (same trace, cluster and policy):")
    print("  nodes: %d of %d jobs on the same nodes (Slurm's NodeList vs sim);"
          " GPU indices differ for %d" % (n - len(a["nodes_differ"]), n, len(a["gpus_differ"])))
    for j, sn, ln in a["nodes_differ"][:10]:
        print("    %s: sim %s, Slurm %s" % (j, " ".join(sn), " ".join(ln)))
    print("  start order: %d job pairs in the other order, %d by more than %.0f engine s"
          " (%g s wall)" % (a["pairs_inverted"], a["pairs_inverted_beyond_tol"],
                            a["tol_engine_s"], a["tol_engine_s"] / scale))
    for x, y, dt in a["inversions"]:
        print("    %s started %.0f s after %s (sim: before)" % (x, dt, y))
    sd = a["start_diff"]
    print("  start, gpuschedd - sim (engine s): p50 %.0f, p90 %.0f, min %.0f, max %.0f" %
          (sd["p50"], sd["p90"], sd["min"], sd["max"]))
    for p in rep["problems"]:
        print("  PROBLEM: " + p)


def cmd_report(d, scale, k, tol_wall, unit):
    jobs = read_trace(d + "/trace.csv")
    gpus = node_gpus(d + "/sinfo.txt")
    recs = read_acct(d + "/acct.txt")
    seqname = {}
    for r in csv.DictReader(open(d + "/b-map.csv", newline="")):
        seqname[r["id"]] = "gs:%s:1" % r["seq"]
    t0a = float(open(d + "/a.t0").read())
    t0b = float(open(d + "/b.t0").read())
    a = slurm_run("slurm", jobs, recs, t0a, scale, lambda j: "sl:" + j["id"])
    b = slurm_run("gpuschedd", jobs, recs, t0b, scale, lambda j: seqname.get(j["id"], "?"))
    sim = sim_run(d + "/sim/jobs.csv", jobs)
    # gpuschedd's own record of its starts (sub-second) and GPU indices
    live = {r["id"]: r for r in csv.DictReader(open(d + "/b-live.csv", newline=""))}
    b["by"] = {}
    for j in b["jobs"]:
        lr = live.get(j["id"])
        b["by"][j["id"]] = {"start": float(lr["start"]) if lr else j["start"],
                            "placement": lr["placement"] if lr else None}
    runs = [a, b, sim]
    span0 = min(j["submit"] for j in jobs)
    rep = {"scale": scale, "k": k, "nodes": len(gpus), "jobs": len(jobs), "runs": {},
           "problems": a["problems"] + b["problems"]}
    for r in runs:
        sk = s_k(r["jobs"], gpus, k, span0)
        rep["runs"][r["name"]] = {"wait": waits(r["jobs"]), "s_k": sk,
                                  "ran_once": r["once"]}
    rep["agreement"] = agreement(b, sim, scale, tol_wall)
    with open(d + "/schedules.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "id", "gpus", "submit", "start", "end", "wait", "nodes", "slurm_id"])
        for r in runs:
            for j in r["jobs"]:
                w.writerow([r["name"], j["id"], j["gpus"], "%.1f" % j["submit"],
                            "%.1f" % j["start"], "%.1f" % j["end"], "%.1f" % j["wait"],
                            " ".join(sorted(j["alloc"])), j.get("slurm_id", "")])
    with open(d + "/s8.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["minute"] + [r["name"] for r in runs])
        ser = [dict(rep["runs"][r["name"]]["s_k"]["series"]) for r in runs]
        for t in sorted(set().union(*ser)):
            w.writerow(["%g" % (t / 60)] + [x.get(t, "") for x in ser])
    for r in runs:
        rep["runs"][r["name"]]["s_k"].pop("series")
    json.dump(rep, open(d + "/report.json", "w"), indent=1)
    for r, s in zip(runs, ser):
        rep["runs"][r["name"]]["s_k"]["series"] = sorted(s.items())
    print_table(rep, runs, scale, unit)
    return 1 if rep["problems"] else 0


def main(argv):
    try:
        return run(argv)
    except OSError as e:
        die(str(e))
    except (KeyError, ValueError) as e:
        die("unexpected input: %s %s" % (type(e).__name__, e))


def run(argv):
    if len(argv) >= 4 and argv[0] == "submit":
        return cmd_submit(argv[1], float(argv[2]), argv[3])
    if len(argv) >= 3 and argv[0] == "report":
        opt = dict(zip(argv[3::2], argv[4::2]))
        return cmd_report(argv[1], float(argv[2]), int(opt.get("--k", 8)),
                          float(opt.get("--order-tol", 2)),
                          {"min": 60, "s": 1}[opt.get("--unit", "min")])
    die("usage: slurm_vs_gpusched.py submit TRACE SCALE OUT.csv | "
        "report DIR SCALE [--k 8] [--order-tol SECONDS] [--unit min|s]")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]) or 0)
