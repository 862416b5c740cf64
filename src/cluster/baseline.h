// --baseline EARLIER.json: this run against an earlier one of the same tests, hosts matched by
// name. The earlier run's pairs are fitted to this run's topology by the same fit (locate.h),
// so each link, node, switch, local link and uplink is compared factor to factor; a change is
// named when it is beyond the element (or link) threshold and beyond both runs' own spread.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/figure_matrix.h"
#include "core/status.h"

namespace fabperf::cluster {

struct MatrixRun;

// The earlier run as read: its document (the per-pair values stay in it until compared).
struct BaselineRun {
  std::string path;
  nlohmann::json doc;
};

// A test of this run, as the baseline must have measured it.
struct BaselineTest {
  std::string test;
  std::string figure;  // "latency_ns.p50" ...
};

// Reads the earlier run; a usage error (exit 2) when it is not a matrix report, or did not
// measure each of `tests` with the same figure ("--baseline old.json: it measured tcp_bw
// (bandwidth.recv_Bps), not tcp_lat: ...").
Result<std::shared_ptr<const BaselineRun>> load_baseline(const std::string& path,
                                                         const std::vector<BaselineTest>& tests);
// The same, from the file's text (`path` names it in every error).
Result<std::shared_ptr<const BaselineRun>> parse_baseline(std::string_view text,
                                                          const std::string& path,
                                                          const std::vector<BaselineTest>& tests);

// The comparison the report carries (docs/cluster.md, "--baseline"): hosts in only one run,
// and per test the pairs compared, the median change, and every significant change (element
// or link, regression or improvement, its size and z).
nlohmann::json compare_with_baseline(const MatrixRun& now, const BaselineRun& before);

// The text report's block ("" when there is no baseline).
std::string baseline_text(const nlohmann::json& comparison);

}  // namespace fabperf::cluster
