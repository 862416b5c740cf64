// The fab_* tools' text on both sides.
#include "cxi/cxi_reporter.h"

#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "core/text.h"
#include "cxi/cxi_plan.h"
#include "stats/latency.h"

namespace fabperf::cxi {

namespace {

void out(std::FILE* f, const std::string& text) {
  std::fputs(text.c_str(), f);
  std::fflush(f);
}

// What a peer said of its cxi address (its said options' "cxi_addr"; "" when unsaid).
std::string said_cxi(const nlohmann::json& said) {
  auto it = said.find("cxi_addr");
  return it != said.end() && it->is_string() ? it->get<std::string>() : "";
}

class ToolReporter : public Reporter {
 public:
  ToolReporter(const Tool& tool, const ProgramOptions& program, SummaryView view,
               Endpoints endpoints, bool loopback)
      : tool_(tool),
        view_(std::move(view)),
        ep_(std::move(endpoints)),
        loopback_(loopback),
        latency_(tool.kind == ToolKind::kLatency),
        every_(latency_ && program.report_all) {
    if (!program.percentiles.empty()) {
      auto p = parse_percentiles(program.percentiles);
      if (p.ok()) percentiles_ = *p;
    }
  }

  void on_start(const RunInfo& info) override {
    // The domain the runs use: this side's address on the control connection decides it
    // where the provider speaks IP (the session binds there).
    DomainInUse used =
        domain_in_use(view_.run.provider, tool_caps(tool_), view_.run.domain, info.local_host);
    ep_.device = used.domain;
    // On cxi the originals' NIC/PID/VNI; elsewhere the host and process.
    ep_.local = endpoint_text(used.provider, ep_.cxi_hex, ep_.vni, info.local_host, getpid());
    ep_.remote = endpoint_text(used.provider, said_cxi(info.server_options), std::nullopt,
                               ep_.remote, info.server_pid);
    // The server's own buffers, as it said when the session opened (one process: ours).
    if (!loopback_) view_.server = SideMemory::from_json(info.server_options);
    out(stdout, summary_block(tool_, view_, ep_));
    header_ = latency_ ? latency_header(tool_, percentiles_) : bandwidth_header(tool_);
    if (!every_) out(stdout, header_);
  }

  void on_run_start(const RunInfo&, const TestResult&) override {
    sample_index_ = 0;
    if (every_) out(stdout, sample_header(tool_));
  }

  bool wants_samples() const override { return every_; }
  void on_sample(double ns) override {
    std::fputs(sample_row(sample_index_++, ns).c_str(), stdout);
  }

  // --interval: the run's figures so far, between the table's rows.
  void on_interval(const RunInfo&, const TestResult& pending, const IntervalRecord& r) override {
    out(stdout, interval_line(tool_.name, pending, r, DisplayOptions{}));
  }

  void on_result(const RunInfo&, const TestResult& r) override {
    if (!r.ok()) return;  // the error went to stderr
    std::string row = result_row(tool_, shown(r));
    out(stdout, every_ ? dash_line(tool_) + header_ + row + dash_line(tool_) : row);
  }

  Status finish(const RunInfo&) override {
    if (!every_ && !header_.empty()) out(stdout, dash_line(tool_));
    return Status::success();
  }

 private:
  // The table shows the percentiles asked for with --percentiles (JSON carries them all).
  TestResult shown(const TestResult& r) const {
    TestResult copy = r;
    if (copy.figures.latency) {
      auto& ps = copy.figures.latency->percentiles;
      ps.erase(std::remove_if(ps.begin(), ps.end(),
                              [&](const auto& pv) {
                                return std::find(percentiles_.begin(), percentiles_.end(),
                                                 pv.first) == percentiles_.end();
                              }),
               ps.end());
    }
    return copy;
  }

  const Tool& tool_;
  SummaryView view_;
  Endpoints ep_;
  bool loopback_;
  bool latency_;
  bool every_;
  std::vector<double> percentiles_;
  std::string header_;
  uint64_t sample_index_ = 0;
};

class ToolServerObserver : public ServerObserver {
 public:
  ToolServerObserver(const Tool& tool, const ProgramOptions& program, std::FILE* f, int gpus_found)
      : tool_(tool), program_(program), out_(f), gpus_found_(gpus_found) {}

  void on_run_start(const SessionInfo& session, const TestSpec& spec,
                    const RunOptions& run) override {
    std::lock_guard<std::mutex> lock(mu_);
    const bool latency = tool_.kind == ToolKind::kLatency;
    if (started_) {
      // The original's run_lat_passive: a separator and the line, once per size.
      if (latency) out(out_, dash_line(tool_) + "See client for results.\n");
      return;
    }
    started_ = true;
    Endpoints ep;
    ep.server = true;
    // This server's own -d, else the domain holding its address on the client's connection
    // (where its session binds), of the provider the client chose.
    DomainInUse used =
        domain_in_use(run.provider, tool_caps(tool_), run.domain, session.local_host);
    ep.provider = used.provider;
    ep.device = used.domain;
    if (used.provider == "cxi") {
      CxiOwnAddress mine = cxi_own_address(run.domain, run.svc_id, tool_caps(tool_));
      ep.cxi_hex = mine.hex;
      ep.vni = mine.vni;
    }
    ep.local = endpoint_text(used.provider, ep.cxi_hex, ep.vni, session.local_host, getpid());
    ep.remote = endpoint_text(used.provider, said_cxi(session.peer_options), std::nullopt,
                              session.peer_host, session.peer_pid);
    std::string text = summary_block(tool_, view_of(session, spec, run), ep);
    if (latency) text += "See client for results.\n";
    out(out_, text);
  }

  void on_run_end(const SessionInfo&, const TestResult& result) override {
    if (tool_.kind == ToolKind::kLatency) return;
    std::lock_guard<std::mutex> lock(mu_);
    std::string text;
    if (!header_done_) text += bandwidth_header(tool_);
    header_done_ = true;
    out(out_, text + result_row(tool_, result, true));
  }

  void on_session_end(const SessionInfo&) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (header_done_ || (started_ && tool_.kind == ToolKind::kLatency)) out(out_, dash_line(tool_));
    header_done_ = false;
    started_ = false;
  }

 private:
  // The run the client asked for (its RunView), this server's own options for it, and each
  // side's buffers. A client that sent no view (none does today) gets the run's own figures.
  SummaryView view_of(const SessionInfo& session, const TestSpec& spec,
                      const RunOptions& run) const {
    SummaryView view;
    const auto said = session.peer_options.find("run");
    if (said != session.peer_options.end()) {
      view.asked = RunView::from_json(*said);
    } else {
      view.asked.min_size = view.asked.max_size = run.msg_size;
      view.asked.iters = json_iters(session.peer_options);
    }
    view.asked.bidirectional = spec.kind == TestKind::kBiBandwidth;
    view.run = run;
    view.client = SideMemory::from_json(session.peer_options);
    view.server = SideMemory::of(program_);
    view.gpus_found = gpus_found_;
    return view;
  }

  static uint64_t json_iters(const nlohmann::json& j) {
    auto it = j.find("iters");
    return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
  }

  const Tool& tool_;
  ProgramOptions program_;
  std::FILE* out_;
  int gpus_found_;
  std::mutex mu_;
  bool started_ = false;
  bool header_done_ = false;
};

}  // namespace

std::string result_row(const Tool& tool, const TestResult& r, bool server) {
  uint64_t size = r.local_opts.msg_size;
  if (tool.kind == ToolKind::kLatency) return latency_row(size, *r.figures.latency);
  const Figures& f = r.figures;
  double bytes = f.recv_Bps > 0 ? f.recv_Bps : f.send_Bps;
  // Bi-directional: each side's own count, as the originals print it (the rates are summed).
  // The server's view holds the client's stats as loc and its own as rem.
  uint64_t ops = f.bidirectional ? (server ? r.rem.send_msgs : r.loc.send_msgs)
                                 : std::max(f.msgs_received, f.msgs_sent);
  // A unidirectional server counts nothing of its own: the originals print "-" there.
  std::optional<uint64_t> count;
  if (!server || f.bidirectional) count = ops;
  return bandwidth_row(tool, size, count, bytes, f.msg_rate);
}

std::unique_ptr<Reporter> make_tool_reporter(const Tool& tool, const ProgramOptions& program,
                                             SummaryView view, Endpoints endpoints, bool loopback) {
  return std::make_unique<ToolReporter>(tool, program, std::move(view), std::move(endpoints),
                                        loopback);
}

std::unique_ptr<ServerObserver> make_tool_server_observer(const Tool& tool,
                                                          const ProgramOptions& program,
                                                          std::FILE* f, int gpus_found) {
  return std::make_unique<ToolServerObserver>(tool, program, f, gpus_found);
}

}  // namespace fabperf::cxi
