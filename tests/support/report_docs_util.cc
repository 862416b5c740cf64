// Hand-made fabperf JSON documents for the report's tests.
#include "report_docs_util.h"

#include "report/reporter.h"
#include "stats/latency.h"

namespace fabperf::testdocs {

using nlohmann::json;

json run_doc(std::vector<json> results) {
  return {{"tool", "fabperf"},
          {"version", "0.1.0"},
          {"schema", kJsonSchema},
          {"started", "2025-01-02T03:04:05Z"},
          {"clock", "CLOCK_MONOTONIC_RAW"},
          {"command", {"fabperf", "--loopback", "tcp_lat"}},
          {"client",
           {{"node", "alpha"}, {"os", "Linux 6.1"}, {"cpu", "2 x Test CPU"}, {"version", "0.1.0"}}},
          {"server",
           {{"node", "beta"}, {"os", "Linux 6.1"}, {"cpu", "2 x Test CPU"}, {"version", "0.1.0"}}},
          {"percentiles", {50, 90, 99, 99.9, 99.99}},
          {"results", results}};
}

json latency_result(const std::string& test, uint64_t msg_size, const std::vector<uint64_t>& raw_ns,
                    double scale) {
  LatencyRecorder recorder(scale);
  for (uint64_t v : raw_ns) recorder.record(v);
  json r = {{"test", test},
            {"status", "ok"},
            {"params", {{"msg_size", msg_size}, {"time", 2.0}}},
            {"latency_ns", recorder.summarize(default_percentiles()).to_json()},
            {"latency_histogram", latency_histogram_json(recorder.histogram(), scale)},
            {"msg_rate", 1000.0}};
  return r;
}

json matrix_doc() {
  const json null;
  json values = json::array();
  for (int row = 0; row < 5; ++row) {
    json r = json::array();
    for (int col = 0; col < 5; ++col) {
      if (row == col || row == 4 || col == 4) {
        r.push_back(null);
      } else {
        r.push_back(12000.0 + 100.0 * row + 10.0 * col);
      }
    }
    values.push_back(r);
  }
  values[0][3] = 95000.0;
  json ranks = json::array(), nodes = json::array();
  for (int i = 0; i < 5; ++i) {
    const std::string host = "n" + std::to_string(i + 1);
    ranks.push_back({{"rank", i},
                     {"host", host},
                     {"status", i == 4 ? "unreachable" : "ok"},
                     {"reason", i == 4 ? "connection refused" : ""}});
    nodes.push_back({{"rank", i},
                     {"host", host},
                     {"verdict", i == 4 ? "unreachable" : "ok"},
                     {"bad_links", i == 0 || i == 3 ? 1 : 0},
                     {"links", i == 4 ? 0 : 6}});
  }
  json test = {{"test", "tcp_lat"},
               {"figure", "latency_ns.p50"},
               {"unit", "ns"},
               {"better", "lower"},
               {"values", values},
               {"median", 12150.0},
               {"threshold", 24300.0},
               {"suspects", {{{"a", 0}, {"b", 3}, {"value", 95000.0}, {"verdict", "bad_link"}}}},
               {"rounds", 4}};  // not in the contract: tolerated
  return {{"tool", "fabperf"},
          {"mode", "matrix"},
          {"version", "0.1.0"},
          {"started", "2025-01-02T03:04:05Z"},
          {"matrix", {{"pattern", "all"}, {"ranks", ranks}, {"tests", {test}}, {"nodes", nodes}}}};
}

json interval_doc() {
  json r = {{"test", "tcp_bw"},
            {"status", "ok"},
            {"params", {{"msg_size", 65536}, {"time", 2.0}}},
            {"bandwidth", {{"send_Bps", 2.5e9}, {"recv_Bps", 2.4e9}}},
            {"msg_rate", 36000.0}};
  json intervals = json::array();
  for (int i = 1; i <= 8; ++i) {
    intervals.push_back({{"t_s", 0.25 * i},
                         {"bytes", 6.0e8 + 1e7 * i},
                         {"msgs", 9000 + i},
                         {"latency_ns", {{"p50", 800.0 + i}, {"p99", 1500.0 + 10 * i}}}});
  }
  r["intervals"] = intervals;
  json doc = run_doc({r});
  doc["command"] = {"fabperf", "--loopback", "--interval", "0.25", "tcp_bw"};
  return doc;
}

}  // namespace fabperf::testdocs
