// Findings as JSON and text, and the findings of a run without switch levels.
#include "cluster/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cluster/matrix_run.h"

namespace fabperf::cluster {

namespace {

// Legacy node verdicts stand on this many links at least: fewer are tentative.
constexpr uint32_t kFirmNodeLinks = 4;

std::string host_of(const MatrixRun& run, int rank) {
  return run.ranks[static_cast<size_t>(rank)].host;
}

std::string switch_name(const MatrixRun& run, int sw) {
  return run.topology ? run.topology->switches()[static_cast<size_t>(sw)].name : "?";
}

}  // namespace

const char* finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::kLink:
      return "link";
    case FindingKind::kNode:
      return "node";
    case FindingKind::kSwitch:
      return "switch";
    case FindingKind::kLocalLink:
      return "local_link";
    case FindingKind::kUplink:
      return "uplink";
    case FindingKind::kUnreachable:
      return "unreachable";
  }
  return "?";
}

std::vector<Finding> plain_findings(const MatrixRun& run) {
  std::vector<Finding> out;
  for (const RankStatus& r : run.ranks) {
    if (r.alive) continue;
    Finding f;
    f.kind = FindingKind::kUnreachable;
    f.a = r.rank;
    f.reason = r.reason;
    f.firm = true;
    out.push_back(f);
  }
  std::vector<double> worst(run.ranks.size(), 0.0);
  for (size_t t = 0; t < run.tests.size(); ++t) {
    const TestJudgement& j = run.tests[t].judgement;
    for (const Suspect& s : j.suspects) {
      double sev = std::isfinite(s.severity) ? s.severity : 0;
      for (int r : {s.client, s.server}) {
        worst[static_cast<size_t>(r)] = std::max(worst[static_cast<size_t>(r)], sev);
      }
      if (s.verdict != Verdict::kBadLink) continue;
      Finding f;
      f.kind = FindingKind::kLink;
      f.a = s.client;
      f.b = s.server;
      f.tests = {t};
      f.severity = sev;
      f.evidence = 1;
      f.runs = std::max<uint32_t>(1, run.tests[t].matrix.measurements(s.client, s.server));
      f.slow_runs = f.runs;
      f.retested = s.retest ? 1 : 0;
      f.confirmed = f.retested;  // a retest within the threshold made it contention
      f.firm = f.confirmed > 0;
      out.push_back(f);
    }
  }
  for (const NodeJudgement& n : run.nodes) {
    if (n.state != NodeState::kBad) continue;
    Finding f;
    f.kind = FindingKind::kNode;
    f.a = n.rank;
    f.tests = n.bad_in;
    f.severity = worst[static_cast<size_t>(n.rank)];
    f.evidence = n.links;
    f.firm = n.links >= kFirmNodeLinks;
    out.push_back(f);
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& x, const Finding& y) {
    bool ux = x.kind == FindingKind::kUnreachable, uy = y.kind == FindingKind::kUnreachable;
    if (ux != uy) return ux;
    return x.severity > y.severity;
  });
  return out;
}

nlohmann::json findings_json(const MatrixRun& run) {
  nlohmann::json out = nlohmann::json::array();
  for (const Finding& f : run.findings) {
    nlohmann::json j = {{"kind", finding_kind_name(f.kind)}};
    switch (f.kind) {
      case FindingKind::kLink:
        j["hosts"] = {host_of(run, f.a), host_of(run, f.b)};
        j["ranks"] = {f.a, f.b};
        j["test"] = f.tests.empty() ? "" : run.tests[f.tests.front()].test;
        break;
      case FindingKind::kNode:
      case FindingKind::kUnreachable:
        j["host"] = host_of(run, f.a);
        j["rank"] = f.a;
        break;
      case FindingKind::kSwitch:
        j["switch"] = switch_name(run, f.a);
        break;
      case FindingKind::kLocalLink:
        j["switches"] = {switch_name(run, f.a), switch_name(run, f.b)};
        break;
      case FindingKind::kUplink:
        if (f.b >= 0 && run.topology) {
          j["groups"] = {run.topology->groups()[static_cast<size_t>(f.a)],
                         run.topology->groups()[static_cast<size_t>(f.b)]};
        } else {
          j["leaf"] = switch_name(run, f.a);
        }
        break;
    }
    if (f.kind == FindingKind::kUnreachable) {
      j["reason"] = f.reason;
    } else {
      nlohmann::json tests = nlohmann::json::array();
      for (size_t t : f.tests) tests.push_back(run.tests[t].test);
      j["tests"] = tests;
      j["severity"] = std::isfinite(f.severity) ? nlohmann::json(f.severity) : nlohmann::json();
      j["evidence"] = f.evidence;
      j["retested"] = f.retested;
      j["confirmed"] = f.confirmed;
      if (f.kind == FindingKind::kLink && f.runs > 1) {
        j["slow_runs"] = f.slow_runs;
        j["runs"] = f.runs;
      }
    }
    j["firm"] = f.firm;
    out.push_back(std::move(j));
  }
  return out;
}

std::string finding_text(const MatrixRun& run, const Finding& f) {
  std::string tests;
  for (size_t t : f.tests) tests += (tests.empty() ? "" : ", ") + run.tests[t].test;
  std::string what;
  switch (f.kind) {
    case FindingKind::kLink:
      what = fmt::format("link {} - {}", host_of(run, f.a), host_of(run, f.b));
      break;
    case FindingKind::kNode:
      what = fmt::format("node {} (rank {})", host_of(run, f.a), f.a);
      break;
    case FindingKind::kSwitch:
      what = "switch " + switch_name(run, f.a);
      break;
    case FindingKind::kLocalLink:
      what = fmt::format("local link {} - {}", switch_name(run, f.a), switch_name(run, f.b));
      break;
    case FindingKind::kUplink:
      what =
          f.b >= 0 && run.topology
              ? fmt::format("global link {} - {}", run.topology->groups()[static_cast<size_t>(f.a)],
                            run.topology->groups()[static_cast<size_t>(f.b)])
              : "uplinks of " + switch_name(run, f.a);
      break;
    case FindingKind::kUnreachable:
      return fmt::format("unreachable {} (rank {}): {}", host_of(run, f.a), f.a, f.reason);
  }
  std::string evidence = fmt::format("{:.2f}x in {}, {} pair{}", f.severity, tests, f.evidence,
                                     f.evidence == 1 ? "" : "s");
  if (f.retested > 0)
    evidence += fmt::format(", {} of {} still bad alone", f.confirmed, f.retested);
  if (f.runs > 1) evidence += fmt::format(", slow in {} of {} runs", f.slow_runs, f.runs);
  return fmt::format("{}: {}, {}", what, evidence, f.firm ? "firm" : "tentative");
}

}  // namespace fabperf::cluster
