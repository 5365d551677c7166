# robust_trace.py - the shared part of tests/data/cli/live-equiv.py and
# tests/data/slurm/vs-sim.py: a greedy construction of a trace whose
# simulated start order and placement (bin/gpusched sim) do not change when
# every job runs up to DMAX engine seconds longer than its duration and
# every submit comes up to DMAX/10 late, which is what a live run (the
# daemon launching jobs, or gpuschedd over Slurm) adds.  Jobs are added one
# at a time; a candidate is kept only if the schedule of the trace so far is
# the same at the extreme (every job DMAX longer, every submit DMAX/10 late)
# and under K random perturbations.  Each script keeps its own candidate
# jobs, columns and summary line.
#
# A job is a tuple (id, submit, duration, ...the trace's other columns);
# `fmt` writes one as a trace row for the simulator (submit and duration
# with %.3f).
import csv, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.abspath(__file__)) + "/../../.."
G = ROOT + "/bin/gpusched"
K = 6


class Builder:
    def __init__(self, cluster, policy, hdr, fmt, dmax):
        self.cluster, self.policy, self.hdr, self.fmt, self.dmax = cluster, policy, hdr, fmt, dmax
        self.tmp = tempfile.mkdtemp()

    def sim(self, jobs):
        """(start order, {id: placement}, jobs.csv rows) of sim on `jobs`."""
        with open(self.tmp + "/t.csv", "w") as f:
            f.write(self.hdr)
            for j in jobs:
                f.write(self.fmt % j)
        subprocess.run([G, "sim", "--cluster", self.cluster, "--policy", self.policy, "--trace",
                        self.tmp + "/t.csv", "--out", self.tmp + "/o"],
                       capture_output=True, check=True)
        rows = list(csv.DictReader(open(self.tmp + "/o/jobs.csv")))
        order = [r["id"] for r in sorted(rows, key=lambda r: (float(r["start"]), r["id"]))]
        return order, {r["id"]: r["placement"] for r in rows}, rows

    def perturbed(self, jobs, rng, mode):
        """`jobs` with every duration dmax longer and every submit dmax/10
        later (mode "max"), or by random amounts up to those (mode "rand")."""
        out = []
        for j in jobs:
            if mode == "max":
                e, ls = self.dmax, self.dmax / 10
            else:
                e, ls = rng.uniform(0, self.dmax), rng.uniform(0, self.dmax / 10)
            out.append((j[0], j[1] + ls, j[2] + e) + tuple(j[3:]))
        return out

    def robust(self, jobs, rng):
        base = self.sim(jobs)[:2]
        for k in range(K + 1):
            if self.sim(self.perturbed(jobs, rng, "max" if k == 0 else "rand"))[:2] != base:
                return False
        return True

    def build(self, n, rng, candidate):
        """n jobs, the i-th the first of up to 400 candidate(rng, i, t) (t:
        the submit time of the job before) that keeps the trace robust;
        exits when none does."""
        jobs, t = [], 0.0
        for i in range(n):
            for attempt in range(400):
                cand = jobs + [candidate(rng, i, t)]
                if self.robust(cand, rng):
                    jobs, t = cand, cand[-1][1]
                    break
            else:
                sys.exit("stuck at job %d" % i)
        return jobs

    def write(self, jobs, out_fmt):
        """Print the trace (header, then `out_fmt` rows) and return sim's
        jobs.csv rows for it."""
        rows = self.sim(jobs)[2]
        sys.stdout.write(self.hdr)
        for j in jobs:
            sys.stdout.write(out_fmt % j)
        return rows


def overtaken(rows):
    """Jobs that a job submitted later started before."""
    return sum(1 for a in rows if any(float(b["submit"]) > float(a["submit"]) and
                                      float(b["start"]) < float(a["start"]) for b in rows))


def end(rows):
    return max(float(x["end"]) for x in rows)
