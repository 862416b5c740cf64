// MatrixRun: everything rank 0 knows at the end of a --matrix job, as the reports render it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster/figure_matrix.h"
#include "cluster/findings.h"
#include "cluster/locate.h"
#include "cluster/topology.h"
#include "cluster/verdicts.h"
#include "core/status.h"

namespace fabperf::cluster {

struct RankStatus {
  int rank = 0;
  std::string host;
  bool alive = true;
  std::string reason;  // why not alive
};

// One test's matrix and its judgement.
struct TestColumn {
  std::string test;
  FigureDef figure;
  FigureMatrix matrix;
  TestJudgement judgement;
  TestColumn(std::string name, FigureDef def, int ranks,
             MatrixLayout layout = MatrixLayout::kSquare)
      : test(std::move(name)), figure(std::move(def)), matrix(ranks, layout) {}
};

struct MatrixRun {
  std::string started;  // ISO 8601, UTC
  std::vector<std::string> argv;
  std::string job;       // the launcher's name for the job (PMIx namespace)
  std::string pattern;   // "all", "shift", "serial", "file:PATH"
  bool ordered = false;  // (a,b) and (b,a) measured separately
  bool randomize = false;
  uint64_t seed = 0;
  double time_per_pair_s = 0;   // -t each test ran for (0: -n counted it), after --budget
  uint64_t count_per_pair = 0;  // -n, when given
  double budget_s = 0;          // 0: none
  size_t rounds_planned = 0, rounds_done = 0;
  uint64_t pairs_planned = 0;  // per test
  size_t retests_planned = 0, retests_done = 0;
  double elapsed_s = 0;
  bool complete = false;
  std::string stopped;  // why the rounds ended early ("" when they all ran)
  Tolerances tol;
  std::vector<RankStatus> ranks;
  std::vector<TestColumn> tests;
  std::vector<NodeJudgement> nodes;
  int exit_code = 0;
  uint64_t measurements = 0;  // pair runs done, every test and retest counted
  uint64_t passes = 1;        // --passes
  // The fabric's shape (--topology, or the simulated model's); null: none known.
  std::shared_ptr<const Topology> topology;
  std::string topology_source;    // "--topology FILE", "the model"
  std::string simulated;          // the model file of a simulated run ("": a real run)
  nlohmann::json simulation;      // a simulated run's injected faults and their score
  std::vector<Finding> findings;  // worst first
  FabricFit fit;                  // with a topology of levels: the fitted fabric
  nlohmann::json baseline;        // --baseline: the comparison (null: none)

  int size() const { return static_cast<int>(ranks.size()); }
  std::vector<bool> alive() const;
  // Judges every test's links, given the retests already recorded in the matrices, fits the
  // fabric when the topology has levels, and draws the findings (at the switch and uplink
  // levels too). The waves of retests need only the links' judgement and the fit to choose
  // the next pairs (retest.h): kForRetests leaves the findings as they were, a sweep over
  // every pair less in each wave (7% of all-pairs' time at 1,024 ranks, 10 passes).
  enum class Judge { kFull, kForRetests };
  void judge(Judge what = Judge::kFull);
  // Host of each rank.
  std::vector<std::string> hosts() const;
  // Distinct host names, for the summary.
  size_t host_count() const;
};

// Renderers. `path` "-" is standard output.
Status write_matrix_json(const MatrixRun& run, const std::string& path);
Status write_matrix_csv(const MatrixRun& run, const std::string& path);
// The report page (`fabperf report` of the --json document): heatmaps, suspects, nodes.
Status write_matrix_html(const MatrixRun& run, const std::string& path);
// The --json document as text (what write_matrix_json writes).
Result<std::string> matrix_json_text(const MatrixRun& run);
void write_matrix_text(const MatrixRun& run, std::FILE* out);

}  // namespace fabperf::cluster
