"""The fabric floor sweep: every fabric row of the fi_pingpong, ucx and fab sweeps (and the
read and atomic rows beside them) against a bare libfabric program of its operation family
(bench/floor_fi_*.cc, bench/fabric_floor.h) on shm, tcp;ofi_rxm and udp;ofi_rxd, both busy-
polling, client CPU 0 and server CPU 1.

The floor takes the settings fabperf's run just before took, read from that run's JSON info
(the window, the completion level, whether it injected, the target's pace), so the pairing stays like for like
where fabperf chooses them per provider. fabperf below its floor is fabperf's own cost; a floor
far below a peer (UCX) is the provider's.
"""
from sweeps import KI, Row

# The providers by the name fabperf's -P and the floor take (fi_getinfo's prov_name match:
# "tcp" and "udp" RDM endpoints are tcp;ofi_rxm and udp;ofi_rxd).
PROVIDERS = ("shm", "tcp", "udp")
LAT_SIZES = [64, KI, 16 * KI, 256 * KI]   # the fi_pingpong sweep's
BW_SIZES = [64, 4 * KI, 64 * KI, KI * KI]  # the ucx sweep's

# fabperf's completion levels as its JSON info names them, as the floor's completion= does.
LEVELS = {"FI_DELIVERY_COMPLETE": "delivery", "FI_TRANSMIT_COMPLETE": "transmit",
          "provider default": "default"}

# (test, floor program, mode, endpoint, floor settings where fabperf's info has none, sizes)
RDM_ROWS = [
    ("rdm_send_lat", "send", "lat", "rdm", {}, LAT_SIZES),
    ("rdm_send_bw", "send", "bw", "rdm", {}, BW_SIZES),
    ("rdm_write_lat", "write", "lat", "rdm", {}, LAT_SIZES),
    ("rdm_write_bw", "write", "bw", "rdm", {}, BW_SIZES),
    ("rdm_read_lat", "read", "lat", "rdm", {}, LAT_SIZES),
    ("rdm_read_bw", "read", "bw", "rdm", {"window": 16}, BW_SIZES),  # min(tx_depth, rd_atomic)
    ("rdm_atomic_lat", "atomic", "lat", "rdm", {}, [8]),
    ("rdm_atomic_bw", "atomic", "bw", "rdm", {}, [8]),
]
# Connected endpoints: tcp only among the three (shm and udp;ofi_rxd have no FI_EP_MSG).
RC_ROWS = [
    ("rc_lat", "send", "lat", "msg", {}, LAT_SIZES),
    ("rc_bw", "send", "bw", "msg", {}, BW_SIZES),
    ("rc_rdma_write_bw", "write", "bw", "msg", {"data": 1}, BW_SIZES),
]


class FloorPairing:
    """Keeps fabperf's last run of a row and gives the floor its settings."""
    def __init__(self, base):
        self.base = dict(base)
        self.info = {}

    def ours(self, fn):
        def run():
            keep = []
            try:
                return fn(keep)
            finally:  # this side's (the client's) info: {"loc": {...}, "rem": {...}}
                self.info = keep[-1].get("info", {}).get("loc", {}) if keep else {}
        return run

    def settings(self):
        out = dict(self.base)
        level = LEVELS.get(self.info.get("completion", ""))
        if level:
            out["completion"] = level
        if isinstance(self.info.get("window"), int):
            out["window"] = self.info["window"]
        if isinstance(self.info.get("target_gap_ns"), int) and self.info["target_gap_ns"] > 0:
            out["target_gap"] = self.info["target_gap_ns"]  # the target's pace (atomics)
        if isinstance(self.info.get("inject"), int):
            out["inject"] = self.info["inject"]
        elif self.info.get("send") == "fi_send":
            out["inject"] = 0  # a ping-pong above the inject size
        method = self.info.get("bw_method")
        if isinstance(method, dict) and method.get("method") == "lists" and method.get("answered"):
            out["lists"] = 1  # each list waits for its answer (fab_send_bw's default)
        if isinstance(method, dict) and isinstance(method.get("warmup"), int):
            out["warmup"] = method["warmup"]  # none with lists, as the CXI tools
        return out


def _row(p, test, op, mode, ep, base, prov, size, fabperf_args, tool=None):
    pair = FloorPairing(base)
    figure = "lat" if mode == "lat" else "bw"
    if tool:
        ours = pair.ours(lambda keep, a=fabperf_args: p.fab_tool(tool, a, figure, keep=keep))
        name, cmd = tool, f"{tool} {' '.join(fabperf_args)}"
    else:
        ours = pair.ours(lambda keep, t=test, a=fabperf_args: p.fabperf(t, a, figure, keep=keep))
        name, cmd = test, f"fabperf {' '.join(fabperf_args)} {test}"
    floor = lambda: p.fabric_floor(op, prov, ep, mode, size, pair.settings())[0]
    settings = " ".join(f"{k}={v}" for k, v in base.items())
    return Row("fabric_floor", f"{name} {prov}", size, "poll", "ns" if mode == "lat" else "Bps",
               "apart", "floor", ours, floor, cmd,
               f"floor_fi_{op} {prov} {ep} {mode} {size} (fabperf's settings){' ' + settings if settings else ''}",
               key=f"{name} {prov} poll {size}" if not tool else "")


def fabric_floor_sweep(p):
    rows = []
    for prov in PROVIDERS:
        table = RDM_ROWS + (RC_ROWS if prov == "tcp" else [])
        for test, op, mode, ep, base, sizes in table:
            for size in sizes:
                args = ["-P", prov, "-cp1"] + ([] if op == "atomic" else ["-m", str(size)])
                rows.append(_row(p, test, op, mode, ep, base, prov, size, args))
        # The CXI dialect's rows (the fab sweep): the same engine under the fab_* spellings.
        for size in (8, 4 * KI):
            rows.append(_row(p, "fab_send_lat", "send", "lat", "rdm", {}, prov, size,
                             ["-P", prov, "-s", str(size), "--latency-gap", "0"],
                             tool="fab_send_lat"))
        for size in (4 * KI, 64 * KI):
            rows.append(_row(p, "fab_send_bw", "send", "bw", "rdm", {"window": 128}, prov, size,
                             ["-P", prov, "-s", str(size), "-l", "128"], tool="fab_send_bw"))
    return rows
