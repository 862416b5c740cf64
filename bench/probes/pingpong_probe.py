#!/usr/bin/env python3
"""What fabperf's process shape costs a blocking ping-pong: the bare floor (bench/floor_pingpong.cc)
in its shapes and calls (bench/floor_shape.h) beside fabperf's own run, in alternating rounds,
client and server on CPU 0 as the sweeps' blocking latency rows run (two context switches a
round trip on one CPU).

fabperf's client and server each have threads beside the measuring one (its stall watchdog,
signal thread, a server's listener and supervisor); qperf's processes, and the floor's by
default, have one. This puts the floor in fabperf's shape one difference at a time.

  python3 bench/probes/pingpong_probe.py OUT [--reps 10] [--seconds 1] [--cases tcp:1,udp:1]
      [--shapes single,thread-own-fds] [--calls send,syscall] [--no-fabperf] [--qperf]

Writes OUT/pingpong_PROTO_SIZE.txt through tcp_probes.probe(): a line per round, one-way mean
in us to 4 significant digits, and fabperf's median over each other's (above 1: fabperf slower).
A floor program is named SHAPE/CALLS.
"""
import os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from peers import PIN  # noqa: E402
from tcp_probes import end_readme, probe, probe_arguments, probe_peers, start_readme  # noqa: E402


def main():
    ap = probe_arguments(__doc__, 10)
    ap.add_argument("--cases", default="tcp:1,udp:1")
    ap.add_argument("--shapes", default="single,thread-own-fds")
    ap.add_argument("--calls", default="send,syscall")
    ap.add_argument("--no-fabperf", action="store_true")
    ap.add_argument("--qperf", action="store_true")
    a = ap.parse_args()
    peers = probe_peers(a)
    PIN.same()
    start_readme(a.out, "pingpong_probe.py", a.reps, a.seconds, "one-way mean, half the round trip",
                 unit="us")
    for case in a.cases.split(","):
        proto, size = case.split(":")
        programs = []
        if not a.no_fabperf:
            programs.append(("fabperf", lambda pr=proto, n=size:
                             peers.fabperf(f"{pr}_lat", ["-m", n], "lat")))
        programs += [(f"{shape}/{c}", lambda s=shape, c=c, pr=proto, n=size:
                      peers.floor(pr, "block", n, s, c))
                     for shape in a.shapes.split(",") for c in a.calls.split(",")]
        if a.qperf:
            programs.append(("qperf", lambda pr=proto, n=size:
                             peers.qperf(f"{pr}_lat", n, "lat")))
        probe(a.out, f"pingpong_{proto}_{size}.txt", a.reps, programs, unit=("us", 1e3))
    end_readme(a.out)


if __name__ == "__main__":
    main()
