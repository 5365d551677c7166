# single job on the single node: D work, I interval, C cost, R restore
BEGIN { FS = ","; D = 36000; I = 3600; C = 60; R = 300; t0 = 0; s = 0; r = 0; nd = 0 }
NR > 1 && $3 == "down" { d[nd] = $1 }
NR > 1 && $3 == "up" { u[nd++] = $1 }
END {
    k = 0; restarts = 0; lost = 0
    for (;;) {
        nck = int((D - 1) / I) - s / I         # checkpoints still to write
        F = t0 + r + (D - s) + C * nck
        while (k < nd && d[k] < t0) k++         # downs before this start (none: it waits for the up)
        if (k >= nd || d[k] >= F) { printf "%.3f %d %.3f\n", F, restarts, lost; exit }
        e = d[k] - t0 - r                       # wall time of work + writes done
        done = 0
        if (e > 0) {
            seg = int(e / (I + C))              # full interval + write
            if (s + seg * I >= D) seg = (D - s) / I
            done = seg * I
            w = s + done + (e - seg * (I + C) > I ? I : e - seg * (I + C))  # work reached
        } else w = s
        lost += (w - (s + done)) * 8
        s = s + done; restarts++; r = R; t0 = u[k]; k++
    }
}
