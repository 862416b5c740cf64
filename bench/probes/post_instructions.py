#!/usr/bin/env python3
"""Instructions and stores a post, counted: fabperf's client and its bare libfabric floor under valgrind's
callgrind, each at two lengths of run, the difference divided by the difference in operations
(what set-up and teardown cost cancels); stores (callgrind's Dw, data writes) likewise, since
where a provider serializes posts on a lock the stores a post makes cost more than the rest.
Split by where the instructions run: the program's own
code (fabperf, or the floor, with the headers it inlines), libfabric, and libc (where the shm
provider's spin lock lives). A guest without hardware counters (this one: `perf stat` has no
cycles or instructions) still counts instructions this way; what they cost in time is the
sweeps' business. Posts the provider refused (its target behind: each retried after a poll) add
instructions of their own, so the table gives them: compare runs with few, on a quiet host.

  python3 bench/probes/post_instructions.py OUT [--test rdm_atomic_bw] [--provider shm]
      [--fabperf build/fabperf] [--more-fabperf NAME=BIN ...] [--floor build/floor_fi_atomic]
      [--counts 20000,80000] [--seconds 0.3,1.2] [-- extra fabperf options]

fabperf: a server started here (not under callgrind), the client under callgrind with `-n` at
each count. The floor: fabric_floor.h's pair under callgrind (both sides, since its server is a
fork), the client's file taken, at each length in seconds (its JSON says how many it posted).
Its libc column counts the spin lock's waits against a target slowed by callgrind too: compare
the own and libfabric columns. Writes OUT/post_instructions.txt (and prints it).
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from peers import Server, free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLOOR_FOR = {"rdm_atomic_bw": "atomic", "rdm_write_bw": "write", "rdm_read_bw": "read",
             "rdm_send_bw": "send"}


EVENTS = ("Ir", "Dw")  # instructions, and data writes (stores): --cache-sim=yes counts them


def groups(path):
    """Instructions and stores of one callgrind file by object: own, libfabric, libc."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no",
                          "--show=" + ",".join(EVENTS), path],
                         capture_output=True, text=True, check=True).stdout
    g = {f"{w} {e}": 0 for e in EVENTS for w in ("own", "libfabric", "libc")}
    number = r"([\d,]+)(?: \(\s*[\d.]+%\))?\s+"
    for line in out.splitlines():
        m = re.match(r"^\s*" + number * len(EVENTS) + r"(.*)$", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        where = m.group(len(EVENTS) + 1)
        if "libfabric" in where:
            w = "libfabric"
        elif "libc.so" in where or "ld-linux" in where or where.startswith("./"):
            w = "libc"
        else:
            w = "own"
        for i, e in enumerate(EVENTS):
            g[f"{w} {e}"] += int(m.group(i + 1).replace(",", ""))
    return g


def per_op(short, long_, ops):
    return {k: (long_[k] - short[k]) / ops for k in short}


def fabperf_counts(binary, test, provider, size, counts, extra, tmp):
    port = free_port()
    # The server as every probe runs it (peers.Server: pinned, ready once its port is open).
    with Server([binary, "-lp", str(port)], port):
        files = []
        for n in counts:
            cg, js = os.path.join(tmp, f"fab.{n}.cg"), os.path.join(tmp, f"fab.{n}.json")
            cmd = ["valgrind", "--tool=callgrind", "--cache-sim=yes", f"--callgrind-out-file={cg}",
                   binary,
                   "localhost", "-lp", str(port), "-P", provider, "-cp1", "-n", str(n),
                   "--json", js] + (["-m", str(size)] if test != "rdm_atomic_bw" else [])
            cmd += extra + [test]
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, timeout=600)
            if r.returncode != 0:
                sys.exit(f"fabperf under callgrind failed ({r.returncode}): {r.stderr[-800:]}")
            files.append(cg)
            with open(js) as f:
                method = json.load(f)["results"][0]["counters"]["loc"]["info"]["bw_method"]
            refused = method.get("posts_refused", 0)
    g = per_op(groups(files[0]), groups(files[1]), counts[1] - counts[0])
    return g, f"{refused} of {counts[1]}"


def floor_counts(binary, provider, size, seconds, tmp):
    results = []
    for t in seconds:
        pattern = os.path.join(tmp, f"floor.{t}.%p.cg")
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--cache-sim=yes",
                                 f"--callgrind-out-file={pattern}", binary, provider, "rdm",
                                 "bw", str(size), str(t), "0", "1", "window=128"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        out, _ = proc.communicate(timeout=600)
        if proc.returncode != 0:
            sys.exit(f"{binary} under callgrind failed ({proc.returncode})")
        doc = json.loads(out.strip().splitlines()[-1])
        # valgrind runs the program in its own process: the client's file has valgrind's pid.
        results.append((doc["ops"], doc["refused"],
                        groups(os.path.join(tmp, f"floor.{t}.{proc.pid}.cg"))))
    (ops0, _, g0), (ops1, refused1, g1) = results
    return per_op(g0, g1, ops1 - ops0), f"{refused1} refusals in {ops1}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--test", default="rdm_atomic_bw", choices=sorted(FLOOR_FOR))
    ap.add_argument("--provider", default="shm")
    ap.add_argument("--fabperf", default=os.path.join(ROOT, "build", "fabperf"))
    ap.add_argument("--more-fabperf", action="append", default=[], metavar="NAME=BIN",
                    help="another fabperf binary in the same table (a change's before)")
    ap.add_argument("--floor", default=None, help="default: build/floor_fi_<family>")
    ap.add_argument("--size", type=int, default=64, help="message size (atomics: 8, the type's)")
    ap.add_argument("--counts", default="20000,80000")
    ap.add_argument("--seconds", default="0.3,1.2")
    ap.add_argument("extra", nargs="*", help="options added to fabperf's client")
    a = ap.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        sys.exit("valgrind is missing: apt-get install valgrind")
    counts = [int(x) for x in a.counts.split(",")]
    seconds = [float(x) for x in a.seconds.split(",")]
    if len(counts) != 2 or counts[1] <= counts[0] or len(seconds) != 2 or seconds[1] <= seconds[0]:
        sys.exit("--counts and --seconds take two increasing values")
    size = 8 if a.test == "rdm_atomic_bw" else a.size
    floor = a.floor or os.path.join(ROOT, "build", f"floor_fi_{FLOOR_FOR[a.test]}")
    runs = [("fabperf", a.fabperf)] + [tuple(x.split("=", 1)) for x in a.more_fabperf]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, binary in runs:
            rows.append((name, *fabperf_counts(binary, a.test, a.provider, size, counts, a.extra,
                                               tmp)))
        rows.append(("floor", *floor_counts(floor, a.provider, size, seconds, tmp)))
    lines = [f"# instructions and stores a post, {a.test} {size} B over {a.provider} (callgrind;"
             f" counts {a.counts}, floor {a.seconds} s)",
             "| program | own | libfabric | libc | total | stores: own | libfabric | libc | total |"
             " refused (long run) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name, g, refused in rows:
        cells = []
        for e in EVENTS:
            part = [g[f"{w} {e}"] for w in ("own", "libfabric", "libc")]
            cells += [f"{v:.1f}" for v in part] + [f"{sum(part):.1f}"]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {refused} |")
    text = "\n".join(lines) + "\n"
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "post_instructions.txt"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
