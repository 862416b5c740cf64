#!/usr/bin/env python3
"""Whole fleets, simulated: fabperf --matrix --simulate over generated fabrics with injected
faults, adaptive and all-pairs, scored against the faults (the score is the run's own JSON:
matrix.simulation.score, from src/cluster/scoring.cc, the code the tests use too).

  python3 bench/fleet.py gen --kind dragonfly --hosts 10000 --seed 1 -o /tmp/f.json
  python3 bench/fleet.py run --sizes 256,1024 --seeds 5 --patterns adaptive,all -o /tmp/fleet
  python3 bench/fleet.py table /tmp/fleet          # the markdown table of bench/README.md
  python3 bench/fleet.py mpirun --ranks 32 -o /tmp/fleet   # a real 32-rank job on this host

Each run records recall, the false share of the findings, pair measurements (and their share
of one all-pairs pass of every test), rounds, wall time and rank 0's peak resident size
(getrusage of the child, ru_maxrss)."""

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FABPERF = os.environ.get("FABPERF", os.path.join(HERE, "..", "build", "fabperf"))

LINKS = {
    "same_switch": {"latency_us": 1.8, "bandwidth_gbps": 190},
    "same_group": {"latency_us": 2.3, "bandwidth_gbps": 185},
    "other_group": {"latency_us": 2.9, "bandwidth_gbps": 175},
}
NOISE = {"jitter": 0.03, "outlier_rate": 0.001, "outlier_factor": 5}


def shape(kind, hosts):
    """A topology of about `hosts` hosts: 16 hosts a switch, 16 switches a dragonfly group."""
    if kind == "dragonfly":
        if hosts <= 256:
            return {"kind": kind, "groups": 4, "switches_per_group": 8, "hosts_per_switch": 8}
        if hosts <= 1024:
            return {"kind": kind, "groups": 8, "switches_per_group": 8, "hosts_per_switch": 16}
        groups = -(-hosts // 256)
        return {"kind": kind, "groups": groups, "switches_per_group": 16, "hosts_per_switch": 16}
    leaves = -(-hosts // 16)
    return {"kind": "fat_tree", "leaves": leaves, "hosts_per_leaf": 16, "spines": 8}


def switch_names(topo, hosts):
    if topo["kind"] == "dragonfly":
        per = topo["hosts_per_switch"]
        used = -(-hosts // per)
        return [f"g{s // topo['switches_per_group']:02d}s{s % topo['switches_per_group']:02d}"
                for s in range(used)]
    used = -(-hosts // topo["hosts_per_leaf"])
    return [f"leaf{s:03d}" for s in range(used)]


def faults_per_kind(hosts):
    """25 of each structural kind at 10,000 hosts (the issue asks at least 20), fewer below."""
    return max(3, hosts // 400)


def gen(kind, hosts, seed, contention=True, pair_faults=None):
    rnd = random.Random(seed * 7919 + hosts)
    topo = shape(kind, hosts)
    switches = switch_names(topo, hosts)
    k = faults_per_kind(hosts)
    pair_k = k if pair_faults is None else pair_faults
    name = lambda h: f"n{h:05d}"
    faults = []
    taken = set()

    def hosts_pick(n):
        out = []
        while len(out) < n:
            h = rnd.randrange(hosts)
            if h not in taken:
                taken.add(h)
                out.append(h)
        return out

    for h in hosts_pick(k):
        faults.append({"kind": "slow_node", "host": name(h), "factor": round(rnd.uniform(2, 4), 2)})
    for h in hosts_pick(k):
        faults.append({"kind": "dead_node", "host": name(h)})
    for s in rnd.sample(switches, k):
        faults.append({"kind": "slow_switch", "switch": s, "factor": round(rnd.uniform(2, 4), 2)})
    if topo["kind"] == "dragonfly":
        per_group = topo["switches_per_group"]
        groups = sorted({s[:3] for s in switches})
        local = set()
        while len(local) < k:
            g = rnd.choice(groups)
            a, b = sorted(rnd.sample(range(per_group), 2))
            pair = (f"{g}s{a:02d}", f"{g}s{b:02d}")
            if pair[0] in switches and pair[1] in switches:
                local.add(pair)
        for a, b in sorted(local):
            faults.append({"kind": "slow_local_link", "switches": [a, b],
                           "factor": round(rnd.uniform(2, 4), 2)})
        ups = set()
        while len(ups) < min(k, len(groups) * (len(groups) - 1) // 2):
            ups.add(tuple(sorted(rnd.sample(groups, 2))))
        for a, b in sorted(ups):
            faults.append({"kind": "slow_uplink", "groups": [a, b],
                           "factor": round(rnd.uniform(2, 4), 2)})
    else:
        for s in rnd.sample(switches, k):
            faults.append({"kind": "slow_uplink", "leaf": s, "factor": round(rnd.uniform(2, 4), 2)})
    for kind_name, lo, hi in (("slow_link", 2.5, 4), ("flapping_link", 3, 5)):
        for _ in range(pair_k):
            a, b = hosts_pick(2)
            f = {"kind": kind_name, "hosts": [name(a), name(b)], "factor": round(rnd.uniform(lo, hi), 2)}
            if kind_name == "flapping_link":
                f["fraction"] = 0.3
            faults.append(f)
    model = {"seed": seed, "hosts": hosts, "topology": topo, "links": LINKS, "noise": NOISE,
             "faults": faults}
    if contention:
        # A dragonfly link carries one NIC's worth; a leaf's uplinks half its hosts' (2:1).
        model["contention"] = ({"local_link_gbps": 200, "global_link_gbps": 400}
                               if topo["kind"] == "dragonfly" else {"uplink_gbps": 1600})
    return model


def run_one(model_path, pattern, seed, out_json, extra=()):
    cmd = [FABPERF, "--matrix", "--simulate", model_path, "--pattern", pattern, "--seed", str(seed),
           "tcp_lat", "tcp_bw", "--json", out_json, *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr[-2000:]}")
    with open(out_json) as f:
        doc = json.load(f)
    m = doc["matrix"]
    score = m["simulation"]["score"]
    cov = m["coverage"]
    return {
        "command": " ".join(cmd),
        "recall": score["recall"], "false_rate": score["false_rate"],
        "found": score["found"], "injected": score["injected"], "named": score["named"],
        "false": score["false"], "by_kind": score["by_kind"],
        "measurements": cov["measurements"], "fraction": cov["fraction"],
        "rounds": cov["rounds"], "sim_s": m["elapsed_s"], "wall_s": wall,
        # ru_maxrss of children is the largest child so far: each run is in its own process,
        # and runs go smallest first, so the figure is this run's when it grew.
        "rss_mib": rss_kib / 1024.0, "rss_prior_mib": before / 1024.0,
        "json_bytes": os.path.getsize(out_json),
        "missed": score["missed"][:10], "false_findings": score["false_findings"][:10],
    }


def cmd_run(args):
    os.makedirs(args.out, exist_ok=True)
    results = []
    path = os.path.join(args.out, "fleet.json")
    if os.path.exists(path):
        with open(path) as f:
            results = json.load(f)
    done = {(r["kind"], r["hosts"], r["pattern"], r["seed"]) for r in results}
    for hosts in [int(s) for s in args.sizes.split(",")]:
        for kind in args.kinds.split(","):
            for pattern in args.patterns.split(","):
                for seed in range(1, args.seeds + 1):
                    if (kind, hosts, pattern, seed) in done:
                        continue
                    model = gen(kind, hosts, seed, contention=not args.no_contention)
                    model_path = os.path.join(args.out, f"{kind}-{hosts}-{seed}.json")
                    with open(model_path, "w") as f:
                        json.dump(model, f)
                    extra = []
                    if pattern == "all":
                        extra = ["--passes", str(args.passes), "--retest", str(args.retest)]
                    out_json = os.path.join(args.out, f"run-{kind}-{hosts}-{pattern}-{seed}.json")
                    # Each run in a process of its own, so ru_maxrss is its own.
                    r = subprocess.run([sys.executable, __file__, "one", model_path, pattern,
                                        str(seed), out_json, "--", *extra],
                                       capture_output=True, text=True)
                    if r.returncode != 0:
                        print(r.stderr, file=sys.stderr)
                        continue
                    res = json.loads(r.stdout)
                    res.update({"kind": kind, "hosts": hosts, "pattern": pattern, "seed": seed,
                                "passes": args.passes if pattern == "all" else 1})
                    results.append(res)
                    if not args.keep_json:
                        os.remove(out_json)
                    with open(path, "w") as f:
                        json.dump(results, f, indent=1)
                    print(f"{kind} {hosts} {pattern} seed {seed}: recall {res['recall']:.3f}, "
                          f"false {res['false']}/{res['named']}, {res['measurements']} runs "
                          f"({100 * res['fraction']:.2f}%), {res['rounds']} rounds, "
                          f"{res['wall_s']:.1f} s, {res['rss_mib']:.0f} MiB", flush=True)


def cmd_one(args):
    res = run_one(args.model, args.pattern, args.seed, args.out_json, args.extra)
    print(json.dumps(res))


def cmd_gen(args):
    model = gen(args.kind, args.hosts, args.seed, contention=not args.no_contention)
    with open(args.o, "w") as f:
        json.dump(model, f, indent=1)


def cmd_table(args):
    with open(os.path.join(args.dir, "fleet.json")) as f:
        results = json.load(f)
    groups = {}
    for r in results:
        groups.setdefault((r["pattern"], r["kind"], r["hosts"]), []).append(r)
    print("| pattern | fabric | hosts | seeds | recall (min / mean) | false named (mean) | "
          "pair runs (share of all-pairs) | rounds | wall s | rank-0 RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (pattern, kind, hosts), rs in sorted(groups.items(), key=lambda x: (x[0][0], x[0][1], x[0][2])):
        rec = [r["recall"] for r in rs]
        fr = [r["false_rate"] for r in rs]
        label = pattern if pattern != "all" else f"all, {rs[0].get('passes', 1)} passes"
        print(f"| {label} | {kind} | {hosts:,} | {len(rs)} | {min(rec):.3f} / {statistics.mean(rec):.3f} | "
              f"{100 * statistics.mean(fr):.1f}% (max {100 * max(fr):.1f}%) | "
              f"{statistics.mean(r['measurements'] for r in rs):,.0f} "
              f"({100 * statistics.mean(r['fraction'] for r in rs):.2f}%) | "
              f"{statistics.mean(r['rounds'] for r in rs):.0f} | "
              f"{statistics.mean(r['wall_s'] for r in rs):.2f} | "
              f"{max(r['rss_mib'] for r in rs):.0f} |")


def cmd_mpirun(args):
    """A real job of --ranks processes on this host under mpirun: wall time and rank 0's
    descriptors (counted from /proc while it runs)."""
    os.makedirs(args.out, exist_ok=True)
    out_json = os.path.join(args.out, f"mpirun-{args.ranks}.json")
    cmd = ["mpirun", "--enable-recovery", "--oversubscribe", "--allow-run-as-root", "-np",
           str(args.ranks), FABPERF, "--matrix", "-t", str(args.t), "--json", out_json,
           "tcp_lat", "tcp_bw"]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    most_fds, rank0 = 0, None
    while proc.poll() is None:
        if rank0 is None:
            rank0 = find_rank0(proc.pid)
        if rank0 is not None:
            try:
                most_fds = max(most_fds, len(os.listdir(f"/proc/{rank0}/fd")))
            except OSError:
                pass
        time.sleep(0.05)
    out, err = proc.communicate()
    wall = time.monotonic() - start
    with open(out_json) as f:
        m = json.load(f)["matrix"]
    res = {"ranks": args.ranks, "wall_s": wall, "rank0_fds_max": most_fds,
           "pairs": m["coverage"]["pairs_measured"], "rounds": m["rounds"]["done"],
           "exit_code": proc.returncode, "command": " ".join(cmd)}
    print(json.dumps(res, indent=1))
    with open(os.path.join(args.out, f"mpirun-{args.ranks}-summary.json"), "w") as f:
        json.dump(res, f, indent=1)


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def find_rank0(mpirun_pid):
    """The fabperf under this mpirun (its parent chain reaches it) whose environment says
    PMIX_RANK=0."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if b"PMIX_RANK=0" not in env:
            continue
        p, steps = int(pid), 0
        while p > 1 and p != mpirun_pid and steps < 16:
            p, steps = parent_of(p), steps + 1
        try:
            exe = os.path.realpath(f"/proc/{pid}/exe")
        except OSError:
            continue
        if p == mpirun_pid and os.path.samefile(exe, FABPERF):
            return int(pid)
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--kind", default="dragonfly", choices=["dragonfly", "fat_tree"])
    g.add_argument("--hosts", type=int, default=1024)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--no-contention", action="store_true")
    g.add_argument("-o", required=True)
    r = sub.add_parser("run")
    r.add_argument("--sizes", default="256,1024,4096,10000")
    r.add_argument("--kinds", default="dragonfly,fat_tree")
    r.add_argument("--patterns", default="adaptive,all")
    r.add_argument("--seeds", type=int, default=5)
    r.add_argument("--passes", type=int, default=10)
    r.add_argument("--retest", type=int, default=100000)
    r.add_argument("--no-contention", action="store_true")
    r.add_argument("--keep-json", action="store_true")
    r.add_argument("-o", "--out", required=True)
    o = sub.add_parser("one")
    o.add_argument("model")
    o.add_argument("pattern")
    o.add_argument("seed", type=int)
    o.add_argument("out_json")
    o.add_argument("extra", nargs="*")
    t = sub.add_parser("table")
    t.add_argument("dir")
    mp = sub.add_parser("mpirun")
    mp.add_argument("--ranks", type=int, default=32)
    mp.add_argument("-t", type=float, default=0.1)
    mp.add_argument("-o", "--out", required=True)
    args = p.parse_args()
    {"gen": cmd_gen, "run": cmd_run, "one": cmd_one, "table": cmd_table, "mpirun": cmd_mpirun}[args.cmd](args)


if __name__ == "__main__":
    main()
