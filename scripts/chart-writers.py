#!/usr/bin/env python3
"""Draws docs/BENCHMARKS.md's writers chart as SVG from bench-writers.sh lines.

    scripts/chart-writers.py LINES > docs/images/writers.svg

Events/s against writers (log-log), one line per series (before, after),
with two ceilings per series: the disk's fdatasync rate times the writers
(every writer's event in every sync: group commit at its best) and the CPU
ceiling (the machine's cores divided by the CPU one event cost, at the
series' 64-writer point). Written by hand because no plotting library is
among the project's dependencies; SVG is text.
"""
import math
import os
import sys

W, H = 800, 460
LEFT, RIGHT, TOP, BOTTOM = 80, 220, 50, 60
COLORS = {"before": "#999999", "after": "#1f6feb", "format1": "#1f6feb", "format2": "#d9480f",
          "wakeslots": "#2b8a3e", "logsgrow": "#999999", "sizedlogs": "#1f6feb",
          "format3": "#7048e8"}


def parse(path):
    series = {}
    for raw in open(path):
        if raw.startswith("#") or "=" not in raw:
            continue
        fields = dict(f.split("=", 1) for f in raw.split() if "=" in f)
        s = series.setdefault(fields.get("series", "after"), {"points": {}, "fsync": None})
        if fields.get("figure") == "syncs_per_s":
            s["fsync"] = float(fields["value"])
        elif fields.get("figure") == "events_per_s":
            cpu = float(fields["cpu_s"]) * 1e6 / float(fields["events"]) if "cpu_s" in fields else None
            s["points"][int(fields["clients"])] = (float(fields["value"]), cpu)
    return series


def main():
    series = parse(sys.argv[1])
    cores = os.cpu_count() or 2
    writers = sorted({w for s in series.values() for w in s["points"]})
    values = [v for s in series.values() for v, _ in s["points"].values()]
    ceilings = [s["fsync"] * writers[-1] for s in series.values() if s["fsync"]]
    lo = 10 ** math.floor(math.log10(min(values) / 2))
    hi = max(values + ceilings) * 1.3
    x0, x1 = math.log2(writers[0]), math.log2(writers[-1])

    def x(w):
        return LEFT + (math.log2(w) - x0) / (x1 - x0) * (W - LEFT - RIGHT)

    def y(v):
        v = min(max(v, lo), hi)
        return TOP + (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))) * (H - TOP - BOTTOM)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT}" y="20" font-size="15">Durable appends in process: events/s against writers</text>',
           f'<text x="{LEFT}" y="34" font-size="11" fill="#555">durable, one event per append, each writer on its '
           'own stream, median of 3 runs (scripts/bench-writers.sh)</text>']
    decade = lo
    while decade <= hi:
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(decade):.1f}" y2="{y(decade):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y(decade) + 4:.1f}" text-anchor="end">{decade:,.0f}</text>')
        decade *= 10
    for w in writers:
        out.append(f'<line x1="{x(w):.1f}" x2="{x(w):.1f}" y1="{TOP}" y2="{H - BOTTOM}" stroke="#eee"/>')
        out.append(f'<text x="{x(w):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle">{w}</text>')
    out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 18}" text-anchor="middle">concurrent writers '
               '(one event per append, each on its own stream)</text>')
    out.append(f'<text transform="translate(18 {(TOP + H - BOTTOM) / 2}) rotate(-90)" text-anchor="middle">'
               'events/s (log)</text>')
    legend = TOP + 10
    for name, s in sorted(series.items(), key=lambda kv: kv[0] != "before"):
        color = COLORS.get(name, "#d9480f")
        pts = sorted(s["points"].items())
        if s["fsync"]:
            f = s["fsync"]
            out.append(f'<polyline fill="none" stroke="{color}" stroke-dasharray="2 4" points="'
                       + " ".join(f"{x(w):.1f},{y(f * w):.1f}" for w in writers) + '"/>')
        cpu = (s["points"].get(64) or pts[-1][1])[1]
        if cpu:
            ceiling = cores * 1e6 / cpu
            out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(ceiling):.1f}" y2="{y(ceiling):.1f}" '
                       f'stroke="{color}" stroke-dasharray="8 4"/>')
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2.5" points="'
                   + " ".join(f"{x(w):.1f},{y(v):.1f}" for w, (v, _) in pts) + '"/>')
        for w, (v, _) in pts:
            out.append(f'<circle cx="{x(w):.1f}" cy="{y(v):.1f}" r="3" fill="{color}"/>')
        lx = W - RIGHT + 12
        out.append(f'<line x1="{lx}" x2="{lx + 24}" y1="{legend}" y2="{legend}" stroke="{color}" stroke-width="2.5"/>')
        out.append(f'<text x="{lx + 30}" y="{legend + 4}">{name}: events/s</text>')
        if s["fsync"]:
            out.append(f'<line x1="{lx}" x2="{lx + 24}" y1="{legend + 18}" y2="{legend + 18}" stroke="{color}" stroke-dasharray="2 4"/>')
            out.append(f'<text x="{lx + 30}" y="{legend + 22}">fdatasync/s × writers</text>')
        if cpu:
            out.append(f'<line x1="{lx}" x2="{lx + 24}" y1="{legend + 36}" y2="{legend + 36}" stroke="{color}" stroke-dasharray="8 4"/>')
            out.append(f'<text x="{lx + 30}" y="{legend + 40}">CPU ceiling ({cpu:.0f} µs/event)</text>')
        legend += 64
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
