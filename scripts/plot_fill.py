#!/usr/bin/env python3
"""plot_fill.py - SVG plot of `gpusched fill --json` curves (docs/placement.md).

Usage: scripts/plot_fill.py OUT.svg NAME=FILE.json... [--paper RESULTS.md]

Draws two panels: unallocated GPU % against arrived workload % (75-130,
the paper's Fig. 9(a) range) and the fragmentation ratio against arrived %
(0-100, Fig. 7).  With --paper, the FGD paper's medians from table T1 and T3
of shared/traces/RESULTS.md are drawn as dashed lines with markers in the
same colour as the policy of the same name (read at run time; no data is
copied into the repository).  Standard library only, no network.
"""
import json
import re
import sys

COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#000000", "#7f7f7f", "#bcbd22", "#17becf"]
PAPER_NAMES = {"random": "Random", "dotprod": "DotProd", "clustering": "Clustering",
               "packing": "Packing", "bestfit": "BestFit", "fgd": "FGD"}


def paper_tables(path):
    """T1 unallocated and T3 ratio medians: {policy: {arrived: value}}."""
    text = open(path, encoding="utf-8").read()
    t1, t3 = {}, {}
    sect = None
    header = []
    for line in text.splitlines():
        if line.startswith("### T1"):
            sect = "t1"
        elif line.startswith("### T3"):
            sect = "t3"
        elif line.startswith("###") or line.startswith("####"):
            sect = None
        if not sect or not line.startswith("|") or "---" in line:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == "arrived %":
            header = cells
            continue
        arrived = int(cells[0])
        if sect == "t1":
            for name, cell in zip(header[1:], cells[1:]):
                t1.setdefault(name, {})[arrived] = float(cell.split()[0])
        elif cells[1] == "ratio":
            for name, cell in zip(header[2:], cells[2:]):
                t3.setdefault(name, {})[arrived] = float(cell)
    return t1, t3


class Panel:
    def __init__(self, x0, y0, w, h, xr, yr, title, xlabel, ylabel, xticks, yticks):
        self.x0, self.y0, self.w, self.h = x0, y0, w, h
        self.xr, self.yr = xr, yr
        self.xticks, self.yticks = xticks, yticks
        self.out = []
        self.axes(title, xlabel, ylabel)

    def px(self, x, y):
        fx = (x - self.xr[0]) / (self.xr[1] - self.xr[0])
        fy = (y - self.yr[0]) / (self.yr[1] - self.yr[0])
        return self.x0 + fx * self.w, self.y0 + self.h - fy * self.h

    def axes(self, title, xlabel, ylabel):
        o = self.out
        o.append(f'<rect x="{self.x0}" y="{self.y0}" width="{self.w}" height="{self.h}" '
                 'fill="none" stroke="#333"/>')
        for x in self.xticks:
            px, _ = self.px(x, self.yr[0])
            o.append(f'<line x1="{px:.1f}" y1="{self.y0}" x2="{px:.1f}" '
                     f'y2="{self.y0 + self.h}" stroke="#ddd"/>')
            o.append(f'<text x="{px:.1f}" y="{self.y0 + self.h + 16}" '
                     f'text-anchor="middle">{x:g}</text>')
        for y in self.yticks:
            _, py = self.px(self.xr[0], y)
            o.append(f'<line x1="{self.x0}" y1="{py:.1f}" x2="{self.x0 + self.w}" '
                     f'y2="{py:.1f}" stroke="#ddd"/>')
            o.append(f'<text x="{self.x0 - 6}" y="{py + 4:.1f}" '
                     f'text-anchor="end">{y:g}</text>')
        o.append(f'<text x="{self.x0 + self.w / 2}" y="{self.y0 - 10}" text-anchor="middle" '
                 f'font-weight="bold">{title}</text>')
        o.append(f'<text x="{self.x0 + self.w / 2}" y="{self.y0 + self.h + 36}" '
                 f'text-anchor="middle">{xlabel}</text>')
        o.append(f'<text transform="translate({self.x0 - 42},{self.y0 + self.h / 2}) '
                 f'rotate(-90)" text-anchor="middle">{ylabel}</text>')

    def line(self, pts, colour, dashed=False, markers=False):
        pts = [(x, y) for x, y in pts if self.xr[0] <= x <= self.xr[1]]
        if not pts:
            return
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in (self.px(x, min(y, self.yr[1]))
                                                       for x, y in pts))
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        self.out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                        f'stroke-width="{1.5 if dashed else 2}"{dash}/>')
        if markers:
            for x, y in pts:
                a, b = self.px(x, min(y, self.yr[1]))
                self.out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="none" '
                                f'stroke="{colour}"/>')


def main(argv):
    paper = None
    series = []
    args = iter(argv[2:])
    for a in args:
        if a == "--paper":
            paper = next(args)
        else:
            name, path = a.split("=", 1)
            series.append((name, json.load(open(path, encoding="utf-8"))))
    t1, t3 = paper_tables(paper) if paper else ({}, {})
    left = Panel(70, 40, 420, 300, (75, 130), (0, 20),
                 "Unallocated GPUs (median of seeds)", "arrived workload, % of GPU capacity",
                 "unallocated GPUs, %", range(75, 131, 5), range(0, 21, 4))
    right = Panel(590, 40, 420, 300, (0, 100), (0, 100),
                  "Fragmentation ratio", "arrived workload, %", "fragmented / idle GPU, %",
                  range(0, 101, 20), range(0, 101, 20))
    legend = []
    for i, (name, d) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        curve = d["curve"]
        left.line([(p["arrived"], p["unallocated"]) for p in curve], colour)
        right.line([(p["arrived"], p["frag_ratio"]) for p in curve], colour)
        pname = PAPER_NAMES.get(name)
        if pname in t1:
            left.line(sorted(t1[pname].items()), colour, dashed=True, markers=True)
        if pname in t3:
            right.line(sorted(t3[pname].items()), colour, dashed=True, markers=True)
        legend.append((name, colour))
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="1060" height="450" '
           'font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>']
    out += left.out + right.out
    for i, (name, colour) in enumerate(legend):
        x = 70 + i * 95
        out.append(f'<line x1="{x}" y1="415" x2="{x + 24}" y2="415" stroke="{colour}" '
                   'stroke-width="2"/>')
        out.append(f'<text x="{x + 28}" y="419">{name}</text>')
    if paper:
        out.append('<text x="70" y="440">solid: gpusched fill; dashed with circles: the '
                   'FGD artifact\'s medians (RESULTS.md T1, T3)</text>')
    out.append("</svg>")
    open(argv[1], "w", encoding="utf-8").write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv)
