#!/usr/bin/env python3
"""Side by side on loopback: fabperf against the peers, alternating runs, medians and ratios.

Writes OUT/latest.json and OUT/latest.md. Client pinned to CPU 0, server to CPU 1 (where the
machine has two), for every program alike. Bounded: each run is short (RUN_S seconds).
"""
import argparse, json, os, re, shutil, socket, statistics, subprocess, sys, time

RUN_S = 2
# Where the client and the server run, set per comparison (same for both programs). Blocking
# ping-pongs share one CPU: on a VM whose idle vCPUs halt (haltpoll), a wake-up across CPUs
# costs ~90 us of IPI through the host and would swamp every tool's own cost. Busy-poll and
# bandwidth runs take one CPU each.
TWO = "1" if os.cpu_count() > 1 else "0"
PIN = {"client": "0", "server": TWO}


def pin_same():
    PIN.update(client="0", server="0")


def pin_apart():
    PIN.update(client="0", server=TWO)


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def wait_port(port, timeout=5.0, udp=False):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); return
        except OSError:
            time.sleep(0.05)


class Server:
    """A peer's server process, pinned to the server CPU, killed on exit."""
    def __init__(self, argv, port=None, settle=0.3):
        self.p = subprocess.Popen(["taskset", "-c", PIN["server"]] + argv,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if port: wait_port(port)
        time.sleep(settle)
    def __enter__(self): return self
    def __exit__(self, *a):
        self.p.kill(); self.p.wait()


def client(argv, timeout=30):
    r = subprocess.run(["taskset", "-c", PIN["client"]] + argv, capture_output=True, text=True,
                       timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed: {r.stderr.strip()[:300]}")
    return r.stdout + r.stderr


class Bench:
    def __init__(self, build, reps):
        self.fp = os.path.join(build, "fabperf")
        self.floor = os.path.join(build, "floor_pingpong")
        self.micro = os.path.join(build, "micro_stats")
        self.reps = reps
        self.rows = []  # {group, case, unit, better, fabperf, peer, peer_name, ratio, runs}

    # --- one measurement of each program; every function returns one number
    def fabperf(self, test, args, figure):
        port = free_port()
        with Server([self.fp, "-lp", str(port)], port):
            out = client([self.fp, "127.0.0.1", "-lp", str(port), "-t", str(RUN_S),
                          "--json", "-"] + args + [test])
        r = json.loads(out[:out.rindex("}") + 1])["results"][0]
        if r["status"] != "ok": raise RuntimeError(r.get("error"))
        return r["latency_ns"]["mean"] if figure == "lat" else r["bandwidth"]["recv_Bps"]

    def qperf(self, test, args, figure):
        port = free_port()
        with Server(["qperf", "-lp", str(port)], port):
            out = client(["qperf", "127.0.0.1", "-lp", str(port), "-t", str(RUN_S), "-uu"]
                         + args + [test])
        m = re.search(r"(latency|bw|recv_bw)\s+=\s+([0-9.]+)", out)
        if not m: raise RuntimeError("qperf: no figure in " + out)
        if figure == "bw":
            m = re.search(r"recv_bw\s+=\s+([0-9.]+)", out) or re.search(r"\bbw\s+=\s+([0-9.]+)", out)
            return float(m.group(1))
        return float(m.group(2))

    def floor_run(self, proto, mode, size):
        out = subprocess.run([self.floor, proto, mode, str(size), str(RUN_S), PIN["client"], PIN["server"]],
                             capture_output=True, text=True, timeout=60).stdout
        return json.loads(out)["mean_ns"]

    def sockperf(self, proto, mode, size):
        port = free_port()
        extra = ["--nonblocked"] if mode == "poll" else []
        tcp = ["--tcp"] if proto == "tcp" else []
        with Server(["sockperf", "sr", "-i", "127.0.0.1", "-p", str(port)] + tcp + extra,
                    port if proto == "tcp" else None, settle=0.5):
            out = client(["sockperf", "pp", "-i", "127.0.0.1", "-p", str(port), "-t", str(RUN_S),
                          "-m", str(size)] + tcp + extra)
        m = re.search(r"avg-lat=\s*([0-9.]+)", out) or re.search(r"avg-latency=\s*([0-9.]+)", out)
        return float(m.group(1)) * 1000  # usec -> ns, already half the round trip

    def iperf3(self, streams):
        port = free_port()
        # No connect probe: iperf3 -1 would take it for its one client.
        with Server(["iperf3", "-s", "-1", "-p", str(port)], None, settle=0.5):
            out = client(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(RUN_S),
                          "-P", str(streams), "-J"])
        return json.loads(out[:out.rindex("}") + 1])["end"]["sum_received"]["bits_per_second"] / 8

    def fi_pingpong(self, provider, ep, size):
        port = free_port()
        base = ["fi_pingpong", "-p", provider, "-e", ep, "-S", str(size), "-I", "10000"]
        with Server(base + ["-B", str(port)], None, settle=0.5):
            out = client(base + ["-P", str(port), "127.0.0.1"], timeout=20)
        # columns: bytes iters total time MB/sec usec/xfer Mxfers/sec; usec/xfer is half a round trip
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 8 and f[0].isdigit():
                return float(f[6]) * 1000
        raise RuntimeError("fi_pingpong: no figure in " + out)

    # --- alternation, medians, ratios
    def compare(self, group, case, unit, better, ours, peer_name, peer):
        a, b = [], []
        for _ in range(self.reps):
            for fn, acc in ((ours, a), (peer, b)):
                try:
                    acc.append(fn())
                except Exception as e:  # a peer that cannot run is reported, not fatal
                    print(f"  {group}/{case}: {e}", file=sys.stderr)
        ma = statistics.median(a) if a else None
        mb = statistics.median(b) if b else None
        ratio = ma / mb if ma and mb else None
        row = dict(group=group, case=case, unit=unit, better=better, fabperf=ma, peer=mb,
                   cpus=f"{PIN['client']}/{PIN['server']}",
                   peer_name=peer_name, ratio=ratio, runs={"fabperf": a, peer_name: b})
        self.rows.append(row)
        print(f"{group:10s} {case:34s} fabperf={fmt(ma, unit)} {peer_name}={fmt(mb, unit)} "
              f"ratio={ratio and round(ratio, 3)}", flush=True)


def fmt(v, unit):
    if v is None: return "-"
    return f"{v:.0f} ns" if unit == "ns" else f"{v / 1e6:.1f} MB/s"


def memory_over_time(fp, seconds):
    """Resident size of a fabperf client (and its in-process server) over a long latency run."""
    p = subprocess.Popen(["taskset", "-c", "0", fp, "--loopback", "-t", str(seconds), "tcp_lat"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples = []
    t0 = time.time()
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                kb = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
            samples.append([round(time.time() - t0, 1), kb])
        except (OSError, AttributeError):
            pass
        time.sleep(5)
    return samples


def micro(path):
    out = subprocess.run([path, "--benchmark_format=json", "--benchmark_min_time=0.3"],
                         capture_output=True, text=True, timeout=120).stdout
    return {b["name"]: round(b["real_time"], 2) for b in json.loads(out)["benchmarks"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--memory-seconds", type=int, default=60)
    args = ap.parse_args()
    b = Bench(args.build, args.reps)
    pin = []  # taskset pins every program alike (PIN); fabperf's own -lca/-rca are tested in make test
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

    # qperf, same tests and sizes (its defaults: lat 1 byte, tcp_bw 64K, udp_bw 32K)
    for test, fig, unit, better in (("tcp_lat", "lat", "ns", "lower"), ("udp_lat", "lat", "ns", "lower"),
                                    ("tcp_bw", "bw", "Bps", "higher"), ("udp_bw", "bw", "Bps", "higher")):
        pin_same() if fig == "lat" else pin_apart()
        b.compare("qperf", test, unit, better, lambda: b.fabperf(test, pin, fig), "qperf",
                  lambda: b.qperf(test, pin, fig))
    # the floor: bare system calls, blocking and busy-poll
    for proto in ("tcp", "udp"):
        for mode in ("block", "poll"):
            pin_same() if mode == "block" else pin_apart()
            extra = pin + (["--poll"] if mode == "poll" else [])
            b.compare("floor", f"{proto}_lat {mode} 1B", "ns", "lower",
                      lambda: b.fabperf(f"{proto}_lat", extra, "lat"), "floor",
                      lambda: b.floor_run(proto, mode, 1))
    # sockperf ping-pong (its smallest message is 14 bytes: both at 16)
    if shutil.which("sockperf"):
        for proto in ("tcp", "udp"):
            for mode in ("block", "poll"):
                pin_same() if mode == "block" else pin_apart()
                extra = pin + ["-m", "16"] + (["--poll"] if mode == "poll" else [])
                b.compare("sockperf", f"{proto} ping-pong {mode} 16B", "ns", "lower",
                          lambda: b.fabperf(f"{proto}_lat", extra, "lat"), "sockperf",
                          lambda: b.sockperf(proto, mode, 16))
    # iperf3: TCP, one and two streams (128K messages, iperf3's default)
    pin_apart()
    if shutil.which("iperf3"):
        for n in (1, 2):
            b.compare("iperf3", f"tcp {n} stream(s)", "Bps", "higher",
                      lambda: b.fabperf("tcp_bw", ["-m", "128K", "--streams", str(n)], "bw"),
                      "iperf3", lambda: b.iperf3(n))
    # fi_pingpong: rdm and msg over tcp and shm, 64 bytes
    have_rdm = "rdm_send_lat" in subprocess.run([b.fp, "--help", "tests"], capture_output=True,
                                                text=True).stdout
    pin_apart()  # fi_pingpong and fabperf's fabric tests busy-poll: one CPU each
    if shutil.which("fi_pingpong") and have_rdm:
        # msg endpoints over tcp only: shm has none
        for prov, ep, test in (("tcp", "rdm", "rdm_send_lat"), ("tcp", "msg", "rc_lat"),
                               ("shm", "rdm", "rdm_send_lat")):
            # fi_pingpong spins on its CQ: fabperf busy-polls too (-cp1), mode for mode
            b.compare("fi_pingpong", f"{test} {prov} 64B", "ns", "lower",
                      lambda: b.fabperf(test, ["-P", prov, "-m", "64", "-cp1"], "lat"),
                      "fi_pingpong", lambda: b.fi_pingpong(prov, ep, 64))
    # NPtcp: latency over a size sweep (NPtcp's own sweep, up to 64K; fabperf at the same sizes)
    pin_same()  # NPtcp blocks: the ping-pong rule
    if shutil.which("NPtcp"):
        port = free_port()
        np_out = "/tmp/fabperf_bench_np.out"
        try:
            with Server(["NPtcp", "-p", str(port)], None, settle=0.5):
                client(["NPtcp", "-h", "127.0.0.1", "-p", str(port), "-u", "65536", "-o", np_out],
                       timeout=120)
            np = {}
            for line in open(np_out):
                f = line.split()
                # bytes, Mbps, seconds: NPtcp's time is already one way (half the round trip),
                # the best of its trials, where fabperf's figure is the mean of every sample
                if len(f) >= 3: np[int(f[0])] = float(f[2]) * 1e9
            for size in (1, 64, 1024, 16384, 65536):
                near = min(np, key=lambda s: abs(s - size))
                b.compare("NPtcp", f"tcp latency {near}B", "ns", "lower",
                          lambda: b.fabperf("tcp_lat", pin + ["-m", str(near), "-t", "1"], "lat"),
                          "NPtcp", lambda: np[near])
        except Exception as e:
            print(f"  NPtcp: {e}", file=sys.stderr)

    mem = memory_over_time(b.fp, args.memory_seconds)
    micros = micro(b.micro) if os.path.exists(b.micro) else {}
    doc = {"started": started, "command": "make bench", "cpus": os.cpu_count(),
           "kernel": os.uname().release, "reps": args.reps, "run_seconds": RUN_S,
           "pinning": "per row: cpus = client/server (taskset)",
           "comparisons": b.rows, "memory_rss_kb": mem, "micro_ns": micros}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump(doc, f, indent=2)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(markdown(doc))
    print(markdown(doc))


def markdown(doc):
    lines = [f"# fabperf against its peers (loopback, `{doc['command']}`)", "",
             f"{doc['started']}, {doc['cpus']} CPUs, Linux {doc['kernel']}; medians of "
             f"{doc['reps']} alternating runs of {doc['run_seconds']} s each. cpus = the client's "
             "and the server's CPU (taskset, the same for both programs): blocking ping-pongs "
             "share one CPU, because this VM's cross-CPU wake-up (haltpoll idle, IPI through the "
             "host) costs ~90 us and would swamp what is measured; busy-poll and bandwidth "
             "runs take one CPU each. Latency is one way (half the round trip), mean. "
             "Ratio = fabperf / peer.", "",
             "| against | case | cpus | fabperf | peer | ratio | better is |",
             "|---|---|---|---|---|---|---|"]
    for r in doc["comparisons"]:
        ratio = f"{r['ratio']:.3f}" if r["ratio"] else "-"
        lines.append(f"| {r['peer_name']} | {r['case']} | {r['cpus']} | {fmt(r['fabperf'], r['unit'])} | "
                     f"{fmt(r['peer'], r['unit'])} | {ratio} | {r['better']} |")
    lines += ["", "## Resident size of `fabperf --loopback -t 60 tcp_lat` (client and server)", "",
              "| s | RSS KiB |", "|---|---|"]
    lines += [f"| {t} | {kb} |" for t, kb in doc["memory_rss_kb"]]
    lines += ["", "## Micro-benchmarks (bench/micro_stats.cc, ns per call)", "", "| benchmark | ns |",
              "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in doc["micro_ns"].items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
