#!/usr/bin/env python3
"""The udp_bw rows' probe: fabperf against the bandwidth floor (bench/floor_stream.cc) with
fabperf's calls (send, recv) and with qperf's (write, read: floor_write), qperf, and qperf with
its buffers written (touch_malloc.c with TOUCH_MALLOC_FROM at the message size), in
alternating rounds, client on CPU 0 and servers on CPU 1, through bench/peers.py.

It tells the reasons a udp_bw row can read below qperf apart: fabperf below the floor
(fabperf's own code), qperf's zero page (qperf_written reads lower than qperf), or qperf above
floor_write with its buffers written (something its system calls alone do not explain).

  python3 bench/probes/udp_probes.py OUT [--reps 8] [--seconds 1] [--sizes 256,4096,32768]

Writes OUT/udp_SIZE.txt (a line per round in GB/s received, to 4 significant digits, then
fabperf's median over each other program's) and OUT/README.md (when, where, at which commit).
"""
import os, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from tcp_probes import (build_touch_malloc, end_readme, probe, probe_arguments,  # noqa: E402
                        probe_peers, start_readme)


def main():
    ap = probe_arguments(__doc__, 8)
    ap.add_argument("--sizes", default="256,4096,32768")
    a = ap.parse_args()
    p = probe_peers(a)
    with tempfile.TemporaryDirectory() as tmp:
        so = build_touch_malloc(tmp)
        start_readme(a.out, "udp_probes.py", a.reps, a.seconds,
                     "fabperf's and the floor's recv bandwidth, qperf's recv_bw")
        for size in (int(s) for s in a.sizes.split(",")):
            written = dict(os.environ, LD_PRELOAD=so, TOUCH_MALLOC_FROM=str(size))
            probe(a.out, f"udp_{size}.txt", a.reps, [
                ("fabperf", lambda s=size: p.fabperf("udp_bw", ["-m", str(s)], "bw")),
                ("floor", lambda s=size: p.floor_bw("udp", s)),
                ("floor_write", lambda s=size: p.floor_bw("udp", s, calls="write")),
                ("qperf", lambda s=size: p.qperf("udp_bw", s, "bw")),
                ("qperf_written", lambda s=size, e=written: p.qperf("udp_bw", s, "bw", env=e))])
    end_readme(a.out)


if __name__ == "__main__":
    main()
