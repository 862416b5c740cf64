import sys, os, statistics
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import peers
from peers import Server, client, free_port, json_tail
P = peers.Peers("build", 2)
def fab(binary, test, size, env=None):
    port = free_port()
    e = dict(os.environ, **env) if env else None
    with Server([binary, "-lp", str(port)], port, env=e):
        out = client([binary, "127.0.0.1", "-lp", str(port), "-t", "2", "--json", "-", "-m", str(size), test], 60)
    return json_tail(out)["results"][0]["bandwidth"]["recv_Bps"]
reps = int(sys.argv[1])
for row in sys.argv[2:]:
    test, size = row.split(":")
    size = int(size)
    progs = {
      "fabperf": lambda: fab("/tmp/fabperf_before", test, size),
      "rx_nb": lambda: fab("/tmp/fabperf_rxnb", test, size, {"FABPERF_RX_NB": "1"}),
      "qperf": lambda: P.qperf(test, size, "bw"),
    }
    res = {k: [] for k in progs}
    for rnd in range(reps):
        for k, f in progs.items():
            res[k].append(f() / 1e6)
    med = {k: statistics.median(v) for k, v in res.items()}
    print(test, size, {k: [round(x, 1) for x in v] for k, v in res.items()})
    print("  fabperf/qperf %.3f rx_nb/qperf %.3f rx_nb/fabperf %.3f" % (med["fabperf"]/med["qperf"], med["rx_nb"]/med["qperf"], med["rx_nb"]/med["fabperf"]), flush=True)
