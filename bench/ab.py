#!/usr/bin/env python3
"""Two builds of fabperf against each other: the same test, alternately, on the same CPUs.

For a change to fabperf's own loops, where the question is before against after rather than
fabperf against a peer. Example (busy-poll rows take a CPU each, as in the sweeps):

  python3 bench/ab.py --before /tmp/fabperf_old --after build/fabperf --reps 7 \\
      --figure p50 -- -P shm -m 64 -cp1 rdm_send_lat

Prints each build's median and every run; a run that fails is shown and left out.
"""
import argparse, os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import PIN, Server, client, free_port, json_tail  # noqa: E402

FIGURES = {"mean": ("latency_ns", "mean"), "p50": ("latency_ns", "p50"),
           "bw": ("bandwidth", "recv_Bps")}


def run(binary, args, seconds, figure):
    port = free_port()
    with Server([binary, "-lp", str(port)], port):
        out = client([binary, "127.0.0.1", "-lp", str(port), "-t", str(seconds), "--json", "-"]
                     + args, 30 + 10 * seconds)
    r = json_tail(out)["results"][0]
    if r["status"] != "ok":
        raise RuntimeError(r.get("error"))
    group, key = FIGURES[figure]
    return r[group][key]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=1)
    ap.add_argument("--figure", choices=sorted(FIGURES), default="mean")
    ap.add_argument("--same-cpu", action="store_true", help="client and server on CPU 0 "
                    "(blocking ping-pongs, as in the sweeps)")
    ap.add_argument("args", nargs="+", help="fabperf's options and the test, after --")
    a = ap.parse_args()
    PIN.same() if a.same_cpu else PIN.apart()
    runs = {"before": [], "after": []}
    for _ in range(a.reps):
        for name, binary in (("before", a.before), ("after", a.after)):
            try:
                runs[name].append(run(binary, a.args, a.seconds, a.figure))
            except Exception as e:  # shown, left out of the median
                print(f"{name}: {e}", file=sys.stderr)
    scale = 1e6 if a.figure == "bw" else 1
    unit = "MB/s" if a.figure == "bw" else "ns"
    for name, values in runs.items():
        med = statistics.median(values) / scale if values else float("nan")
        print(f"{name:6s} median {med:.1f} {unit}  runs {[round(v / scale, 1) for v in values]}")
    if runs["before"] and runs["after"]:
        print(f"after / before: {statistics.median(runs['after']) / statistics.median(runs['before']):.3f}")


if __name__ == "__main__":
    main()
