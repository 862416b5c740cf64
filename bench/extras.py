"""What the sweeps do not pair with a peer: fabperf's resident size over a long run, and the
micro-benchmarks of its bookkeeping (bench/micro_stats.cc)."""
import json, re, subprocess, time


def memory_over_time(fp, seconds):
    """Resident size of a fabperf client (and its in-process server) over a long latency run,
    sampled every 5 s."""
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
                         capture_output=True, text=True, timeout=300).stdout
    return {b["name"]: round(b["real_time"], 2) for b in json.loads(out)["benchmarks"]}
