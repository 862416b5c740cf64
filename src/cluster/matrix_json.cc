// The --json document of a --matrix run (schema in docs/cluster.md). The N x N values are
// streamed row by row: a DOM of 4096 x 4096 numbers would take gigabytes.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cluster/matrix_run.h"
#include "core/clock.h"
#include "core/output_file.h"

namespace fabperf::cluster {

namespace {

constexpr int kSchema = 1;

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
  return {{"test", t.test},
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
          {"suspects_total", t.judgement.suspect_count}};
}

// The header object as text without its closing brace, so "values" can follow it.
std::string open_object(const nlohmann::json& j) {
  std::string text = j.dump();
  text.pop_back();
  return text;
}

// The document, streamed: a DOM of the values would take gigabytes at thousands of ranks.
void write_document(const MatrixRun& run, std::FILE* f) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankStatus& r : run.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"host", r.host},
                     {"status", r.alive ? "ok" : "unreachable"},
                     {"reason", r.reason}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeJudgement& n : run.nodes) {
    nlohmann::json bad_in = nlohmann::json::array();
    for (size_t t : n.bad_in) bad_in.push_back(run.tests[t].test);
    nodes.push_back({{"rank", n.rank},
                     {"host", run.ranks[static_cast<size_t>(n.rank)].host},
                     {"verdict", node_state_name(n.state)},
                     {"bad_links", n.bad_links},
                     {"links", n.links},
                     {"bad_in", bad_in},
                     // x times the other nodes' median link, where the node rule found it slow
                     {"slowdown", optional_number(n.slowdown > 0 ? std::optional<double>(
                                                                       n.slowdown)
                                                                 : std::nullopt)}});
  }
  nlohmann::json head = {{"tool", "fabperf"},      {"mode", "matrix"},
                         {"schema", kSchema},      {"version", FABPERF_VERSION},
                         {"started", run.started}, {"clock", kClockName},
                         {"command", run.argv},    {"exit_code", run.exit_code}};
  nlohmann::json matrix = {
      {"job", run.job},
      {"size", run.size()},
      {"pattern", run.pattern},
      {"ordered", run.ordered},
      {"randomize", run.randomize},
      {"seed", run.seed},
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
      {"ranks", ranks}};
  std::fputs(open_object(head).c_str(), f);
  std::fputs(",\"matrix\":", f);
  std::fputs(open_object(matrix).c_str(), f);
  std::fputs(",\"tests\":[", f);
  const int n = run.size();
  for (size_t t = 0; t < run.tests.size(); ++t) {
    const TestColumn& col = run.tests[t];
    bool mirrored = col.figure.symmetric && !run.ordered;
    std::fputs(t == 0 ? "\n" : ",\n", f);
    std::fputs(open_object(test_header(run, col)).c_str(), f);
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
    std::fputs("]}", f);
  }
  std::fputs("\n],\"nodes\":", f);
  std::fputs(nodes.dump().c_str(), f);
  std::fputs("}}\n", f);
}

}  // namespace

Result<std::string> matrix_json_text(const MatrixRun& run) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  if (f == nullptr) return Status::Failed("--html: out of memory for the report");
  write_document(run, f);
  bool ok = std::fclose(f) == 0;
  std::string text(buf != nullptr ? buf : "", size);
  std::free(buf);
  if (!ok) return Status::Failed("--html: out of memory for the report");
  return text;
}

Status write_matrix_json(const MatrixRun& run, const std::string& path) {
  return write_file_atomically(
      path,
      [&](std::FILE* f) {
        write_document(run, f);
        return Status::Ok();
      },
      "--json");
}

}  // namespace fabperf::cluster
