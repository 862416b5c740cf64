# fabperf: `make demo` and `make test` do all the set-up on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)
# make install: where, and the staging root packagers set (make install DESTDIR=/tmp/pkg).
PREFIX ?= /usr/local
DESTDIR ?=
RELEASE_BUILD ?= build-release
# Compiler warnings in fabperf's own code become errors with CMake option FABPERF_WERROR.
# TEST_WERROR is `make test`'s (so CI's, .ci/run) setting: ON, since a full GCC 12 build of
# everything (program, tests, benchmarks) is warning-free. `make` and `make install` keep
# warnings as warnings, so a newer compiler's new warning never stops a user; WERROR=ON|OFF
# sets it for them (unset: as the build dir has it).
TEST_WERROR ?= ON
WERROR ?=
WERROR_FLAG := $(if $(WERROR),-DFABPERF_WERROR=$(WERROR))
# Debug information (CMake option FABPERF_DEBUG_INFO): full (-g) or lines (-g1, line tables
# only: every backtrace and sanitizer report keeps its files and lines). TEST_DEBUG_INFO is
# `make test`'s setting: lines, which compiles about a quarter faster and keeps CI's three
# builds inside its time. `make` keeps full for a debugger; DEBUG_INFO=full|lines sets it.
TEST_DEBUG_INFO ?= lines
DEBUG_INFO ?=
DEBUG_INFO_FLAG := $(if $(DEBUG_INFO),-DFABPERF_DEBUG_INFO=$(DEBUG_INFO))
# qperf: the robustness suite points a real qperf client at a fabperf server.
# chromium: the HTML report tests render each page headless (tests/e2e/e2e_report_test.cc).
# openmpi-bin and libpmix-dev: --matrix's launcher (mpirun brings a PMIx server) and headers.
# man-db and groff-base: the man page tests render every generated page (e2e_manual_test.cc).
# slurmctld, slurmd, slurm-client and munge: a private one-host Slurm for the srun tests
# (tests/support/slurm_cluster.sh; its pmix plugin loads libpmix-dev's libpmix.so).
DEBIAN_PACKAGES := cmake g++ make pkg-config libfabric-dev libfabric-bin nlohmann-json3-dev \
                   libfmt-dev libgtest-dev libbenchmark-dev iproute2 libssl-dev qperf \
                   chromium openmpi-bin libpmix-dev man-db groff-base \
                   slurmctld slurmd slurm-client munge

.PHONY: all build deps demo test clean install bench

all: build

# Installs only what is missing; needs root (or sudo) the first time.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(WERROR_FLAG) $(DEBUG_INFO_FLAG)

# Reconfigures, once, only when WERROR or DEBUG_INFO asks for what the build directory does
# not have.
build: $(BUILD)/CMakeCache.txt
	@want=""; \
	[ -z "$(WERROR)" ] || grep -qx 'FABPERF_WERROR:BOOL=$(WERROR)' $(BUILD)/CMakeCache.txt || \
	  want="$$want $(WERROR_FLAG)"; \
	[ -z "$(DEBUG_INFO)" ] || \
	  grep -qx 'FABPERF_DEBUG_INFO:STRING=$(DEBUG_INFO)' $(BUILD)/CMakeCache.txt || \
	  want="$$want $(DEBUG_INFO_FLAG)"; \
	[ -z "$$want" ] || cmake -S . -B $(BUILD) $$want > /dev/null
	cmake --build $(BUILD) -j $(JOBS)

# Builds only the program (and its fab_* links), not the tests.
demo: deps
	$(MAKE) $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target fabperf
	./$(BUILD)/fabperf --loopback conf -t 1 tcp_lat tcp_bw udp_lat udp_bw
	./$(BUILD)/fabperf --loopback -t 1 -v --percentiles 50,99,99.9 tcp_lat
	./$(BUILD)/fabperf --loopback -t 0.2 -oo msg_size:1:4K:*4 -vu tcp_lat
	./$(BUILD)/fabperf --loopback -P shm -t 1 rdm_write_lat rdm_write_bw
	./$(BUILD)/fab_loopback_bw -n 16 -i 2

test: deps
	$(MAKE) build WERROR=$(TEST_WERROR) DEBUG_INFO=$(TEST_DEBUG_INFO)
	cd $(BUILD) && ctest --output-on-failure -j 2 --timeout 300

# A stripped Release build of its own (make test's build stays RelWithDebInfo), installed under
# $(DESTDIR)$(PREFIX): bin/fabperf and the fab_* links, share/man/man1, bash completion.
install:
	cmake -S . -B $(RELEASE_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) \
	  $(WERROR_FLAG)
	cmake --build $(RELEASE_BUILD) -j $(JOBS) --target fabperf fabperf_docs
	DESTDIR="$(DESTDIR)" cmake --install $(RELEASE_BUILD) --prefix $(PREFIX) --strip

clean:
	rm -rf $(BUILD)

# Further targets (fuzz, sanitizers, benchmarks) live beside this file, one concept each.
-include mk/*.mk
