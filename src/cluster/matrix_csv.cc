// The --csv file of a --matrix run: one row per pair and test that was measured or failed.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "cluster/matrix_run.h"
#include "core/output_file.h"
#include "report/csv_field.h"

namespace fabperf::cluster {

namespace {

std::string number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? fmt::format("{:.6g}", *v) : "";
}

std::string switch_of(const MatrixRun& run, int rank) {
  if (!run.topology || run.topology->ranks() != run.size()) return "";
  int sw = run.topology->switch_of(rank);
  return sw < 0 ? "" : csv_field(run.topology->switches()[static_cast<size_t>(sw)].name);
}

// One row per pair and test, streamed; clients (and their servers) by switch when the topology
// is known.
void write_rows(const MatrixRun& run, std::FILE* f) {
  std::fputs(
      "test,figure,unit,client,client_host,server,server_host,value,status,retest,verdict,"
      "error,client_switch,server_switch\n",
      f);
  const int n = run.size();
  std::vector<int> order(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) order[static_cast<size_t>(r)] = r;
  if (run.topology && run.topology->ranks() == n) order = run.topology->order();
  std::vector<int> position(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) position[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
  std::vector<std::string> switches(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) switches[static_cast<size_t>(r)] = switch_of(run, r);
  std::vector<std::pair<int, std::optional<double>>> cells;
  for (const TestColumn& t : run.tests) {
    std::unordered_map<uint64_t, const Suspect*> listed;
    for (const Suspect& s : t.judgement.suspects) {
      listed[static_cast<uint64_t>(s.client) * static_cast<uint64_t>(n) +
             static_cast<uint64_t>(s.server)] = &s;
    }
    std::string head =
        csv_field(t.test) + "," + csv_field(t.figure.path) + "," + csv_field(t.figure.unit) + ",";
    std::string row;
    for (int a : order) {
      cells.clear();
      if (t.matrix.layout() == MatrixLayout::kSparse) {
        t.matrix.for_each_of(a, [&](int c, int b, std::optional<double> v) {
          if (c == a) cells.emplace_back(b, v);
        });
        std::sort(cells.begin(), cells.end(), [&](const auto& x, const auto& y) {
          return position[static_cast<size_t>(x.first)] < position[static_cast<size_t>(y.first)];
        });
      } else {
        for (int b : order) {
          auto v = t.matrix.get(a, b);
          if (v || t.matrix.failed(a, b)) cells.emplace_back(b, v);
        }
      }
      for (const auto& [b, v] : cells) {
        bool failed = !v;
        auto it = listed.find(static_cast<uint64_t>(a) * static_cast<uint64_t>(n) +
                              static_cast<uint64_t>(b));
        const Suspect* s = it == listed.end() ? nullptr : it->second;
        const std::string* error = t.matrix.error(a, b);
        row = head + std::to_string(a) + "," + csv_field(run.ranks[static_cast<size_t>(a)].host) +
              "," + std::to_string(b) + "," + csv_field(run.ranks[static_cast<size_t>(b)].host) +
              "," + number(v) + "," + (failed ? "failed" : "ok") + "," +
              number(t.matrix.retest(a, b)) + "," + (s != nullptr ? verdict_name(s->verdict) : "") +
              "," + (error != nullptr ? csv_field(*error) : "") + "," +
              switches[static_cast<size_t>(a)] + "," + switches[static_cast<size_t>(b)] + "\n";
        std::fwrite(row.data(), 1, row.size(), f);
      }
    }
  }
}

}  // namespace

Status write_matrix_csv(const MatrixRun& run, const std::string& path) {
  return write_file_atomically(
      path,
      [&](std::FILE* f) {
        write_rows(run, f);
        return Status::success();
      },
      "--csv");
}

}  // namespace fabperf::cluster
