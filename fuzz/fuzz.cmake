# Fuzzing (docs/security.md). With -DFABPERF_FUZZ=ON (clang only) this builds the libFuzzer
# targets over an instrumented library; otherwise, when clang++ is installed, it registers
# short fuzz runs with CTest, built in <build dir>-fuzz by fuzz/run_fuzzers.sh.
option(FABPERF_FUZZ "Build the libFuzzer targets (needs clang++)" OFF)
option(FABPERF_FUZZ_SMOKE "Run each fuzzer briefly in the test suite when clang++ exists" ON)
set(FABPERF_FUZZERS control_frame command_line report_document cluster_inputs)

if(FABPERF_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FABPERF_FUZZ needs clang: configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(FABPERF_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=undefined)
  foreach(layer IN LISTS FABPERF_LAYERS)
    target_compile_options(fabperf_${layer} PRIVATE -fsanitize=fuzzer-no-link ${FABPERF_SANITIZERS})
  endforeach()
  target_link_options(fabperf_lib INTERFACE ${FABPERF_SANITIZERS})
  foreach(name IN LISTS FABPERF_FUZZERS)
    add_executable(fuzz_${name} fuzz/${name}_fuzzer.cc)
    target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer ${FABPERF_SANITIZERS})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_${name} PRIVATE fabperf_lib)
    fabperf_warnings(fuzz_${name})
  endforeach()
elseif(FABPERF_FUZZ_SMOKE)
  find_program(FABPERF_CLANGXX NAMES clang++ clang++-14)
  if(FABPERF_CLANGXX)
    set(fuzz_dir ${CMAKE_BINARY_DIR}-fuzz)
    add_test(NAME fuzz_build
             COMMAND ${CMAKE_SOURCE_DIR}/fuzz/run_fuzzers.sh build ${fuzz_dir})
    # The longest test (a clang build of every layer, 14 min at e0aa4f2 on 2 cores beside the
    # other tests): COST has ctest start it first, so its runs overlap the rest of the suite
    # instead of trailing it (a clean clone has no timings for ctest to order by).
    set_tests_properties(fuzz_build PROPERTIES FIXTURES_SETUP fuzzers TIMEOUT 1800 COST 10000)
    foreach(name IN LISTS FABPERF_FUZZERS)
      add_test(NAME fuzz_${name}
               COMMAND ${CMAKE_SOURCE_DIR}/fuzz/run_fuzzers.sh run ${fuzz_dir} ${name} 25)
      set_tests_properties(fuzz_${name} PROPERTIES FIXTURES_REQUIRED fuzzers TIMEOUT 300)
    endforeach()
  endif()
endif()
