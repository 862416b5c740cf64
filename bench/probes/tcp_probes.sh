#!/bin/bash
# The tcp_bw rows' probes, by hand: fabperf against qperf with qperf's buffer written
# (touch_malloc.c) and against iperf3, and two streams against the bare floor (twostream.c).
# Alternating rounds, client on CPU 0 and servers on CPU 1, as in the sweeps.
#
#   bash bench/probes/tcp_probes.sh OUT [REPS] [CC]
#
# CC (cubic, bbr ...) sets the host's TCP congestion control for the run and restores the one it
# found on exit (root). Each probe writes OUT/NAME.txt, one line per round; OUT/README.md says
# when, where and at which commit.
set -eu
OUT=$1; REPS=${2:-7}; CC=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/../.." && pwd)
FAB=${FAB:-$ROOT/build/fabperf}
mkdir -p "$OUT"
gcc -O2 -shared -fPIC -o "$OUT/touch_malloc.so" "$HERE/touch_malloc.c"
gcc -O2 -pthread -o "$OUT/twostream" "$HERE/twostream.c"
WAS=$(sysctl -n net.ipv4.tcp_congestion_control)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  sysctl -qw net.ipv4.tcp_congestion_control="$WAS"
  rm -f "$OUT/touch_malloc.so" "$OUT/twostream"
}
trap cleanup EXIT
[ -n "$CC" ] && sysctl -qw net.ipv4.tcp_congestion_control="$CC"

PORT=$((20000 + RANDOM % 20000))
next_port() { PORT=$((PORT + 1)); }
serve() {  # serve CMD...: a server on CPU 1, waited for by its port
  taskset -c 1 "$@" >/dev/null 2>&1 & PIDS+=($!)
  for _ in $(seq 100); do ss -ltn | grep -q ":$PORT " && return; sleep 0.05; done
  echo "server did not start: $*" >&2; exit 1
}
fab() { taskset -c 0 "$FAB" 127.0.0.1 -lp "$1" -t 1 "${@:2}" tcp_bw | awk '/bw  *=/{print $3}'; }
qp() { taskset -c 0 qperf 127.0.0.1 -lp "$1" -m "$2" -t 1 tcp_bw | awk '/bw  *=/{print $3}'; }
ip3() {
  taskset -c 0 iperf3 -c 127.0.0.1 -p "$1" -t 1 -l "$2" -P "$3" -J |
    python3 -c 'import json,sys; print(round(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8e9, 2))'
}

{
  echo "# tcp_probes.sh at $(git -C "$ROOT" rev-parse --short HEAD)"
  echo
  echo "\`bash bench/probes/tcp_probes.sh $OUT $REPS $CC\`, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs" \
       "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), Linux $(uname -r)," \
       "TCP congestion control $(sysctl -n net.ipv4.tcp_congestion_control), load average" \
       "$(cut -d' ' -f1-3 /proc/loadavg) at the start. Figures in GB/s (fabperf's and qperf's" \
       "bw, iperf3's sum_received), one line per round, $REPS rounds."
} > "$OUT/README.md"

for m in 4K 256K 1M; do  # qperf sends from the zero page; qperf_written from written pages
  next_port; FP=$PORT; serve "$FAB" -lp $FP
  next_port; QP=$PORT; serve qperf -lp $QP
  for _ in $(seq "$REPS"); do
    echo "fabperf=$(fab $FP -m $m) qperf=$(qp $QP $m) qperf_written=$(LD_PRELOAD=$OUT/touch_malloc.so qp $QP $m)"
  done | tee "$OUT/qperf_written_$m.txt"
done

for m in 128K 1M; do
  next_port; FP=$PORT; serve "$FAB" -lp $FP
  next_port; IP=$PORT; serve iperf3 -s -p $IP
  for _ in $(seq "$REPS"); do
    echo "fabperf=$(fab $FP -m $m) iperf3=$(ip3 $IP $m 1)"
  done | tee "$OUT/iperf3_$m.txt"
done

next_port; FP=$PORT; serve "$FAB" -lp $FP
next_port; IP=$PORT; serve iperf3 -s -p $IP
for _ in $(seq "$REPS"); do  # two streams: fabperf, the bare floor in three shapes, iperf3
  line="fabperf=$(fab $FP -m 128K --streams 2)"
  for shape in threads poll rr; do
    next_port; serve timeout 30 "$OUT/twostream" recv $PORT "$shape" 131072  # ends itself at EOF
    line="$line bare_$shape=$(taskset -c 0 "$OUT/twostream" send $PORT "$shape" 131072 1 | awk '{print $3}')"
  done
  echo "$line iperf3=$(ip3 $IP 128K 2)"
done | tee "$OUT/two_streams_128K.txt"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end." >> "$OUT/README.md"
