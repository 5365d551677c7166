#!/usr/bin/env python3
# How tests/data/slurm/vs-sim.csv is made (python3 vs-sim.py SEED DMAX >
# vs-sim.csv): like tests/data/cli/live-equiv.py, a greedy construction
# (tests/data/lib/robust_trace.py) of a trace whose simulated start order
# and placement (nodes and GPU indices, examples/seed-cluster.yaml,
# examples/demo-pack.yaml) do not change when every job runs up to DMAX
# engine seconds longer and every submit comes up to DMAX/10 late.  That is
# what gpuschedd over Slurm adds to a job: the launch (sbatch, scontrol
# update, release, Slurm starting it: 0.3-1.5 s of wall time on a loaded
# 2-core machine) and seeing its end (the next poll).  DMAX = 30 covers
# 2.5 s of wall time at --clock-scale 12 (tests/cli/slurm_vs_sim.t).  Sizes
# 1, 2, 4, 8 and 16 GPUs, no priorities (Slurm's own run has none either).
# Needs bin/gpusched.
import os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE + "/../lib")
import robust_trace as rt  # noqa: E402

seed, dmax = int(sys.argv[1]), float(sys.argv[2])
N = 24
b = rt.Builder(rt.ROOT + "/examples/seed-cluster.yaml", rt.ROOT + "/examples/demo-pack.yaml",
               "id,submit,duration,gpus,time_limit\n", "%s,%.3f,%.3f,%d,%d\n", dmax)


def candidate(r, i, t):
    ti = t + r.choice([8, 12, 16, 20, 25]) + round(r.uniform(0, 4), 1)
    g = r.choice([1, 1, 2, 2, 4, 4, 8, 8, 16])
    d = round(r.uniform(50, 150), 1)
    return ("j%02d" % i, ti, d, g, int(d * 1.5) + 60)


rows = b.write(b.build(N, random.Random(seed), candidate), "%s,%g,%g,%d,%d\n")
waited = sum(1 for a in rows if float(a["wait"]) > 0)
sys.stderr.write("jobs %d waited %d overtaken %d end %s\n" %
                 (len(rows), waited, rt.overtaken(rows), rt.end(rows)))
