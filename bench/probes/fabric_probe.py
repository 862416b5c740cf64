#!/usr/bin/env python3
"""A fabric row taken apart: fabperf, its bare libfabric floor at fabperf's settings, the floor
with other settings (a window, an inject size, a completion level, a libfabric variable), and a
peer, in alternating rounds, client CPU 0 and server CPU 1, both busy-polling.

  python3 bench/probes/fabric_probe.py OUT --cases rdm_write_bw:shm:64,rc_lat:tcp:16384
      [--variants 'window=16|window=1024|inject=4096|env:FI_SHM_DISABLE_CMA=1']
      [--fabperf-args '--tx_depth 16'] [--fabperf-variants '--tx_depth 128|-m 65536']
      [--peer fi_pingpong|ucx] [--reps 7] [--no-fabperf]

A case is TEST:PROVIDER:SIZE, TEST one of the fabric floor sweep's (bench/fabric_floor_sweep.py).
A variant is the floor at fabperf's settings with KEY=VALUE settings (fabric_floor.h) and
env:NAME=VALUE variables changed, several joined by commas; '|' separates variants.
`--fabperf-args` adds options to fabperf's run (a variant of fabperf: `--tx_depth 16`);
`--fabperf-variants` adds more runs of fabperf with these options ('|' between them), in the
same rounds (a change's before and after: the old default set by hand against the new).
Writes OUT/fabric_TEST_PROVIDER_SIZE.txt through tcp_probes.probe() (a line per round, then the
first program's median over each other's, and the median and quartiles of each round's ratio).
"""
import os, shlex, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from fabric_floor_sweep import RC_ROWS, RDM_ROWS, FloorPairing  # noqa: E402
from sweeps import Calibrated, UCX_TLS  # noqa: E402
from tcp_probes import end_readme, probe, probe_arguments, probe_peers, start_readme  # noqa: E402

UCX_TEST = {"rdm_send_bw": "tag_bw", "rc_bw": "tag_bw", "rdm_write_bw": "ucp_put_bw",
            "rc_rdma_write_bw": "ucp_put_bw"}


def parse_variant(text):
    settings, env = {}, {}
    for part in filter(None, text.split(",")):
        if part.startswith("env:"):
            k, v = part[4:].split("=", 1)
            env[k] = v
        else:
            k, v = part.split("=", 1)
            settings[k] = v
    return settings, env


def programs_of(peers, a, test, prov, size):
    rows = {r[0]: r for r in RDM_ROWS + RC_ROWS}
    _, op, mode, ep, base, _ = rows[test]
    figure = "lat" if mode == "lat" else "bw"
    pair = FloorPairing(base)
    cal = Calibrated(a.seconds)
    args = ["-P", prov, "-cp1"] + ([] if op == "atomic" else ["-m", str(size)])
    args += shlex.split(a.fabperf_args)
    out = []
    fabperf = pair.ours(lambda keep: peers.fabperf(test, args, figure, keep=keep))
    if a.no_fabperf:
        # The floor's settings then come from one fabperf run made first, not timed.
        fabperf()
    else:
        out.append(("fabperf", cal.ours(fabperf)))
    for variant in filter(None, a.fabperf_variants.split("|")):
        more = args + shlex.split(variant)
        out.append((f"fabperf {variant}", lambda m=more: peers.fabperf(test, m, figure)))
    out.append(("floor", lambda: peers.fabric_floor(op, prov, ep, mode, size,
                                                   pair.settings())[0]))
    for variant in filter(None, a.variants.split("|")):
        settings, env = parse_variant(variant)
        out.append((variant, lambda s=settings, e=env: peers.fabric_floor(
            op, prov, ep, mode, size, dict(pair.settings(), **s), e)[0]))
    if a.peer == "fi_pingpong" and mode == "lat" and op == "send":
        out.append(("fi_pingpong", lambda: peers.fi_pingpong(prov, ep, size, cal.lat_iters())))
    if a.peer == "ucx" and test in UCX_TEST:
        out.append(("ucx", lambda: peers.ucx_perftest(UCX_TEST[test], UCX_TLS[prov], size,
                                                      cal.bw_iters(size))))
    return out, figure


def main():
    ap = probe_arguments(__doc__, 7)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--variants", default="")
    ap.add_argument("--fabperf-args", default="")
    ap.add_argument("--fabperf-variants", default="")
    ap.add_argument("--peer", default="")
    ap.add_argument("--no-fabperf", action="store_true")
    a = ap.parse_args()
    peers = probe_peers(a)
    start_readme(a.out, "fabric_probe.py", a.reps, a.seconds,
                 "one-way mean latency, or bytes received over the measured interval",
                 unit="us or GB/s, as each file says")
    for case in a.cases.split(","):
        test, prov, size = case.split(":")
        programs, figure = programs_of(peers, a, test, prov, int(size))
        unit = ("us", 1e3) if figure == "lat" else ("GB/s", 1e9)
        name = f"fabric_{test}_{prov.replace(';', '_')}_{size}.txt"
        probe(a.out, name, a.reps, programs, unit=unit)
    end_readme(a.out)


if __name__ == "__main__":
    main()
