#!/bin/sh
# Regenerates docs/report.md's screenshots (make report-docs): real loopback runs of
# BUILD/fabperf drawn as each kind of report page and photographed by headless Chromium at
# 1280 px. Also writes compare.txt, the terminal comparison the README shows.
# Usage: docs/report_screenshots.sh BUILD_DIR OUT_DIR
set -eu
build=${1:-build}
out=${2:-docs/images}
fab="$build/fabperf"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -x "$fab" ] || { echo "no $fab: run make build first" >&2; exit 2; }
[ -n "$chromium" ] || { echo "headless Chromium not found (make deps installs it)" >&2; exit 2; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shot PAGE PNG HEIGHT: the page at 1280 x HEIGHT, offline, as the browser test opens it.
shot() {
  timeout -k 10 120 "$chromium" --headless --disable-gpu --no-sandbox --no-first-run \
    --disable-extensions --hide-scrollbars --user-data-dir="$tmp/profile" \
    --host-resolver-rules="MAP * ~NOTFOUND" --virtual-time-budget=10000 \
    --window-size=1280,"$3" --screenshot="$out/$2" "file://$(realpath "$1")" 2>/dev/null
  echo "wrote $out/$2"
}

# One latency run: the distribution.
"$fab" --loopback -n 50000 --json "$tmp/lat.json" --html "$tmp/latency.html" tcp_lat >/dev/null
shot "$tmp/latency.html" report-latency.png 1500

# Two size sweeps, the default socket buffers against 8 KB ones (-sb 8K), compared: the page
# and the terminal text. Five repetitions a run, so every row has a test on repetitions, and a
# time-based tcp_bw. (Not busy-polling against blocking: on a loaded 2-CPU host the pollers are
# descheduled for milliseconds, and p99 deltas of +60000% make a poor example.)
for run in default sb8K; do
  sb=""
  [ "$run" = sb8K ] && sb="-sb 8K"
  # shellcheck disable=SC2086 # $sb is one option and its value, or nothing
  "$fab" --loopback --repeat 5 $sb -oo msg_size:1:64K:*16 --json "$tmp/$run.json" \
    -n 3000 tcp_lat -t 0.3 tcp_bw >/dev/null
done
"$fab" compare default="$tmp/default.json" sb8K="$tmp/sb8K.json" --html "$tmp/compare.html" \
  >"$out/compare.txt" || true  # exit 1 is a regression: the picture is wanted all the same
shot "$tmp/compare.html" report-compare.png 3200

# A bandwidth run with interval reports: figures over time.
"$fab" --loopback -t 2 --interval 0.2 --json "$tmp/int.json" --html "$tmp/interval.html" \
  tcp_bw >/dev/null
shot "$tmp/interval.html" report-interval.png 1100

# A cluster matrix of 4 ranks on this host, where Open MPI is installed.
if command -v mpirun >/dev/null; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    mpirun --oversubscribe -np 4 "$fab" --matrix -t 0.2 --json "$tmp/m.json" tcp_lat >/dev/null
  "$fab" report "$tmp/m.json" -o "$tmp/matrix.html"
  shot "$tmp/matrix.html" report-matrix.png 1900
else
  echo "mpirun not found: report-matrix.png left as it was" >&2
fi
