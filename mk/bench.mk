# Side-by-side benchmarks against the peers over message sizes (docs: bench/README.md). Not
# part of `make test`.
#   make bench          installs the peers from Debian, builds the floors and the micro-
#                       benchmarks, runs every sweep on loopback and writes one table per sweep
#                       (bench/results/sweep_*.md, every run in sweep_*.json) and summary.md
#   BENCH_SECONDS=S     length of each run in whole seconds (default 1); BENCH_REPS=1 for a smoke run
#   BENCH_REPS=N        runs of each side per row (default 3), alternating
#   BENCH_SWEEPS=a,b    some sweeps only (qperf iperf3 sockperf fi_pingpong ucx fab nptcp floor
#                       fabric_floor qperf_wire memory micro; default all)
#   BENCH_OUT=DIR       where the tables go (default bench/results)
#   BENCH_LABEL=TEXT    written into every table's title (e.g. preliminary, smoke)
BENCH_SECONDS ?= 1
BENCH_REPS ?= 3
BENCH_SWEEPS ?= all
BENCH_OUT ?= bench/results
BENCH_LABEL ?=
BENCH_PEERS := qperf sockperf iperf3 netpipe-tcp libfabric-bin ucx-utils
BENCH_ARGS = --build $(BUILD) --seconds $(BENCH_SECONDS) --reps $(BENCH_REPS) \
  --sweeps $(BENCH_SWEEPS) --out $(BENCH_OUT) --label "$(BENCH_LABEL)"

.PHONY: bench bench-build bench-peers

bench-build: build
	cmake --build $(BUILD) -j $(JOBS) --target floor_pingpong floor_stream floor_fi_send floor_fi_write floor_fi_read floor_fi_atomic micro_stats

bench-peers:
	@missing=""; for p in $(BENCH_PEERS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# The tables record the make command that made them (BENCH_COMMAND), with its settings.
bench: deps bench-peers
	$(MAKE) bench-build
	BENCH_COMMAND='make bench BENCH_SECONDS=$(BENCH_SECONDS) BENCH_REPS=$(BENCH_REPS) BENCH_SWEEPS=$(BENCH_SWEEPS) BENCH_OUT=$(BENCH_OUT) BENCH_LABEL=$(BENCH_LABEL)' \
	  python3 bench/run_bench.py $(BENCH_ARGS)
