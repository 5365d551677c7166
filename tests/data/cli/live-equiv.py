#!/usr/bin/env python3
# How tests/data/cli/live-equiv.csv was made: python3 live-equiv.py 1 0.5 (run
# from a scratch dir with pol.yaml = live-equiv.yaml and bin/gpusched built).
# Greedy construction of the live-equivalence trace: jobs are added one at a
# time; each candidate duration is kept only if the simulated schedule keeps
# every pair of independent events (submits and ends) at least G apart.
import subprocess, csv, random, sys
G = float(sys.argv[2]); seed = int(sys.argv[1])
r = random.Random(seed)
hdr = "id,submit,duration,gpus,team,priority,time_limit\n"
rows = []
def sim(rows):
    open('b.csv','w').write(hdr + "".join(rows))
    subprocess.run(['/work/wt-client/bin/gpusched','sim','--cluster','/work/wt-client/examples/seed-cluster.yaml','--policy','pol.yaml','--trace','b.csv','--out','bo'],capture_output=True,check=True)
    return list(csv.DictReader(open('bo/jobs.csv')))
def ok(js):
    ev = sorted([float(j['submit']) for j in js] + [float(j['end']) for j in js])
    return all(b - a >= G - 1e-9 for a, b in zip(ev, ev[1:]))
t = 0
for i in range(60):
    for attempt in range(300):
        ti = t + r.choice([2, 3, 3, 4, 5]) + r.choice([0, 0.5])
        g = r.choice([1, 1, 2, 2, 4, 4, 8, 8])
        d = round(r.uniform(8, 50), 1)
        pr = 0
        if i in (25, 44):
            pr, g, d = 10, 8, round(r.uniform(8, 14), 1)
        lim = int(d * 1.5) + 5
        team = r.choice(["a", "b"])
        row = f"j{i:02d},{ti},{d},{g},{team},{pr},{lim}\n"
        js = sim(rows + [row])
        if ok(js):
            rows.append(row); t = ti; break
    else:
        print("stuck at", i, file=sys.stderr); sys.exit(1)
js = sim(rows)
print(hdr + "".join(rows), end="")
pre = sum(int(j['preemptions']) for j in js)
print(f"preemptions {pre} end {max(float(j['end']) for j in js)}", file=sys.stderr)
