#!/usr/bin/env python3
"""Reruns the security review's timed rows (round 3, ../shared/reference/security-review.md).

Loopback only; every process is started here and ended by its pid; every wait and loop is
bounded in count and time. Prints one row per attack: id, figure, held/open. Usage:
  bench/security_rerun.py [--fabperf build/fabperf] [--only D5a,N1,...] [--n4 20]
Rows whose attack needs the review's frame-level scripts (D1, D2, D9/N7, N2) are run by the
project's own e2e tests (docs/security.md, "The review rerun").
"""
import argparse, contextlib, json, os, re, select, signal, socket, struct, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import free_port  # noqa: E402

FABPERF = "build/fabperf"
ROWS = []
PROCS = []


def row(rid, figure, held):
    ROWS.append((rid, figure, "held" if held else "OPEN"))
    print(f"| {rid} | {figure} | {'held' if held else 'OPEN'} |", flush=True)


def start(args, prog=None, **kw):
    p = subprocess.Popen([prog or FABPERF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, errors="replace", **kw)
    PROCS.append(p)
    return p


def finish(p, timeout=30):
    """Waits at most `timeout` s; kills it past that. Returns (rc or None, out, err)."""
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate(timeout=10)
        return None, out, err


def stop(p):
    if p.poll() is None:
        try:
            os.kill(p.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        p.kill()
    try:
        p.communicate(timeout=10)
    except Exception:
        pass


def wait_for(pred, secs, step=0.02):
    end = time.time() + secs
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def server(args=()):
    port = free_port()
    p = start(["-lp", str(port)] + list(args))
    ok = wait_for(lambda: _can_connect(port), 20, 0.05)
    if not ok:
        raise RuntimeError("server did not listen")
    return p, port


@contextlib.contextmanager
def serving(args=()):
    """A server for one row: (process, port), stopped when the row ends, however it ends."""
    s, port = server(args)
    try:
        yield s, port
    finally:
        stop(s)


def _can_connect(port):
    """Whether something listens on the port (read from /proc: a probe connection would be a
    client to the server, and a line in its log)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                for line in f.readlines()[1:]:
                    local, state = line.split()[1], line.split()[3]
                    if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


def children(pid):
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def cpu_ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError):
        return None


def run(args, timeout=60):
    t0 = time.time()
    rc, out, err = finish(start(args), timeout)
    return rc, out, err, time.time() - t0


def qperf_req(index, msg_size=1, time_s=2, timeout=5, port=0):
    b = struct.pack("<HHHH", 0, 4, 11, index)
    vals = [0, 0, 0, 0, msg_size, 0, 0, 0, port, 0, 0, 0, 0, time_s, timeout, 0]
    b += struct.pack("<16I", *[v & 0xffffffff for v in vals])
    return b + b"\0" * 128


def qperf_reply(k, secs=10):
    """Everything the server sends back until it closes (bounded), as printable text."""
    k.settimeout(secs)
    data, end = b"", time.time() + secs
    try:
        while len(data) < 200000 and time.time() < end:
            c = k.recv(65536)
            if not c:
                break
            data += c
    except OSError:
        pass
    return data.replace(b"\0", b"").decode("latin1", "replace").lstrip("?")


def measuring(p, secs=60):
    """Waits for an --interval line on p's stdout (read without blocking past `secs`)."""
    os.set_blocking(p.stdout.fileno(), False)
    buf, end = "", time.time() + secs
    while time.time() < end and p.poll() is None:
        try:
            buf += p.stdout.read() or ""
        except (OSError, TypeError):
            pass
        if " s]" in buf:
            return True
        time.sleep(0.05)
    return False


# --- rows -------------------------------------------------------------------------------------

def d3_kill_shm_client():
    with serving(["--max_clients", "2", "--max_time", "5"]) as (s, port):
        c = start(["127.0.0.1", "-lp", str(port), "-P", "shm", "-t", "4", "--interval", "0.2",
                   "rdm_write_bw"])
        if not measuring(c):
            row("D3", "shm client never measured: " + finish(c, 5)[2][-200:], False)
            return
        c.kill()
        t0 = time.time()
        freed = wait_for(lambda: not children(s.pid), 30)
        dt = time.time() - t0
        # The server removes a dead client's regions once its session process has ended
        # (session_process.cc), a moment after that process is gone: bounded, not at once.
        def client_regions():
            return [f for f in os.listdir("/dev/shm") if f.startswith(f"{c.pid}:")]
        wait_for(lambda: not client_regions(), 5)
        leftover = client_regions()
        rc, _, _, _ = run(["127.0.0.1", "-lp", str(port), "-t", "0.3", "tcp_lat"])
        row("D3", f"SIGKILLed shm rdm_write_bw client: session process gone {dt:.2f} s after; "
            f"client's shm files left: {len(leftover)}; next tcp_lat rc {rc}",
            freed and dt <= 5 and not leftover and rc == 0)
        finish(c, 5)


def d4_memory_refused():
    with serving(["--max_memory", "8M"]) as (s, port):
        rc, out, err, _ = run(["127.0.0.1", "-lp", str(port), "-P", "tcp;ofi_rxm", "-m", "1M",
                               "--tx_depth", "1024", "rdm_write_bw"])
        m = re.search(r"refused: the run needs about [^\n]*", err)
        row("D4", f"rc {rc}: {m.group(0) if m else err.strip()[-160:]}", rc == 1 and m)


def d5a_silent(to=2):
    with serving(["-to", str(to)]) as (s, port):
        k = socket.create_connection(("127.0.0.1", port))
        t0 = time.time()
        k.settimeout(30)
        try:
            data = k.recv(4096)
        except OSError:
            data = b""
        dt = time.time() - t0
        said = data[12:].decode("latin1", "replace")[:60] if data else "(closed)"
        row("D5a", f"silent connection, server -to {to}: cut at {dt:.2f} s ({said!r})",
            dt <= to + 1)
        k.close()


def n3_stopped_shm_client(to=2):
    with serving(["-to", str(to)]) as (s, port):
        c = start(["127.0.0.1", "-lp", str(port), "-P", "shm", "-t", "15", "--interval", "0.2",
                   "rdm_write_bw"])
        if not measuring(c):
            row("N3/D5b", "shm client never measured: " + finish(c, 5)[2][-200:], False)
            return
        kids = children(s.pid)
        os.kill(c.pid, signal.SIGSTOP)
        t0 = time.time()
        ticks0 = cpu_ticks(kids[0]) if kids else None
        freed = wait_for(lambda: not children(s.pid), 30)
        dt = time.time() - t0
        os.kill(c.pid, signal.SIGCONT)
        rc, _, err = finish(c, 30)
        row("N3/D5b", f"SIGSTOPped shm rdm_write_bw client (-t 15), server -to {to}: session "
            f"process ended {dt:.2f} s after the stop (review: 22.5 s); client rc {rc}",
            freed and dt <= to + 2)


def qhold(port, index, time_s, timeout_s):
    """qhold.py: a qperf request with a timer, data connected, then silence. Returns sockets."""
    k = socket.create_connection(("127.0.0.1", port), timeout=10)
    k.sendall(qperf_req(index, msg_size=65536, time_s=time_s, timeout=timeout_s))
    p = b""
    while len(p) < 4:
        c = k.recv(4 - len(p))
        if not c:
            return k, None
        p += c
    dport = struct.unpack("<I", p)[0]
    d = socket.create_connection(("127.0.0.1", dport), timeout=10)
    k.sendall(b"synchronization before test")
    got = b""
    while len(got) < 27:
        c = k.recv(27 - len(got))
        if not c:
            break
        got += c
    return k, d


def n1_raw_hold(to=2):
    with serving(["-to", str(to), "--queue_timeout", "60"]) as (s, port):
        k, d = qhold(port, 8, 40, 3600)
        t0 = time.time()
        rc, _, err, dt = run(["127.0.0.1", "-lp", str(port), "-t", "0.3", "tcp_lat"], 90)
        row("N1/D5d", f"raw qperf tcp_bw request (time 40, timeout 3600) gone silent, server -to "
            f"{to}: a queued fabperf tcp_lat ended rc {rc} after {dt:.2f} s (review: 38.6 s)",
            rc == 0 and dt <= to + 3)
        k.close()
        if d:
            d.close()


def n1_stock_stopped(to=2):
    with serving(["-to", str(to), "--queue_timeout", "20"]) as (s, port):
        q = start(["-lp", str(port), "-t", "30", "127.0.0.1", "tcp_bw"], prog="qperf")
        time.sleep(1.5)
        os.kill(q.pid, signal.SIGSTOP)
        rc, _, err, dt = run(["127.0.0.1", "-lp", str(port), "-t", "0.3", "tcp_lat"], 90)
        os.kill(q.pid, signal.SIGCONT)
        finish(q, 30)
        row("N1 (stock)", f"SIGSTOPped stock qperf -t 30 tcp_bw, server -to {to}: queued fabperf "
            f"tcp_lat rc {rc} after {dt:.2f} s (review: busy for ~30 s)", rc == 0 and dt <= to + 3)


def n1_slowloris(to=2):
    with serving(["-to", str(to)]) as (s, port):
        k = socket.create_connection(("127.0.0.1", port))
        req = qperf_req(8)
        t0, sent, cut = time.time(), 0, None
        while sent < len(req) and time.time() - t0 < 30:
            try:
                k.send(req[sent:sent + 1])
                sent += 1
            except OSError:
                cut = time.time() - t0
                break
            if select.select([k], [], [], 0.5)[0]:  # the server spoke or closed: cut
                cut = time.time() - t0
                break
        k.close()
        row("N1 slowloris", f"1 byte / 0.5 s, server -to {to}: cut after "
            f"{cut if cut is None else round(cut, 2)} s, {sent} bytes (review: 2 x -to)",
            cut is not None and cut <= to + 1.5)


def n1_time_cap():
    with serving(["--max_time", "10"]) as (s, port):
        k = socket.create_connection(("127.0.0.1", port), timeout=10)
        k.sendall(qperf_req(8, msg_size=65536, time_s=3600, timeout=5))
        txt = qperf_reply(k)[:120]
        row("N1 time", f"qperf request time 3600 at --max_time 10: {txt!r}", "refused" in txt)
        k.close()


def d6_sigint():
    with serving() as (s, port):
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "r.json")
            c = start(["127.0.0.1", "-lp", str(port), "-t", "10", "--json", j, "tcp_lat"])
            time.sleep(2)
            os.kill(c.pid, signal.SIGINT)
            t0 = time.time()
            rc, _, _ = finish(c, 30)
            dt = time.time() - t0
            st = json.load(open(j))["results"][0]["status"] if os.path.exists(j) else None
        row("D6", f"SIGINT at 2 s of tcp_lat --json: rc {rc} in {dt:.2f} s, status {st}",
            rc == 130 and st == "interrupted")


def d6_sigterm_server():
    with serving(["--concurrent"]) as (s, port):
        c = start(["127.0.0.1", "-lp", str(port), "-t", "10", "--interval", "0.2", "tcp_bw"])
        measuring(c)
        os.kill(s.pid, signal.SIGTERM)
        t0 = time.time()
        src, _, _ = finish(s, 30)
        dt = time.time() - t0
        rc, _, err = finish(c, 30)
    row("D6'", f"SIGTERM server mid tcp_bw: server rc {src} in {dt:.2f} s; client rc {rc}, "
        f"{'heard' if 'server shutting down' in err else 'did not hear'} 'server shutting down'",
        src == 0 and rc == 1 and "server shutting down" in err)


def n5_deep_windows():
    for prov in ["udp;ofi_rxd", "tcp;ofi_rxm", "shm", "sockets"]:
        with serving(["-to", "2"]) as (s, port):
            rc, out, err, dt = run(["127.0.0.1", "-lp", str(port), "-P", prov, "--tx_depth",
                                    "1024", "-t", "2", "rdm_write_bw"], 120)
            row(f"D7/N5 {prov}", f"--tx_depth 1024 -t 2 rdm_write_bw, server -to 2: rc {rc} in "
                f"{dt:.2f} s{'' if rc == 0 else ': ' + err.strip()[-120:]}", rc == 0 and dt <= 8)


def n8_stopped_server(to=3):
    for test in (["tcp_bw"], ["udp_bw"], ["tcp_lat"], ["-P", "tcp;ofi_rxm", "rdm_write_bw"]):
        with serving() as (s, port):
            c = start(["127.0.0.1", "-lp", str(port), "-to", str(to), "-t", "30", "--interval",
                       "0.2"] + test)
            if not measuring(c):
                row(f"D11/N8 {test[-1]}", "never measured", False)
                continue
            os.kill(s.pid, signal.SIGSTOP)
            t0 = time.time()
            rc, _, err = finish(c, 60)
            dt = time.time() - t0
            os.kill(s.pid, signal.SIGCONT)
            row(f"D11/N8 {test[-1]}", f"server SIGSTOPped, client -to {to} -t 30: rc {rc} after "
                f"{dt:.2f} s (review at -to 5: tcp_bw 19 s, udp_bw 14.6 s, fabric 40 s)",
                rc == 1 and dt <= to + 2)


def d12_not_run():
    with serving() as (s, port):
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "r.json")
            c = start(["127.0.0.1", "-lp", str(port), "-t", "2", "--json", j, "tcp_lat", "tcp_bw",
                       "udp_bw"])
            time.sleep(3)
            os.kill(c.pid, signal.SIGINT)
            rc, _, _ = finish(c, 30)
            sts = [r["status"] for r in json.load(open(j))["results"]] if os.path.exists(j) else []
        row("D12/N12", f"SIGINT at 3 s of tcp_lat tcp_bw udp_bw: rc {rc}, statuses {sts}",
            rc == 130 and len(sts) == 3 and sts[2] == "not run")


def d13_log_lines():
    with serving() as (s, port):
        lines = []
        for t in ("tcp_bw", "udp_bw", "tcp_lat"):
            c = start(["127.0.0.1", "-lp", str(port), "-t", "10", "--interval", "0.2", t])
            measuring(c)
            c.kill()
            finish(c, 5)
            time.sleep(1)
        os.kill(s.pid, signal.SIGTERM)
        _, _, log = finish(s, 30)
        lines = [l for l in log.splitlines() if "127.0.0.1" in l]
        named = all(any(t in l for l in lines) for t in ("tcp_bw", "udp_bw", "tcp_lat"))
        row("D13", f"3 SIGKILLed socket clients: {len(lines)} log lines, each test named: {named}: "
            f"{' / '.join(l[-60:] for l in lines)}",
            len(lines) == 3 and named)


def d14_edges():
    rc, _, err, _ = run(["127.0.0.1", "--streams", "-1", "tcp_bw"])
    m = re.search(r"[^\n]*streams[^\n]*", err)
    row("D14 streams", f"--streams -1: rc {rc}: {m.group(0) if m else err[-100:]}",
        rc == 2 and m and "1 to 256" in m.group(0))
    with serving() as (s, port):
        k = socket.create_connection(("127.0.0.1", port), timeout=10)
        k.sendall(qperf_req(8, msg_size=65536, port=22))
        txt = qperf_reply(k)
        row("D14 port 22", f"qperf request for data port 22: {txt[:110]!r}",
            "below 1024" in txt)


def n4_loop(n):
    hogs = [subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"]) for _ in range(2)]
    PROCS.extend(hogs)
    worst, hung, nojson, other = 0.0, 0, 0, 0
    try:
        with serving() as (s, port):
            for i in range(n):
                with tempfile.TemporaryDirectory() as d:
                    j = os.path.join(d, "r.json")
                    c = start(["127.0.0.1", "-lp", str(port), "-P", "shm", "-n", "100000000",
                               "--interval", "0.1", "--json", j, "rdm_write_bw"])
                    if not measuring(c):
                        finish(c, 30)
                        other += 1
                        continue
                    time.sleep(0.037 * (i % 5))
                    for k in children(s.pid):
                        os.kill(k, signal.SIGKILL)
                    t0 = time.time()
                    rc, _, _ = finish(c, 60)
                    worst = max(worst, time.time() - t0)
                    hung += rc is None
                    ok = os.path.exists(j) and json.load(open(j))["results"][0]["status"] == "error"
                    nojson += not ok
                    wait_for(lambda: not children(s.pid), 30)
        row("N4", f"{n} shm clients whose session process was SIGKILLed mid-write, 2 CPU hogs: "
            f"{hung} hung, {nojson} without an error JSON, {other} never measured; slowest exit "
            f"{worst:.2f} s (client -to 5)", hung == 0 and nojson == 0 and other <= 2)
    finally:
        for h in hogs:
            stop(h)


def n6_report():
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "x.json")
        with serving() as (s, port):
            run(["127.0.0.1", "-lp", str(port), "-t", "0.2", "--json", src, "tcp_lat"])
        text = re.sub(r'("elapsed_s"\s*:\s*)[-0-9.e+]+', r"\g<1>1e999999", open(src).read(), 1)
        open(src, "w").write(text)
        rc, _, err, _ = run(["report", src, "-o", os.path.join(d, "x.html")])
        row("N6", f"report on 1e999999: rc {rc}: {err.strip()[:120]}", rc in (1, 2) and src in err)


def n9_stock_busy(tries=8):
    """A server whose one slot a running client holds, 10 silent connections before each try
    (the review's flood), then a stock qperf client: it must print the reason."""
    with serving(["--max_clients", "1"]) as (s, port):
        holder = start(["127.0.0.1", "-lp", str(port), "-t", "120", "--interval", "0.5",
                        "tcp_lat"])
        flood = []
        try:
            if not measuring(holder):
                row("N9", "the holding client never measured", False)
                return
            heard, said = 0, ""
            for _ in range(tries):
                flood += [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
                time.sleep(0.1)
                rc, out, err = finish(start(["-lp", str(port), "-t", "1", "127.0.0.1",
                                             "tcp_lat"], prog="qperf"), 30)
                heard += "server: server busy: 1 client is being served" in out + err
                said = (out + err).strip().replace("\n", " ")[-90:]
            row("N9", f"stock qperf against a full server (--max_clients 1, held), 10 silent "
                f"connections before each: {heard} of {tries} read 'server busy' (review: 4 of "
                f"8); last: {said!r}", heard == tries)
        finally:
            for k in flood:
                k.close()
            stop(holder)


def flood_100():
    with serving() as (s, port):
        socks, busy = [], 0
        for _ in range(100):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        for k in socks:
            k.settimeout(2)
            try:
                busy += b"busy" in k.recv(4096)
            except OSError:
                pass
        rc, _, _, dt = run(["127.0.0.1", "-lp", str(port), "-t", "0.3", "tcp_lat"], 60)
        for k in socks:
            k.close()
        t0 = time.time()
        after = None
        while after != 0 and time.time() - t0 < 10:
            after = run(["127.0.0.1", "-lp", str(port), "-t", "0.3", "tcp_lat"], 60)[0]
        row("(f) flood", f"100 silent connections: {busy} told busy; a normal client during "
            f"them: rc {rc} in {dt:.2f} s; after them: rc {after}, served "
            f"{time.time() - t0:.2f} s after the flood ended", busy >= 80 and after == 0)


def n10_memory():
    for prov, extra in (("tcp;ofi_rxm", ["-m", "4M", "--tx_depth", "64"]),
                        ("shm", ["-m", "4M", "--tx_depth", "64"]),
                        ("tcp;ofi_rxm", ["-m", "1M", "--tx_depth", "1024"])):
        with serving() as (s, port):
            rc, out, err, _ = run(["127.0.0.1", "-lp", str(port), "-P", prov, "-t", "1", "--json",
                                   "-"] + extra + ["rdm_write_bw"], 120)
            try:
                sp = json.loads(out)["results"][0]["info"]["rem"]["session_process"]
                peak, adm = sp["peak_resident_bytes"], sp["admitted_bytes"]
                row(f"N10 {prov} {' '.join(extra)}", f"session peak {peak / 2**20:.1f} MiB, "
                    f"admitted {adm / 2**20:.1f} MiB", peak <= adm)
            except (ValueError, KeyError, IndexError, TypeError):
                row(f"N10 {prov}", f"rc {rc}: no session_process in JSON: {err[-120:]}", False)


# Rows whose attack needs the review's frame-level scripts (fp.py): the project's e2e tests
# make the same attack against real processes. Each row runs its tests and reports pass/fail.
GTEST_ROWS = [
    ("D1 forged fabric address", "*ForgedAddress*:*ForgedConnection*"),
    ("D2 forged shm name", "ForgedShmPeer*"),
    ("D8 fab_* --allow, key", "E2eCxi.ServerHonoursAllowListAndKey"),
    ("D9/N7 escapes to a fab_* terminal", "E2eCxi.NoClientStringReachesTheServersTerminalRaw"),
    ("(a) hostile qperf requests", "QperfWireServe.BadRequestsGetQperfsErrors"),
    ("N2 strangers on --matrix ranks", "ClusterOutsiders.*"),
    ("N11 stopped --matrix rank", "E2eDeadlines.AStoppedMatrixRankEndsWithItsLauncher"),
    ("N11 killed client's shm files", "E2eSessionChildTest.ADeadShmClientFreesItsSlotAndNothingSpins"),
    ("N10 peak under and near its estimate",
     "E2eSessionChildTest.TheSessionProcessPeaksUnderAndNearItsEstimate"),
]


def gtest_rows():
    binary = os.path.join(os.path.dirname(FABPERF), "fabperf_e2e_tests")
    os.environ["FABPERF_BIN"] = FABPERF  # the e2e tests run this binary
    for rid, flt in GTEST_ROWS:
        t0 = time.time()
        try:
            r = subprocess.run([binary, f"--gtest_filter={flt}", "--gtest_brief=1"],
                               capture_output=True, text=True, errors="replace", timeout=600)
            passed = re.search(r"\[  PASSED  \] (\d+) test", r.stdout)
            skipped = re.search(r"\[  SKIPPED \] (\d+) test", r.stdout)
            ok = r.returncode == 0 and passed is not None
            row(rid, f"{flt}: rc {r.returncode}, {passed.group(1) if passed else 0} passed"
                f"{', ' + skipped.group(1) + ' skipped' if skipped else ''}, "
                f"{time.time() - t0:.0f} s", ok and not skipped)
        except subprocess.TimeoutExpired:
            row(rid, f"{flt}: still running after 600 s", False)


ALL = {"D3": d3_kill_shm_client, "D4": d4_memory_refused, "D5a": d5a_silent,
       "N3": n3_stopped_shm_client, "N1raw": n1_raw_hold, "N1stock": n1_stock_stopped,
       "N1slow": n1_slowloris, "N1time": n1_time_cap, "D6": d6_sigint, "D6t": d6_sigterm_server,
       "N5": n5_deep_windows, "N8": n8_stopped_server, "D12": d12_not_run, "D13": d13_log_lines,
       "D14": d14_edges, "N4": None, "N6": n6_report, "N9": n9_stock_busy, "flood": flood_100,
       "N10": n10_memory, "gtest": gtest_rows}


def main():
    global FABPERF
    ap = argparse.ArgumentParser()
    ap.add_argument("--fabperf", default=FABPERF)
    ap.add_argument("--only", default="")
    ap.add_argument("--n4", type=int, default=20)
    a = ap.parse_args()
    FABPERF = os.path.abspath(a.fabperf)
    only = [x for x in a.only.split(",") if x]
    print("| row | figure | verdict |\n|---|---|---|", flush=True)
    for name, fn in ALL.items():
        if only and name not in only:
            continue
        try:
            n4_loop(a.n4) if name == "N4" else fn()
        except Exception as e:  # a broken row is an open one, said as such
            row(name, f"rerun failed: {type(e).__name__}: {e}", False)
    for p in PROCS:
        stop(p)
    print(f"\n{sum(r[2] == 'OPEN' for r in ROWS)} open of {len(ROWS)}")
    return 1 if any(r[2] == "OPEN" for r in ROWS) else 0


if __name__ == "__main__":
    sys.exit(main())
