// The coverage a matrix report carries: which pairs and fabric elements were measured, and how
// many of the verdicts are firm.
#include <algorithm>

#include "cluster/findings.h"
#include "cluster/locate.h"
#include "cluster/matrix_run.h"

namespace fabperf::cluster {

namespace {

// Elements of one kind that stand on enough pairs (in the test that covers them best).
nlohmann::json element_coverage(const MatrixRun& run, ElementKind kind) {
  const Topology& t = *run.topology;
  size_t first = t.first_id(kind), count = t.id_count(kind), covered = 0, total = 0;
  for (size_t i = 0; i < count; ++i) {
    ElementId id = static_cast<ElementId>(first + i);
    // Only what a pair of the job can cross: a switch with two ranks, links between switches
    // with ranks, a node that answered.
    Element e = t.element(id);
    auto empty = [&](int sw) { return t.members()[static_cast<size_t>(sw)].empty(); };
    if (kind == ElementKind::kNode && !run.ranks[i].alive) continue;
    if (kind == ElementKind::kSwitch && t.members()[i].size() < 2) continue;
    if (kind == ElementKind::kLocalLink && (empty(e.a) || empty(e.b))) continue;
    if (kind == ElementKind::kUplink && t.kind() == TopologyKind::kDragonfly) {
      auto group_empty = [&](int g) {
        const std::vector<int>& sws = t.group_switches(g);
        return std::all_of(sws.begin(), sws.end(), empty);
      };
      if (group_empty(e.a) || group_empty(e.b)) continue;
    } else if (kind == ElementKind::kUplink) {
      bool root = t.switches()[i].parent < 0 && t.kind() == TopologyKind::kTree;
      if (root || empty(e.a)) continue;  // a root's uplinks lead nowhere
    }
    ++total;
    uint32_t best = 0;
    for (const TestFit& fit : run.fit.tests) {
      if (fit.valid) best = std::max(best, fit.pairs[id]);
    }
    covered += best >= kMinElementPairs;
  }
  return {{"covered", covered}, {"total", total}};
}

}  // namespace

nlohmann::json coverage_json(const MatrixRun& run) {
  uint64_t n = static_cast<uint64_t>(run.size());
  uint64_t total = n * (n - 1) / 2, measured = 0;
  nlohmann::json tests = nlohmann::json::array();
  for (const TestColumn& t : run.tests) {
    measured = std::max(measured, t.matrix.pairs_count());
    tests.push_back({{"test", t.test},
                     {"pairs_measured", t.matrix.pairs_count()},
                     {"failed", t.matrix.failed_count()},
                     {"repeats", t.matrix.repeats_total()},
                     {"retested", t.matrix.retest_count()},
                     {"layout", layout_name(t.matrix.layout())},
                     {"bytes", t.matrix.bytes()}});
  }
  uint64_t all_pairs = total * run.tests.size();
  size_t firm = 0, tentative = 0;
  for (const Finding& f : run.findings) (f.firm ? firm : tentative)++;
  nlohmann::json out = {{"pairs_measured", measured},
                        {"pairs_total", total},
                        {"rounds", run.rounds_done},
                        {"measurements", run.measurements},
                        {"measurements_all_pairs", all_pairs},
                        {"fraction", all_pairs > 0 ? static_cast<double>(run.measurements) /
                                                         static_cast<double>(all_pairs)
                                                   : 0.0},
                        {"tests", tests},
                        {"findings", {{"firm", firm}, {"tentative", tentative}}}};
  if (run.topology && run.topology->has_levels() && !run.fit.tests.empty()) {
    nlohmann::json elements = {{"switches", element_coverage(run, ElementKind::kSwitch)},
                               {"nodes", element_coverage(run, ElementKind::kNode)}};
    if (run.topology->kind() == TopologyKind::kDragonfly) {
      elements["local_links"] = element_coverage(run, ElementKind::kLocalLink);
      elements["global_links"] = element_coverage(run, ElementKind::kUplink);
    } else {
      elements["uplinks"] = element_coverage(run, ElementKind::kUplink);
    }
    out["elements"] = elements;
  }
  return out;
}

}  // namespace fabperf::cluster
