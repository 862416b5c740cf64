# Robustness targets (docs/security.md): libFuzzer runs and the sanitizer build of the suite.
#   make fuzz          build the fuzzers with clang and run each for FUZZ_SECONDS (5 min)
#   make test-asan     the whole suite under AddressSanitizer and UBSan, in build-asan/
# `make test` runs test-asan first (ASAN=0 leaves it out), then the suite, where each fuzzer
# runs for 25 s (CTest tests fuzz_*, registered when clang++ exists).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 300
ASAN_BUILD ?= build-asan
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                  -fno-omit-frame-pointer
# clang and its runtime (libFuzzer, sanitizers) for the fuzzers.
DEBIAN_PACKAGES += clang libclang-rt-14-dev

.PHONY: fuzz test-asan

# The sanitizer suite is part of `make test`: the whole suite, fabric and CXI tests included,
# under ASan and UBSan. At e0aa4f2 on 2 cores its build took 34 min and its run 14, with full
# debug information; line tables only (FABPERF_DEBUG_INFO=lines: the Debug type's -g becomes
# -g1) took 24.6 min to build at 5ea1331 and still give every report its files and lines. `make test ASAN=0` leaves it out for a quick local run;
# `make test-asan` runs it alone.
ASAN ?= 1
ifeq ($(ASAN),1)
test: test-asan
endif

fuzz: deps
	fuzz/run_fuzzers.sh build $(FUZZ_BUILD)
	fuzz/run_fuzzers.sh run $(FUZZ_BUILD) control_frame $(FUZZ_SECONDS)
	fuzz/run_fuzzers.sh run $(FUZZ_BUILD) command_line $(FUZZ_SECONDS)
	fuzz/run_fuzzers.sh run $(FUZZ_BUILD) report_document $(FUZZ_SECONDS)
	fuzz/run_fuzzers.sh run $(FUZZ_BUILD) cluster_inputs $(FUZZ_SECONDS)

# Warnings stay warnings here (FABPERF_WERROR=OFF): GCC's manual recommends against -Werror
# with sanitizers, which raise false positives (-Wmaybe-uninitialized most of all). The same
# code is held to -Werror by CI's build without them (CMakeLists.txt, FABPERF_WERROR).
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DFABPERF_FUZZ_SMOKE=OFF \
	  -DFABPERF_WERROR=OFF -DFABPERF_DEBUG_INFO=lines \
	  -DCMAKE_CXX_FLAGS="-O1 $(SANITIZE_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j 2 --timeout 600
