#!/usr/bin/env python3
"""Every fabric row against its floor and its best peer, from the sweep files of one directory:
OUT/fabric_floor.md (run_bench.py writes it after the sweeps; also run alone as
`python3 bench/fabric_table.py DIR`).

A row's floor ratio comes from the fabric_floor sweep (fabperf and the floor alternating), its
peer ratio from the sweep that ran the peer (fi_pingpong, ucx: fabperf and the peer
alternating), each in its own sitting; floor / peer is the two medians' quotient across
sittings, the provider's distance from the peer with fabperf taken out.
"""
import json, math, os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweeps import LAT_TARGET, BW_TARGET, size_text  # noqa: E402

PEER_SWEEPS = ("fi_pingpong", "ucx", "fab")


def fmt(v, unit):
    if v is None:
        return "-"
    if unit == "ns":
        return f"{v / 1000:.2f} us" if v >= 10000 else f"{v:.0f} ns"
    return f"{v / 1e6:.1f} MB/s" if v < 1e9 else f"{v / 1e9:.2f} GB/s"


def load(out_dir, name):
    path = os.path.join(out_dir, f"sweep_{name}.json")
    return json.load(open(path)) if os.path.exists(path) else None


def meets(unit, ratio):
    return ratio <= LAT_TARGET if unit == "ns" else ratio >= BW_TARGET


# A row's runs are in two modes of the host, not in one mode's spread, where split in two (at
# the cut that leaves the least spread within each part, on a log scale) the parts' medians
# are this factor or more apart: over shm this guest's 64-byte round trip takes 250-500 ns or
# 850-1,150 ns from one run to the next, in fabperf and the floor alike, and a run in which
# the host changed its mode reads in between; within a mode the runs of a row spread by
# 10-30% (bench/README.md, "The shm latency rows by the host's mode").
MODE_STEP = 1.5


def mode_cut(xs):
    """The figure at or below which a run is in the lower of two modes, or None for one mode."""
    xs = sorted(x for x in xs if x > 0)
    if len(xs) < 4:
        return None
    logs = [math.log(x) for x in xs]

    def spread(part):  # the sum of squares about the part's mean
        m = sum(part) / len(part)
        return sum((v - m) ** 2 for v in part)

    k = min(range(1, len(xs)), key=lambda k: spread(logs[:k]) + spread(logs[k:]))
    apart = statistics.median(xs[k:]) / statistics.median(xs[:k])
    return xs[k - 1] if apart >= MODE_STEP else None


def by_mode(unit, fabperf, floor):
    """A row whose runs fall into two modes: for each, fabperf's median over the floor's among
    the runs in it, and how many runs of each program it holds (fast mode first). None when
    the runs of both programs together are in one mode."""
    cut = mode_cut(fabperf + floor)
    if cut is None:
        return None
    modes = []
    for low in (True, False):
        f = [x for x in fabperf if (x <= cut) == low]
        fl = [x for x in floor if (x <= cut) == low]
        ratio = statistics.median(f) / statistics.median(fl) if f and fl else None
        # The fast mode: the low one for a latency, the high one for a bandwidth.
        name = "fast" if low == (unit == "ns") else "slow"
        modes.append((name, ratio, len(f), len(fl)))
    return sorted(modes)


def mode_cell(modes):
    if modes is None:
        return "-"
    return ", ".join(f"{name} {'-' if r is None else f'{r:.3f}'} ({nf}/{nfl})"
                     for name, r, nf, nfl in modes)


def table(out_dir):
    floor = load(out_dir, "fabric_floor")
    if floor is None:
        return None
    peers = {}
    for name in PEER_SWEEPS:
        doc = load(out_dir, name)
        for r in (doc or {}).get("rows", []):
            if r["key"] and r["ratio"]:
                best = peers.get(r["key"])
                better = best is None or (r["peer"] < best["peer"] if r["unit"] == "ns"
                                          else r["peer"] > best["peer"])
                if better:
                    peers[r["key"]] = r
    lines = [f"# The fabric rows against their floor and their best peer", "",
             f"From `{out_dir}`: the fabric_floor sweep ({floor['started']} to "
             f"{floor['finished']}, load {floor['load_start']} to {floor['load_end']}, "
             f"{floor['reps']} alternating runs of {floor['seconds']} s) and the "
             f"{', '.join(PEER_SWEEPS)} sweeps where present. fabperf / floor from the floor "
             "sweep, fabperf / peer from the peer's sweep (each in its own sitting); floor / "
             "peer = the floor's median over the peer's, across the two sittings. Target: "
             f"fabperf / floor <= {LAT_TARGET} (latency), >= {BW_TARGET} (bandwidth).", "",
             "paired = the median of each round's own ratio (fabperf's run over the floor's "
             "just after it), which a drift of the host between rounds moves less.", "",
             "by mode = where the runs fall into two modes of the host (split where the two "
             "parts spread least, on a log scale, and the parts' medians "
             f"{MODE_STEP}x or more apart), fabperf / floor among the runs of each mode, with "
             "how many runs of fabperf / the floor it holds: a row whose ratio is a mix of "
             "modes can read level within each.", "",
             "| row | size | fabperf | floor | fabperf / floor | paired | target | "
             "spread f / fl | by mode | best peer | fabperf / peer | floor / peer |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    below = []
    for r in floor["rows"]:
        ratio = r["ratio"]
        ok = "-" if ratio is None else ("yes" if meets(r["unit"], ratio) else "**no**")
        if ratio is not None and not meets(r["unit"], ratio):
            below.append(r)
        spreads = []
        for side in ("fabperf", "peer"):
            xs = r["runs"][side]
            med = sorted(xs)[len(xs) // 2] if xs else None
            spreads.append("-" if len(xs) < 2 or not med else
                           f"{100 * (max(xs) - min(xs)) / med:.0f}%")
        pairs = sorted(f / q for f, q in zip(r["runs"]["fabperf"], r["runs"]["peer"]) if q)
        paired = f"{statistics.median(pairs):.3f}" if pairs else "-"
        p = peers.get(r["key"])
        peer_cells = ["-", "-", "-"]
        if p:
            fp = f"{p['ratio']:.3f}"
            fl = f"{r['peer'] / p['peer']:.3f}" if r["peer"] else "-"
            peer_cells = [f"{p['peer_name']} {fmt(p['peer'], p['unit'])}", fp, fl]
        lines.append(f"| {r['case']} | {size_text(r['size'])} | {fmt(r['fabperf'], r['unit'])} | "
                     f"{fmt(r['peer'], r['unit'])} | "
                     f"{'-' if ratio is None else f'{ratio:.3f}'} | {paired} | {ok} | "
                     f"{' / '.join(spreads)} | "
                     f"{mode_cell(by_mode(r['unit'], r['runs']['fabperf'], r['runs']['peer']))} | "
                     + " | ".join(peer_cells) + " |")
    lines += ["", f"{len(below)} of {len(floor['rows'])} rows below the target against the "
              "floor."]
    errors = [(r, e) for r in floor["rows"] for e in r["errors"]]
    if errors:
        lines += ["", "Runs that failed:", ""] + [f"- {r['case']} {size_text(r['size'])}: {e}"
                                                  for r, e in errors]
    return "\n".join(lines) + "\n"


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
    text = table(out_dir)
    if text is None:
        sys.exit(f"no sweep_fabric_floor.json in {out_dir}")
    with open(os.path.join(out_dir, "fabric_floor.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
