// The fab_* tools' text on both sides.
#include "cxi/cxi_reporter.h"

#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "core/text.h"
#include "stats/latency.h"

namespace fabperf::cxi {

namespace {

void out(std::FILE* f, const std::string& text) {
  std::fputs(text.c_str(), f);
  std::fflush(f);
}

std::string pid_text(const std::string& host, int64_t pid) {
  return host + " PID " + std::to_string(pid);
}

class ToolReporter : public Reporter {
 public:
  ToolReporter(const Tool& tool, const ProgramOptions& program, const RunOptions& run,
               uint64_t min_size, uint64_t max_size, Endpoints endpoints, bool loopback)
      : tool_(tool),
        program_(program),
        run_(run),
        min_size_(min_size),
        max_size_(max_size),
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
    ep_.local = pid_text(info.local_host, getpid());
    ep_.remote = pid_text(ep_.remote, info.server_pid);
    SummaryView view{program_, run_, min_size_, max_size_, {}, {}, {}, {}};
    view.client = SideMemory::of(program_);
    // The server's own buffers, as it said when the session opened (one process: ours).
    view.server = loopback_ ? SideMemory::of(program_) : SideMemory::from_json(info.server_options);
    out(stdout, summary_block(tool_, view, ep_));
    header_ = latency_ ? latency_header(tool_, percentiles_) : bandwidth_header(tool_);
    if (!every_) out(stdout, header_);
  }

  void on_run_start(const RunInfo&, const TestResult&) override {
    sample_index_ = 0;
    if (every_) out(stdout, sample_header(tool_));
  }

  bool wants_samples() const override { return every_; }
  void on_sample(double ns) override { std::fputs(sample_row(sample_index_++, ns).c_str(), stdout); }

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
    return Status::Ok();
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
  ProgramOptions program_;
  RunOptions run_;
  uint64_t min_size_, max_size_;
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
  ToolServerObserver(const Tool& tool, const ProgramOptions& program, std::FILE* f)
      : tool_(tool), program_(program), out_(f) {}

  void on_run_start(const SessionInfo& session, const TestSpec& spec,
                    const RunOptions& run) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return;
    started_ = true;
    Endpoints ep;
    ep.server = true;
    ep.provider = run.provider;
    ep.device = run.domain;
    ep.local = pid_text(session.local_host, getpid());
    ep.remote = pid_text(session.peer_host, session.peer_pid);
    SummaryView view{program_, run, run.msg_size, run.msg_size, {}, {}, {}, {}};
    view.client = SideMemory::from_json(session.peer_options);
    view.server = SideMemory::of(program_);
    view.bidirectional = spec.kind == TestKind::kBiBandwidth;
    if (auto it = session.peer_options.find("iters");
        it != session.peer_options.end() && it->is_number_unsigned()) {
      view.iters = it->get<uint64_t>();
    }
    std::string text = summary_block(tool_, view, ep);
    if (tool_.kind == ToolKind::kLatency) text += "See client for results.\n" + dash_line(tool_);
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
    if (header_done_) out(out_, dash_line(tool_));
    header_done_ = false;
    started_ = false;
  }

 private:
  const Tool& tool_;
  ProgramOptions program_;
  std::FILE* out_;
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
                                             const RunOptions& first_run, uint64_t min_size,
                                             uint64_t max_size, Endpoints endpoints,
                                             bool loopback) {
  return std::make_unique<ToolReporter>(tool, program, first_run, min_size, max_size,
                                        std::move(endpoints), loopback);
}

std::unique_ptr<ServerObserver> make_tool_server_observer(const Tool& tool,
                                                          const ProgramOptions& program,
                                                          std::FILE* f) {
  return std::make_unique<ToolServerObserver>(tool, program, f);
}

}  // namespace fabperf::cxi
