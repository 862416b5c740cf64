#!/usr/bin/env python3
"""The sweeps of one results directory as a picture: OUT/summary.svg.

One panel per sweep. Across: the message size (log scale). Up: fabperf's speed against the
peer's (log scale), the bandwidth ratio as it is and the latency ratio inverted, so above 1 is
fabperf ahead for both and the dashed line is the target (0.98; a latency ratio of 1.02 is
1 / 1.02 = 0.98 here). One line per test and mode; a row whose ratio is missing (a failed
side) leaves a gap. Plain SVG, no plotting library: run_bench.py calls it after the summary,
and it runs alone on a directory already written:

  python3 bench/plot.py bench/results/sweep-cubic-1556682
"""
import glob, json, math, os, sys
from xml.sax.saxutils import escape

PANEL_W, PANEL_H, MARGIN_L, MARGIN_B, MARGIN_T, LEGEND_W = 460, 260, 56, 34, 28, 250
Y_MIN, Y_MAX = 0.005, 4.0
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
          "#e377c2", "#7f7f7f", "#bcbd22"]
TARGET = 0.98


def speed(row):
    """fabperf's speed against the peer: > 1 is ahead, for latency and bandwidth alike."""
    r = row.get("ratio")
    if not r:
        return None
    return 1 / r if row["unit"] == "ns" else r


def size_label(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}"
    return f"{b} B"


def panel(doc, x0, y0):
    rows = doc["rows"]
    sizes = sorted({r["size"] for r in rows})
    lo, hi = math.log2(max(1, sizes[0])), math.log2(max(2, sizes[-1]))
    if hi - lo < 1:
        lo, hi = lo - 1, hi + 1
    w, h = PANEL_W - MARGIN_L - 10, PANEL_H - MARGIN_B - MARGIN_T

    def px(size):
        return x0 + MARGIN_L + (math.log2(max(1, size)) - lo) / (hi - lo) * w

    def py(v):
        v = min(max(v, Y_MIN), Y_MAX)
        return y0 + MARGIN_T + (math.log(Y_MAX) - math.log(v)) / (math.log(Y_MAX) - math.log(Y_MIN)) * h

    out = [f'<text x="{x0 + MARGIN_L}" y="{y0 + 18}" font-weight="bold">{escape(doc["sweep"])}: '
           f'fabperf against {escape(doc["peer"])}</text>',
           f'<rect x="{x0 + MARGIN_L}" y="{y0 + MARGIN_T}" width="{w}" height="{h}" '
           'fill="none" stroke="#999"/>']
    for v in (0.01, 0.1, 0.5, 1, 2):
        out.append(f'<line x1="{x0 + MARGIN_L}" x2="{x0 + MARGIN_L + w}" y1="{py(v):.1f}" '
                   f'y2="{py(v):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{x0 + MARGIN_L - 4}" y="{py(v) + 4:.1f}" text-anchor="end" '
                   f'font-size="10">{v:g}</text>')
    out.append(f'<line x1="{x0 + MARGIN_L}" x2="{x0 + MARGIN_L + w}" y1="{py(TARGET):.1f}" '
               f'y2="{py(TARGET):.1f}" stroke="#000" stroke-dasharray="4 3"/>')
    last_label = -1e9
    for s in sizes:
        if px(s) - last_label < 34:  # a size too close to the last one labelled keeps its point
            continue
        last_label = px(s)
        out.append(f'<text x="{px(s):.1f}" y="{y0 + MARGIN_T + h + 14}" text-anchor="middle" '
                   f'font-size="10">{size_label(s)}</text>')
    lines = {}
    for r in rows:
        lines.setdefault(f'{r["case"]} {r["mode"]}', []).append(r)
    legend_y = y0 + MARGIN_T
    for i, (name, rs) in enumerate(sorted(lines.items())):
        color = COLORS[i % len(COLORS)]
        points, segment = [], []
        for r in sorted(rs, key=lambda r: r["size"]):
            v = speed(r)
            if v is None:
                if segment:
                    points.append(segment)
                segment = []
                continue
            segment.append((px(r["size"]), py(v)))
            hint = (f'{name} {size_label(r["size"])}: ratio {r["ratio"]:.3f}'
                    f'{"" if r["meets_target"] else " (below the target)"}')
            out.append(f'<circle cx="{px(r["size"]):.1f}" cy="{py(v):.1f}" r="3" fill="{color}">'
                       f'<title>{escape(hint)}</title></circle>')
        if segment:
            points.append(segment)
        for seg in points:
            if len(seg) > 1:
                out.append(f'<polyline fill="none" stroke="{color}" points="'
                           + " ".join(f"{x:.1f},{y:.1f}" for x, y in seg) + '"/>')
        out.append(f'<rect x="{x0 + PANEL_W}" y="{legend_y - 8}" width="10" height="10" '
                   f'fill="{color}"/><text x="{x0 + PANEL_W + 14}" y="{legend_y + 1}" '
                   f'font-size="11">{escape(name)}</text>')
        legend_y += 15
    return out


def plot(out_dir):
    docs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out_dir, "sweep_*.json")))]
    docs = [d for d in docs if any(speed(r) is not None for r in d["rows"])]
    if not docs:
        return None
    cols = 2
    rows = (len(docs) + cols - 1) // cols
    width, height = cols * (PANEL_W + LEGEND_W), rows * PANEL_H + 40
    body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            'font-family="sans-serif" font-size="12">',
            '<rect width="100%" height="100%" fill="white"/>',
            f'<text x="10" y="20">fabperf\'s speed against each peer by message size (above 1: '
            f'fabperf ahead; latency ratios inverted; dashed: the target, {TARGET}). '
            f'{escape(out_dir)}</text>']
    for i, doc in enumerate(docs):
        body += panel(doc, (i % cols) * (PANEL_W + LEGEND_W), 30 + (i // cols) * PANEL_H)
    body.append("</svg>")
    path = os.path.join(out_dir, "summary.svg")
    with open(path, "w") as f:
        f.write("\n".join(body) + "\n")
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: plot.py RESULTS_DIR (a directory of sweep_*.json)")
    path = plot(sys.argv[1])
    if path is None:
        sys.exit(f"plot.py: no sweep_*.json with a ratio in {sys.argv[1]}")
    print(path)
