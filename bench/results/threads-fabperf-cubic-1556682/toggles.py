import os, sys
sys.path.insert(0, "/work/main/bench"); sys.path.insert(0, "/work/main/bench/probes")
from peers import PIN, Peers
from tcp_probes import probe, congestion_control
PIN.apart()
p = Peers("/work/main/build", 1)
proto, size = sys.argv[2], sys.argv[3]
def fp(envs):
    def run():
        saved = dict(os.environ)
        for e in envs: os.environ[e] = "1"
        try: return p.fabperf(proto + "_bw", ["-m", size], "bw")
        finally:
            os.environ.clear(); os.environ.update(saved)
    return run
progs = [("floor", lambda: p.floor_bw(proto, size, "single", "syscall")),
         ("fp", fp([])), ("nowd", fp(["FPX_NOWD"])), ("noclkpub", fp(["FPX_NOCLOCK", "FPX_NOPUB"])),
         ("none", fp(["FPX_NOWD", "FPX_NOCLOCK", "FPX_NOPUB"]))]
os.makedirs(sys.argv[1], exist_ok=True)
with congestion_control("cubic"):
    probe(sys.argv[1], f"{proto}{size}.txt", int(os.environ.get("REPS", "8")), progs)
print(open(os.path.join(sys.argv[1], f"{proto}{size}.txt")).read().splitlines()[-1])
