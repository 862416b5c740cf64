// The default renderer of `fabperf`: qperf's blocks, with fabperf's extra figures behind -v.
#include <cstdio>

#include "core/json_numbers.h"
#include "core/text.h"
#include "options/option_table.h"
#include "report/qperf_format.h"
#include "report/reporter.h"
#include "report/sweep_table.h"

namespace fabperf {

namespace {

class QperfTextReporter : public Reporter {
 public:
  explicit QperfTextReporter(const DisplayOptions& options) : base_(options) { use(base_); }

  void on_run_start(const RunInfo&, const TestResult& pending) override {
    // A sweep's table is printed whole before anything of another test (its interval lines).
    if (!table_.rows.empty() && !continues_table(pending)) flush_table();
  }

  void on_result(const RunInfo& info, const TestResult& result) override {
    if (!result.ok() && result.spec->misc != MiscAction::kQuit) return;  // the error went to stderr
    use(result.display.value_or(base_));
    std::vector<Line> lines;
    if (result.spec->misc == MiscAction::kConf) {
      add_conf(lines, "loc_", result.conf_local);
      add_conf(lines, "rem_", result.conf_remote);
    } else if (result.spec->kind != TestKind::kMisc) {
      add_figures(lines, info, result);
      if (result.status == RunStatus::kInterrupted) {
        add(lines, "interrupted_after", static_cast<double>(result.loc.real_time_ns) * 1e-9,
            Unit::kTime);
      }
      if (!result.overlapped.empty()) {
        add_text(lines, "overlapped",
                 std::to_string(result.overlapped.size()) +
                     " other client run(s) on the server (--concurrent)");
      }
    }
    // A loop's runs without -vu: one row each of a table (report/sweep_table.h), as perftest
    // and OSU print a sweep, rather than blocks that do not say their size.
    if (!table_.rows.empty() && !continues_table(result)) flush_table();
    if (tabled(result)) {
      if (table_.rows.empty()) table_.title = result.test;
      table_.add(result.loop_values, lines);
      return;
    }
    // A paced UDP stream the server received: its loss and jitter per interval, as it
    // counted them (they come with its result), before the block.
    std::string block;
    for (const IntervalRecord& r : result.server_intervals) {
      if (r.counts.jitter_ns >= 0) {
        block += interval_line(result.test + " server", result, r, options_);
      }
    }
    block += render_block(result.test, lines);
    std::fwrite(block.data(), 1, block.size(), stdout);
    std::fflush(stdout);
  }

  void on_interval(const RunInfo&, const TestResult& pending, const IntervalRecord& r) override {
    std::string line = interval_line(pending.test, pending, r, pending.display.value_or(base_));
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  }

  Status finish(const RunInfo&) override {
    flush_table();
    return Status::success();
  }

 private:
  void add(std::vector<Line>& lines, const std::string& name, double v, Unit unit) {
    lines.push_back({name, format_figure(finite_or_zero(v), unit, format_)});
  }
  void add_text(std::vector<Line>& lines, const std::string& name, const std::string& text) {
    lines.push_back({name, format_text(text)});
  }

  void add_conf(std::vector<Line>& lines, const std::string& side, const nlohmann::json& conf) {
    for (const char* key : {"node", "cpu", "os"}) {
      add_text(lines, side + key, printable(conf.value(key, std::string("?")), 256));
    }
    // A stock qperf server's conf (src/qperf_wire/) reads rem_qperf, as a qperf client shows it.
    std::string tool = conf.value("tool", std::string()) == "qperf" ? "qperf" : "fabperf";
    add_text(lines, side + tool, printable(conf.value("version", std::string("?")), 64));
  }

  void add_figures(std::vector<Line>& lines, const RunInfo& info, const TestResult& r) {
    const Figures& f = r.figures;
    const TestKind kind = r.spec->kind;
    if (f.latency) add(lines, "latency", f.latency->mean * 1e-9, Unit::kTime);
    if (f.has_bandwidth) add_bandwidth(lines, f);
    // Per stream, after the aggregate, with -v or -vs.
    if (options_.stat) add_streams(lines, f);
    // An open loop that fell short of its --rate shows the rate reached beside the one asked.
    if (kind == TestKind::kMsgRate || kind == TestKind::kVerify || options_.stat || f.rate_short) {
      add(lines, "msg_rate", f.msg_rate, Unit::kRate);
    }
    if (f.rate_short) add(lines, "msg_rate_asked", f.rate_asked, Unit::kRate);
    if (f.counts_loss) add(lines, "lost_msgs", static_cast<double>(f.msgs_lost), Unit::kCount);
    if (f.jitter_ns >= 0) add(lines, "jitter", f.jitter_ns * 1e-9, Unit::kTime);
    // --omit: the first seconds ran but are not in these figures (iperf3 -O).
    if (r.local_opts.omit > 0) add(lines, "omitted", r.local_opts.omit, Unit::kTime);
    if (f.has_verify) add_verify(lines, r);
    if (f.latency && options_.stat) add_latency_stats(lines, *f.latency);
    if (options_.used) add_params(lines, r);
    if (options_.conf) add_info(lines, r);
    add_sides(lines, r);
    (void)info;
  }

  void add_bandwidth(std::vector<Line>& lines, const Figures& f) {
    if (f.counts_loss) {
      add(lines, "send_bw", f.send_Bps, Unit::kBandwidth);
      add(lines, "recv_bw", f.recv_Bps, Unit::kBandwidth);
    } else {
      add(lines, "bw", f.recv_Bps, Unit::kBandwidth);
    }
    // Which way the data went: a two-way test's parts (what arrived each way; bw is their
    // sum), a one-way test's direction when -R turned it around.
    if (f.bidirectional) {
      add(lines, "client_to_server_bw", f.to_server_Bps, Unit::kBandwidth);
      add(lines, "server_to_client_bw", f.to_client_Bps, Unit::kBandwidth);
    }
    if (f.reverse) add_text(lines, "direction", "server to client (-R)");
  }

  void add_streams(std::vector<Line>& lines, const Figures& f) {
    for (size_t i = 0; i < f.streams.size(); ++i) {
      std::string name = "stream" + std::to_string(i) + "_";
      if (f.counts_loss) {
        add(lines, name + "send_bw", f.streams[i].send_Bps, Unit::kBandwidth);
        add(lines, name + "recv_bw", f.streams[i].recv_Bps, Unit::kBandwidth);
      } else {
        add(lines, name + "bw", f.streams[i].recv_Bps, Unit::kBandwidth);
      }
    }
  }

  void add_verify(std::vector<Line>& lines, const TestResult& r) {
    const Figures& f = r.figures;
    add(lines, "verify_checked", static_cast<double>(f.verify_checked), Unit::kCount);
    add(lines, "verify_errors", static_cast<double>(f.verify_errors), Unit::kCount);
    // What the count covers where it is not every operation (plain RDMA writes).
    for (const SideStats* side : {&r.loc, &r.rem}) {
      auto it = side->info.find("verify_checks");
      if (it != side->info.end() && it->is_string()) add_text(lines, "verify_checks", *it);
    }
  }

  void add_latency_stats(std::vector<Line>& lines, const LatencySummary& l) {
    add(lines, "latency_min", l.min * 1e-9, Unit::kTime);
    add(lines, "latency_max", l.max * 1e-9, Unit::kTime);
    add(lines, "latency_stddev", l.stddev * 1e-9, Unit::kTime);
    for (const auto& [p, v] : l.percentiles)
      add(lines, "latency_" + percentile_key(p), v * 1e-9, Unit::kTime);
    add(lines, "latency_samples", static_cast<double>(l.samples), Unit::kCount);
  }

  // Each side's costs, CPU, timing and counters, under the names the test gives its sides.
  void add_sides(std::vector<Line>& lines, const TestResult& r) {
    const Figures& f = r.figures;
    const TestKind kind = r.spec->kind;
    // qperf names the sides send_/recv_ in one-way bandwidth tests; -un renames the CPU, time
    // and counter lines to loc_/rem_ but, as in qperf, keeps send_cost and recv_cost. With -R
    // the client (loc) is the receiver.
    const bool one_way = kind == TestKind::kBandwidth;
    const std::string sender = "send_", receiver = "recv_";
    const std::string loc_role = f.reverse ? receiver : sender;
    const std::string rem_role = f.reverse ? sender : receiver;
    const std::string cost_loc = one_way ? loc_role : "loc_",
                      cost_rem = one_way ? rem_role : "rem_";
    const bool renamed = one_way && !options_.unify_nodes;
    std::string loc = renamed ? loc_role : "loc_", rem = renamed ? rem_role : "rem_";
    if (options_.time && f.has_bandwidth) {
      add_cost(lines, cost_loc + "cost", r.loc.cpu.cpu_time_s, r.loc.send_bytes + r.loc.recv_bytes);
      add_cost(lines, cost_rem + "cost", r.rem.cpu.cpu_time_s, r.rem.send_bytes + r.rem.recv_bytes);
    }
    // Per side, as qperf groups them: CPU, then timing, then the raw counters.
    for (const auto& [prefix, side] : {std::pair{loc, &r.loc}, std::pair{rem, &r.rem}}) {
      if (options_.time) add_cpu(lines, prefix, *side);
      if (options_.stat) add_tcp(lines, prefix, side->tcp);
      if (options_.more_stat) add_counts(lines, prefix, *side, one_way);
    }
  }

  void add_cost(std::vector<Line>& lines, const std::string& name, double cpu_s, uint64_t bytes) {
    if (bytes == 0) return;
    add(lines, name, cpu_s / (static_cast<double>(bytes) / 1e9), Unit::kCost);
  }

  void add_cpu(std::vector<Line>& lines, const std::string& side, const SideStats& s) {
    add(lines, side + "cpus_used", s.cpu.cpus_used, Unit::kPercentCpus);
    if (options_.more_time) {
      add(lines, side + "cpus_user", s.cpu.cpus_user, Unit::kPercentCpus);
      add(lines, side + "cpus_intr", s.cpu.cpus_intr, Unit::kPercentCpus);
      add(lines, side + "cpus_kernel", s.cpu.cpus_kernel, Unit::kPercentCpus);
      if (s.cpu.cpus_iowait > 0)
        add(lines, side + "cpus_iowait", s.cpu.cpus_iowait, Unit::kPercentCpus);
      add(lines, side + "real_time", s.cpu.real_s, Unit::kTime);
      add(lines, side + "cpu_time", s.cpu.cpu_time_s, Unit::kTime);
    }
    // getrusage of the measuring thread: what fabperf itself cost, not the whole machine.
    add(lines, side + "proc_cpus_used", s.cpu.proc_used, Unit::kPercentCpus);
    if (options_.more_time) {
      add(lines, side + "proc_cpus_user", s.cpu.proc_user, Unit::kPercentCpus);
      add(lines, side + "proc_cpus_kernel", s.cpu.proc_kernel, Unit::kPercentCpus);
    }
  }

  // TCP's own counters of the side's data connections at the end (TCP_INFO), as iperf3's
  // Retr and Cwnd: retransmitted segments over the run, the window, the smoothed round trip.
  void add_tcp(std::vector<Line>& lines, const std::string& side, const TcpCounters& t) {
    if (!t.valid()) return;
    add(lines, side + "tcp_retransmits", static_cast<double>(t.retransmits), Unit::kCount);
    add(lines, side + "tcp_cwnd", static_cast<double>(t.cwnd_bytes), Unit::kSize);
    add(lines, side + "tcp_rtt", t.rtt_us * 1e-6, Unit::kTime);
    if (t.has_delivery_rate) {
      add(lines, side + "tcp_delivery_rate", static_cast<double>(t.delivery_Bps), Unit::kBandwidth);
    }
  }

  // qperf names a one-way side's counters by the side alone (send_bytes, recv_msgs) and leaves
  // out the counters that stay zero.
  void add_counts(std::vector<Line>& lines, const std::string& side, const SideStats& s,
                  bool one_way) {
    std::string p = one_way ? "" : side;
    auto count = [&](const std::string& name, uint64_t v, Unit unit) {
      if (v > 0) add(lines, p + name, static_cast<double>(v), unit);
    };
    count("send_bytes", s.send_bytes, Unit::kSize);
    count("recv_bytes", s.recv_bytes, Unit::kSize);
    count("send_msgs", s.send_msgs, Unit::kCount);
    count("recv_msgs", s.recv_msgs, Unit::kCount);
    count("lost_msgs", s.lost_msgs, Unit::kCount);
  }

  void add_info(std::vector<Line>& lines, const TestResult& r) {
    for (const auto* side : {&r.loc, &r.rem}) {
      std::string prefix = side == &r.loc ? "loc_" : "rem_";
      for (const auto& [key, value] : side->info.items()) {
        if (key == "verify_checks") continue;  // shown beside verify_checked
        add_text(lines, prefix + key, value.is_string() ? value.get<std::string>() : value.dump());
      }
    }
  }

  // -vu: what the user set (and the loop variable); -vvu: every parameter the test uses.
  void add_params(std::vector<Line>& lines, const TestResult& r) {
    std::vector<const OptionSpec*> specs;
    for (const char* n : r.spec->options) {
      if (const OptionSpec* spec = find_option(n)) specs.push_back(spec);
    }
    specs.push_back(&option_of(&RunOptions::timeout));
    const OptionSpec& time = option_of(&RunOptions::time);
    const OptionSpec& no_msgs = option_of(&RunOptions::no_msgs);
    const OptionSpec& msg_size = option_of(&RunOptions::msg_size);
    for (const OptionSpec* spec : specs) {
      bool in_loop = false;
      for (const auto& lv : r.loop_values) in_loop = in_loop || lv.first == spec;
      bool set =
          r.local_opts.given.test(spec->index) || r.remote_opts.given.test(spec->index) || in_loop;
      bool always = spec == &msg_size || spec == &time || spec == &no_msgs;
      if (!(set || options_.more_used) && !(options_.more_used && always)) continue;
      OptionValue lv = load(r.local_opts, *spec);
      OptionValue rv = load(r.remote_opts, *spec);
      if (!set && !always && spec->field != FieldRef(&RunOptions::timeout) && is_empty(lv)) {
        continue;
      }
      if (spec == &time && r.local_opts.no_msgs > 0) {
        // -n governs: a -t given beside it is shown as what it is, unused.
        if (set) add_text(lines, "time", "not used (-n governs)");
        continue;
      }
      if (spec == &no_msgs && r.local_opts.no_msgs == 0 && !set) continue;
      if (lv == rv) {
        add_param(lines, spec->name, *spec, lv);
      } else {
        add_param(lines, std::string("loc_") + spec->name, *spec, lv);
        add_param(lines, std::string("rem_") + spec->name, *spec, rv);
      }
    }
  }

  static bool is_empty(const OptionValue& v) {
    return std::visit(
        [](const auto& x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>)
            return x.empty();
          else
            return x == decltype(x){};
        },
        v);
  }

  void add_param(std::vector<Line>& lines, const std::string& name, const OptionSpec& spec,
                 const OptionValue& v) {
    if (spec.field == FieldRef(&RunOptions::udp_rate)) {
      // A bit rate, though typed as a size: "8 Mb/sec".
      FormatOptions bits = format_;
      bits.bits = true;
      lines.push_back({name, format_figure(static_cast<double>(std::get<uint64_t>(v)) / 8,
                                           Unit::kBandwidth, bits)});
    } else if (spec.type == OptType::kSize) {
      add(lines, name, static_cast<double>(std::get<uint64_t>(v)), Unit::kSize);
    } else if (spec.type == OptType::kTime) {
      add(lines, name, std::get<double>(v), Unit::kTime);
    } else if (spec.type == OptType::kCount) {
      add(lines, name, static_cast<double>(std::get<uint64_t>(v)), Unit::kCount);
    } else {
      std::string text = option_value_text(v);
      add_text(lines, name, text.empty() ? "(none)" : text);
    }
  }

  // The display options of the run being shown.
  void use(const DisplayOptions& options) {
    options_ = options;
    format_.precision = options.precision;
    format_.unify_units = options.unify_units;
    format_.bits = options.bits;
  }

  // A measured run of a loop, shown without -vu (which keeps qperf's block per value) and
  // measured to its end.
  bool tabled(const TestResult& r) const {
    const DisplayOptions& d = r.display.value_or(base_);
    return !r.loop_values.empty() && !d.used && r.spec->kind != TestKind::kMisc &&
           r.status == RunStatus::kOk;
  }
  // The next run of the table's test and loop (a value the table has not had yet).
  bool continues_table(const TestResult& r) const {
    return tabled(r) && r.test == table_.title && table_.fits(r.loop_values);
  }
  void flush_table() {
    if (table_.rows.empty()) return;
    std::string text = table_.render();
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    table_ = SweepTable{};
  }

  const DisplayOptions base_;  // the command line's, for runs that carry none
  DisplayOptions options_;
  FormatOptions format_;
  SweepTable table_;
};

}  // namespace

std::unique_ptr<Reporter> make_qperf_text_reporter(const DisplayOptions& options) {
  return std::make_unique<QperfTextReporter>(options);
}

}  // namespace fabperf
