// Findings: the things a --matrix run's verdicts name, worst first -- a link, a node, a switch,
// a local link between two switches, an uplink, or a rank out of reach -- each with its
// evidence and whether it is firm (confirmed alone, enough pairs) or tentative. Every matrix
// report carries them (../shared/reference/fabric-model.md, "What the report must carry").
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fabperf::cluster {

struct MatrixRun;

enum class FindingKind { kLink, kNode, kSwitch, kLocalLink, kUplink, kUnreachable };
const char* finding_kind_name(FindingKind kind);

struct Finding {
  FindingKind kind = FindingKind::kLink;
  int a = -1, b = -1;         // link: client and server ranks; node, unreachable: the rank;
                              // switch: the switch; local link: two switches; uplink: two groups
                              // (dragonfly) or one switch (b = -1)
  std::vector<size_t> tests;  // the tests in which it is bad
  double severity = 0;        // times off the baseline (the worst test); 0 for unreachable
  bool firm = false;          // confirmed alone, on enough pairs
  uint32_t evidence = 0;      // measured pairs through it
  uint32_t retested = 0;      // of those, re-measured alone
  uint32_t confirmed = 0;     // ... and still bad
  uint32_t slow_runs = 0;     // link: runs beyond the threshold ...
  uint32_t runs = 0;          // ... of its runs (flapping: some, not all)
  std::string reason;         // unreachable: why
};

// The run's findings as fabric-model.md spells them (names, not indexes).
nlohmann::json findings_json(const MatrixRun& run);
// What the run measured: {"pairs_measured" (distinct unordered pairs, the most of any test),
// "pairs_total" (N(N-1)/2), "rounds", "measurements" (pair runs, every test and retest),
// "measurements_all_pairs" (what one all-pairs pass of every test would run), "fraction",
// "tests": [...], "elements": covered switches, links and uplinks, "findings": firm and
// tentative counts}.
nlohmann::json coverage_json(const MatrixRun& run);
// "switch g03s07", "link n00012 - n03311 (tcp_lat)", for the text report.
std::string finding_text(const MatrixRun& run, const Finding& f);

// The findings block of the text report, and ", 2 bad switches, 0 bad uplinks" for its
// verdict line (fabric_text.cc).
void write_findings_text(const MatrixRun& run, std::FILE* out);
std::string level_counts(const MatrixRun& run);
// The finding that explains a rank's slow links when it is not named itself ("switch g01s03"),
// or "".
std::string behind(const MatrixRun& run, int rank);

// The findings of a run without levels above the nodes: the per-link and per-node verdicts
// (verdicts.h) as they stand, and the unreachable ranks.
std::vector<Finding> plain_findings(const MatrixRun& run);

}  // namespace fabperf::cluster
