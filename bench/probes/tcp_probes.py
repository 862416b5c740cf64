#!/usr/bin/env python3
"""The tcp_bw rows' probes: fabperf against qperf with qperf's buffer written (touch_malloc.c)
and against iperf3, and two streams against the bare floor (twostream.c).

Alternating rounds, client on CPU 0 and servers on CPU 1, through bench/peers.py as in the
sweeps (a server per measurement, found ready by its listening socket).

  python3 bench/probes/tcp_probes.py OUT [--reps 7] [--cc cubic] [--only qperf,iperf3,two]

--cc sets the host's TCP congestion control for the run and restores the one it found (root).
Each probe writes OUT/NAME.txt, one line per round in GB/s, and a last line with each
program's median over fabperf's; OUT/README.md says when, where and at which commit.
"""
import argparse, contextlib, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from peers import PIN, Peers, Server, client, free_port, host_facts, loadavg  # noqa: E402

QPERF_SIZES = ("4K", "64K", "256K", "1M")
IPERF3_SIZES = ("128K", "1M")
SHAPES = ("threads", "poll", "rr")
KI = {"K": 1 << 10, "M": 1 << 20}


def size_bytes(text):
    return int(text[:-1]) * KI[text[-1]] if text[-1] in KI else int(text)


@contextlib.contextmanager
def congestion_control(cc):
    """The host's TCP congestion control set to `cc` for the block, restored after."""
    was = host_facts()["tcp_congestion_control"]

    def set_to(value):
        with open("/proc/sys/net/ipv4/tcp_congestion_control", "w") as f:
            f.write(value)
    try:
        if cc:
            set_to(cc)
        yield
    finally:
        set_to(was)


def build_touch_malloc(where):
    so = os.path.join(where, "touch_malloc.so")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", so,
                    os.path.join(HERE, "touch_malloc.c")], check=True)
    return so


def build_probes(where):
    bare = os.path.join(where, "twostream")
    subprocess.run(["gcc", "-O2", "-pthread", "-o", bare, os.path.join(HERE, "twostream.c")],
                   check=True)
    return build_touch_malloc(where), bare


def start_readme(out_dir, script, reps, seconds, figures, unit="GB/s"):
    """OUT/README.md's first lines: the command, when, where, at which commit."""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    host = host_facts()
    with open(os.path.join(out_dir, "README.md"), "w") as f:
        f.write(f"# {script} at {commit}\n\n`python3 bench/probes/{script} "
                f"{' '.join(sys.argv[1:])}`, {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"
                f", {os.cpu_count()} CPUs ({host['cpu_model']}), Linux {os.uname().release}, "
                f"TCP congestion control {host['tcp_congestion_control']}, load average "
                f"{loadavg()} at the start. Figures in {unit} ({figures}), one line per round, "
                f"{reps} rounds, {seconds} s runs.\n")


def end_readme(out_dir):
    with open(os.path.join(out_dir, "README.md"), "a") as f:
        f.write(f"load average {loadavg()} at the end.\n")


def bare_two_streams(bare, shape, size, seconds):
    """The bare floor's two streams in GB/s; the receiver ends itself after 30 s if alone."""
    port = free_port()
    with Server(["timeout", "30", bare, "recv", str(port), shape, str(size)], port,
                one_shot=True):
        out = client([bare, "send", str(port), shape, str(size), str(seconds)], 30 + seconds)
    return float(out.split()[2]) * 1e9


def probe_arguments(doc, reps):
    """The options every probe takes: OUT, --reps (its default `reps`), --seconds, --build."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--reps", type=int, default=reps)
    ap.add_argument("--seconds", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    return ap


def probe_peers(a):
    """The programs of a probe's parsed options `a`: the rows' CPUs set apart, OUT made."""
    PIN.apart()
    os.makedirs(a.out, exist_ok=True)
    return Peers(a.build, a.seconds)


def measure(name, fn):
    try:
        return fn()
    except Exception as e:  # shown and left out of the medians
        print(f"{name}: {e}", file=sys.stderr)
        return None


def probe(out_dir, file_name, reps, programs, unit=("GB/s", 1e9)):
    """`programs`: (name, callable returning bytes/s); the first is the base of the ratios
    (fabperf, in these probes). Rounds alternate. `unit`: the figures' name and divisor in the
    file (("us", 1e3) for a callable returning ns)."""
    rounds = {name: [] for name, _ in programs}  # every round's figure, None where it failed
    with open(os.path.join(out_dir, file_name), "w") as f:
        if unit[0] != "GB/s":  # the files before units were named are all in GB/s
            print(f"# figures in {unit[0]}", file=f)
        for _ in range(reps):
            line = []
            for name, fn in programs:
                v = measure(name, fn)
                rounds[name].append(v)
                line.append(f"{name}={'failed' if v is None else f'{v / unit[1]:.4g}'}")
            print(" ".join(line), file=f, flush=True)
            print(file_name, " ".join(line))
        first = programs[0][0]
        runs = {name: [v for v in vs if v is not None] for name, vs in rounds.items()}
        others = [name for name in runs if name != first and runs[name]]
        base = statistics.median(runs[first]) if runs[first] else float("nan")
        ratios = [f"{first}/{name}={base / statistics.median(runs[name]):.3f}" for name in others]
        print("# medians: " + " ".join(ratios), file=f)
        # Each round's ratio, then their median and quartiles: a drift of the host between
        # rounds moves both programs of a round alike and cancels here.
        paired = []
        for name in others:
            pairs = [b / o for b, o in zip(rounds[first], rounds[name])
                     if b is not None and o is not None]
            if len(pairs) >= 4:
                q = statistics.quantiles(pairs, n=4)
                paired.append(f"{first}/{name}={statistics.median(pairs):.3f} "
                              f"[{q[0]:.3f}, {q[2]:.3f}]")
        if paired:
            print("# paired, median [quartiles] of each round's ratio: " + " ".join(paired), file=f)


def main():
    ap = probe_arguments(__doc__, 7)
    ap.add_argument("--cc", default="")
    ap.add_argument("--only", default="qperf,iperf3,two")
    a = ap.parse_args()
    only = set(a.only.split(","))
    p = probe_peers(a)
    fab = lambda size, *extra: lambda: p.fabperf("tcp_bw", ["-m", size] + list(extra), "bw")
    with tempfile.TemporaryDirectory() as tmp, congestion_control(a.cc):
        so, bare = build_probes(tmp)
        written = dict(os.environ, LD_PRELOAD=so)
        start_readme(a.out, "tcp_probes.py", a.reps, a.seconds,
                     "fabperf's recv bandwidth, qperf's bw, iperf3's sum_received")
        if "qperf" in only:  # qperf sends from the zero page; qperf_written from written pages
            for m in QPERF_SIZES:
                probe(a.out, f"qperf_written_{m}.txt", a.reps, [
                    ("fabperf", fab(m)),
                    ("qperf", lambda m=m: p.qperf("tcp_bw", size_bytes(m), "bw")),
                    ("qperf_written",
                     lambda m=m: p.qperf("tcp_bw", size_bytes(m), "bw", env=written))])
        if "iperf3" in only:
            for m in IPERF3_SIZES:
                probe(a.out, f"iperf3_{m}.txt", a.reps, [
                    ("fabperf", fab(m)), ("iperf3", lambda m=m: p.iperf3(size_bytes(m), 1))])
        if "two" in only:  # two streams: fabperf (its default, then each sender), the bare
            size = size_bytes("128K")  # floor in three shapes, iperf3
            probe(a.out, "two_streams_128K.txt", a.reps,
                  [("fabperf", fab("128K", "--streams", "2"))]
                  + [(f"fabperf_{m}", fab("128K", "--streams", "2", "--stream_sender", m))
                     for m in ("threads", "round_robin")]
                  + [(f"bare_{s}", lambda s=s: bare_two_streams(bare, s, size, a.seconds))
                     for s in SHAPES]
                  + [("iperf3", lambda: p.iperf3(size, 2))])
    end_readme(a.out)


if __name__ == "__main__":
    main()
