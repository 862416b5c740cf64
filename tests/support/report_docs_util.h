// Hand-made fabperf JSON documents for the report's tests: pair runs, sweeps, intervals and
// the cluster matrix contract (which another part of fabperf writes).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fabperf::testdocs {

// A schema-2 run document around `results`, with client "alpha" and server "beta".
nlohmann::json run_doc(std::vector<nlohmann::json> results);

// One ok latency result whose figures and histogram come from a LatencyRecorder that
// recorded `raw_ns` with `scale` (0.5: half round trips), as fabperf writes them.
nlohmann::json latency_result(const std::string& test, uint64_t msg_size,
                              const std::vector<uint64_t>& raw_ns, double scale);

// A 5-rank cluster matrix of tcp_lat p50 (n5 unreachable, pair 0 -> 3 a bad link), with a
// field the contract does not name, which readers must tolerate.
nlohmann::json matrix_doc();

// A tcp_bw run with interval reports, each interval 0.25 s.
nlohmann::json interval_doc();

}  // namespace fabperf::testdocs
