"""One measurement of fabperf or of one peer: each function runs it once and returns a number.

Every program runs under taskset with the CPUs of the row (pin.client, pin.server), the same
for fabperf and its peer. Servers are found ready by their listening socket in /proc/net
(never by a probe connection, which iperf3, fi_pingpong and ucx_perftest would take for
their one client), and are killed when the measurement ends.
"""
import json, os, re, socket, subprocess, time


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def read_first(path, key=None):
    """The first line of a /proc or /sys file, or with key the value of its first "key: value"
    line; "" where the file or the key is missing."""
    try:
        with open(path) as f:
            for line in f:
                if key is None:
                    return line.strip()
                name, _, value = line.partition(":")
                if name.strip() == key:
                    return value.strip()
    except OSError:
        pass
    return ""


def host_facts():
    """What makes two tables from different machines incomparable: the CPU model (this
    project's VMs changed between stops, and a same-CPU round trip went from 6.9 to 2.7 us)
    and the kernel's TCP congestion control (BBR's pacing decides rc_lat tcp at 256 KiB)."""
    return dict(cpu_model=read_first("/proc/cpuinfo", "model name"),
                tcp_congestion_control=read_first("/proc/sys/net/ipv4/tcp_congestion_control"))


class Pin:
    """Where the client and the server of the current row run (the same for both programs)."""
    def __init__(self):
        two = "1" if (os.cpu_count() or 1) > 1 else "0"
        self.apart_cpus = ("0", two)
        self.client, self.server = self.apart_cpus

    def same(self):
        self.client, self.server = "0", "0"

    def apart(self):
        self.client, self.server = self.apart_cpus

    def text(self):
        return f"{self.client}/{self.server}"


PIN = Pin()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def listening(port, udp=False):
    """Whether something listens (TCP) or is bound (UDP) on `port`, per /proc/net."""
    names = ("udp", "udp6") if udp else ("tcp", "tcp6")
    for name in names:
        try:
            with open(f"/proc/net/{name}") as f:
                next(f)
                for line in f:
                    cols = line.split()
                    local, state = cols[1], cols[3]
                    if int(local.rsplit(":", 1)[1], 16) == port and (udp or state == "0A"):
                        return True
        except OSError:
            pass
    return False


class Server:
    """A server process pinned to the server CPU; ready once its port is open. On exit a
    one-shot server (`one_shot`: it ends after its client) gets time to end on its own, then
    any server SIGTERM, and SIGKILL last: a shm endpoint killed outright leaves its 16 MiB
    region in /dev/shm."""
    def __init__(self, argv, port, udp=False, env=None, timeout=15.0, one_shot=False):
        self.one_shot = one_shot
        # A session of its own, as the client's (client()): with the kernel's autogroup
        # scheduling each session is one group of equal weight, and on a loaded host a program
        # whose server runs in a session of its own (fabperf's server does, for each client)
        # would get more CPU than one whose two processes share the harness's.
        self.p = subprocess.Popen(["taskset", "-c", PIN.server] + argv, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=env, start_new_session=True)
        end = time.time() + timeout
        while not listening(port, udp):
            if self.p.poll() is not None:
                raise RuntimeError(f"{argv[0]} server exited: "
                                   + self.p.stderr.read().decode(errors="replace")[:300])
            if time.time() > end:
                self.__exit__()
                raise RuntimeError(f"{argv[0]} server not listening on {port} after {timeout} s")
            time.sleep(0.02)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        for sig, wait in ((None, 5.0 if self.one_shot else 0), ("term", 3.0), ("kill", None)):
            if self.p.poll() is not None:
                break
            if sig == "term":
                self.p.terminate()
            elif sig == "kill":
                self.p.kill()
            try:
                self.p.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                pass
        self.p.wait()


def client(argv, timeout, env=None):
    r = subprocess.run(["taskset", "-c", PIN.client] + argv, capture_output=True, text=True,
                       timeout=timeout, env=env, start_new_session=True)
    if r.returncode != 0:
        raise RuntimeError(f"{os.path.basename(argv[0])} exited {r.returncode}: "
                           f"{(r.stderr or r.stdout).strip()[-300:]}")
    return r.stdout + r.stderr


def json_tail(out):
    """The last JSON object of `out` (a program may print text before its document)."""
    return json.loads(out[out.index("{"):out.rindex("}") + 1])


class Peers:
    """The programs, with the run length each measurement aims at."""
    def __init__(self, build, seconds):
        self.fp = os.path.join(build, "fabperf")
        self.build = build
        self.seconds = seconds
        self.timeout = 30 + 10 * seconds

    # --- fabperf itself: figure "lat" (one-way mean, ns) or "bw" (received bytes/s)
    def fabperf(self, test, args, figure, keep=None):
        """`keep`: a list the run's whole result object is appended to (its info says which
        window, completion level and inject the run took: the fabric floor sweep's pairing)."""
        port = free_port()
        with Server([self.fp, "-lp", str(port)], port):
            out = client([self.fp, "127.0.0.1", "-lp", str(port), "-t", str(self.seconds),
                          "--json", "-"] + args + [test], self.timeout)
        r = json_tail(out)["results"][0]
        if r["status"] != "ok":
            raise RuntimeError(r.get("error"))
        if keep is not None:
            keep.append(r)
        return r["latency_ns"]["mean"] if figure == "lat" else r["bandwidth"]["recv_Bps"]

    def fab_tool(self, tool, args, figure, keep=None):
        """A fab_* tool (fabperf under its CXI name), read from its --json document; `keep`
        as fabperf's."""
        prog = os.path.join(self.build, tool)
        port = free_port()
        common = ["-p", str(port), "-D", str(self.seconds)] + args
        with Server([prog] + common, port):
            out = client([prog, "127.0.0.1", "--json", "-"] + common, self.timeout)
        r = json_tail(out)["results"][0]
        if r["status"] != "ok":
            raise RuntimeError(r.get("error"))
        if keep is not None:
            keep.append(r)
        return r["latency_ns"]["mean"] if figure == "lat" else r["bandwidth"]["recv_Bps"]

    # --- the peers
    def qperf(self, test, size, figure, env=None, fabperf_server=False):
        """`env`: the client's environment (an LD_PRELOAD probe); the server keeps ours.
        `fabperf_server`: the stock qperf client measures against fabperf's server (which
        speaks qperf's own protocol: src/qperf_wire/) instead of qperf's."""
        port = free_port()
        server = [self.fp, "-lp", str(port)] if fabperf_server else ["qperf", "-lp", str(port)]
        with Server(server, port):
            out = client(["qperf", "127.0.0.1", "-lp", str(port), "-t", str(self.seconds), "-uu",
                          "-m", str(size), test], self.timeout, env=env)
        if figure == "bw":  # udp_bw shows send_bw and recv_bw; tcp_bw one bw
            m = re.search(r"recv_bw\s+=\s+([0-9.]+)", out) or re.search(r"\bbw\s+=\s+([0-9.]+)", out)
        else:
            m = re.search(r"latency\s+=\s+([0-9.]+)", out)
        if not m:
            raise RuntimeError("qperf: no figure in " + out[-300:])
        # A run whose receiver saw nothing (qperf's udp_bw when its datagrams were all lost)
        # prints 0: a failed run, not a figure for the median.
        if float(m.group(1)) == 0:
            raise RuntimeError("qperf: a zero figure in " + out[-300:])
        return float(m.group(1))

    def iperf3(self, size, streams):
        port = free_port()
        secs = self.seconds
        with Server(["iperf3", "-s", "-1", "-p", str(port)], port, one_shot=True):
            out = client(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(secs), "-l",
                          str(size), "-P", str(streams), "-J"], self.timeout)
        return json_tail(out)["end"]["sum_received"]["bits_per_second"] / 8

    def sockperf(self, proto, mode, size):
        # Its figure is already half the round trip (usec).
        port = free_port()
        extra = (["--tcp"] if proto == "tcp" else []) + (["--nonblocked"] if mode == "poll" else [])
        with Server(["sockperf", "sr", "-i", "127.0.0.1", "-p", str(port)] + extra, port,
                    udp=proto == "udp"):
            out = client(["sockperf", "pp", "-i", "127.0.0.1", "-p", str(port), "-t",
                          str(self.seconds), "-m", str(size)] + extra,
                         self.timeout)
        m = re.search(r"avg-lat(?:ency)?=\s*([0-9.]+)", out)
        if not m:
            raise RuntimeError("sockperf: no figure in " + out[-300:])
        return float(m.group(1)) * 1000

    def fi_pingpong(self, provider, ep, size, iters):
        # Counted in iterations: the sweep sizes `iters` from fabperf's latency to last ~seconds.
        port = free_port()
        base = ["fi_pingpong", "-p", provider, "-e", ep, "-S", str(size), "-I", str(iters)]
        with Server(base + ["-B", str(port)], port, one_shot=True):
            out = client(base + ["-P", str(port), "127.0.0.1"], self.timeout)
        # A header (bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec), then a line whose
        # counts may read "1k" or "=1k"; usec/xfer is half a round trip.
        lines = out.splitlines()
        for i, line in enumerate(lines[:-1]):
            if "usec/xfer" in line:
                col = line.split().index("usec/xfer")
                return float(lines[i + 1].split()[col]) * 1000
        raise RuntimeError("fi_pingpong: no figure in " + out[-300:])

    def ucx_perftest(self, test, tls, size, iters):
        # Counted in iterations too. Its bandwidth is in MB/s of 2^20 bytes; the warm-up (10000
        # by default) is cut to a tenth of the run so a 1 MiB row does not move 10 GB first.
        port = free_port()
        env = dict(os.environ, UCX_TLS=tls)
        with Server(["ucx_perftest", "-p", str(port)], port, env=env, one_shot=True):
            out = client(["ucx_perftest", "127.0.0.1", "-p", str(port), "-t", test, "-s",
                          str(size), "-n", str(iters), "-w", str(max(10, min(10000, iters // 10))),
                          "-f"], self.timeout, env=env)
        # final line: iterations, overhead p50/avg/overall (us), bandwidth avg/overall (MB/s), rates
        for line in out.splitlines():
            f = line.split()
            if len(f) == 8 and f[0].isdigit():
                return float(f[5]) * 1024 * 1024
        raise RuntimeError("ucx_perftest: no figure in " + out[-300:])

    def nptcp(self, size, iters):
        # One size (-l = -u, no perturbation), `iters` round trips a trial; NPtcp reports the
        # best of its trials, one way (its seconds column is half the round trip).
        port = free_port()
        out_file = f"/tmp/fabperf_bench_np_{port}.out"
        args = ["-P", str(port), "-p", "0", "-l", str(size), "-u", str(size), "-n", str(iters)]
        try:
            with Server(["NPtcp"] + args + ["-o", out_file + ".rx"], port, one_shot=True):
                client(["NPtcp", "-h", "127.0.0.1"] + args + ["-o", out_file], self.timeout)
            with open(out_file) as f:
                return float(f.read().split()[2]) * 1e9
        finally:
            for path in (out_file, out_file + ".rx"):
                if os.path.exists(path):
                    os.remove(path)

    def floor(self, proto, mode, size, shape="single", calls="send"):
        """floor_pingpong (bench/floor_pingpong.cc): the one-way mean in ns of a bare ping-pong;
        `shape` and `calls` as floor_bw's (bench/floor_shape.h)."""
        return self._floor("floor_pingpong", [proto, mode, size], shape, calls)["mean_ns"]

    def floor_bw(self, proto, size, shape="single", calls="send"):
        """floor_stream (bench/floor_stream.cc): bytes/s received by a bare stream; `shape`
        adds an idle thread ("thread") or that and a private descriptor table
        ("thread-own-fds"); `calls` "write" takes qperf's write and read for fabperf's send
        and recv, "syscall" sendto and recvfrom through syscall(2), as fabperf makes them
        (bench/floor_shape.h)."""
        return self._floor("floor_stream", [proto, size], shape, calls)["recv_Bps"]

    def fabric_floor(self, op, provider, ep, mode, size, settings=None, env=None):
        """A bare libfabric floor (bench/floor_fi_OP.cc, bench/fabric_floor.h): one-way mean
        latency in ns (mode "lat") or received bytes/s ("bw"), with `settings` (KEY=VALUE:
        window, inject, completion, batch, more, data, lists, warmup) and `env` (FI_* variables)
        added to ours. Returns (figure, its JSON line)."""
        argv = [os.path.join(self.build, f"floor_fi_{op}"), provider, ep, mode, str(size),
                str(self.seconds), PIN.client, PIN.server]
        argv += [f"{k}={v}" for k, v in (settings or {}).items()]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout,
                             env=dict(os.environ, **env) if env else None,
                             start_new_session=True)
        if out.returncode != 0:
            raise RuntimeError(f"floor_fi_{op} exited {out.returncode}: {out.stderr.strip()[-300:]}")
        doc = json.loads(out.stdout.strip().splitlines()[-1])
        return (doc["mean_ns"] if mode == "lat" else doc["recv_Bps"]), doc

    def _floor(self, program, args, shape, calls):
        """One run of a floor program (the row's CPUs, then SHAPE and CALLS): its JSON line."""
        out = subprocess.run([os.path.join(self.build, program)] + [str(x) for x in args]
                             + [str(self.seconds), PIN.client, PIN.server, shape, calls],
                             capture_output=True, text=True, timeout=self.timeout)
        if out.returncode != 0:
            raise RuntimeError(f"{program} exited {out.returncode}: {out.stderr.strip()[-300:]}")
        return json.loads(out.stdout)
