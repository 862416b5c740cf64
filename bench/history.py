#!/usr/bin/env python3
"""One row, several runs: each row's ratio in each result directory, side by side.

A row that reads below the target in one run and meets it in the next, with spreads of tens of
percent, is the machine's noise; one below in every run, with small spreads, is a gap to find.
Reads the sweep_*.json files that run_bench.py writes; prints a Markdown table.

  python3 bench/history.py bench/results/reruns-cubic-1556682 bench/results/reruns-cubic-dc20842

Each cell: ratio (spread of fabperf's runs / the peer's), * where the row missed the target.
Rows missing from a directory show as -.
"""
import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_bench import spread  # noqa: E402  the tables' own spread: (max - min) / median
from sweeps import size_text  # noqa: E402


def rows_of(directory):
    """{(sweep, case, size, mode): row} of every sweep file in `directory`."""
    found = {}
    paths = sorted(glob.glob(os.path.join(directory, "sweep_*.json")))
    if not paths:
        raise SystemExit(f"history.py: no sweep_*.json in {directory}")
    for path in paths:
        with open(path) as f:
            sweep = json.load(f)
        for row in sweep.get("rows", []):
            if row.get("ratio") is None:
                continue
            found[(sweep["sweep"], row["case"], row["size"], row["mode"])] = row
    return found


def cell(row):
    if row is None:
        return "-"
    runs = row.get("runs") or {}
    f, p = spread(runs.get("fabperf", [])), spread(runs.get("peer", []))
    pct = lambda s: "?" if s is None else f"{s * 100:.0f}%"
    miss = "" if row.get("meets_target") else "*"
    return f"{row['ratio']:.3f}{miss} ({pct(f)} / {pct(p)})"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="result directories, oldest first")
    args = ap.parse_args(argv)
    tables = [rows_of(d) for d in args.dirs]
    keys = []
    for table in tables:
        keys += [k for k in table if k not in keys]
    names = [os.path.basename(os.path.normpath(d)) for d in args.dirs]
    print("| sweep | case | size | mode | " + " | ".join(names) + " |")
    print("|---|---|---|---|" + "---|" * len(names))
    for key in sorted(keys, key=lambda k: (k[0], k[1], k[3], k[2])):
        sweep, case, size, mode = key
        cells = [cell(t.get(key)) for t in tables]
        print(f"| {sweep} | {case} | {size_text(size)} | {mode} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
