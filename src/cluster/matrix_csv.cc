// The --csv file of a --matrix run: one row per pair and test that was measured or failed.
#include <fmt/format.h>

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

// One row per pair and test, streamed.
void write_rows(const MatrixRun& run, std::FILE* f) {
  std::fputs(
      "test,figure,unit,client,client_host,server,server_host,value,status,retest,verdict,"
      "error\n",
      f);
  const int n = run.size();
  for (const TestColumn& t : run.tests) {
    std::unordered_map<uint64_t, const Suspect*> listed;
    for (const Suspect& s : t.judgement.suspects) {
      listed[static_cast<uint64_t>(s.client) * static_cast<uint64_t>(n) +
             static_cast<uint64_t>(s.server)] = &s;
    }
    std::string head =
        csv_field(t.test) + "," + csv_field(t.figure.path) + "," + csv_field(t.figure.unit) + ",";
    std::string row;
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) {
        auto v = t.matrix.get(a, b);
        bool failed = t.matrix.failed(a, b);
        if (!v && !failed) continue;
        auto it = listed.find(static_cast<uint64_t>(a) * static_cast<uint64_t>(n) +
                              static_cast<uint64_t>(b));
        const Suspect* s = it == listed.end() ? nullptr : it->second;
        const std::string* error = t.matrix.error(a, b);
        row = head + std::to_string(a) + "," + csv_field(run.ranks[static_cast<size_t>(a)].host) + "," +
              std::to_string(b) + "," + csv_field(run.ranks[static_cast<size_t>(b)].host) + "," +
              number(v) + "," + (failed ? "failed" : "ok") + "," + number(t.matrix.retest(a, b)) +
              "," + (s != nullptr ? verdict_name(s->verdict) : "") + "," +
              (error != nullptr ? csv_field(*error) : "") + "\n";
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
        return Status::Ok();
      },
      "--csv");
}

}  // namespace fabperf::cluster
