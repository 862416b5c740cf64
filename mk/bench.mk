# Side-by-side benchmarks against the peers (docs: bench/README.md). Not part of `make test`.
#   make bench          installs the peers from Debian, builds the floor and the micro-
#                       benchmarks, runs everything on loopback (about 7 minutes) and writes
#                       bench/results/latest.md and bench/results/latest.json
#   BENCH_REPS=N        runs of each side per comparison (default 3), alternating
BENCH_REPS ?= 3
BENCH_PEERS := qperf sockperf iperf3 netpipe-tcp libfabric-bin ucx-utils

.PHONY: bench bench-build

bench-build: build
	cmake --build $(BUILD) -j $(JOBS) --target floor_pingpong micro_stats

bench: deps
	@missing=""; for p in $(BENCH_PEERS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	$(MAKE) bench-build
	python3 bench/run_bench.py --build $(BUILD) --reps $(BENCH_REPS) --out bench/results
