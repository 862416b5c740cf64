import sys, os, statistics
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import peers
from peers import Server, client, free_port, json_tail
P = peers.Peers("build", 2)
def fab(binary, env=None, size="1M"):
    port = free_port()
    e = dict(os.environ, **env) if env else None
    with Server([binary, "-lp", str(port)], port, env=e):
        out = client([binary, "127.0.0.1", "-lp", str(port), "-t", "2", "--json", "-", "-m", size, "tcp_bw"], 60)
    return json_tail(out)["results"][0]["bandwidth"]["recv_Bps"]
size = sys.argv[2] if len(sys.argv) > 2 else "1M"
progs = {
  "fabperf": lambda: fab("/tmp/fabperf_before", size=size),
  "rx_nb": lambda: fab("/tmp/fabperf_rxnb", {"FABPERF_RX_NB": "1"}, size=size),
  "iperf3": lambda: P.iperf3(peers_size, 1),
}
peers_size = int(size[:-1]) * (1 << 20 if size.endswith("M") else 1 << 10)
res = {k: [] for k in progs}
for rnd in range(int(sys.argv[1])):
    for k, f in progs.items():
        res[k].append(f() / 1e9)
    print(rnd, " ".join(f"{k}={v[-1]:.2f}" for k, v in res.items()), flush=True)
med = {k: statistics.median(v) for k, v in res.items()}
print("medians", {k: round(v, 3) for k, v in med.items()})
print("fabperf/iperf3 %.3f rx_nb/iperf3 %.3f rx_nb/fabperf %.3f" % (med["fabperf"]/med["iperf3"], med["rx_nb"]/med["iperf3"], med["rx_nb"]/med["fabperf"]))
