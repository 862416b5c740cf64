// The text report's findings block: what the verdicts name, by level, worst first, with the
// coverage and, on a simulated run, the score against the injected faults.
#include <fmt/format.h>

#include <cstdio>

#include "cluster/findings.h"
#include "cluster/matrix_run.h"

namespace fabperf::cluster {

namespace {

constexpr size_t kFindingsShown = 30;

}  // namespace

void write_findings_text(const MatrixRun& run, std::FILE* out) {
  nlohmann::json cov = coverage_json(run);
  fmt::print(out,
             "\ncoverage: {} of {} pairs measured ({} pair runs, {:.2f}% of one all-pairs pass), "
             "{} rounds",
             cov["pairs_measured"].get<uint64_t>(), cov["pairs_total"].get<uint64_t>(),
             cov["measurements"].get<uint64_t>(), 100 * cov["fraction"].get<double>(),
             run.rounds_done);
  if (run.topology && run.topology->has_levels()) {
    fmt::print(out, "; {} topology, {} switches, {} groups",
               topology_kind_name(run.topology->kind()), run.topology->switches().size(),
               run.topology->groups().size());
  }
  fmt::print(out, "\n");
  if (run.findings.empty()) {
    fmt::print(out, "findings: none\n");
  } else {
    size_t firm = 0;
    for (const Finding& f : run.findings) firm += f.firm;
    fmt::print(out, "findings: {} ({} firm, {} tentative), worst first:\n", run.findings.size(),
               firm, run.findings.size() - firm);
    for (size_t i = 0; i < run.findings.size() && i < kFindingsShown; ++i) {
      fmt::print(out, "    {}\n", finding_text(run, run.findings[i]));
    }
    if (run.findings.size() > kFindingsShown) {
      fmt::print(out, "    ... {} more (the JSON report lists every finding)\n",
                 run.findings.size() - kFindingsShown);
    }
  }
  if (run.simulation.contains("score")) {
    const nlohmann::json& s = run.simulation["score"];
    fmt::print(out,
               "simulation: {} of {} injected faults found (recall {:.3f}), {} of {} findings "
               "false ({:.1f}%)\n",
               s["found"].get<uint64_t>(), s["injected"].get<uint64_t>(), s["recall"].get<double>(),
               s["false"].get<uint64_t>(), s["named"].get<uint64_t>(),
               100 * s["false_rate"].get<double>());
  }
}

// "2 switches, 1 uplink" for the verdict line: the levels above nodes that the findings name.
std::string level_counts(const MatrixRun& run) {
  size_t counts[6] = {0, 0, 0, 0, 0, 0};
  for (const Finding& f : run.findings) ++counts[static_cast<int>(f.kind)];
  std::string out;
  auto add = [&](size_t n, const char* one, const char* many) {
    out += fmt::format(", {} bad {}", n, n == 1 ? one : many);
  };
  if (run.topology && run.topology->has_levels()) {
    add(counts[static_cast<int>(FindingKind::kSwitch)], "switch", "switches");
    if (run.topology->kind() == TopologyKind::kDragonfly) {
      add(counts[static_cast<int>(FindingKind::kLocalLink)], "local link", "local links");
      add(counts[static_cast<int>(FindingKind::kUplink)], "global link", "global links");
    } else {
      add(counts[static_cast<int>(FindingKind::kUplink)], "uplink", "uplinks");
    }
  }
  return out;
}

std::string behind(const MatrixRun& run, int rank) {
  if (!run.topology || run.topology->ranks() != run.size()) return "";
  int sw = run.topology->switch_of(rank), g = run.topology->group_of(rank);
  if (sw < 0) return "";
  for (const Finding& f : run.findings) {
    if (f.kind == FindingKind::kNode && f.a == rank) return "";  // named itself
  }
  for (const Finding& f : run.findings) {
    bool here = false;
    switch (f.kind) {
      case FindingKind::kSwitch:
        here = f.a == sw;
        break;
      case FindingKind::kLocalLink:
        here = f.a == sw || f.b == sw;
        break;
      case FindingKind::kUplink:
        here = f.b >= 0 ? (f.a == g || f.b == g) : f.a == sw;
        break;
      default:
        break;
    }
    if (here) return finding_text(run, f).substr(0, finding_text(run, f).find(':'));
  }
  return "";
}

}  // namespace fabperf::cluster
