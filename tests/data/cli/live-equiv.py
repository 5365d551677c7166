#!/usr/bin/env python3
# How tests/data/cli/live-equiv.csv is made (python3 live-equiv.py SEED DMAX):
# a greedy construction (tests/data/lib/robust_trace.py) of a trace whose
# simulated start order and placement do not change when every job runs up
# to DMAX engine seconds longer than its duration and every submit comes up
# to DMAX/10 late -- which is what the live daemon adds (launching the job,
# seeing it end; measured ~60 ms wall per job, so DMAX = 1.5 s covers 150 ms
# at --clock-scale 10).  Jobs are added one at a time; a candidate is kept
# only if the schedule of the trace so far is the same under K random
# perturbations and the two extremes.
# Needs bin/gpusched, examples/seed-cluster.yaml and live-equiv.yaml.
import os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE + "/../lib")
import robust_trace as rt  # noqa: E402

seed, dmax = int(sys.argv[1]), float(sys.argv[2])
b = rt.Builder(rt.ROOT + "/examples/seed-cluster.yaml", HERE + "/live-equiv.yaml",
               "id,submit,duration,gpus,team,priority,time_limit\n",
               "%s,%.3f,%.3f,%d,%s,%d,%d\n", dmax)


def candidate(r, i, t):
    ti = t + r.choice([2, 3, 3, 4, 5, 6]) + r.choice([0, 0.5])
    g = r.choice([1, 1, 2, 2, 4, 4, 8, 8])
    d = round(r.uniform(8, 50), 1)
    pr = 0
    if i in (22, 38):
        pr, g, d = 10, 8, round(r.uniform(8, 14), 1)
    return ("j%02d" % i, ti, d, g, r.choice(["a", "b"]), pr, int(d * 1.5) + 5)


rows = b.write(b.build(52, random.Random(seed), candidate), "%s,%g,%g,%d,%s,%d,%d\n")
pre = sum(int(x["preemptions"]) for x in rows)
sys.stderr.write("jobs %d preemptions %d overtaken %d end %s\n" %
                 (len(rows), pre, rt.overtaken(rows), rt.end(rows)))
