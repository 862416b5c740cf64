// The text summary rank 0 prints: per test the distribution and the worst links, then the
// per-node verdicts. Never N x N: it stays readable at 4096 ranks.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "cluster/baseline.h"
#include "cluster/matrix_run.h"
#include "report/qperf_format.h"

namespace fabperf::cluster {

namespace {

constexpr size_t kWorstShown = 10;
constexpr size_t kNodesShown = 20;
constexpr int kMatrixShown = 16;  // ranks up to which the text shows the matrix itself

std::string show(double value, const FigureDef& figure) {
  FormatOptions options;
  Shown s = figure.unit == "ns"    ? format_figure(value * 1e-9, Unit::kTime, options)
            : figure.unit == "B/s" ? format_figure(value, Unit::kBandwidth, options)
                                   : format_figure(value, Unit::kRate, options);
  return s.value + " " + s.unit;
}

bool grouped(const MatrixRun& run) {
  return run.topology && run.topology->has_levels() && run.topology->ranks() == run.size();
}

// Ranks as the reports show them: by group and switch when the topology is known.
std::vector<int> rank_order(const MatrixRun& run) {
  if (grouped(run)) return run.topology->order();
  std::vector<int> order(static_cast<size_t>(run.size()));
  for (int r = 0; r < run.size(); ++r) order[static_cast<size_t>(r)] = r;
  return order;
}

// True where the i-th rank of `order` starts another switch (a separator goes before it).
bool new_switch(const MatrixRun& run, const std::vector<int>& order, size_t i) {
  if (!grouped(run) || i == 0) return false;
  return run.topology->switch_of(order[i]) != run.topology->switch_of(order[i - 1]);
}

std::string who(const MatrixRun& run, int rank) {
  return std::to_string(rank) + " (" + run.ranks[static_cast<size_t>(rank)].host + ")";
}

void test_block(const MatrixRun& run, const TestColumn& t, std::FILE* out) {
  const Distribution& d = t.judgement.dist;
  const FigureDef& f = t.figure;
  fmt::print(out, "\n{}: {}, {} is better\n", t.test, f.path,
             f.better == Better::kLower ? "lower" : "higher");
  fmt::print(out, "    pairs         =  {} measured, {} failed, {} planned\n",
             t.matrix.measured_count(), t.matrix.failed_count(), run.pairs_planned);
  if (!t.matrix.noisy_cells().empty()) {
    fmt::print(out, "    host noise    =  {} pair(s) measured under host noise (retested first)\n",
               t.matrix.noisy_cells().size());
  }
  if (d.count == 0) {
    fmt::print(out, "    nothing measured\n");
    return;
  }
  fmt::print(out, "    baseline      =  {} (the median of each rank's median link)\n",
             show(d.baseline, f));
  fmt::print(out, "    spread        =  {} (1.4826 x median absolute deviation)\n",
             show(d.spread, f));
  fmt::print(out, "    threshold     =  {}\n", show(d.threshold, f));
  fmt::print(out, "    distribution  =  min {}, p10 {}, median {}, p90 {}, max {}\n",
             show(d.min, f), show(d.p10, f), show(d.median, f), show(d.p90, f), show(d.max, f));
  size_t counts[3] = {0, 0, 0};
  for (const Suspect& s : t.judgement.suspects) ++counts[static_cast<int>(s.verdict)];
  if (t.judgement.suspect_count == 0) {
    fmt::print(out, "    suspects      =  none\n");
    return;
  }
  fmt::print(out, "    suspects      =  {}: {} bad_link, {} bad_node, {} contention\n",
             t.judgement.suspect_count, counts[0], counts[2], counts[1]);
  fmt::print(out,
             "    worst links (client -> server: value, times off the baseline, measured "
             "alone, verdict):\n");
  for (size_t i = 0; i < std::min(kWorstShown, t.judgement.suspects.size()); ++i) {
    const Suspect& s = t.judgement.suspects[i];
    std::string value = s.value ? show(*s.value, f) : "failed";
    std::string ratio = std::isfinite(s.severity) ? fmt::format("{:.1f}x", s.severity) : "-";
    std::string alone = s.retest ? show(*s.retest, f) : "not retested";
    fmt::print(out, "        {} -> {}: {}, {}, {}, {}\n", who(run, s.client), who(run, s.server),
               value, ratio, alone, verdict_name(s.verdict));
    if (const std::string* e = t.matrix.error(s.client, s.server)) {
      fmt::print(out, "            {}\n", *e);
    }
  }
}

// Three significant digits in fixed notation (never "2.75e+03"): a cell far above the
// baseline's unit keeps its digits before the point.
std::string cell_number(double v) {
  const double a = std::fabs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return fmt::format("{:.{}f}", v, decimals);
}

// The matrix itself, for jobs small enough to read it (rows: clients), in one unit chosen
// from the baseline; suspects marked '*', failures 'x'.
void matrix_block(const MatrixRun& run, const TestColumn& t, std::FILE* out) {
  const int n = run.size();
  if (n > kMatrixShown || t.judgement.dist.count == 0) return;
  double base = t.judgement.dist.baseline;
  double scale = 1;
  std::string unit = t.figure.unit;
  if (unit == "ns") {
    scale = base >= 1e6 ? 1e6 : base >= 1e3 ? 1e3 : 1;
    unit = base >= 1e6 ? "ms" : base >= 1e3 ? "us" : "ns";
  } else {
    const char* prefix = base >= 1e9 ? "G" : base >= 1e6 ? "M" : base >= 1e3 ? "K" : "";
    scale = base >= 1e9 ? 1e9 : base >= 1e6 ? 1e6 : base >= 1e3 ? 1e3 : 1;
    unit = prefix + unit.substr(0, unit.size() - 2) + "/sec";  // "B/s" -> "GB/sec", as above
  }
  std::vector<bool> suspect(static_cast<size_t>(n) * static_cast<size_t>(n), false);
  for (const Suspect& s : t.judgement.suspects) {
    if (s.verdict != Verdict::kContention) {
      suspect[static_cast<size_t>(s.client) * static_cast<size_t>(n) +
              static_cast<size_t>(s.server)] = true;
    }
  }
  bool mirrored = t.figure.symmetric && !run.ordered;
  fmt::print(out,
             "    matrix in {} (row: client rank, column: server rank; * suspect, x failed{}{}):\n",
             unit, mirrored ? "; a round trip is shown both ways" : "",
             grouped(run) ? "; | between switches" : "");
  std::vector<int> order = rank_order(run);
  std::string line = "          ";
  for (size_t j = 0; j < order.size(); ++j) {
    line += fmt::format("{}{:>7}", new_switch(run, order, j) ? "|" : " ", order[j]);
  }
  fmt::print(out, "{}\n", line);
  for (size_t i = 0; i < order.size(); ++i) {
    int a = order[i];
    if (new_switch(run, order, i))
      fmt::print(out, "    {}\n", std::string(6 + 8 * order.size(), '-'));
    line = fmt::format("    {:>4}  ", a);
    for (size_t j = 0; j < order.size(); ++j) {
      int b = order[j];
      int ca = a, cb = b;
      if (mirrored && !t.matrix.get(a, b) && !t.matrix.failed(a, b)) std::swap(ca, cb);
      auto v = t.matrix.get(ca, cb);
      std::string cell = a == b                    ? "-"
                         : t.matrix.failed(ca, cb) ? "x"
                         : v                       ? cell_number(*v / scale)
                                                   : ".";
      if (v &&
          suspect[static_cast<size_t>(ca) * static_cast<size_t>(n) + static_cast<size_t>(cb)]) {
        cell += "*";
      }
      line += fmt::format("{}{:>7}", new_switch(run, order, j) ? "|" : " ", cell);
    }
    fmt::print(out, "{}\n", line);
  }
}

}  // namespace

void write_matrix_text(const MatrixRun& run, std::FILE* out) {
  fmt::print(out, "fabperf matrix: {} ranks on {} host{}, pattern {}{}, {} of {} rounds, ",
             run.size(), run.host_count(), run.host_count() == 1 ? "" : "s", run.pattern,
             run.randomize ? fmt::format(" (randomized, seed {})", run.seed) : "", run.rounds_done,
             run.rounds_planned);
  if (run.count_per_pair > 0) {
    fmt::print(out, "{} messages a test per pair", run.count_per_pair);
  } else {
    fmt::print(out, "{:.3g} s a test per pair", run.time_per_pair_s);
  }
  fmt::print(out, ", {:.1f} s\n", run.elapsed_s);
  if (!run.stopped.empty()) fmt::print(out, "stopped early: {}\n", run.stopped);
  for (const TestColumn& t : run.tests) {
    test_block(run, t, out);
    matrix_block(run, t, out);
  }
  size_t ok = 0, bad = 0, gone = 0;
  for (const NodeJudgement& n : run.nodes) {
    (n.state == NodeState::kOk ? ok : n.state == NodeState::kBad ? bad : gone)++;
  }
  fmt::print(out, "\nnodes: {} ok, {} bad, {} unreachable\n", ok, bad, gone);
  size_t shown = 0;
  std::vector<const NodeJudgement*> by_rank(run.ranks.size(), nullptr);
  for (const NodeJudgement& n : run.nodes) by_rank[static_cast<size_t>(n.rank)] = &n;
  for (int rank : rank_order(run)) {
    if (by_rank[static_cast<size_t>(rank)] == nullptr) continue;
    const NodeJudgement& n = *by_rank[static_cast<size_t>(rank)];
    if (n.state == NodeState::kOk) continue;
    if (++shown > kNodesShown) {
      fmt::print(out, "    ... {} more (the JSON report lists every node)\n",
                 bad + gone - kNodesShown);
      break;
    }
    const RankStatus& r = run.ranks[static_cast<size_t>(n.rank)];
    if (n.state == NodeState::kUnreachable) {
      fmt::print(out, "    rank {}: unreachable: {}\n", who(run, n.rank), r.reason);
      continue;
    }
    std::string tests;
    for (size_t t : n.bad_in) tests += (tests.empty() ? "" : ", ") + run.tests[t].test;
    std::string why = behind(run, n.rank);
    std::string slow =
        n.slowdown > 0 ? fmt::format("its median link {:.1f}x the other nodes', ", n.slowdown) : "";
    fmt::print(out, "    rank {}: bad in {}: {}{} of {} links bad{}\n", who(run, n.rank), tests,
               slow, n.bad_links, n.links, why.empty() ? "" : " (behind " + why + ")");
  }
  write_findings_text(run, out);
  fmt::print(out, "{}", baseline_text(run.baseline));
  size_t bad_links = 0, bad_nodes = 0;
  for (const Finding& f : run.findings) {
    bad_links += f.kind == FindingKind::kLink;
    bad_nodes += f.kind == FindingKind::kNode;
  }
  fmt::print(out, "verdict: {} bad link{}, {} bad node{}, {} unreachable{}\n", bad_links,
             bad_links == 1 ? "" : "s", bad_nodes, bad_nodes == 1 ? "" : "s", gone,
             level_counts(run));
  std::fflush(out);
}

}  // namespace fabperf::cluster
