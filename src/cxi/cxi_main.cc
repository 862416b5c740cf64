// The fab_* tools' top level: parse with the tool's grammar, then serve, run a client, or run
// a single-process tool (loopback, heatsink, stat).
#include "cxi/cxi_main.h"

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "core/clock.h"
#include "cxi/cxi_format.h"
#include "cxi/cxi_options.h"
#include "cxi/cxi_session.h"
#include "fabric/libfabric_loader.h"
#include "report/reporter.h"
#include "engine/misc_tests.h"

namespace fabperf::cxi {

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return 1;
}

void out(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

// --report-all rows as they are measured, and the pause between iterations (--latency-gap).
struct SampleStream {
  bool print = false;
  uint64_t next = 0;
  int64_t gap_ns = 0;
};

// A real gap: sleep most of it, spin the last stretch so short gaps stay accurate.
void wait_gap(int64_t gap_ns) {
  int64_t until = now_ns() + gap_ns;
  constexpr int64_t kSpinNs = 60'000;
  if (gap_ns > kSpinNs) {
    int64_t sleep_ns = gap_ns - kSpinNs;
    timespec ts{static_cast<time_t>(sleep_ns / 1'000'000'000), static_cast<long>(sleep_ns % 1'000'000'000)};
    nanosleep(&ts, nullptr);
  }
  while (now_ns() < until) {
  }
}

void on_sample(void* arg, double ns) {
  auto* s = static_cast<SampleStream*>(arg);
  if (s->print) std::fputs(sample_row(s->next++, ns).c_str(), stdout);
  if (s->gap_ns > 0) wait_gap(s->gap_ns);
}

std::string iso8601_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int run_server(const Tool& tool, const CxiOptions& o) {
  // Not listening for a client this side could not serve.
  if (Status lib = libfabric_status(); !lib.ok()) return fail(lib.message());
  auto listener = listen_tcp("", o.port, 1);
  if (!listener.ok()) return fail("bind() failed: " + listener.status().message());
  out("Listening on port " + std::to_string(o.port) + " for client to connect...\n");
  Status s = serve_one_client(tool, o, listener->get(), stdout);
  if (!s.ok()) return fail(s.message());
  return 0;
}

// The rows of one size: latency (with or without every sample) or bandwidth.
std::string result_rows(const Tool& tool, uint64_t size, const TestResult& r) {
  if (tool.kind == ToolKind::kLatency) return latency_row(size, *r.figures.latency);
  const Figures& f = r.figures;
  double bytes = f.recv_Bps > 0 ? f.recv_Bps : f.send_Bps;
  uint64_t ops = f.bidirectional ? f.msgs_received : std::max(f.msgs_received, f.msgs_sent);
  return bandwidth_row(tool, size, ops, bytes, f.msg_rate);
}

// Runs every size against a connected server; prints the tables. Returns the exit status.
int run_sizes(const Tool& tool, const CxiOptions& o, PairClient& client, bool share_rows) {
  auto test = test_for(tool, o);
  if (!test.ok()) return fail(test.status().message());
  std::vector<double> percentiles;
  if (!o.percentiles.empty()) {
    auto p = parse_percentiles(o.percentiles);
    if (!p.ok()) return fail("Invalid percentiles: " + p.status().message());
    percentiles = *p;
  }
  std::unique_ptr<Reporter> json;
  RunInfo info;
  if (!o.json.empty()) {
    auto r = make_json_reporter(o.json);
    if (!r.ok()) return fail(r.status().message());
    json = std::move(*r);
    info.started = iso8601_now();
    info.argv = {tool.name};
    info.client = node_info();
    info.percentiles = percentiles.empty() ? default_percentiles() : percentiles;
  }
  const bool lat = tool.kind == ToolKind::kLatency;
  const bool every = lat && o.report_all;
  std::string header = lat ? latency_header(tool, percentiles) : bandwidth_header(tool);
  if (!every) out(header);
  if (share_rows) client.share(header);
  int code = 0;
  for (uint64_t size : o.sizes()) {
    if (tool.bit & (kAtomicLat | kAtomicBw)) size = atomic_type_bytes(o.atomic_type);
    auto params = params_for(tool, o, **test, size);
    if (!params.ok()) return fail(params.status().message());
    SampleStream stream{every, 0, lat ? static_cast<int64_t>(o.gap_us) * 1000 : 0};
    if (every) out(sample_header(tool));
    // Percentiles are always measured (JSON carries them); the table shows those asked for.
    auto result = client.run(**test, *params, lat ? on_sample : nullptr, &stream,
                             percentiles.empty() ? default_percentiles() : percentiles);
    std::fflush(stdout);
    if (!result.ok()) {
      code = fail(result.status().message());
      break;
    }
    if (json) json->Result(info, *result);
    if (percentiles.empty() && result->figures.latency) result->figures.latency->percentiles.clear();
    std::string row = result_rows(tool, size, *result);
    if (every) {
      out(dash_line() + header + row + dash_line());
    } else {
      out(row);
      if (share_rows) client.share(row);
    }
  }
  if (!every) out(dash_line());
  if (share_rows) client.share(dash_line());
  client.bye();
  if (json) {
    Status s = json->Finish(info);
    if (!s.ok() && code == 0) code = fail(s.message());
  }
  return code;
}

int run_client(const Tool& tool, CxiOptions& o) {
  auto client = PairClient::connect(tool, o, o.server_addr, o.port);
  if (!client.ok()) return fail(client.status().message());
  out(summary_block(tool, o, (*client)->endpoints()));
  return run_sizes(tool, o, **client, tool.kind == ToolKind::kBandwidth);
}

int run_loopback(const Tool& tool, CxiOptions& o) {
  auto pair = LoopbackPair::start(tool, o);
  if (!pair.ok()) return fail(pair.status().message());
  out(summary_block(tool, o, (*pair)->client().endpoints()));
  return run_sizes(tool, o, (*pair)->client(), false);
}

}  // namespace

bool is_cxi_program(const std::string& program) { return find_tool(program) != nullptr; }

int cxi_main(const std::string& program, const std::vector<std::string>& args,
             const TestRegistry& tests) {
  set_test_registry(&tests);
  const Tool* tool = find_tool(program);
  if (tool == nullptr) return fail(program + ": not a fab_* tool");
  auto parsed = parse_cxi_options(*tool, args);
  if (!parsed.ok()) return fail(parsed.status().message());
  CxiOptions o = *parsed;
  if (o.help) {
    out(cxi_usage(*tool));
    return 0;
  }
  if (o.version) {
    out(std::string(tool->name) + " version: " + FABPERF_VERSION + " (fabperf)\n");
    return 0;
  }
  signal(SIGPIPE, SIG_IGN);
  switch (tool->kind) {
    case ToolKind::kLatency:
    case ToolKind::kBandwidth:
      return o.server_addr.empty() ? run_server(*tool, o) : run_client(*tool, o);
    case ToolKind::kLoopback:
      return run_loopback(*tool, o);
    case ToolKind::kHeatsink:
      return run_heatsink_check(*tool, o);
    case ToolKind::kStat:
      return run_stat(*tool, o);
  }
  return 1;
}

}  // namespace fabperf::cxi
