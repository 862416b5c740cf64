// The --json document of a --matrix run (schema in docs/cluster.md). The N x N values are
// streamed row by row: a DOM of 4096 x 4096 numbers would take gigabytes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cluster/matrix_run.h"
#include "core/clock.h"
#include "core/output_file.h"
#include "report/matrix_values.h"

namespace fabperf::cluster {

namespace {

// [[client, server], ...]: the pairs whose last measurement was taken under host noise.
nlohmann::json noisy_pairs(const FigureMatrix& m) {
  std::vector<std::pair<int, int>> pairs;
  for (uint64_t cell : m.noisy_cells()) pairs.push_back(m.pair_of(cell));
  std::sort(pairs.begin(), pairs.end());
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [client, server] : pairs) out.push_back({client, server});
  return out;
}

constexpr int kSchema = 1;
// Dense jobs up to this many ranks write "values" (N x N numbers); larger ones the 16-bit
// log code, a third of the size. Jobs that measured under a quarter of the pairs write "pairs".
constexpr int kDenseValuesMax = 2048;

enum class Form { kValues, kPairs, kLog16 };

Form form_of(const MatrixRun& run, const TestColumn& t) {
  uint64_t n = static_cast<uint64_t>(run.size());
  uint64_t cells = t.matrix.measured_count() + t.matrix.failed_count();
  if (cells * 4 < n * (n - 1) / 2) return Form::kPairs;
  return run.size() <= kDenseValuesMax ? Form::kValues : Form::kLog16;
}

const char* form_name(Form f) {
  return f == Form::kValues ? "values" : f == Form::kPairs ? "pairs" : "values_log16";
}

// Six significant digits: far finer than any run-to-run variation, and compact.
std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  return fmt::format("{:.6g}", v);
}

nlohmann::json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json test_header(const MatrixRun& run, const TestColumn& t) {
  const Distribution& d = t.judgement.dist;
  bool mirrored = t.figure.symmetric && !run.ordered;
  nlohmann::json suspects = nlohmann::json::array();
  for (const Suspect& s : t.judgement.suspects) {
    nlohmann::json j = {
        {"a", s.client},
        {"b", s.server},
        {"value", optional_number(s.value)},
        {"severity", std::isfinite(s.severity) ? nlohmann::json(s.severity) : nlohmann::json()},
        {"verdict", verdict_name(s.verdict)},
        {"retest", optional_number(s.retest)}};
    if (const std::string* e = t.matrix.error(s.client, s.server)) j["error"] = *e;
    suspects.push_back(std::move(j));
  }
  nlohmann::json head = {{"test", t.test},
                         {"figure", t.figure.path},
                         {"unit", t.figure.unit},
                         {"better", t.figure.better == Better::kLower ? "lower" : "higher"},
                         {"symmetric", t.figure.symmetric},
                         {"mirrored", mirrored},
                         {"measured", t.matrix.measured_count()},
                         {"failed", t.matrix.failed_count()},
                         {"median", d.baseline},
                         {"threshold", d.threshold},
                         {"distribution",
                          {{"count", d.count},
                           {"min", d.min},
                           {"p10", d.p10},
                           {"median", d.median},
                           {"p90", d.p90},
                           {"max", d.max},
                           {"baseline", d.baseline},
                           {"spread", d.spread}}},
                         {"suspects", suspects},
                         {"suspects_total", t.judgement.suspect_count},
                         {"noisy_pairs", noisy_pairs(t.matrix)},
                         {"pairs_measured", t.matrix.pairs_count()},
                         {"values_form", form_name(form_of(run, t))}};
  size_t index = static_cast<size_t>(&t - run.tests.data());
  if (index < run.fit.tests.size() && run.fit.tests[index].valid) {
    const TestFit& fit = run.fit.tests[index];
    nlohmann::json classes = nlohmann::json::object();
    for (int c = 0; c < kPathClasses; ++c) {
      if (fit.has_class[c]) classes[path_class_name(static_cast<PathClass>(c))] = fit.base[c];
    }
    head["classes"] = classes;
    head["pair_spread"] = fit.spread;
  }
  return head;
}

// "values": N x N numbers, a row a line.
void write_values(const MatrixRun& run, const TestColumn& col, std::FILE* f) {
  const int n = run.size();
  bool mirrored = col.figure.symmetric && !run.ordered;
  std::fputs(",\"values\":[", f);
  std::string row;
  for (int a = 0; a < n; ++a) {
    row = a == 0 ? "\n[" : ",\n[";
    for (int b = 0; b < n; ++b) {
      if (b > 0) row += ',';
      auto v = col.matrix.get(a, b);
      if (!v && mirrored) v = col.matrix.get(b, a);
      row += v ? number(*v) : "null";
    }
    row += ']';
    std::fwrite(row.data(), 1, row.size(), f);
  }
  std::fputs("]", f);
}

// "pairs": the measured pairs only, [client, server, value], by client.
void write_pairs(const TestColumn& col, std::FILE* f) {
  std::fputs(",\"pairs\":[", f);
  std::string text;
  bool first = true;
  col.matrix.for_each_sorted([&](int a, int b, std::optional<double> v) {
    text = fmt::format("{}[{},{},{}]", first ? "\n" : ",", a, b, v ? number(*v) : "null");
    first = false;
    std::fwrite(text.data(), 1, text.size(), f);
  });
  std::fputs("]", f);
}

// "values_log16": a base64 row of 16-bit codes per rank.
void write_log16(const MatrixRun& run, const TestColumn& col, std::FILE* f) {
  const int n = run.size();
  bool mirrored = col.figure.symmetric && !run.ordered;
  double lo = 0, hi = 0;
  bool any = false;
  col.matrix.for_each([&](int, int, std::optional<double> v) {
    if (!v || *v <= 0) return;
    lo = any ? std::min(lo, *v) : *v;
    hi = any ? std::max(hi, *v) : *v;
    any = true;
  });
  report::Log16 code(any ? lo : 1, any ? hi : 1);
  std::fputs(fmt::format(",\"values_log16\":{{\"min\":{},\"ratio\":{:.17g},\"rows\":[",
                         number(code.lo()), code.ratio())
                 .c_str(),
             f);
  std::vector<uint8_t> bytes(2 * static_cast<size_t>(n));
  std::string text;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      uint16_t c = report::Log16::kNone;
      auto v = col.matrix.get(a, b);
      bool failed = col.matrix.failed(a, b);
      if (!v && !failed && mirrored) {
        v = col.matrix.get(b, a);
        failed = col.matrix.failed(b, a);
      }
      if (v) c = code.encode(*v);
      if (failed) c = report::Log16::kFailed;
      bytes[2 * static_cast<size_t>(b)] = static_cast<uint8_t>(c & 0xff);
      bytes[2 * static_cast<size_t>(b) + 1] = static_cast<uint8_t>(c >> 8);
    }
    text = (a == 0 ? "\n\"" : ",\n\"") + report::base64_encode(bytes.data(), bytes.size()) + "\"";
    std::fwrite(text.data(), 1, text.size(), f);
  }
  std::fputs("]}", f);
}

// The header object as text without its closing brace, so "values" can follow it.
std::string open_object(const nlohmann::json& j) {
  std::string text = j.dump();
  text.pop_back();
  return text;
}

// The ranks in the order the reports show them: by group and switch when there is a topology.
std::vector<int> display_order(const MatrixRun& run) {
  if (run.topology && run.topology->ranks() == run.size()) return run.topology->order();
  std::vector<int> order(static_cast<size_t>(run.size()));
  for (int r = 0; r < run.size(); ++r) order[static_cast<size_t>(r)] = r;
  return order;
}

void place(const MatrixRun& run, int rank, nlohmann::json& j) {
  if (!run.topology || run.topology->ranks() != run.size()) return;
  int sw = run.topology->switch_of(rank), g = run.topology->group_of(rank);
  j["switch"] = sw >= 0 ? run.topology->switches()[static_cast<size_t>(sw)].name : "";
  j["group"] = g >= 0 ? run.topology->groups()[static_cast<size_t>(g)] : "";
}

nlohmann::json topology_json(const MatrixRun& run) {
  const Topology& t = *run.topology;
  nlohmann::json switches = nlohmann::json::array();
  for (size_t s = 0; s < t.switches().size(); ++s) {
    const Topology::Switch& sw = t.switches()[s];
    nlohmann::json j = {{"name", sw.name}, {"ranks", t.members()[s].size()}};
    j["group"] = sw.group >= 0 ? t.groups()[static_cast<size_t>(sw.group)] : "";
    if (sw.parent >= 0) j["parent"] = t.switches()[static_cast<size_t>(sw.parent)].name;
    switches.push_back(std::move(j));
  }
  return {{"source", run.topology_source},
          {"kind", topology_kind_name(t.kind())},
          {"groups", t.groups()},
          {"switches", switches}};
}

// The ranks, in display order, each with its host, status and place.
nlohmann::json ranks_json(const MatrixRun& run, const std::vector<int>& order) {
  nlohmann::json ranks = nlohmann::json::array();
  for (int rank : order) {
    const RankStatus& r = run.ranks[static_cast<size_t>(rank)];
    nlohmann::json j = {{"rank", r.rank},
                        {"host", r.host},
                        {"status", r.alive ? "ok" : "unreachable"},
                        {"reason", r.reason}};
    place(run, rank, j);
    ranks.push_back(std::move(j));
  }
  return ranks;
}

// The node verdicts, in display order.
nlohmann::json nodes_json(const MatrixRun& run, const std::vector<int>& order) {
  nlohmann::json nodes = nlohmann::json::array();
  std::vector<const NodeJudgement*> by_rank(run.ranks.size(), nullptr);
  for (const NodeJudgement& n : run.nodes) by_rank[static_cast<size_t>(n.rank)] = &n;
  for (int rank : order) {
    const NodeJudgement* n = by_rank[static_cast<size_t>(rank)];
    if (n == nullptr) continue;
    nlohmann::json bad_in = nlohmann::json::array();
    for (size_t t : n->bad_in) bad_in.push_back(run.tests[t].test);
    nodes.push_back(
        {{"rank", n->rank},
         {"host", run.ranks[static_cast<size_t>(n->rank)].host},
         {"verdict", node_state_name(n->state)},
         {"bad_links", n->bad_links},
         {"links", n->links},
         {"bad_in", bad_in},
         // x times the other nodes' median link, where the node rule found it slow
         {"slowdown",
          optional_number(n->slowdown > 0 ? std::optional<double>(n->slowdown) : std::nullopt)}});
  }
  return nodes;
}

// The "matrix" object but its tests and nodes: the job, its plan and tolerances, the topology,
// coverage, findings, simulation, baseline and ranks.
nlohmann::json matrix_head(const MatrixRun& run, const nlohmann::json& ranks) {
  nlohmann::json matrix = {
      {"job", run.job},
      {"size", run.size()},
      {"pattern", run.pattern},
      {"ordered", run.ordered},
      {"randomize", run.randomize},
      {"seed", run.seed},
      {"passes", run.passes},
      {"time_per_pair_s", run.time_per_pair_s},
      {"count_per_pair", run.count_per_pair},
      {"budget_s", run.budget_s},
      {"rounds", {{"planned", run.rounds_planned}, {"done", run.rounds_done}}},
      {"pairs_planned", run.pairs_planned},
      {"retests", {{"planned", run.retests_planned}, {"done", run.retests_done}}},
      {"complete", run.complete},
      {"stopped", run.stopped},
      {"elapsed_s", run.elapsed_s},
      {"tolerances",
       {{"lat_ratio", run.tol.lat_ratio},
        {"bw_ratio", run.tol.bw_ratio},
        {"outlier_mads", run.tol.outlier_mads},
        {"node_fraction", run.tol.node_fraction}}},
      {"simulated", !run.simulated.empty()}};
  if (!run.simulated.empty()) matrix["model"] = run.simulated;
  if (run.topology) matrix["topology"] = topology_json(run);
  matrix["coverage"] = coverage_json(run);
  matrix["findings"] = findings_json(run);
  if (!run.simulation.is_null()) matrix["simulation"] = run.simulation;
  if (!run.baseline.is_null()) matrix["baseline"] = run.baseline;
  matrix["ranks"] = ranks;
  return matrix;
}

// The "tests" array's elements, each in its form.
void write_tests(const MatrixRun& run, std::FILE* f) {
  for (size_t t = 0; t < run.tests.size(); ++t) {
    const TestColumn& col = run.tests[t];
    std::fputs(t == 0 ? "\n" : ",\n", f);
    std::fputs(open_object(test_header(run, col)).c_str(), f);
    switch (form_of(run, col)) {
      case Form::kValues:
        write_values(run, col, f);
        break;
      case Form::kPairs:
        write_pairs(col, f);
        break;
      case Form::kLog16:
        write_log16(run, col, f);
        break;
    }
    std::fputs("}", f);
  }
}

// The document, streamed: a DOM of the values would take gigabytes.
void write_document(const MatrixRun& run, std::FILE* f) {
  std::vector<int> order = display_order(run);
  nlohmann::json ranks = ranks_json(run, order);
  nlohmann::json nodes = nodes_json(run, order);
  nlohmann::json head = {{"tool", "fabperf"},      {"mode", "matrix"},
                         {"schema", kSchema},      {"version", FABPERF_VERSION},
                         {"started", run.started}, {"clock", kClockName},
                         {"command", run.argv},    {"exit_code", run.exit_code}};
  nlohmann::json matrix = matrix_head(run, ranks);
  std::fputs(open_object(head).c_str(), f);
  std::fputs(",\"matrix\":", f);
  std::fputs(open_object(matrix).c_str(), f);
  std::fputs(",\"tests\":[", f);
  write_tests(run, f);
  std::fputs("\n],\"nodes\":", f);
  std::fputs(nodes.dump().c_str(), f);
  std::fputs("}}\n", f);
}

}  // namespace

Result<std::string> matrix_json_text(const MatrixRun& run) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  if (f == nullptr) return Status::failed("--html: out of memory for the report");
  write_document(run, f);
  bool ok = std::fclose(f) == 0;
  std::string text(buf != nullptr ? buf : "", size);
  std::free(buf);
  if (!ok) return Status::failed("--html: out of memory for the report");
  return text;
}

Status write_matrix_json(const MatrixRun& run, const std::string& path) {
  return write_file_atomically(
      path,
      [&](std::FILE* f) {
        write_document(run, f);
        return Status::success();
      },
      "--json");
}

}  // namespace fabperf::cluster
