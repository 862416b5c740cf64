"""The size sweeps: which fabperf run is paired with which peer run, at which sizes and CPUs.

A row is one comparison: fabperf and the peer run alternately `reps` times each on the same
CPUs, and the row keeps every run, both medians and their ratio (fabperf / peer). Latency rows
meet the target at ratio <= 1.02, bandwidth rows at >= 0.98. Pinning: a blocking ping-pong
keeps both processes on CPU 0 (on this VM an idle vCPU halts, and a wake-up across CPUs costs
~90 us of IPI through the host, which would swamp what is measured); busy-poll and bandwidth
rows give each side its own CPU.
"""
from dataclasses import dataclass, field
from typing import Callable, Optional

from peers import PIN

KI = 1024
LAT_TARGET, BW_TARGET = 1.02, 0.98


def powers_of_4(lo, hi):
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= 4
    return out


def size_text(n):
    for unit, div in (("MiB", KI * KI), ("KiB", KI)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


@dataclass
class Row:
    sweep: str
    case: str        # what is measured, as a reader names it: "tcp_bw", "rdm_send_bw tcp"
    size: int
    mode: str        # block, poll
    unit: str        # ns (lower is better) or Bps (higher is better)
    pin: str         # same, apart
    peer_name: str
    ours: Callable[[], float]
    peer: Callable[[], float]
    ours_cmd: str    # how fabperf ran, for the table
    peer_cmd: str
    key: str = ""    # rows of several sweeps that measure the same thing share a key
    fabperf_runs: list = field(default_factory=list)
    peer_runs: list = field(default_factory=list)
    errors: list = field(default_factory=list)

    def better(self):
        return "lower" if self.unit == "ns" else "higher"


def meets(unit, ratio):
    if ratio is None:
        return None
    return ratio <= LAT_TARGET if unit == "ns" else ratio >= BW_TARGET


def qperf_sweep(p, sizes_tcp, sizes_udp):
    rows = []
    for test, fig, unit in (("tcp_lat", "lat", "ns"), ("udp_lat", "lat", "ns"),
                            ("tcp_bw", "bw", "Bps"), ("udp_bw", "bw", "Bps")):
        for size in sizes_tcp if test.startswith("tcp") else sizes_udp:
            args = ["-m", str(size)]
            rows.append(Row("qperf", test, size, "block", unit, "same" if fig == "lat" else "apart",
                            "qperf", lambda t=test, a=args, f=fig: p.fabperf(t, a, f),
                            lambda t=test, s=size, f=fig: p.qperf(t, s, f),
                            f"fabperf -m {size} {test}", f"qperf -m {size} {test}",
                            key=f"{test} block {size}"))
    return rows


def qperf_wire_sweep(p, sizes_tcp, sizes_udp):
    """A stock qperf client against fabperf's server, which serves qperf's own protocol
    (src/qperf_wire/), set against the same client against qperf's own server: what the
    qperf-wire server's data loops give a qperf user. 'fabperf' is fabperf's server here."""
    rows = []
    for test, fig, unit, sizes in (("tcp_lat", "lat", "ns", [1, 16 * KI]),
                                   ("udp_lat", "lat", "ns", [1]),
                                   ("tcp_bw", "bw", "Bps", sizes_tcp),
                                   ("udp_bw", "bw", "Bps", sizes_udp)):
        for size in sizes:
            rows.append(Row("qperf_wire", test, size, "block", unit,
                            "same" if fig == "lat" else "apart", "qperf server",
                            lambda t=test, s=size, f=fig: p.qperf(t, s, f, fabperf_server=True),
                            lambda t=test, s=size, f=fig: p.qperf(t, s, f),
                            f"qperf -m {size} {test} against fabperf -lp PORT",
                            f"qperf -m {size} {test} against qperf -lp PORT"))
    return rows


def iperf3_sweep(p, sizes):
    rows = []
    for size, streams in [(s, 1) for s in sizes] + [(128 * KI, 2)]:
        args = ["-m", str(size), "--streams", str(streams)]
        rows.append(Row("iperf3", f"tcp_bw, {streams} stream{'s' * (streams > 1)}", size, "block",
                        "Bps", "apart", "iperf3",
                        lambda a=args: p.fabperf("tcp_bw", a, "bw"),
                        lambda s=size, n=streams: p.iperf3(s, n),
                        f"fabperf -m {size} --streams {streams} tcp_bw",
                        f"iperf3 -l {size} -P {streams}",
                        key=f"tcp_bw block {size}" if streams == 1 else ""))
    return rows


def sockperf_sweep(p, sizes):
    rows = []
    for proto in ("tcp", "udp"):
        for mode in ("block", "poll"):
            for size in sizes:
                args = ["-m", str(size)] + (["--poll"] if mode == "poll" else [])
                rows.append(Row("sockperf", f"{proto}_lat", size, mode, "ns",
                                "same" if mode == "block" else "apart", "sockperf",
                                lambda t=f"{proto}_lat", a=args: p.fabperf(t, a, "lat"),
                                lambda pr=proto, m=mode, s=size: p.sockperf(pr, m, s),
                                f"fabperf {' '.join(args)} {proto}_lat",
                                f"sockperf pp -m {size}{' --tcp' * (proto == 'tcp')}"
                                f"{' --nonblocked' * (mode == 'poll')}",
                                key=f"{proto}_lat {mode} {size}"))
    return rows


class Calibrated:
    """A peer counted in iterations runs about as long as fabperf's last run of the row: the
    iteration count comes from fabperf's figure (latency or bandwidth) of that run."""
    def __init__(self, seconds):
        self.seconds = seconds
        self.last = None

    def ours(self, fn):
        def run():
            self.last = fn()
            return self.last
        return run

    def lat_iters(self):  # round trips in `seconds`, from a one-way latency in ns
        lat = self.last or 10_000
        return int(min(2_000_000, max(1000, self.seconds * 1e9 / (2 * lat))))

    def bw_iters(self, size):  # messages in `seconds`, from a bandwidth in bytes/s
        bw = self.last or 1e9
        return int(min(10_000_000, max(100, self.seconds * bw / size)))


def fi_pingpong_sweep(p, sizes):
    rows = []
    for prov, ep, test in (("tcp", "rdm", "rdm_send_lat"), ("shm", "rdm", "rdm_send_lat"),
                           ("tcp", "msg", "rc_lat")):
        for size in sizes:
            # fi_pingpong spins on its CQ: fabperf busy-polls too (-cp1), mode for mode
            args = ["-P", prov, "-m", str(size), "-cp1"]
            cal = Calibrated(p.seconds)
            rows.append(Row("fi_pingpong", f"{test} {prov}", size, "poll", "ns", "apart",
                            "fi_pingpong", cal.ours(lambda t=test, a=args: p.fabperf(t, a, "lat")),
                            lambda pr=prov, e=ep, s=size, c=cal: p.fi_pingpong(pr, e, s, c.lat_iters()),
                            f"fabperf {' '.join(args)} {test}",
                            f"fi_pingpong -p {prov} -e {ep} -S {size}",
                            key=f"{test} {prov} poll {size}"))
    return rows


# UCX transports for each libfabric provider: tcp sockets, or shared memory (posix/sysv/cma).
UCX_TLS = {"tcp": "tcp", "shm": "shm"}


def ucx_sweep(p, sizes):
    rows = []
    pairs = [("rdm_send_bw", prov, "tag_bw") for prov in ("tcp", "shm")]
    pairs += [("rdm_write_bw", prov, "ucp_put_bw") for prov in ("tcp", "shm")]
    pairs += [("rc_bw", "tcp", "tag_bw"), ("rc_rdma_write_bw", "tcp", "ucp_put_bw")]
    for test, prov, ucx_test in pairs:
        for size in sizes:
            # ucx_perftest progresses by polling: fabperf busy-polls too
            args = ["-P", prov, "-m", str(size), "-cp1"]
            cal = Calibrated(p.seconds)
            rows.append(Row("ucx_perftest", f"{test} {prov}", size, "poll", "Bps", "apart",
                            f"ucx {ucx_test}",
                            cal.ours(lambda t=test, a=args: p.fabperf(t, a, "bw")),
                            lambda u=ucx_test, tl=UCX_TLS[prov], s=size, c=cal:
                                p.ucx_perftest(u, tl, s, c.bw_iters(s)),
                            f"fabperf {' '.join(args)} {test}",
                            f"UCX_TLS={UCX_TLS[prov]} ucx_perftest -t {ucx_test} -s {size}",
                            key=f"{test} {prov} poll {size}"))
    return rows


def fab_sweep(p, sizes_lat, sizes_bw, provider="tcp"):
    """The CXI dialect against the engine it drives: fab_send_lat / fab_send_bw against
    rdm_send_lat / rdm_send_bw on the same provider, sizes and depth, both busy-polling the CQ
    (the fab_* tools poll by default, as the originals; the rdm_* tests with -cp1). 'fabperf'
    is the fab_* tool here, 'peer' the rdm_* test."""
    rows = []
    for size in sizes_lat:
        fab = ["-P", provider, "-s", str(size), "--latency-gap", "0"]
        rdm = ["-P", provider, "-m", str(size), "-cp1"]
        rows.append(Row("fab", "fab_send_lat / rdm_send_lat", size, "poll", "ns", "apart",
                        "rdm_send_lat", lambda a=fab: p.fab_tool("fab_send_lat", a, "lat"),
                        lambda a=rdm: p.fabperf("rdm_send_lat", a, "lat"),
                        "fab_send_lat " + " ".join(fab), "fabperf " + " ".join(rdm) + " rdm_send_lat"))
    for size in sizes_bw:
        fab = ["-P", provider, "-s", str(size), "-l", "128"]
        rdm = ["-P", provider, "-m", str(size), "--tx_depth", "128", "-cp1"]
        rows.append(Row("fab", "fab_send_bw / rdm_send_bw", size, "poll", "Bps", "apart",
                        "rdm_send_bw", lambda a=fab: p.fab_tool("fab_send_bw", a, "bw"),
                        lambda a=rdm: p.fabperf("rdm_send_bw", a, "bw"),
                        "fab_send_bw " + " ".join(fab), "fabperf " + " ".join(rdm) + " rdm_send_bw"))
    return rows


def floor_sweep(p, sizes_tcp_bw, sizes_udp_bw):
    """The floor: a ping-pong of bare system calls (bench/floor_pingpong.cc), 1 byte, and one
    stream of bare blocking sends and receives in qperf's shape (bench/floor_stream.cc, with
    fabperf's calls) over sizes: whether a bandwidth gap to a peer is fabperf's code or above
    what the calls alone give."""
    rows = []
    for test, sizes in (("tcp_bw", sizes_tcp_bw), ("udp_bw", sizes_udp_bw)):
        proto = test[:3]
        for size in sizes:
            args = ["-m", str(size)]
            rows.append(Row("floor", test, size, "block", "Bps", "apart", "floor",
                            lambda t=test, a=args: p.fabperf(t, a, "bw"),
                            lambda pr=proto, s=size: p.floor_bw(pr, s),
                            f"fabperf -m {size} {test}", f"floor_stream {proto} {size}",
                            key=f"{test} block {size}"))
    for proto in ("tcp", "udp"):
        for mode in ("block", "poll"):
            args = ["-m", "1"] + (["--poll"] if mode == "poll" else [])
            rows.append(Row("floor", f"{proto}_lat", 1, mode, "ns",
                            "same" if mode == "block" else "apart", "floor",
                            lambda t=f"{proto}_lat", a=args: p.fabperf(t, a, "lat"),
                            lambda pr=proto, m=mode: p.floor(pr, m, 1),
                            f"fabperf {' '.join(args)} {proto}_lat",
                            f"floor_pingpong {proto} {mode} 1", key=f"{proto}_lat {mode} 1"))
    return rows


def nptcp_sweep(p, sizes):
    """NPtcp at one size a run, round trips sized from fabperf's run. NPtcp reports the best of
    its three trials, fabperf the mean of every round trip: NPtcp's figure is the lower by
    construction, by about the noise between trials."""
    rows = []
    for size in sizes:
        cal = Calibrated(p.seconds / 3)
        rows.append(Row("nptcp", "tcp_lat", size, "block", "ns", "same", "NPtcp",
                        cal.ours(lambda s=size: p.fabperf("tcp_lat", ["-m", str(s)], "lat")),
                        lambda s=size, c=cal: p.nptcp(s, c.lat_iters()),
                        f"fabperf -m {size} tcp_lat", f"NPtcp -p 0 -l {size} -u {size}",
                        key=f"tcp_lat block {size}"))
    return rows


def all_sweeps(p):
    """Every sweep of a full run, by name, in the order they run."""
    from fabric_floor_sweep import fabric_floor_sweep  # it builds on this module's Row
    return {
        "qperf": lambda: qperf_sweep(p, powers_of_4(1, KI * KI),
                                     powers_of_4(1, 16 * KI) + [32 * KI]),
        "iperf3": lambda: iperf3_sweep(p, [KI, 16 * KI, 128 * KI, KI * KI]),
        "sockperf": lambda: sockperf_sweep(p, [16, KI, 16 * KI]),
        "fi_pingpong": lambda: fi_pingpong_sweep(p, [64, KI, 16 * KI, 256 * KI]),
        "ucx": lambda: ucx_sweep(p, [64, 4 * KI, 64 * KI, KI * KI]),
        "fab": lambda: fab_sweep(p, [8, 4 * KI], [4 * KI, 64 * KI]),
        "nptcp": lambda: nptcp_sweep(p, [1, 64, KI, 16 * KI, 64 * KI]),
        "floor": lambda: floor_sweep(p, [64, 4 * KI, 64 * KI, KI * KI],
                                     [64, 256, KI, 4 * KI, 32 * KI]),
        "fabric_floor": lambda: fabric_floor_sweep(p),
        "qperf_wire": lambda: qperf_wire_sweep(p, [64, 4 * KI, 64 * KI, KI * KI],
                                               [64, KI, 32 * KI]),
    }


def run_row(row, reps, log):
    """Alternates fabperf and the peer `reps` times on the row's CPUs; a failed run is kept as
    an error and left out of the median."""
    PIN.same() if row.pin == "same" else PIN.apart()
    for _ in range(reps):
        for fn, acc, who in ((row.ours, row.fabperf_runs, "fabperf"),
                             (row.peer, row.peer_runs, row.peer_name)):
            try:
                acc.append(fn())
            except Exception as e:  # a run that fails is reported, not fatal
                row.errors.append(f"{who}: {e}")
                log(f"  {row.sweep} {row.case} {size_text(row.size)}: {who}: {e}")
    return row
