#!/usr/bin/env python3
"""fabperf against its peers on loopback, over sizes: alternating runs, medians and ratios.

For each sweep (bench/sweeps.py) writes OUT/sweep_NAME.md (the table, with the command that
made it) and OUT/sweep_NAME.json (every run of every row), then OUT/summary.md: each size
against the best peer that measured it, and every row below the target, and OUT/summary.svg
(bench/plot.py): each sweep's ratios over the sizes, and where a fabric_floor sweep ran
OUT/fabric_floor.md (bench/fabric_table.py): every fabric row against its floor and its best
peer. `--sweeps` runs some of them only; the summary, the plot and the fabric table read
every sweep file in OUT.
"""
import argparse, glob, json, os, re, shlex, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import Peers, PIN, host_facts, loadavg  # noqa: E402
from sweeps import (LAT_TARGET, BW_TARGET, all_sweeps, meets, run_row, size_text)  # noqa: E402
from extras import memory_over_time, micro  # noqa: E402
from plot import plot  # noqa: E402
from fabric_table import table as fabric_table  # noqa: E402

EXTRAS = ("memory", "micro")


def git_commit():
    """The tree's commit, or "unknown" where there is no git (a copy on another machine: set
    BENCH_COMMIT there)."""
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def median(xs):
    return statistics.median(xs) if xs else None


def spread(xs):
    """(max - min) / median of one side's runs: how much this row's runs disagree."""
    return (max(xs) - min(xs)) / statistics.median(xs) if len(xs) > 1 and median(xs) else None


def row_json(r):
    f, q = median(r.fabperf_runs), median(r.peer_runs)
    ratio = f / q if f and q else None
    return dict(case=r.case, size=r.size, mode=r.mode, unit=r.unit, better=r.better(),
                cpus=r.cpus, peer_name=r.peer_name, key=r.key,
                fabperf=f, peer=q, ratio=ratio, meets_target=meets(r.unit, ratio),
                runs={"fabperf": r.fabperf_runs, "peer": r.peer_runs}, errors=r.errors,
                fabperf_cmd=r.ours_cmd, peer_cmd=r.peer_cmd)


def fmt(v, unit):
    if v is None:
        return "-"
    return f"{v:.0f} ns" if unit == "ns" else f"{v / 1e6:.1f} MB/s"


def header(doc):
    label = doc.get("label") or ""
    title = f"# Sweep `{doc['sweep']}`: fabperf against {doc['peer']}"
    if label:
        title += f" ({label.upper()})"
    lines = [title, ""]
    if "preliminary" in label:
        lines += ["**Preliminary**: run on a shared 2-vCPU VM while other builds ran (load "
                  "averages below); good for finding gaps, not the committed result.", ""]
    lines += [f"Command: `{doc['command']}`" + (f" at {doc['commit']}" if doc.get("commit") else ""),
              "",
              f"{doc['started']} to {doc['finished']}, {doc['cpus']} CPUs"
              + (f" ({doc['cpu_model']})" if doc.get("cpu_model") else "")
              + f", Linux {doc['kernel']}, "
              + (f"TCP congestion control {doc['tcp_congestion_control']}, "
                 if doc.get("tcp_congestion_control") else "") +
              f"load average {doc['load_start']} at the start and {doc['load_end']} at the end. "
              f"Medians of {doc['reps']} alternating runs of {doc['seconds']} s each "
              "(peers counted in iterations are sized from fabperf's run to last as long). "
              "cpus = the client's/server's CPU (taskset, the same for both programs). "
              "Latency is one way (half the round trip), mean. Ratio = fabperf / peer; target: "
              f"<= {LAT_TARGET} for latency, >= {BW_TARGET} for bandwidth. Spread = (max - min) / "
              "median of each side's runs.", ""]
    return lines


def markdown(doc):
    lines = header(doc)
    peer = doc["peer"]
    lines += [f"| case | size | mode | cpus | fabperf | {peer} | ratio | target | spread f / p |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        ratio = f"{r['ratio']:.3f}" if r["ratio"] else "-"
        ok = {True: "yes", False: "**no**", None: "-"}[r["meets_target"]]
        sp = " / ".join("-" if s is None else f"{100 * s:.0f}%" for s in
                        (spread(r["runs"]["fabperf"]), spread(r["runs"]["peer"])))
        peer_cell = fmt(r["peer"], r["unit"])
        if r["peer_name"] != peer:
            peer_cell += f" ({r['peer_name']})"
        lines.append(f"| {r['case']} | {size_text(r['size'])} | {r['mode']} | {r['cpus']} | "
                     f"{fmt(r['fabperf'], r['unit'])} | {peer_cell} | {ratio} | {ok} | {sp} |")
    lines += ["", "How each row ran (SIZE = the row's size; both under taskset, `-t`/`-D` the run "
              "length where the program has one):", ""]
    seen = set()
    for r in doc["rows"]:
        pair = tuple(re.sub(rf"(?<![\w-]){r['size']}(?!\w)", "SIZE", c)
                     for c in (r["fabperf_cmd"], r["peer_cmd"]))
        if pair not in seen:
            seen.add(pair)
            lines.append(f"- `{pair[0]}` against `{pair[1]}`")
    errors = [(r, e) for r in doc["rows"] for e in r["errors"]]
    if errors:
        lines += ["", "Runs that failed (left out of the medians):", ""]
        lines += [f"- {r['case']} {size_text(r['size'])}: {e}" for r, e in errors]
    return "\n".join(lines) + "\n"


def extras_markdown(doc):
    lines = [f"# Resident size and micro-benchmarks{' (' + doc['label'].upper() + ')' if doc['label'] else ''}",
             "", f"Command: `{doc['command']}`, {doc['started']}", ""]
    if "memory_rss_kb" in doc:
        lines += ["## Resident size of `fabperf --loopback tcp_lat` (client and server)", "",
                  "| s | RSS KiB |", "|---|---|"]
        lines += [f"| {t} | {kb} |" for t, kb in doc["memory_rss_kb"]] + [""]
    if "micro_ns" in doc:
        lines += ["## Micro-benchmarks (bench/micro_stats.cc, ns per call)", "",
                  "| benchmark | ns |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in doc["micro_ns"].items()]
    return "\n".join(lines) + "\n"


def summary(out_dir):
    """Each size against the best peer that measured it (rows of several sweeps share a key),
    then every row below the target, from the sweep files in out_dir."""
    docs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out_dir, "sweep_*.json")))]
    best = {}
    below = []
    for d in docs:
        for r in d["rows"]:
            if r["ratio"] is None:
                continue
            if not r["meets_target"]:
                below.append((d, r))
            if not r["key"]:
                continue
            b = best.get(r["key"])
            if b is None or (r["peer"] < b["peer"] if r["unit"] == "ns" else r["peer"] > b["peer"]):
                best[r["key"]] = dict(r, sweep=d["sweep"])
    lines = ["# Summary of the sweeps in this directory", "",
             "Each row of a sweep file is its own run: see that file for the command, the time and "
             "the load. Against the best peer: of the rows that measure the same test, mode and "
             "size, the one whose peer did best.", "",
             "| test, mode, size | best peer (sweep) | fabperf | peer | ratio | target |",
             "|---|---|---|---|---|---|"]
    for key, r in best.items():
        ok = "yes" if r["meets_target"] else "**no**"
        lines.append(f"| {key.rsplit(' ', 1)[0]} {size_text(int(key.rsplit(' ', 1)[1]))} | "
                     f"{r['peer_name']} ({r['sweep']}) | {fmt(r['fabperf'], r['unit'])} | "
                     f"{fmt(r['peer'], r['unit'])} | {r['ratio']:.3f} | {ok} |")
    lines += ["", f"## Rows below the target ({len(below)})", "",
              "| sweep | case | size | mode | ratio |", "|---|---|---|---|---|"]
    lines += [f"| {d['sweep']} | {r['case']} | {size_text(r['size'])} | {r['mode']} | "
              f"{r['ratio']:.3f} |" for d, r in below]
    with open(os.path.join(out_dir, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=3, help="runs of each side per row (alternating)")
    # Whole seconds: qperf, iperf3 and sockperf take no fraction (qperf and iperf3 read
    # -t 0.2 as 0, which runs for ever).
    ap.add_argument("--seconds", type=int, default=1, help="length of each run, whole seconds")
    ap.add_argument("--sweeps", default="all", help="comma-separated: all, or of "
                    + ", ".join(list(all_sweeps(None)) + list(EXTRAS)))
    ap.add_argument("--match", default="", help="only the rows whose 'case size mode' (size in "
                    "bytes) matches this regular expression, e.g. 'tcp_lat 65536'")
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--label", default="", help="written into every table (e.g. preliminary)")
    ap.add_argument("--memory-seconds", type=int, default=60)
    args = ap.parse_args()
    if args.seconds < 1 or args.reps < 1:
        ap.error("--seconds and --reps must be at least 1")
    peers = Peers(args.build, args.seconds)
    sweeps = all_sweeps(peers)
    names = list(sweeps) + list(EXTRAS) if args.sweeps == "all" else args.sweeps.split(",")
    unknown = [n for n in names if n not in sweeps and n not in EXTRAS]
    if unknown:
        ap.error(f"unknown sweep {', '.join(unknown)}")
    argv = shlex.join(["python3"] + sys.argv)
    command = os.environ.get("BENCH_COMMAND") or argv
    os.makedirs(args.out, exist_ok=True)
    commit = os.environ.get("BENCH_COMMIT") or git_commit()
    for name in names:
        if name in EXTRAS:
            continue
        rows = [r for r in sweeps[name]() if re.search(args.match, f"{r.case} {r.size} {r.mode}")]
        if not rows:
            continue
        doc = dict(sweep=name, peer=rows[0].peer_name if rows else "", label=args.label,
                   command=command, argv=argv, commit=commit, started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   cpus=os.cpu_count(), kernel=os.uname().release, **host_facts(),
                   reps=args.reps, seconds=args.seconds, load_start=loadavg())
        done = []
        for row in rows:
            run_row(row, args.reps, lambda m: print(m, file=sys.stderr, flush=True))
            row.cpus = PIN.text()
            done.append(row_json(row))
            j = done[-1]
            print(f"{name:12s} {j['case']:28s} {size_text(j['size']):>8s} {j['mode']:5s} "
                  f"fabperf={fmt(j['fabperf'], j['unit'])} peer={fmt(j['peer'], j['unit'])} "
                  f"ratio={j['ratio'] and round(j['ratio'], 3)}", flush=True)
        doc.update(rows=done, finished=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   load_end=loadavg())
        base = os.path.join(args.out, f"sweep_{name}")
        with open(base + ".json", "w") as f:
            json.dump(doc, f, indent=1)
        with open(base + ".md", "w") as f:
            f.write(markdown(doc))
    if any(n in EXTRAS for n in names):
        extras = dict(command=command, started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                      label=args.label)
        if "memory" in names and args.memory_seconds > 0:
            extras["memory_rss_kb"] = memory_over_time(peers.fp, args.memory_seconds)
        if "micro" in names:
            extras["micro_ns"] = micro(os.path.join(args.build, "micro_stats"))
        with open(os.path.join(args.out, "extras.json"), "w") as f:
            json.dump(extras, f, indent=1)
        with open(os.path.join(args.out, "extras.md"), "w") as f:
            f.write(extras_markdown(extras))
    summary(args.out)
    plot(args.out)
    fabric = fabric_table(args.out)  # where a fabric_floor sweep ran: its rows beside the peers'
    if fabric is not None:
        with open(os.path.join(args.out, "fabric_floor.md"), "w") as f:
            f.write(fabric)


if __name__ == "__main__":
    main()
