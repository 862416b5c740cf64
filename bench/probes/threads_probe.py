#!/usr/bin/env python3
"""What a second thread costs a bare stream: floor_stream (bench/floor_stream.cc) in its three
shapes (single, thread, thread-own-fds), in alternating rounds, client CPU 0 and server CPU 1;
and what its calls cost (--calls send,write: fabperf's send and recv against qperf's write and
read), or a receive timeout (--shapes single,timeout).

fabperf's measuring thread always has its supervisor and stall watchdog beside it; qperf's
processes have one thread. This measures that difference with nothing else changed.

  python3 bench/probes/threads_probe.py OUT [--reps 12] [--seconds 1] [--cases tcp:4096,udp:64]
      [--shapes single,thread,thread-own-fds] [--calls send] [--cc cubic] [--fabperf] [--qperf]

--cc sets the host's TCP congestion control for the run and restores the one it found (root).
--fabperf adds fabperf's own run of each case (`-m SIZE PROTO_bw`) to the rounds, so a gap
between fabperf and the floor splits into what the threads cost and what is left; --qperf
adds qperf's (its recv_bw), last.

Writes OUT/threads_PROTO_SIZE.txt (a line per round in GB/s received, to 4 significant digits,
then the first program's median over each other's) through tcp_probes.probe(), the
alternating loop. A program is named SHAPE, or SHAPE/CALLS when more than one CALLS is given.
"""
import os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from tcp_probes import (congestion_control, end_readme, probe, probe_arguments,  # noqa: E402
                        probe_peers, start_readme)


def main():
    ap = probe_arguments(__doc__, 12)
    ap.add_argument("--cases", default="tcp:4096,udp:64")
    ap.add_argument("--shapes", default="single,thread,thread-own-fds")
    ap.add_argument("--calls", default="send")
    ap.add_argument("--cc", default="")
    ap.add_argument("--fabperf", action="store_true")
    ap.add_argument("--qperf", action="store_true")
    a = ap.parse_args()
    peers = probe_peers(a)
    calls = a.calls.split(",")
    with congestion_control(a.cc):
        start_readme(a.out, "threads_probe.py", a.reps, a.seconds,
                     "bytes received over the receiver's interval")
        for case in a.cases.split(","):
            proto, size = case.split(":")
            programs = [(shape if len(calls) == 1 else f"{shape}/{c}",
                         lambda s=shape, c=c, pr=proto, n=size: peers.floor_bw(pr, n, s, c))
                        for shape in a.shapes.split(",") for c in calls]
            if a.fabperf:
                programs.append(("fabperf", lambda pr=proto, n=size:
                                 peers.fabperf(f"{pr}_bw", ["-m", n], "bw")))
            if a.qperf:
                programs.append(("qperf", lambda pr=proto, n=size:
                                 peers.qperf(f"{pr}_bw", n, "bw")))
            probe(a.out, f"threads_{proto}_{size}.txt", a.reps, programs)
        end_readme(a.out)


if __name__ == "__main__":
    main()
