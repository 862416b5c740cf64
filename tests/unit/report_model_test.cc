// Unit tests of the HTML report's data step: run documents in, charts and tables out.
#include "report/report_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "report/chart_model.h"
#include "report/html_page.h"
#include "report/reporter.h"
#include "report_docs_util.h"
#include "stats/histogram.h"
#include "stats/latency.h"

namespace fabperf::report {
namespace {

using nlohmann::json;
using testdocs::latency_result;
using testdocs::run_doc;

const json* find_section(const json& model, const std::string& id_suffix) {
  for (const json& s : model["sections"]) {
    const std::string id = s["id"];
    if (id.size() >= id_suffix.size() &&
        id.compare(id.size() - id_suffix.size(), id_suffix.size(), id_suffix) == 0)
      return &s;
  }
  return nullptr;
}

const json* find_chart(const json& section, const std::string& type) {
  for (const json& c : section["charts"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

json build(std::vector<RunDocument> runs) {
  auto model = build_report_model(runs);
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.ok() ? *model : json();
}

// Every cell of `rows` that names a JSON key carries that key's value from the result, exactly.
void expect_cells_match(const json& rows, const json& result) {
  for (const json& row : rows) {
    for (const json& cell : row) {
      if (!cell.contains("k") || std::string(cell["k"]).rfind("latency_ns.", 0) != 0) continue;
      const std::string key = std::string(cell["k"]).substr(11);
      if (!result["latency_ns"].contains(key)) continue;
      EXPECT_EQ(cell["v"].get<double>(), result["latency_ns"][key].get<double>()) << key;
    }
  }
}

TEST(ReportModelCheck, AcceptsPairAndMatrixDocuments) {
  EXPECT_TRUE(check_run_document(run_doc({})).ok());
  EXPECT_TRUE(check_run_document(testdocs::matrix_doc()).ok());
  json old = run_doc({});
  old["schema"] = 1;
  EXPECT_TRUE(check_run_document(old).ok());
}

TEST(ReportModelCheck, NamesWhatIsWrong) {
  auto message = [](const json& doc) { return check_run_document(doc).message(); };
  EXPECT_NE(message(json::array()).find("not a JSON object"), std::string::npos);
  json doc = run_doc({});
  doc["tool"] = "iperf3";
  EXPECT_NE(message(doc).find("\"iperf3\""), std::string::npos);
  doc = run_doc({});
  doc.erase("schema");
  EXPECT_NE(message(doc).find("no \"schema\""), std::string::npos);
  doc["schema"] = "2";
  EXPECT_NE(message(doc).find("not an integer"), std::string::npos);
  doc["schema"] = kJsonSchema + 1;
  EXPECT_NE(message(doc).find("newer fabperf"), std::string::npos);
  doc["schema"] = 0;
  EXPECT_FALSE(check_run_document(doc).ok());
  doc = run_doc({});
  doc["results"] = json::object();
  EXPECT_NE(message(doc).find("\"results\""), std::string::npos);
  doc["results"] = json::array({1});
  EXPECT_NE(message(doc).find("results[0]"), std::string::npos);
  json m = testdocs::matrix_doc();
  m["matrix"] = json::array();
  EXPECT_NE(message(m).find("\"matrix\" is not an object"), std::string::npos);
  // build_report_model says which run was wrong.
  auto model = build_report_model({{"good.json", run_doc({})}, {"bad.json", doc}});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("bad.json"), std::string::npos);
}

TEST(ReportModelLatency, HistogramComesFromEveryBucket) {
  std::vector<uint64_t> samples;
  for (uint64_t i = 0; i < 5000; ++i) samples.push_back(10000 + (i % 100) * 40);  // 10-14 us RTT
  samples.push_back(200000);                                                      // one outlier
  const json result = latency_result("tcp_lat", 1, samples, 0.5);
  const json model = build({{"run.json", run_doc({result})}});
  const json* sec = find_section(model, "-latency");
  ASSERT_NE(sec, nullptr);
  const json* hist = find_chart(*sec, "histogram");
  ASSERT_NE(hist, nullptr);
  EXPECT_EQ((*hist)["x"]["unit"], "\u00b5s");
  double percent = 0;
  size_t markers = 0;
  for (const json& s : (*hist)["series"]) {
    if (s["style"] == "marker") {
      ++markers;
      continue;
    }
    for (const json& p : s["points"]) percent += p[1].get<double>();
    EXPECT_LE(s["points"].size(), 250u);
  }
  EXPECT_EQ(markers, 8u);  // min, mean, p50, p90, p99, p99.9, p99.99, max
  // The outlier (100 us one-way, 20x the bulk) lies past the axis' end: it is not drawn as
  // a bar squeezing the rest left but as a marker on the edge, with its share and value.
  // Every sample is accounted for: the bins and the edge together hold 100%.
  ASSERT_TRUE((*hist)["x"].contains("max"));
  EXPECT_LT((*hist)["x"]["max"].get<double>(), 100.0);
  const json* edge = nullptr;
  for (const json& s : (*hist)["series"]) {
    if (s.value("stat", "") == "beyond") edge = &s;
  }
  ASSERT_NE(edge, nullptr);
  EXPECT_NEAR(percent, 100.0, 1e-9);  // the bins and the edge marker
  EXPECT_NEAR((*edge)["points"][0][1].get<double>(), 100.0 / 5001, 1e-9);
  EXPECT_EQ((*edge)["edge"], "0.02% up to 100 \u00b5s");
  // The table carries the JSON's own numbers.
  ASSERT_EQ(sec->at("tables").size(), 1u);
  expect_cells_match(sec->at("tables")[0]["rows"], result);
}

TEST(ReportModelLatency, PercentileCurveRisesAndPassesThroughReportedFigures) {
  std::vector<uint64_t> samples;
  for (uint64_t i = 1; i <= 20000; ++i) samples.push_back(1000 + i);
  const json result = latency_result("udp_lat", 1, samples, 1.0);
  const json model = build({{"run.json", run_doc({result})}});
  const json* pct = find_chart(*find_section(model, "-latency"), "percentile");
  ASSERT_NE(pct, nullptr);
  const json& curve = (*pct)["series"][0]["points"];
  ASSERT_GT(curve.size(), 60u);  // 20 a decade over 4 decades
  for (size_t i = 1; i < curve.size(); ++i) {
    EXPECT_GT(curve[i][0].get<double>(), curve[i - 1][0].get<double>());
    EXPECT_GE(curve[i][1].get<double>(), curve[i - 1][1].get<double>());
  }
  // The reported p50 sits at x = 2 on the 1/(1-q) axis, with the JSON's value (in us).
  const json& reported = (*pct)["series"][1];
  EXPECT_EQ(reported["style"], "points");
  EXPECT_DOUBLE_EQ(reported["points"][0][0].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(reported["points"][0][1].get<double>() * 1000,
                   result["latency_ns"]["p50"].get<double>());
  // The curve at x = 2 reads the same percentile from the histogram.
  EXPECT_NEAR(curve[6][0].get<double>(), 2.0, 0.01);
}

TEST(ReportModelLatency, SchemaOneDocumentsDrawTheirPercentilesOnly) {
  json result = latency_result("tcp_lat", 1, {5000, 6000, 7000}, 0.5);
  result.erase("latency_histogram");
  json doc = run_doc({result});
  doc["schema"] = 1;
  const json model = build({{"old.json", doc}});
  const json* sec = find_section(model, "-latency");
  ASSERT_NE(sec, nullptr);
  EXPECT_EQ(find_chart(*sec, "histogram"), nullptr);
  EXPECT_NE(find_chart(*sec, "percentile"), nullptr);
  ASSERT_FALSE((*sec)["notes"].empty());
  EXPECT_NE((*sec)["notes"][0].get<std::string>().find("schema 2"), std::string::npos);
}

TEST(ReportModelLatency, AnUnreadableHistogramIsNamedNotFatal) {
  json result = latency_result("tcp_lat", 1, {5000, 6000}, 0.5);
  result["latency_histogram"]["sub_bucket_bits"] = 7;
  const json model = build({{"run.json", run_doc({result})}});
  const json* sec = find_section(model, "-latency");
  ASSERT_NE(sec, nullptr);
  EXPECT_NE((*sec)["notes"][0].get<std::string>().find("layout mismatch"), std::string::npos);
}

TEST(ReportModelLatency, OneValueStillMakesOneBin) {
  const json result = latency_result("tcp_lat", 1, std::vector<uint64_t>(100, 4000), 0.5);
  const json model = build({{"run.json", run_doc({result})}});
  const json* hist = find_chart(*find_section(model, "-latency"), "histogram");
  ASSERT_NE(hist, nullptr);
  double percent = 0;
  for (const json& p : (*hist)["series"][0]["points"]) percent += p[1].get<double>();
  EXPECT_NEAR(percent, 100.0, 1e-9);
}

TEST(ReportModelSweep, CxiSizesWithoutLoopMakeASweep) {
  // fab_write_lat -s 1:1024 writes one result per size and no "loop".
  std::vector<json> results;
  for (uint64_t size = 1; size <= 1024; size *= 4) {
    results.push_back(latency_result("rdm_write_lat", size, {2000 + size, 2100 + size}, 1.0));
  }
  const json model = build({{"cxi.json", run_doc(results)}});
  const json* sec = find_section(model, "-sweep");
  ASSERT_NE(sec, nullptr);
  const json* lat = find_chart(*sec, "line");
  ASSERT_NE(lat, nullptr);
  EXPECT_TRUE((*lat)["x"]["log"].get<bool>());
  EXPECT_TRUE((*lat)["y"]["log"].get<bool>());
  ASSERT_EQ((*lat)["x"]["values"].size(), 6u);
  EXPECT_EQ((*lat)["x"]["values"][5][1], "1K");
  EXPECT_EQ((*lat)["series"][0]["label"], "p50");
  EXPECT_EQ((*lat)["series"][0]["points"].size(), 6u);
  const json& table = (*sec)["tables"][0];
  ASSERT_EQ(table["rows"].size(), 6u);
  for (size_t i = 0; i < results.size(); ++i) {
    expect_cells_match(json::array({table["rows"][i]}), results[i]);
  }
  // The distribution section shows one series per size, labelled by it: a row each.
  const json* dist = find_section(model, "-latency");
  ASSERT_NE(dist, nullptr);
  EXPECT_EQ((*dist)["tables"][0]["rows"][0][0]["t"], "msg_size 1");
  EXPECT_EQ((*dist)["tables"][0]["rows"].size(), 6u);
}

TEST(ReportModelSweep, BandwidthSweepOfTwoRunsOverlays) {
  auto bw = [](uint64_t size, double recv, double send) {
    json r = {{"test", "tcp_bw"},
              {"status", "ok"},
              {"params", {{"msg_size", size}}},
              {"loop", {{"msg_size", size}}},
              {"bandwidth", {{"send_Bps", send}, {"recv_Bps", recv}}},
              {"msg_rate", 1000.0}};
    return r;
  };
  json a = run_doc({bw(1024, 1e9, 1.1e9), bw(65536, 3e9, 3.1e9)});
  json b = run_doc({bw(1024, 0, 0.5e9), bw(65536, 0, 2e9)});  // a receiver that cannot count
  const json model = build({{"before.json", a}, {"after.json", b}});
  const json* sec = find_section(model, "-sweep");
  ASSERT_NE(sec, nullptr);
  // Bandwidth only (no message-rate chart beside it), and relative to the first run.
  ASSERT_EQ((*sec)["charts"].size(), 2u);
  EXPECT_EQ((*sec)["charts"][1]["type"], "ratio");
  EXPECT_EQ((*sec)["charts"][1]["series"][0]["label"], "after.json bandwidth / before.json");
  EXPECT_DOUBLE_EQ((*sec)["charts"][1]["series"][0]["points"][1][1].get<double>(), 2e9 / 3e9);
  const json& c = (*sec)["charts"][0];
  EXPECT_EQ(c["y"]["unit"], "GB/s");
  ASSERT_EQ(c["series"].size(), 2u);
  EXPECT_EQ(c["series"][0]["label"], "before.json bandwidth");
  EXPECT_EQ(c["series"][1]["label"], "after.json bandwidth");
  EXPECT_DOUBLE_EQ(c["series"][1]["points"][1][1].get<double>(), 2.0);
  const json& row = (*sec)["tables"][0]["rows"][1];
  EXPECT_EQ(row[1]["k"], "bandwidth.recv_Bps");
  EXPECT_EQ(row[2]["k"], "bandwidth.send_Bps");
  EXPECT_DOUBLE_EQ(row[2]["v"].get<double>(), 2e9);
  EXPECT_EQ(find_section(model, "-latency"), nullptr);
}

TEST(ReportModelIntervals, RatesPerIntervalFromAHandMadeDocument) {
  json r = {{"test", "tcp_bw"},
            {"status", "ok"},
            {"params", {{"msg_size", 65536}}},
            {"bandwidth", {{"send_Bps", 2e9}, {"recv_Bps", 2e9}}}};
  r["intervals"] = json::array({
      {{"t_s", 0.5},
       {"bytes", 1e9},
       {"msgs", 100},
       {"latency_ns", {{"p50", 900.0}, {"p99", 2000.0}}}},
      {{"t_s", 1.5}, {"bytes", 1e9}, {"msgs", 100}},
      {{"t_s", 1.0}, {"bytes", 5}},  // goes backwards: left out, said so
  });
  const json model = build({{"run.json", run_doc({r})}});
  const json* sec = find_section(model, "-intervals");
  ASSERT_NE(sec, nullptr);
  const json* bw = nullptr;
  for (const json& c : (*sec)["charts"]) {
    if (c["id"].get<std::string>().ends_with("-bandwidth")) bw = &c;
  }
  ASSERT_NE(bw, nullptr);
  // Steps over each interval's span: its start and its end, both at its own value.
  const json& points = (*bw)["series"][0]["points"];
  EXPECT_EQ((*bw)["series"][0]["style"], "step");
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0], json::array({0.0, 2.0}));  // 1 GB in 0.5 s, in GB/s
  EXPECT_EQ(points[1], json::array({0.5, 2.0}));
  EXPECT_EQ(points[2], json::array({0.5, 1.0}));  // 1 GB in 1 s
  EXPECT_EQ(points[3], json::array({1.5, 1.0}));
  EXPECT_EQ((*sec)["notes"].size(), 1u);
  EXPECT_EQ((*sec)["tables"][0]["rows"].size(), 2u);
}

TEST(ReportModelMatrix, HeatmapCellsSuspectsAndVerdicts) {
  const json doc = testdocs::matrix_doc();
  const json model = build({{"matrix.json", doc}});
  const json* sec = find_section(model, "-m0");
  ASSERT_NE(sec, nullptr);
  const json* heat = find_chart(*sec, "heatmap");
  ASSERT_NE(heat, nullptr);
  ASSERT_EQ((*heat)["labels"].size(), 5u);
  EXPECT_EQ((*heat)["labels"][2], "n3 (2)");
  EXPECT_EQ((*heat)["cells"].size(), 12u);  // 4 x 4 less the diagonal; n5 unreachable
  EXPECT_EQ((*heat)["measured"], 12);
  // The suspect pair (client 0, server 3) is outlined at column 3, row 0.
  ASSERT_EQ((*heat)["suspects"].size(), 1u);
  EXPECT_EQ((*heat)["suspects"][0], json({3, 0, "bad_link"}));
  // Lower is better: the smallest value is green, the largest red.
  for (const json& cell : (*heat)["cells"]) {
    if (cell[0] == 3 && cell[1] == 0) {
      EXPECT_EQ(cell[3], heat_color(1));
    }
    if (cell[0] == 1 && cell[1] == 0) {
      EXPECT_EQ(cell[3], heat_color(0));
    }
  }
  ASSERT_TRUE((*heat)["legend"].is_array());
  // The colour scale spans the measured values, best (green) to worst (red); the baseline and
  // the threshold are marked where they fall on it.
  const json& scale = (*heat)["scale"];
  EXPECT_EQ(scale["best"], "12 \u00b5s");
  EXPECT_EQ(scale["worst"], "95 \u00b5s");
  ASSERT_EQ(scale["marks"].size(), 2u);
  EXPECT_EQ(scale["marks"][0]["name"], "baseline");
  EXPECT_EQ(scale["marks"][0]["text"], "12.2 \u00b5s");
  EXPECT_NEAR(scale["marks"][0]["at"].get<double>(), (12150.0 - 12010) / (95000 - 12010), 1e-9);
  EXPECT_EQ(scale["marks"][1]["name"], "threshold");
  EXPECT_NEAR(scale["marks"][1]["at"].get<double>(), (24300.0 - 12010) / (95000 - 12010), 1e-9);
  EXPECT_TRUE((*heat)["cell_text"].get<bool>());
  EXPECT_TRUE((*heat)["groups"].empty());
  const json& summary = (*sec)["tables"][0];
  EXPECT_DOUBLE_EQ(summary["rows"][1][1]["v"].get<double>(),
                   doc["matrix"]["tests"][0]["median"].get<double>());
  const json* nodes = find_section(model, "-nodes");
  ASSERT_NE(nodes, nullptr);
  const json& rows = (*nodes)["tables"][0]["rows"];
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[4][2]["t"], "unreachable");
  EXPECT_EQ(rows[4][2]["c"], "bad");
  EXPECT_EQ(rows[4][6]["t"], "connection refused");
  EXPECT_FALSE(rows[0][2].contains("c"));
}

// Bandwidth (higher is better): the scale never goes below the slowest measured link (the
// old one extrapolated to "-0.045 GB/s"); a threshold off the measured range is said so; the
// pairs counted are the test's own (a round trip shown both ways is one pair); rows are
// grouped by the switch where the ranks name one.
TEST(ReportModelMatrix, BandwidthScaleMeasuredPairsAndSwitchGroups) {
  json doc = testdocs::matrix_doc();
  json& t = doc["matrix"]["tests"][0];
  t["unit"] = "B/s";
  t["better"] = "higher";
  t["figure"] = "bandwidth.recv_Bps";
  for (json& row : t["values"]) {
    for (json& v : row) {
      if (v.is_number()) v = v.get<double>() * 1e5;  // 1.2 to 9.5 GB/s
    }
  }
  t["median"] = 1.215e9;
  t["threshold"] = 0.6e9;  // below every value
  t["measured"] = 6;
  for (json& r : doc["matrix"]["ranks"]) r["switch"] = r["rank"].get<int>() < 2 ? "sw1" : "sw2";
  const json model = build({{"matrix.json", doc}});
  const json* heat = find_chart(*find_section(model, "-m0"), "heatmap");
  ASSERT_NE(heat, nullptr);
  const json& scale = (*heat)["scale"];
  EXPECT_EQ(scale["best"], "9.5 GB/s");
  EXPECT_EQ(scale["worst"], "1.2 GB/s");
  EXPECT_GT(scale["worst_v"].get<double>(), 0);
  EXPECT_TRUE(scale["marks"][1]["at"].is_null()) << scale.dump();
  EXPECT_EQ((*heat)["measured"], 6);
  EXPECT_EQ((*heat)["unit"], "GB/s");
  ASSERT_EQ((*heat)["groups"].size(), 2u);
  EXPECT_EQ((*heat)["groups"][0], json({{"label", "sw1"}, {"first", 0}, {"last", 1}}));
  EXPECT_EQ((*heat)["groups"][1], json({{"label", "sw2"}, {"first", 2}, {"last", 4}}));
  // The fastest cell is green, the slowest red.
  for (const json& cell : (*heat)["cells"]) {
    if (cell[0] == 3 && cell[1] == 0) {
      EXPECT_EQ(cell[3], heat_color(0));
    }
    if (cell[0] == 1 && cell[1] == 0) {
      EXPECT_EQ(cell[3], heat_color(1));
    }
  }
}

// A job of `n` ranks on hosts h0..h(n-1), every pair measured.
json matrix_of(int n) {
  json doc = testdocs::matrix_doc();
  json values = json::array(), ranks = json::array();
  for (int row = 0; row < n; ++row) {
    json r = json::array();
    for (int col = 0; col < n; ++col) r.push_back(row == col ? json() : json(12000.0 + col));
    values.push_back(r);
    ranks.push_back({{"rank", row}, {"host", "h" + std::to_string(row)}, {"status", "ok"}});
  }
  doc["matrix"]["ranks"] = ranks;
  doc["matrix"]["nodes"] = json::array();
  json& t = doc["matrix"]["tests"][0];
  t["values"] = values;
  t["suspects"] = json::array();
  return doc;
}

// Every cell carries its value as text up to 32 ranks (kMaxLabelledRanks), none above: 33
// ranks' cells are too small to read. Rows are labelled "host (rank)" either way.
TEST(ReportModelMatrix, CellValuesUpToThirtyTwoRanks) {
  for (int n : {32, 33}) {
    const json model = build({{"matrix.json", matrix_of(n)}});
    const json* sec = find_section(model, "-m0");
    ASSERT_NE(sec, nullptr) << n;
    const json* heat = find_chart(*sec, "heatmap");
    ASSERT_NE(heat, nullptr) << n;
    ASSERT_EQ((*heat)["labels"].size(), static_cast<size_t>(n));
    EXPECT_EQ((*heat)["labels"][n - 1],
              "h" + std::to_string(n - 1) + " (" + std::to_string(n - 1) + ")");
    EXPECT_EQ((*heat)["cells"].size(), static_cast<size_t>(n * (n - 1)));
    EXPECT_EQ((*heat)["cell_text"].get<bool>(), n <= 32) << n;
  }
}

TEST(ReportModelMatrix, LongSuspectListsAreCutInTheTableOnly) {
  json doc = testdocs::matrix_doc();
  json& suspects = doc["matrix"]["tests"][0]["suspects"];
  for (int i = 0; i < 29; ++i)
    suspects.push_back({{"a", 1}, {"b", 2}, {"value", 1.0}, {"verdict", "bad_node"}});
  const json model = build({{"matrix.json", doc}});
  const json* sec = find_section(model, "-m0");
  ASSERT_NE(sec, nullptr);
  EXPECT_EQ((*find_chart(*sec, "heatmap"))["suspects"].size(), 30u);
  const json& rows = (*sec)["tables"][1]["rows"];
  ASSERT_EQ(rows.size(), 25u);
  EXPECT_EQ(rows[24][1]["t"], "6 more");
}

TEST(ReportModelResults, FailedResultsAreListedWithTheirError) {
  json failed = {{"test", "sctp_lat"}, {"status", "error"}, {"error", "SCTP is not available"}};
  const json model =
      build({{"run.json", run_doc({latency_result("tcp_lat", 1, {5000}, 0.5), failed})}});
  const json* sec = find_section(model, "results");
  ASSERT_NE(sec, nullptr);
  const json& rows = (*sec)["tables"][0]["rows"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][2]["c"], "bad");
  EXPECT_EQ(rows[1][7]["t"], "SCTP is not available");  // after elapsed, value, overlapped
  EXPECT_EQ(model["title"], "fabperf report: tcp_lat");
}

// An interrupted run's figures are drawn and said to be partial; a run that shared the server
// with other clients' runs (--concurrent) names them beside its charts and in the table.
TEST(ReportModelResults, InterruptedAndOverlappedRunsAreSaidSo) {
  json cut = latency_result("tcp_lat", 1, {5000, 6000, 7000}, 0.5);
  cut["status"] = "interrupted";
  cut["elapsed_s"] = 1.5;
  cut["overlapped"] = {"10.0.0.7 tcp_bw"};
  const json model = build({{"run.json", run_doc({cut})}});
  EXPECT_EQ(model["title"], "fabperf report: tcp_lat (interrupted)");
  EXPECT_EQ(model["runs"][0]["status"], "interrupted");
  std::string header_status;
  for (const json& row : model["runs"][0]["header"]) {
    if (row[0] == "status") header_status = row[1];
  }
  EXPECT_NE(header_status.find("interrupted (SIGINT/SIGTERM) during tcp_lat after 1.5 s"),
            std::string::npos)
      << header_status;
  // The histogram is still drawn, and its section carries both notes.
  const json* lat = find_section(model, "latency");
  ASSERT_NE(lat, nullptr) << model.dump().substr(0, 2000);
  EXPECT_NE(find_chart(*lat, "histogram"), nullptr);
  std::string notes;
  for (const json& n : (*lat)["notes"]) notes += n.get<std::string>() + "\n";
  EXPECT_NE(notes.find("interrupted after 1.5 s of the 2 s asked for"), std::string::npos) << notes;
  EXPECT_NE(notes.find("1 other client run(s) shared the server"), std::string::npos) << notes;
  EXPECT_NE(notes.find("10.0.0.7 tcp_bw"), std::string::npos) << notes;
  // The every-result table: status, elapsed time and who overlapped.
  const json* sec = find_section(model, "results");
  ASSERT_NE(sec, nullptr);
  const json& row = (*sec)["tables"][0]["rows"][0];
  EXPECT_EQ(row[2]["t"], "interrupted");
  EXPECT_EQ(row[3]["v"].get<double>(), 1.5);
  EXPECT_EQ(row[6]["t"], "10.0.0.7 tcp_bw");

  const json whole = build({{"run.json", run_doc({latency_result("tcp_lat", 1, {5000}, 0.5)})}});
  EXPECT_EQ(whole["runs"][0]["status"], "ok");
}

// A result measured under host noise opens the page with a banner naming its causes; a quiet
// one adds none. (The interval rates are the run's own, not re-derived over a sliver.)
TEST(ReportModelResults, HostNoiseGetsABanner) {
  json noisy = latency_result("tcp_lat", 1, {5000, 6000}, 0.5);
  noisy["host_noise"] = {
      {"verdict", "noisy"},
      {"loc",
       {{"verdict", "noisy"},
        {"causes", {{{"cause", "cpu_wait"}, {"text", "waited for a CPU 53% of the run"}}}}}},
      {"rem", {{"verdict", "quiet"}, {"causes", json::array()}}}};
  json quiet = latency_result("udp_lat", 1, {5000}, 0.5);
  quiet["host_noise"] = {{"verdict", "quiet"}};
  const json model = build({{"run.json", run_doc({noisy, quiet})}});
  ASSERT_EQ(model["banners"].size(), 1u) << model["banners"].dump();
  EXPECT_EQ(model["banners"][0],
            "tcp_lat: measured under host noise: the client's measuring thread waited for a CPU "
            "53% of the run; its figures are not trustworthy.");
  EXPECT_TRUE(build({{"run.json", run_doc({quiet})}})["banners"].empty());
}

TEST(ReportModelHeader, RunHeaderNamesHostsClockAndParameters) {
  const json model = build({{"run.json", run_doc({latency_result("tcp_lat", 1, {5000}, 0.5)})}});
  const json& header = model["runs"][0]["header"];
  auto value = [&](const std::string& name) {
    for (const json& row : header) {
      if (row[0] == name) return row[1].get<std::string>();
    }
    return std::string();
  };
  EXPECT_EQ(value("clock"), "CLOCK_MONOTONIC_RAW");
  EXPECT_EQ(value("fabperf version"), "0.1.0");
  EXPECT_NE(value("client").find("alpha"), std::string::npos);
  EXPECT_EQ(value("provider"), "kernel sockets");
  EXPECT_NE(value("parameters").find("msg_size=1"), std::string::npos);
  EXPECT_EQ(value("command"), "fabperf --loopback tcp_lat");
}

// Every value of every document, replaced in turn by every wrong type: the data step and the
// page either draw it or name what is wrong, and never throw or crash.
TEST(ReportModelRobustness, AnyValueOfAnyTypeAnywhere) {
  json sweep = run_doc({latency_result("tcp_lat", 1, {5000, 9000}, 0.5),
                        latency_result("tcp_lat", 64, {6000}, 0.5)});
  sweep["results"][1]["loop"] = {{"msg_size", 64}};
  sweep["results"][0]["info"] = {{"loc", {{"provider", "tcp"}}}};
  sweep["results"][0]["intervals"] = testdocs::interval_doc()["results"][0]["intervals"];
  const std::vector<json> replacements = {
      nullptr, "x", -1, 1e308, json::array(), json::object(), json::array({json::array({1, 2})})};
  size_t tried = 0;
  for (const json& doc : {sweep, testdocs::matrix_doc()}) {
    std::set<std::string> paths;
    const json leaves = doc.flatten();
    for (const auto& [leaf, value] : leaves.items()) {
      for (size_t slash = leaf.find('/', 1); slash != std::string::npos;
           slash = leaf.find('/', slash + 1)) {
        paths.insert(leaf.substr(0, slash));
      }
      paths.insert(leaf);
    }
    for (const std::string& path : paths) {
      for (const json& bad : replacements) {
        json mutated = doc;
        mutated[json::json_pointer(path)] = bad;
        ++tried;
        EXPECT_NO_THROW({
          auto model = build_report_model({{"m.json", mutated}});
          if (model.ok()) (void)render_html(*model).size();
        }) << path
           << " = " << bad.dump();
      }
    }
  }
  EXPECT_GT(tried, 500u);
}

TEST(ChartModel, UnitsAndText) {
  EXPECT_EQ(format_value(7140, latency_unit(7140)), "7.14 \u00b5s");
  EXPECT_EQ(format_value(950, latency_unit(950)), "950 ns");
  EXPECT_EQ(format_value(3.2e9, bandwidth_unit(3.2e9)), "3.2 GB/s");
  EXPECT_EQ(format_value(12345, {"", 1}), "12345");
  EXPECT_EQ(format_value(NAN, {"ns", 1}), "0 ns");
  EXPECT_EQ(format_value(2e6, rate_unit(2e6)), "2 M/s");
  EXPECT_EQ(format_value(20, rate_unit(20)), "20/s");
  EXPECT_EQ(size_text(65536), "64K");
  EXPECT_EQ(size_text(1000), "1000");
  EXPECT_EQ(size_text(1 << 20), "1M");
  EXPECT_EQ(heat_color(0), "#1a9850");
  EXPECT_EQ(heat_color(1), "#d73027");
  EXPECT_EQ(heat_color(-3), heat_color(0));
}

}  // namespace
}  // namespace fabperf::report

namespace fabperf::report {
namespace {

// The page's unit rule: from the bulk (median), so one outlier does not turn a column of
// microseconds into milliseconds; the axis ends at the bulk's fence, outliers past it.
TEST(ChartModel, UnitsFromTheBulkAndAxisLimits) {
  EXPECT_EQ(bulk_unit("ns", {7000, 8000, 9000, 2e6}).name, "\u00b5s");
  EXPECT_EQ(latency_unit(2e6).name, "ms");                // what the largest would have chosen
  EXPECT_EQ(bulk_unit("Bps", {0, 0, 2e9}).name, "GB/s");  // zeros are no bulk
  EXPECT_EQ(bulk_unit("ns", {}).name, "ns");
  EXPECT_DOUBLE_EQ(bulk_of({5, 1, 3}), 3);
  // Log axis: 2 ms among ~10 us values lies past the fence (at least 10x Q3).
  const double limit = axis_limit({9000, 10000, 11000, 12000, 13000, 2e6}, true);
  EXPECT_GT(limit, 12000 * 10.0);  // Q3 lies between 12 and 13 us
  EXPECT_LT(limit, 2e6);
  EXPECT_EQ(axis_limit({9000, 10000, 11000, 12000, 13000, 90000}, true), 0);  // within 10x
  EXPECT_EQ(axis_limit({1, 2, 3}, true), 0);  // too few to have a bulk
  EXPECT_GT(axis_limit({1, 1.1, 1.2, 1.3, 1.1, 50}, false), 1.3);
  EXPECT_EQ(axis_limit({1, 1.1, 1.2, 1.3, 1.1, 2.2}, false), 0);
}

json sweep_doc(double scale, double outlier_at_64k) {
  std::vector<json> results;
  for (uint64_t size = 1; size <= 65536; size *= 16) {
    std::vector<uint64_t> raw;
    for (int i = 0; i < 200; ++i) raw.push_back(static_cast<uint64_t>((18000 + 40 * i) * scale));
    json r = latency_result("tcp_lat", size, raw, 0.5);
    r["loop"] = {{"msg_size", size}};
    if (size == 65536 && outlier_at_64k > 0) r["latency_ns"]["p99"] = outlier_at_64k;
    results.push_back(r);
  }
  return run_doc(results);
}

// Two runs of a sweep: every series tagged with its run and statistic and none hidden, a
// ratio chart against the first run beside the absolute one, the parameter that differs on
// top, and tables in one unit a column.
TEST(ReportModelCompare, TwoRunsAreGroupsWithARatioChartAndTheirDifferences) {
  json a = sweep_doc(1.0, 0);
  json b = sweep_doc(0.8, 2e6);  // 20% faster, with one 2 ms p99 at 64K
  for (json& r : b["results"]) r["params"]["cq_poll"] = true;
  const json model = build({{"block.json", a}, {"poll.json", b}});
  ASSERT_TRUE(model.contains("differences"));
  ASSERT_EQ(model["differences"].size(), 1u) << model["differences"].dump();
  EXPECT_EQ(model["differences"][0], json({{"name", "cq_poll"}, {"values", {"-", "1"}}}));
  const json* sec = find_section(model, "-sweep");
  ASSERT_NE(sec, nullptr);
  const json* abs = find_chart(*sec, "line");
  const json* ratio = find_chart(*sec, "ratio");
  ASSERT_NE(abs, nullptr);
  ASSERT_NE(ratio, nullptr);
  EXPECT_EQ((*abs)["y"]["unit"], "\u00b5s");  // not ms, for all the 2 ms p99
  ASSERT_TRUE((*abs)["y"].contains("max"));   // which sits on the axis' edge
  EXPECT_LT((*abs)["y"]["max"].get<double>(), 2000);
  size_t past_edge = 0;
  for (const json& s : (*abs)["series"]) {
    EXPECT_TRUE(s.contains("run")) << s["label"];
    EXPECT_TRUE(s.contains("stat")) << s["label"];
    EXPECT_FALSE(s.contains("hidden")) << s["label"];
    for (const json& p : s["points"]) past_edge += p[1].get<double>() > (*abs)["y"]["max"];
  }
  // Exactly the outlier is past the axis' end: the page draws it as a marker on the edge,
  // with its value (data-clipped in the browser test).
  EXPECT_EQ(past_edge, 1u);
  EXPECT_EQ((*ratio)["of"], (*abs)["id"]);
  EXPECT_EQ((*ratio)["base"], 0);
  ASSERT_EQ((*ratio)["series"].size(), 3u);  // poll.json's p50, p99, mean over block.json's
  EXPECT_EQ((*ratio)["series"][0]["label"], "poll.json p50 / block.json");
  EXPECT_NEAR((*ratio)["series"][0]["points"][0][1].get<double>(), 0.8, 0.01);
  // The distribution section: every histogram drawn, none waiting for a click.
  const json* dist = find_section(model, "-latency");
  ASSERT_NE(dist, nullptr);
  const json* hist = find_chart(*dist, "histogram");
  ASSERT_NE(hist, nullptr);
  EXPECT_EQ((*hist)["series"].size(), 10u);
  for (const json& s : (*hist)["series"]) EXPECT_FALSE(s.contains("hidden"));
  // One unit a column, from the column's bulk: p99's column stays in microseconds.
  const json& columns = (*dist)["tables"][0]["columns"];
  EXPECT_EQ(columns[0], "series");
  EXPECT_NE(std::find(columns.begin(), columns.end(), "p99 (\u00b5s)"), columns.end())
      << columns.dump();
}

// --repeat: a run's repetitions of one size are one distribution, every sample of them.
TEST(ReportModelCompare, RepetitionsAreDrawnAsOneDistribution) {
  std::vector<json> results;
  for (int rep = 1; rep <= 3; ++rep) {
    std::vector<uint64_t> raw;
    for (int i = 0; i < 100; ++i) raw.push_back(static_cast<uint64_t>(10000 * rep + 10 * i));
    json r = latency_result("tcp_lat", 64, raw, 0.5);
    r["repetition"] = rep;
    r["repetitions"] = 3;
    results.push_back(r);
  }
  const json model = build({{"run.json", run_doc(results)}});
  const json* dist = find_section(model, "-latency");
  ASSERT_NE(dist, nullptr);
  const json* hist = find_chart(*dist, "histogram");
  ASSERT_NE(hist, nullptr);
  size_t histograms = 0;
  for (const json& s : (*hist)["series"]) histograms += s.value("stat", "") == "histogram";
  EXPECT_EQ(histograms, 1u);
  const json& rows = (*dist)["tables"][0]["rows"];
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0]["t"], "tcp_lat (3 repetitions)");
  EXPECT_EQ(rows[0][1]["v"], 300);                         // samples of all three
  EXPECT_EQ(rows[0][2]["v"], 5000);                        // the smallest of all (half of 10 us)
  EXPECT_NEAR(rows[0][3]["v"].get<double>(), 10247.5, 1);  // the mean of all
  // The p50 of every sample: the second repetition's middle, not any one's own p50.
  const json p50 = rows[0][4];
  EXPECT_EQ(p50["k"], "latency_ns.p50");
  EXPECT_NEAR(p50["v"].get<double>(), 10245, 10);  // rank 150 of 300: 20490 ns / 2
}

TEST(ReportModelCompare, OneRunHasNoDifferencesOrRatio) {
  const json model = build({{"a.json", sweep_doc(1.0, 0)}});
  EXPECT_FALSE(model.contains("differences"));
  EXPECT_EQ(find_chart(*find_section(model, "-sweep"), "ratio"), nullptr);
}

}  // namespace
}  // namespace fabperf::report
