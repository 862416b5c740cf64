#!/bin/sh
# Builds the libFuzzer targets with clang, or runs one of them for a while.
#   fuzz/run_fuzzers.sh build DIR                 configure and build DIR with clang++
#   fuzz/run_fuzzers.sh run DIR NAME SECONDS      fuzz NAME (control_frame, command_line,
#                                                 report_document, cluster_inputs)
# New inputs go to DIR/corpus-NAME; the seeds in fuzz/corpus/NAME are read, never written.
# A crash leaves its input in DIR/crash-* and fails the run.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}
dir=${2:-}
case "$cmd" in
  build)
    mkdir -p "$dir"
    # FABPERF_WERROR=OFF: a sanitizer build (CMakeLists.txt says why); CI's GCC build holds
    # the same code to -Werror. Line tables only (FABPERF_DEBUG_INFO=lines: the Debug type's
    # -g becomes -g1): a crash's stack keeps its files and lines, and the build, part of
    # `make test`, is faster.
    cmake -S "$src" -B "$dir" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_CXX_FLAGS="-O1 -fno-omit-frame-pointer" -DFABPERF_FUZZ=ON \
      -DFABPERF_WERROR=OFF -DFABPERF_DEBUG_INFO=lines > "$dir/configure.log" 2>&1 ||
      { cat "$dir/configure.log"; exit 1; }
    cmake --build "$dir" -j "${JOBS:-2}" --target fuzz_control_frame fuzz_command_line \
      fuzz_report_document fuzz_cluster_inputs
    ;;
  run)
    name=${3:?fuzzer name}
    seconds=${4:-60}
    mkdir -p "$dir/corpus-$name"
    # Leaks are reported by the sanitizer build of the whole suite (make test-asan).
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} "$dir/fuzz_$name" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
      -print_final_stats=1 -artifact_prefix="$dir/" \
      "$dir/corpus-$name" "$src/fuzz/corpus/$name"
    ;;
  *)
    echo "usage: $0 build DIR | run DIR NAME SECONDS" >&2
    exit 2
    ;;
esac
