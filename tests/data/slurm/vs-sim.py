#!/usr/bin/env python3
# How tests/data/slurm/vs-sim.csv is made (python3 vs-sim.py SEED DMAX >
# vs-sim.csv): like tests/data/cli/live-equiv.py, a greedy construction of a
# trace whose simulated start order and placement (nodes and GPU indices,
# examples/seed-cluster.yaml, examples/demo-pack.yaml) do not change when
# every job runs up to DMAX engine seconds longer and every submit comes up
# to DMAX/10 late.  That is what gpuschedd over Slurm adds to a job: the
# launch (sbatch, scontrol update, release, Slurm starting it: 0.3-1.5 s of
# wall time on a loaded 2-core machine) and seeing its end (the next poll).
# DMAX = 30 covers 2.5 s of wall time at --clock-scale 12
# (tests/cli/slurm_vs_sim.t).  Sizes 1, 2, 4, 8 and 16 GPUs, no priorities
# (Slurm's own run has none either).  Needs bin/gpusched.
import csv, os, random, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.abspath(__file__)) + "/../../.."
G = ROOT + "/bin/gpusched"
C = ROOT + "/examples/seed-cluster.yaml"
P = ROOT + "/examples/demo-pack.yaml"
seed, dmax = int(sys.argv[1]), float(sys.argv[2])
N, K = 24, 6
HDR = "id,submit,duration,gpus,time_limit\n"
tmp = tempfile.mkdtemp()


def sim(jobs):
    with open(tmp + "/t.csv", "w") as f:
        f.write(HDR)
        for j in jobs:
            f.write("%s,%.3f,%.3f,%d,%d\n" % j)
    subprocess.run([G, "sim", "--cluster", C, "--policy", P, "--trace", tmp + "/t.csv",
                    "--out", tmp + "/o"], capture_output=True, check=True)
    rows = list(csv.DictReader(open(tmp + "/o/jobs.csv")))
    order = [r["id"] for r in sorted(rows, key=lambda r: (float(r["start"]), r["id"]))]
    return order, {r["id"]: r["placement"] for r in rows}, rows


def perturbed(jobs, rng, mode):
    out = []
    for (i, s, d, g, l) in jobs:
        if mode == "max":
            e, ls = dmax, dmax / 10
        else:
            e, ls = rng.uniform(0, dmax), rng.uniform(0, dmax / 10)
        out.append((i, s + ls, d + e, g, l))
    return out


def robust(jobs, rng):
    base = sim(jobs)[:2]
    for k in range(K + 1):
        if sim(perturbed(jobs, rng, "max" if k == 0 else "rand"))[:2] != base:
            return False
    return True


r = random.Random(seed)
jobs, t = [], 0.0
for i in range(N):
    for attempt in range(400):
        ti = t + r.choice([8, 12, 16, 20, 25]) + round(r.uniform(0, 4), 1)
        g = r.choice([1, 1, 2, 2, 4, 4, 8, 8, 16])
        d = round(r.uniform(50, 150), 1)
        cand = jobs + [("j%02d" % i, ti, d, g, int(d * 1.5) + 60)]
        if robust(cand, r):
            jobs, t = cand, ti
            break
    else:
        sys.exit("stuck at job %d" % i)
rows = sim(jobs)[2]
sys.stdout.write(HDR)
for j in jobs:
    sys.stdout.write("%s,%g,%g,%d,%d\n" % j)
bf = sum(1 for a in rows if any(float(b["submit"]) > float(a["submit"]) and
                                float(b["start"]) < float(a["start"]) for b in rows))
waited = sum(1 for a in rows if float(a["wait"]) > 0)
sys.stderr.write("jobs %d waited %d overtaken %d end %s\n" %
                 (len(rows), waited, bf, max(float(x["end"]) for x in rows)))
