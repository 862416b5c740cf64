// End-to-end tests of HTML reports: `--html` on a real run (both dialects), `fabperf report` on
// saved JSON and its errors, `fabperf compare --html` on two real runs, and the pages opened
// in headless Chromium (one browser start each, two for the latency and compare pages), whose
// screenshots are kept in build/report-screenshots/ for a person to look at, and the --html
// page of a --matrix job under mpirun. An --interval page is read back from its canvas pixels
// (each interval drawn over its own span); the data step has its unit tests
// (report_model_test.cc).
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "browser_util.h"
#include "e2e_cluster_util.h"
#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "report/chart_model.h"
#include "report_docs_util.h"

namespace fabperf::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr uintmax_t kMaxReportBytes = 2 * 1024 * 1024;

// Where reports and screenshots stay after the test: build/report-screenshots/.
fs::path keep_dir() {
  fs::path dir = fs::path(beside_fabperf("report-screenshots"));
  fs::create_directories(dir);
  return dir;
}

// Every table of the page that measured itself (data-fits) must fit its card; returns how
// many did, for the caller's count of the tables it expects.
size_t expect_tables_fit(const std::string& dom) {
  size_t measured = 0;
  for (auto& t : elements(dom, "table")) {
    if (!t.count("data-fits")) continue;
    ++measured;
    EXPECT_EQ(t["data-fits"], "yes")
        << t["data-title"] << ": " << t["data-width"] << " px in " << t["data-room"] << " px";
  }
  return measured;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_json(const fs::path& path, const json& doc) { std::ofstream(path) << doc.dump(2); }

std::string run_text(const RunOutput& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

// The page rendered every chart, the library drew elements in each, nothing went to the
// console, and the figures listed in `expect_types` are there. Returns the figures.
std::vector<std::map<std::string, std::string>> expect_rendered(
    const PageView& view, const std::vector<std::string>& expect_types) {
  EXPECT_TRUE(view.ok) << view.error;
  for (const std::string& line : view.console) ADD_FAILURE() << "console: " << line;
  auto bodies = elements(view.dom, "body");
  EXPECT_EQ(bodies.size(), 1u);
  if (!bodies.empty()) {
    // The page lists its own errors (uncaught exceptions included) in #report-errors.
    const size_t errors = view.dom.find("<ul id=\"report-errors\"");
    const std::string listed = errors == std::string::npos ? "" : view.dom.substr(errors, 1000);
    EXPECT_EQ(bodies[0]["data-status"], "rendered") << listed;
    EXPECT_EQ(bodies[0].count("data-errors"), 0u) << listed;
  }
  auto figures = elements(view.dom, "figure");
  EXPECT_FALSE(figures.empty());
  for (auto& f : figures) {
    EXPECT_EQ(f["data-rendered"], "yes") << f["id"];
    EXPECT_GT(std::atoi(f["data-elements"].c_str()), 0) << f["id"];
  }
  for (const std::string& type : expect_types) {
    bool found = false;
    for (auto& f : figures) found = found || f["data-type"] == type;
    EXPECT_TRUE(found) << "no " << type << " chart";
  }
  return figures;
}

// Every table cell showing `key`'s figures, by the exact value it carries.
std::vector<double> cell_values(const std::string& dom, const std::string& key) {
  std::vector<double> out;
  for (auto& td : elements(dom, "td")) {
    if (td["data-key"] == key) out.push_back(std::strtod(td["data-value"].c_str(), nullptr));
  }
  return out;
}

// The model a page embeds (the data its script draws).
json model_of(const std::string& page) {
  const std::string open = "<script id=\"fabperf-model\" type=\"application/json\">";
  const size_t start = page.find(open);
  if (start == std::string::npos) return json();
  const size_t end = page.find("</script>", start);
  return json::parse(page.substr(start + open.size(), end - start - open.size()), nullptr, false);
}

// A copy of the page at `html` with `script` run after the page's own (the test's probe:
// it reads what the page drew and writes it into the DOM the browser dumps).
fs::path with_probe(const fs::path& html, const std::string& script) {
  std::string page = slurp(html);
  const size_t end = page.rfind("</body>");
  page.insert(end == std::string::npos ? page.size() : end, "<script>" + script + "</script>\n");
  fs::path out = html;
  out.replace_extension(".probed.html");
  std::ofstream(out, std::ios::binary) << page;
  return out;
}

// Reads the pixels a step chart drew: for each [start, end] of window.spans[figure id], the
// rows of the canvas near the span's midpoint in the first series' colour, as the value on
// the y axis their middle stands for (data-read), with one pixel's worth of y (data-pixel).
// Not Chart.js's interpolate(), which disagrees with what its stepped lines draw.
constexpr const char* kStepProbe = R"JS(
window.addEventListener('load', () => setTimeout(() => {
  for (const [id, spans] of Object.entries(window.spans)) {
    const fig = document.getElementById(id);
    const chart = Chart.getChart(fig.querySelector('canvas'));
    const ratio = chart.currentDevicePixelRatio || 1;
    const ctx = chart.canvas.getContext('2d');
    const swatch = document.createElement('canvas').getContext('2d');
    swatch.fillStyle = chart.data.datasets[0].borderColor;
    swatch.fillRect(0, 0, 1, 1);
    const [r, g, b] = swatch.getImageData(0, 0, 1, 1).data;
    const ys = chart.scales.y, xs = chart.scales.x, area = chart.chartArea;
    const top = Math.floor(area.top * ratio), bottom = Math.ceil(area.bottom * ratio);
    const width = chart.canvas.width;
    const px = ctx.getImageData(0, 0, width, chart.canvas.height).data;  // one readback
    const read = spans.map(([start, end]) => {
      const x = Math.round(xs.getPixelForValue((start + end) / 2) * ratio);
      const rows = [];
      for (let row = 0; row < bottom - top; ++row) {
        for (let col = x - 4; col <= x + 4; ++col) {
          const i = 4 * ((top + row) * width + col);
          if (px[i + 3] > 200 && Math.abs(px[i] - r) + Math.abs(px[i + 1] - g) +
              Math.abs(px[i + 2] - b) < 60) { rows.push(row); break; }
        }
      }
      if (!rows.length) return null;
      const mid = top + (rows[0] + rows[rows.length - 1]) / 2 + 0.5;
      return ys.getValueForPixel(mid / ratio);
    });
    fig.dataset.read = JSON.stringify(read);
    fig.dataset.pixel = String((ys.max - ys.min) / (ys.bottom - ys.top));
  }
  document.body.dataset.probed = 'yes';
}, 200));
)JS";

// A page that shows the page at `html` in one iframe per width (srcdoc: the same origin, so
// its script can read them), then reads back what each drew and clicks run 1's toggle in the
// last: one browser start for several widths and a click. It writes <p class="probe"> rows:
// data-what = page (status, errors), figure (id, rendered, runs, hidden, hidden-after: after
// the click), table (title, fits, width, room), each with data-frame = the width.
fs::path at_widths(const fs::path& html, const std::vector<int>& widths) {
  std::string page = slurp(html), escaped;
  for (char c : page) {
    if (c == '&') {
      escaped += "&amp;";
    } else if (c == '"') {
      escaped += "&quot;";
    } else {
      escaped += c;
    }
  }
  std::string out = "<!DOCTYPE html><html><body style=\"margin:0\"><div id=\"probes\"></div>\n";
  for (int w : widths) {
    out += "<iframe data-width=\"" + std::to_string(w) + "\" style=\"width:" + std::to_string(w) +
           "px;height:2400px;border:0;display:block\" srcdoc=\"" + escaped + "\"></iframe>\n";
  }
  out += R"JS(<script>
window.addEventListener('load', () => setTimeout(() => {
  const probes = document.getElementById('probes');
  const add = (attrs) => {
    const p = document.createElement('p');
    p.className = 'probe';
    for (const [k, v] of Object.entries(attrs)) p.setAttribute('data-' + k, String(v));
    probes.appendChild(p);
    return p;
  };
  const frames = Array.from(document.querySelectorAll('iframe'));
  const last = frames[frames.length - 1].contentDocument;
  const shown = new Map();
  for (const fig of last.querySelectorAll('figure')) shown.set(fig.id, fig.dataset.hidden);
  const toggle = last.querySelector('#run-bar input[data-run="1"]');
  if (toggle) toggle.click();
  for (const f of frames) {
    const doc = f.contentDocument, frame = f.dataset.width;
    add({what: 'page', frame, status: doc.body.dataset.status || '',
         errors: doc.body.dataset.errors || '0', 'hidden-runs': doc.body.dataset.hiddenRuns || ''});
    for (const fig of doc.querySelectorAll('figure')) {
      const p = add({what: 'figure', frame, id: fig.id, rendered: fig.dataset.rendered,
                     runs: fig.dataset.runs || '', hidden: fig.dataset.hidden || ''});
      if (doc === last) {
        p.setAttribute('data-hidden', shown.get(fig.id) || '');
        p.setAttribute('data-hidden-after', fig.dataset.hidden || '');
      }
    }
    for (const t of doc.querySelectorAll('table[data-fits]')) {
      add({what: 'table', frame, title: t.dataset.title, fits: t.dataset.fits,
           width: t.dataset.width, room: t.dataset.room});
    }
  }
  document.body.dataset.probed = toggle ? 'clicked' : 'no toggle';
}, 300));
</script></body></html>
)JS";
  fs::path path = html;
  path.replace_extension(".widths.html");
  std::ofstream(path, std::ios::binary) << out;
  return path;
}

TEST(ReportCxi, FabToolsWriteTheReportToo) {
  const fs::path dir = keep_dir();
  const fs::path json_path = dir / "cxi.json", html = dir / "cxi.html";
  RunOutput r = run({"-n", "16", "-s", "1024:4096", "--provider", "tcp", "--json",
                     json_path.string(), "--html", html.string()},
                    120, beside_fabperf("fab_loopback_bw"));
  if (r.exit_code != 0 && contains(r.err, "libfabric not found")) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  const json doc = json::parse(slurp(json_path));
  const json model = model_of(slurp(html));
  ASSERT_TRUE(model.is_object());
  // fab_* -s MIN:MAX is a size sweep: bandwidth against size, one row per size.
  const json* sweep = nullptr;
  for (const json& s : model["sections"]) {
    if (s["id"] == "t0-sweep") sweep = &s;
  }
  ASSERT_NE(sweep, nullptr) << model.dump().substr(0, 2000);
  const json& rows = (*sweep)["tables"][0]["rows"];
  ASSERT_EQ(rows.size(), doc["results"].size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& bw = doc["results"][i]["bandwidth"];
    const double expected = bw["recv_Bps"].get<double>() > 0 ? bw["recv_Bps"].get<double>()
                                                             : bw["send_Bps"].get<double>();
    EXPECT_EQ(rows[i][1]["v"].get<double>(), expected) << i;
  }
}

// SIGINT during a run: the page is still written, from the figures measured so far, and says
// the run was interrupted (the JSON beside it says the same, its histogram as full as its
// figures).
TEST(ReportSignals, InterruptedRunStillWritesItsPageMarkedSo) {
  LoggedServer server;
  TempDir dir;
  const std::string json_path = dir.file("cut.json"), html = dir.file("cut.html");
  Proc client({"127.0.0.1", "-lp", server.port_arg(), "-t", "30", "--json", json_path, "--html",
               html, "tcp_lat"});
  // Measuring: the server holds the control connection and the test's own.
  bool measuring = false;
  for (int i = 0; i < 400 && !measuring; ++i) {
    measuring = connected_peers(server.pid()).size() >= 2;
    if (!measuring) usleep(50 * 1000);
  }
  ASSERT_TRUE(measuring) << "the run never started: " << client.err();
  usleep(300 * 1000);  // some samples (the figures are checked against each other, not a count)
  client.signal(SIGINT);
  ASSERT_EQ(client.wait(20), 130) << client.err();
  const json doc = json::parse(read_file(json_path));
  ASSERT_EQ(doc["results"].size(), 1u);
  const json& res = doc["results"][0];
  EXPECT_EQ(res["status"], "interrupted");
  EXPECT_EQ(res["latency_histogram"]["count"], res["latency_ns"]["samples"]);
  const json model = model_of(read_file(html));
  ASSERT_TRUE(model.is_object()) << read_file(html).substr(0, 500);
  EXPECT_EQ(model["runs"][0]["status"], "interrupted");
  EXPECT_TRUE(contains(model["title"].get<std::string>(), "(interrupted)")) << model["title"];
  bool histogram = false;
  for (const json& sec : model["sections"]) {
    for (const json& chart : sec["charts"]) histogram = histogram || chart["type"] == "histogram";
  }
  EXPECT_TRUE(histogram) << "the measured part is drawn";
}

class ReportBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    chromium_ = find_chromium(&why);
    if (chromium_.empty()) GTEST_SKIP() << why;
  }
  std::string chromium_;
};

TEST(ReportCommand, BadInputIsNamedWithItsExitStatus) {
  const fs::path dir = keep_dir() / "bad-input";
  fs::create_directories(dir);
  const std::string out = (dir / "out.html").string();
  fs::remove(out);
  RunOutput r = run({"report", (dir / "missing.json").string(), "-o", out});
  EXPECT_EQ(r.exit_code, 1) << run_text(r);
  EXPECT_TRUE(contains(r.err, "missing.json: cannot read the file")) << r.err;

  std::ofstream(dir / "broken.json") << "{\"tool\": \"fabperf\", ";
  r = run({"report", (dir / "broken.json").string(), "-o", out});
  EXPECT_EQ(r.exit_code, 1) << run_text(r);
  EXPECT_TRUE(contains(r.err, "broken.json: truncated")) << r.err;

  json newer = testdocs::run_doc({});
  newer["schema"] = 99;
  write_json(dir / "newer.json", newer);
  r = run({"report", (dir / "newer.json").string(), "-o", out});
  EXPECT_EQ(r.exit_code, 1) << run_text(r);
  EXPECT_TRUE(contains(r.err, "newer.json: schema 99 comes from a newer fabperf")) << r.err;

  // A number no double holds aborted the program (rc 134, review N6): now the file and the
  // field are named.
  std::string huge = testdocs::run_doc({}).dump();
  size_t at = huge.find("\"schema\":");
  ASSERT_NE(at, std::string::npos) << huge;
  huge.insert(at, "\"extra\": {\"figure\": [1, 1e999999]}, ");
  std::ofstream(dir / "huge.json") << huge;
  r = run({"report", (dir / "huge.json").string(), "-o", out});
  EXPECT_EQ(r.exit_code, 1) << run_text(r);
  EXPECT_TRUE(contains(r.err,
                       "huge.json: not valid JSON: field extra.figure[1]: the number "
                       "1e999999 is out of range"))
      << r.err;

  write_json(dir / "other.json", json{{"start", 1}, {"intervals", json::array()}});
  r = run({"report", (dir / "other.json").string(), "-o", out});
  EXPECT_EQ(r.exit_code, 1) << run_text(r);
  EXPECT_TRUE(contains(r.err, "not a fabperf document")) << r.err;

  write_json(dir / "good.json", testdocs::run_doc({}));
  r = run({"report", (dir / "good.json").string()});
  EXPECT_EQ(r.exit_code, 2) << run_text(r);
  EXPECT_TRUE(contains(r.err, "-o FILE.html")) << r.err;
  r = run({"report", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << run_text(r);
  r = run({"report", "--bogus", (dir / "good.json").string(), "-o", out});
  EXPECT_EQ(r.exit_code, 2) << run_text(r);
  EXPECT_TRUE(contains(r.err, "unknown option --bogus")) << r.err;
  r = run({"report", (dir / "good.json").string(), "-o", (dir / "no-dir" / "x.html").string()});
  EXPECT_EQ(r.exit_code, 1) << run_text(r);
  EXPECT_TRUE(contains(r.err, "x.html: cannot write the file")) << r.err;
  EXPECT_FALSE(fs::exists(out));  // nothing half-written on any failure

  r = run({"report", (dir / "good.json").string(), "-o", out});
  EXPECT_EQ(r.exit_code, 0) << run_text(r);
  EXPECT_TRUE(fs::exists(out));
  r = run({"--loopback", "--html", (dir / "no-dir" / "x.html").string(), "tcp_lat"});
  EXPECT_EQ(r.exit_code, 2) << run_text(r);
  EXPECT_TRUE(contains(r.err, "--html")) << r.err;
}

TEST_F(ReportBrowserTest, LatencyRunDrawsItsDistribution) {
  const fs::path dir = keep_dir();
  const fs::path json_path = dir / "latency.json", html = dir / "latency.html";
  RunOutput r = run({"--loopback", "-n", "20000", "--json", json_path.string(), "--html",
                     html.string(), "tcp_lat"},
                    120);
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  ASSERT_TRUE(contains(r.out, "latency")) << r.out;  // the text report still goes to stdout
  const json doc = json::parse(slurp(json_path));
  ASSERT_TRUE(doc["results"][0].contains("latency_histogram"));
  EXPECT_LT(fs::file_size(html), kMaxReportBytes);

  const PageView view =
      open_page(chromium_, html.string(), (dir / "latency.png").string(), 1400, 1500);
  expect_rendered(view, {"histogram", "percentile"});
  // The numbers in the page are the JSON's.
  const json& lat = doc["results"][0]["latency_ns"];
  for (const char* key :
       {"min", "mean", "p50", "p90", "p99", "p99_9", "p99_99", "max", "samples"}) {
    auto values = cell_values(view.dom, std::string("latency_ns.") + key);
    ASSERT_FALSE(values.empty()) << key;
    EXPECT_EQ(values[0], lat[key].get<double>()) << key;
  }
  EXPECT_TRUE(contains(view.dom, "CLOCK_MONOTONIC_RAW"));
  // The single-run page's tables fit their cards at 1400 px.
  EXPECT_GE(expect_tables_fit(view.dom), 2u);
  EXPECT_GT(fs::file_size(dir / "latency.png"), 10000u);
  // A banner exactly when the run was measured under host noise; the same run marked noisy
  // (its JSON edited) opens its page with the banner, and still draws every chart.
  const bool noisy = doc["results"][0]["host_noise"]["verdict"] == "noisy";
  EXPECT_EQ(contains(view.dom, "class=\"banner\""), noisy);
  json marked = doc;
  marked["results"][0]["host_noise"] = {
      {"verdict", "noisy"},
      {"loc",
       {{"verdict", "noisy"},
        {"causes",
         {{{"cause", "preempted"}, {"text", "was preempted 1,234 times (3.1% of samples)"}}}}}}};
  const fs::path marked_json = dir / "noisy.json", marked_html = dir / "noisy.html";
  std::ofstream(marked_json) << marked.dump();
  RunOutput rep = run({"report", marked_json.string(), "-o", marked_html.string()});
  ASSERT_EQ(rep.exit_code, 0) << run_text(rep);
  const PageView banner =
      open_page(chromium_, marked_html.string(), (dir / "noisy.png").string(), 1400, 1500);
  expect_rendered(banner, {"histogram", "percentile"});
  EXPECT_TRUE(contains(banner.dom, "class=\"banner\"")) << banner.dom.substr(0, 2000);
  EXPECT_TRUE(contains(banner.dom, "was preempted 1,234 times (3.1% of samples)"));
}

TEST_F(ReportBrowserTest, SizeSweepOfTwoRunsOverlays) {
  const fs::path dir = keep_dir();
  const fs::path a = dir / "sweep-a.json", b = dir / "sweep-b.json", html = dir / "sweep.html";
  RunOutput r = run({"--loopback", "-n", "300", "-oo", "msg_size:1:4K:*4", "--json", a.string(),
                     "tcp_lat", "tcp_bw"},
                    180);
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  fs::copy_file(a, b, fs::copy_options::overwrite_existing);
  r = run({"report", a.string(), b.string(), "-o", html.string()});
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  EXPECT_LT(fs::file_size(html), kMaxReportBytes);

  const PageView view =
      open_page(chromium_, html.string(), (dir / "sweep.png").string(), 1400, 2400);
  auto figures = expect_rendered(view, {"line", "histogram", "percentile"});
  // tcp_lat's latency-by-size chart: p50, p99 and mean for each run, 7 sizes each.
  bool found = false;
  for (auto& f : figures) {
    if (f["id"] != "t0-sweep-latency") continue;
    found = true;
    EXPECT_EQ(f["data-series"], "6");
    EXPECT_EQ(f["data-elements"], "42");
  }
  EXPECT_TRUE(found) << view.dom.substr(0, 3000);
  const json doc = json::parse(slurp(a));
  std::vector<double> p50s, bws;
  for (const json& res : doc["results"]) {
    if (res["test"] == "tcp_lat") p50s.push_back(res["latency_ns"]["p50"].get<double>());
    if (res["test"] == "tcp_bw") bws.push_back(res["bandwidth"]["recv_Bps"].get<double>());
  }
  ASSERT_EQ(p50s.size(), 7u);
  ASSERT_EQ(bws.size(), 7u);
  // The sweep table shows each size's p50 for both runs, then the distribution table once more.
  auto shown = cell_values(view.dom, "latency_ns.p50");
  for (double v : p50s) EXPECT_GE(std::count(shown.begin(), shown.end(), v), 2) << v;
  auto shown_bw = cell_values(view.dom, "bandwidth.recv_Bps");
  for (double v : bws) EXPECT_GE(std::count(shown_bw.begin(), shown_bw.end(), v), 2) << v;
}

// A real --interval run, its bandwidths replaced by a staircase whose neighbours differ by a
// fifth of the axis or more: the canvas shows each interval's own value over the middle of
// its span (an interval drawn one early, at its successor's value, reads wrong by tens of
// pixels), and the single-run page's tables fit their cards.
TEST_F(ReportBrowserTest, IntervalRunDrawsEachIntervalOverItsSpan) {
  const fs::path dir = keep_dir();
  const fs::path json_path = dir / "interval.json", html = dir / "interval.html";
  RunOutput r = run(
      {"--loopback", "-t", "1", "--interval", "0.2", "--json", json_path.string(), "tcp_bw"}, 120);
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  json doc = json::parse(slurp(json_path));
  json& intervals = doc["results"][0]["intervals"];
  ASSERT_GE(intervals.size(), 4u) << intervals.dump();
  const double staircase[] = {3, 1, 4, 2, 5};
  std::vector<double> bps;
  json spans = json::array();
  for (size_t i = 0; i < intervals.size(); ++i) {
    json& e = intervals[i];
    bps.push_back(staircase[i % 5] * 1e9);
    e["Bps"] = e["send_Bps"] = bps.back();
    spans.push_back({e["start_s"], e["t_s"]});
  }
  write_json(json_path, doc);
  r = run({"report", json_path.string(), "-o", html.string()});
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  const std::string figure = "t0-intervals-bandwidth";
  const fs::path probed =
      with_probe(html, "window.spans = {\"" + figure + "\": " + spans.dump() + "};" + kStepProbe);

  const PageView view =
      open_page(chromium_, probed.string(), (dir / "interval.png").string(), 1400, 1100);
  expect_rendered(view, {"line"});
  ASSERT_EQ(elements(view.dom, "body")[0]["data-probed"], "yes") << view.dom.substr(0, 2000);
  std::map<std::string, std::string> bw;
  for (auto& f : elements(view.dom, "figure")) {
    if (f["id"] == figure) bw = f;
  }
  ASSERT_FALSE(bw.empty()) << view.dom.substr(0, 3000);
  const report::DisplayUnit unit = report::bulk_unit("Bps", bps);
  EXPECT_EQ(bw["data-y-unit"], unit.name);
  const json read = json::parse(bw["data-read"], nullptr, false);
  const double pixel = std::strtod(bw["data-pixel"].c_str(), nullptr);
  ASSERT_TRUE(read.is_array()) << bw["data-read"];
  ASSERT_EQ(read.size(), bps.size());
  ASSERT_GT(pixel, 0);
  for (size_t i = 0; i < bps.size(); ++i) {
    ASSERT_TRUE(read[i].is_number()) << "interval " << i << ": no line over its middle";
    EXPECT_NEAR(read[i].get<double>(), bps[i] / unit.divisor, 3 * pixel)
        << "interval " << i << " [" << spans[i][0] << ", " << spans[i][1] << "]";
  }
  // The single-run page's tables fit their cards too.
  EXPECT_GE(expect_tables_fit(view.dom), 2u);
}

// Two real sweeps that differ in one parameter, compared as a page and read back from the
// browser at 1024 px: every series of both runs drawn (none hidden), each run a group, the
// latency axis in the unit the bulk of the figures calls for, the ratio series there, the
// difference named on top, and no table wider than its card.
TEST_F(ReportBrowserTest, ComparePageDrawsBothRunsWithRatiosAndFitsItsCards) {
  const fs::path dir = keep_dir();
  const fs::path a = dir / "compare-a.json", b = dir / "compare-b.json",
                 html = dir / "compare.html";
  for (const auto& [path, warmup] : {std::pair{a, "10"}, std::pair{b, "20"}}) {
    RunOutput r = run({"--loopback", "-n", "300", "--warmup", warmup, "-oo", "msg_size:1:4K:*16",
                       "--json", path.string(), "tcp_lat", "tcp_bw"},
                      180);
    ASSERT_EQ(r.exit_code, 0) << run_text(r);
  }
  // One outlier: the later run's 4K p99 a million times its measure, past the latency axis'
  // end however widely a loaded host spreads the other figures (checked below).
  json later = json::parse(slurp(b));
  for (json& res : later["results"]) {
    if (res["test"] == "tcp_lat" && res["params"]["msg_size"] == 4096) {
      res["latency_ns"]["p99"] = res["latency_ns"]["p99"].get<double>() * 1e6;
    }
  }
  write_json(b, later);
  // Every result of the first run measured under host noise: eight banners, folded into one.
  json noisy = json::parse(slurp(a));
  for (json& res : noisy["results"]) {
    res["host_noise"] = {{"verdict", "noisy"},
                         {"loc",
                          {{"verdict", "noisy"},
                           {"causes", {{{"cause", "preempted"}, {"text", "was preempted"}}}}}}};
  }
  write_json(a, noisy);
  RunOutput r = run({"compare", "before=" + a.string(), "after=" + b.string(), "--html",
                     html.string(), "--threshold", "1000000"});
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  EXPECT_LT(fs::file_size(html), kMaxReportBytes);

  const PageView view =
      open_page(chromium_, html.string(), (dir / "compare.png").string(), 1024, 3000);
  auto figures = expect_rendered(view, {"line", "ratio", "histogram", "percentile"});
  std::map<std::string, std::map<std::string, std::string>> by_id;
  for (auto& f : figures) {
    by_id[f["id"]] = f;
    EXPECT_EQ(f["data-hidden"], "0") << f["id"] << ": a series starts hidden";
  }
  // The latency sweep: p50, p99 and mean of each run, both runs there, in the bulk's unit.
  ASSERT_TRUE(by_id.count("t0-sweep-latency")) << view.dom.substr(0, 3000);
  auto& sweep = by_id["t0-sweep-latency"];
  EXPECT_EQ(sweep["data-series"], "6");
  EXPECT_EQ(sweep["data-runs"], "2");
  std::vector<double> figures_ns;
  for (const fs::path& p : {a, b}) {
    const json doc = json::parse(slurp(p));
    for (const json& res : doc["results"]) {
      if (res["test"] != "tcp_lat") continue;
      for (const char* k : {"p50", "p99", "mean"}) figures_ns.push_back(res["latency_ns"][k]);
    }
  }
  ASSERT_EQ(figures_ns.size(), 2u * 3 * 4);
  EXPECT_EQ(sweep["data-y-unit"], report::bulk_unit("ns", figures_ns).name);
  // The outlier is past the axis' end (the data step's fence over these very figures), and
  // sits on its edge as a marker with its value.
  ASSERT_GT(report::axis_limit(figures_ns, true), 0) << "no figure past the fence";
  EXPECT_GE(std::atoi(sweep["data-clipped"].c_str()), 1);
  // Beside it, each of the later run's figures over the first's, and the line at 1.
  ASSERT_TRUE(by_id.count("t0-sweep-latency-ratio"));
  EXPECT_EQ(by_id["t0-sweep-latency-ratio"]["data-series"], "4");
  EXPECT_EQ(by_id["t0-sweep-latency-ratio"]["data-base"], "before");
  EXPECT_EQ(by_id["t0-sweep-latency-ratio"]["data-runs"], "1");
  ASSERT_TRUE(by_id.count("t1-sweep-bandwidth-ratio"));
  // The histogram of every size of both runs, none waiting for a click.
  ASSERT_TRUE(by_id.count("t0-latency-histogram"));
  EXPECT_EQ(by_id["t0-latency-histogram"]["data-runs"], "2");
  // What differs, first: --warmup, 10 in one and 20 in the other.
  const size_t diff = view.dom.find("id=\"differences-table\"");
  ASSERT_NE(diff, std::string::npos);
  EXPECT_TRUE(contains(view.dom.substr(diff, 2000), ">warmup<")) << view.dom.substr(diff, 2000);
  EXPECT_TRUE(contains(view.dom, "id=\"run-bar\""));
  // The banners: one summary ahead of the page, the list (eight or more) folded under it.
  const size_t fold = view.dom.find("<details class=\"banners\"");
  ASSERT_NE(fold, std::string::npos) << view.dom.substr(0, 3000);
  EXPECT_EQ(view.dom.substr(0, fold).find("class=\"banner\""), std::string::npos);
  auto folds = elements(view.dom, "details");
  ASSERT_FALSE(folds.empty());
  EXPECT_GE(std::atoi(folds[0]["data-count"].c_str()), 8);
  // The comparison's tables, and no table wider than its card at 1024 px.
  EXPECT_GE(expect_tables_fit(view.dom), 6u);
  EXPECT_TRUE(contains(view.dom, "id=\"compare-latency_p50\""));
  // A middle width and the other end of the widths people use (tables beside their charts
  // where they fit), in one browser start; in the widest, run 1's toggle clicked.
  const PageView wide = open_page(chromium_, at_widths(html, {1400, 1920}).string(),
                                  (dir / "compare-1400.png").string(), 1920, 2400);
  ASSERT_TRUE(wide.ok) << wide.error;
  for (const std::string& line : wide.console) ADD_FAILURE() << "console: " << line;
  ASSERT_EQ(elements(wide.dom, "body")[0]["data-probed"], "clicked") << wide.dom.substr(0, 2000);
  std::map<std::string, size_t> pages, tables_at;
  for (auto& p : elements(wide.dom, "p")) {
    const std::string at = p["data-frame"];
    if (p["data-what"] == "page") {
      ++pages[at];
      EXPECT_EQ(p["data-status"], "rendered") << at;
      EXPECT_EQ(p["data-errors"], "0") << at;
      if (at == "1920") {
        EXPECT_EQ(p["data-hidden-runs"], "1");
      }
    } else if (p["data-what"] == "figure") {
      EXPECT_EQ(p["data-rendered"], "yes") << p["data-id"] << " at " << at;
      if (at != "1920") continue;
      // The toggle hides run 1 whole, in every chart that draws it, and nothing else.
      EXPECT_EQ(p["data-hidden"], "0") << p["data-id"];
      if (p["data-runs"] == "2") {
        EXPECT_GT(std::atoi(p["data-hidden-after"].c_str()), 0) << p["data-id"];
      }
      if (p["data-id"] == "t0-sweep-latency") {
        EXPECT_EQ(p["data-hidden-after"], "3");
      }
    } else if (p["data-what"] == "table") {
      ++tables_at[at];
      EXPECT_EQ(p["data-fits"], "yes") << p["data-title"] << " at " << at << ": " << p["data-width"]
                                       << " px in " << p["data-room"] << " px";
    }
  }
  EXPECT_EQ(pages, (std::map<std::string, size_t>{{"1400", 1}, {"1920", 1}}));
  EXPECT_GE(tables_at["1400"], 6u);
  EXPECT_EQ(tables_at["1400"], tables_at["1920"]);
}

// user-review item 6: `--html` on a --matrix job writes the page, and the page shows what
// the job measured: the colour scale spans the measured values (never a negative bandwidth),
// the baseline and threshold are marked on it, each cell carries its value, "pairs measured"
// is the text's count, and the node table's number columns are aligned with their headers.
TEST_F(ReportBrowserTest, MatrixPageShowsTheJobsValues) {
  if (mpirun_path().empty()) GTEST_SKIP() << "Open MPI's mpirun is not installed (make deps)";
  const fs::path dir = keep_dir();
  const fs::path html = dir / "matrix.html";
  fs::remove(html);
  // A map of this host to a switch (docs/cluster.md, "Topology"): the rows are grouped by it.
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  write_file((dir / "hosts.map").string(), std::string(host) + " rack1\n", 0644);
  JobShape shape;
  shape.ranks = 4;
  MatrixJob job(shape,
                {"-t", "0.2", "--start_timeout", "30", "--topology", (dir / "hosts.map").string(),
                 "tcp_lat", "tcp_bw", "--html", html.string()});
  ASSERT_EQ(job.wait(180), 0) << job.err();
  ASSERT_TRUE(fs::exists(html)) << job.err();
  const json doc = job.json();
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_TRUE(contains(job.out(), "pairs         =  6 measured")) << job.out();

  const PageView view =
      open_page(chromium_, html.string(), (dir / "matrix.png").string(), 1400, 2600);
  auto figures = expect_rendered(view, {"heatmap"});
  const auto& tests = doc["matrix"]["tests"];
  ASSERT_EQ(tests.size(), 2u);
  // Every heatmap cell carries its value as text: tcp_lat's 12 (a round trip shown both
  // ways), tcp_bw's 6 (one direction a pair).
  std::vector<std::string> labelled;
  for (auto& f : figures) {
    if (f["data-type"] == "heatmap") labelled.push_back(f["data-cell-text"]);
  }
  EXPECT_EQ(labelled, (std::vector<std::string>{"12", "6"}));
  // Rows are labelled "host (rank)" and bracketed by switch, in the page's data (the model it
  // embeds) and on the page (the brackets drawn).
  std::vector<std::string> grouped;
  for (auto& f : figures) {
    if (f["data-type"] == "heatmap") grouped.push_back(f["data-row-groups"]);
  }
  EXPECT_EQ(grouped, (std::vector<std::string>{"1", "1"}));
  const std::string page = read_file(html.string());
  const std::string model_tag = "<script id=\"fabperf-model\" type=\"application/json\">";
  const size_t from = page.find(model_tag);
  ASSERT_NE(from, std::string::npos);
  const size_t to = page.find("</script>", from);
  const json model = json::parse(page.substr(from + model_tag.size(), to - from - model_tag.size()),
                                 nullptr, false);
  ASSERT_FALSE(model.is_discarded());
  std::vector<json> heatmaps;
  for (const json& sec : model["sections"]) {
    for (const json& c : sec.value("charts", json::array())) {
      if (c["type"] == "heatmap") heatmaps.push_back(c);
    }
  }
  ASSERT_EQ(heatmaps.size(), 2u);
  const std::string h(host);
  for (const json& heat : heatmaps) {
    EXPECT_EQ(heat["labels"], json({h + " (0)", h + " (1)", h + " (2)", h + " (3)"}));
    EXPECT_EQ(heat["groups"], json::parse(R"([{"label": "rack1", "first": 0, "last": 3}])"));
  }
  // The legend's ends are the best and worst measured values of each test.
  std::vector<std::map<std::string, std::string>> ends, marks;
  for (auto& span : elements(view.dom, "span")) {
    if (span.count("data-end")) ends.push_back(span);
    if (span.count("data-mark") && span.count("data-at")) marks.push_back(span);
  }
  ASSERT_EQ(ends.size(), 4u);
  ASSERT_EQ(marks.size(), 4u);
  for (size_t t = 0; t < 2; ++t) {
    double lo = 1e300, hi = 0;
    for (const json& row : tests[t]["values"]) {
      for (const json& v : row) {
        if (v.is_number()) lo = std::min(lo, v.get<double>()), hi = std::max(hi, v.get<double>());
      }
    }
    const bool higher = tests[t]["better"] == "higher";
    const double best = std::strtod(ends[2 * t]["data-value"].c_str(), nullptr);
    const double worst = std::strtod(ends[2 * t + 1]["data-value"].c_str(), nullptr);
    EXPECT_EQ(ends[2 * t]["data-end"], "best");
    EXPECT_DOUBLE_EQ(best, higher ? hi : lo) << tests[t]["test"];
    EXPECT_DOUBLE_EQ(worst, higher ? lo : hi) << tests[t]["test"];
    EXPECT_GT(worst, 0) << "never a negative " << tests[t]["test"];
    EXPECT_EQ(marks[2 * t]["data-mark"], "baseline");
    EXPECT_DOUBLE_EQ(std::strtod(marks[2 * t]["data-value"].c_str(), nullptr),
                     tests[t]["median"].get<double>());
    EXPECT_EQ(marks[2 * t + 1]["data-mark"], "threshold");
  }
  for (const char* key : {"median", "threshold", "suspects.value"}) {
    for (double v : cell_values(view.dom, key)) EXPECT_GT(v, 0) << key;
  }
  // "pairs measured" is the job's count, as in the text.
  auto measured = cell_values(view.dom, "measured");
  ASSERT_EQ(measured.size(), 2u);
  for (double m : measured) EXPECT_EQ(m, 6);
  // The node table's number columns: headers aligned with their numbers.
  for (const char* header : {"rank", "bad links", "links"}) {
    EXPECT_TRUE(contains(view.dom, std::string("<th class=\"num\">") + header + "</th>")) << header;
  }
  EXPECT_TRUE(contains(view.dom, "<th>host</th>"));
}

}  // namespace
}  // namespace fabperf::testing
