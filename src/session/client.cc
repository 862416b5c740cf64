// Client runner: one greeted session, the plan's runs over it, results to the reporters.
#include "session/client.h"

#include <unistd.h>

#include <cstdio>
#include <functional>
#include <optional>
#include <set>

#include "core/json_numbers.h"
#include "core/text.h"
#include "engine/affinity.h"
#include "engine/misc_tests.h"
#include "engine/poller_check.h"
#include "engine/test_context.h"
#include "net/control.h"
#include "net/shm_cleanup.h"
#include "net/socket.h"
#include "options/option_table.h"
#include "options/run_options_json.h"
#include "report/qperf_format.h"
#include "security/handshake.h"

namespace fabperf {

namespace {

// The words the client's side of the key-proof handshake refuses with.
HandshakeWords client_words() {
  return {"client", "server", " (--auth_key_file)",
          "the server does not prove it holds the key (it runs without --auth_key_file): not "
          "running a test against it",
          "the server failed to prove it holds the key (a different --auth_key_file?)"};
}

// A control connection that has been greeted: connected, versions checked, key proven. A
// stock qperf server's answer to HELLO sets `qperf_version` (and fails).
Result<std::unique_ptr<ControlChannel>> open_session(const ClientConfig& config, double timeout,
                                                     RunInfo& info, std::string& qperf_version) {
  HostSpec host = split_host_iface(config.host);
  ConnectOptions options{config.wait_server_s, timeout, config.bind_addr, host.iface};
  auto fd = connect_tcp(host.host, config.port, options);
  if (!fd.ok()) return fd.status();
  auto ch = std::make_unique<ControlChannel>(fd->release());
  ch->set_peer_label("server");
  ch->set_cancel(config.stop);  // ^C while waiting for the server ends the wait
  nlohmann::json hello = {{"tool", config.tool}, {"version", FABPERF_VERSION}, {"pid", getpid()}};
  if (!config.own_options.empty()) hello["options"] = config.own_options;
  std::optional<KeyProver> prover;
  if (!config.auth_key.empty()) {
    auto started = KeyProver::start(config.auth_key, client_words());
    if (!started.ok()) return started.status();
    prover.emplace(std::move(*started));
    hello["auth"] = prover->hello_auth();
  }
  Status sent = ch->send(MsgType::kHello, hello);
  if (!sent.ok()) {
    // A server that turned us away at once (busy, access denied) said why before closing.
    auto reason = ch->recv(0.5);
    if (!reason.ok() && ch->peer_reported_error()) return reason.status();
    return sent;
  }
  auto welcome = ch->expect(MsgType::kWelcome, timeout);
  if (!welcome.ok()) {
    // A stock qperf server reads HELLO as a request of another version and says so its way.
    if (config.qperf != nullptr && !ch->peer_reported_error()) {
      if (auto version = config.qperf->recognise(ch->fd())) qperf_version = *version;
    }
    return welcome.status();
  }
  nlohmann::json greeting = *welcome;
  if (prover) {
    auto proven = prover->finish(*ch, *welcome, timeout);
    if (!proven.ok()) return proven.status();
    greeting = std::move(*proven);
  } else if (welcome->contains("auth")) {
    return Status::failed("the server requires a pre-shared key: give --auth_key_file");
  }
  if (info.server.is_null() && greeting.contains("server")) info.server = greeting["server"];
  if (auto pid = greeting.find("pid"); pid != greeting.end() && pid->is_number_integer()) {
    info.server_pid = pid->get<int64_t>();
  }
  if (auto own = greeting.find("options"); own != greeting.end() && own->is_object()) {
    info.server_options = *own;
  }
  if (auto cpus = greeting.find("cpus_allowed"); cpus != greeting.end() && cpus->is_string()) {
    info.server_cpus = cpus->get<std::string>().substr(0, 4096);
  }
  info.local_host = local_address(ch->fd()).host();
  return ch;
}

// Waits for READY (its body is returned), telling the user once when the run queues behind
// other clients' runs. The server says QUEUED at once and then about once a second; the first is
// not worth a word: a session the server is still ending (this host's previous, failed run) holds
// the turn for a moment, and that is no other client's test. Told at the second, a second into the
// wait.
Result<nlohmann::json> await_ready(ControlChannel& ch, const TestResult& result, double timeout,
                                   TerminalProgress* progress) {
  bool told = false;
  int queued = 0;
  while (true) {
    auto frame = ch.recv(timeout);
    if (!frame.ok()) return frame.status();
    if (frame->type == MsgType::kReady) return std::move(frame->body);
    if (frame->type != MsgType::kQueued) {
      return Status::failed(std::string("protocol error: expected READY from server, got ") +
                            msg_type_name(frame->type));
    }
    if (!told && ++queued >= 2) {
      if (progress != nullptr) progress->pause();
      std::fprintf(stderr, "%s: waiting for another client's test on the server\n",
                   result.test.c_str());
      if (progress != nullptr) progress->resume();
      told = true;
    }
  }
}

// The server's interval records in its RESULT (server_run.h), bounded and type-checked.
std::vector<IntervalRecord> server_intervals_of(const nlohmann::json& reply) {
  std::vector<IntervalRecord> out;
  auto it = reply.find("intervals");
  if (it == reply.end() || !it->is_array()) return out;
  auto num = [](const nlohmann::json& e, const char* key) {
    auto v = e.find(key);
    return v != e.end() && v->is_number() ? finite_or_zero(v->get<double>()) : 0.0;
  };
  auto count = [&](const nlohmann::json& e, const char* key) {
    const double v = num(e, key);
    return v > 0 && v < 1.8e19 ? static_cast<uint64_t>(v) : uint64_t{0};
  };
  for (const nlohmann::json& e : *it) {
    if (!e.is_object() || out.size() >= 100000) break;
    IntervalRecord r;
    r.index = out.size();
    r.start_s = num(e, "start_s");
    r.end_s = num(e, "end_s");
    r.counts = {count(e, "send_bytes"), count(e, "send_msgs"),
                count(e, "recv_bytes"), count(e, "recv_msgs"),
                count(e, "lost"),       e.contains("jitter_ns") ? num(e, "jitter_ns") : -1.0};
    out.push_back(r);
  }
  if (!out.empty()) out.back().last = true;
  return out;
}

// What the client does when a call into the provider never returns (StuckCallWatch): the
// run, marked failed with `why`, is handed over; it does not come back.
using Abandon = std::function<void(TestResult& result, const std::string& why)>;

// The server's own account of why it ended the run, if it sent one: read from the watch
// thread while the measuring thread is held inside its provider call (it reads nothing then).
std::string server_account(ControlChannel& ch) {
  auto frame = ch.recv(0.2);
  return !frame.ok() && ch.peer_reported_error() ? frame.status().message() : std::string();
}

// Asks the server for the run and waits for its READY (whose body is returned).
Result<nlohmann::json> request_run(ControlChannel& ch, const ClientConfig& config,
                                   const TestResult& result, double timeout) {
  nlohmann::json request = {{"test", result.test}, {"params", to_json(result.remote_opts)}};
  // A fabric run's client promises a heartbeat every 0.5 s until RESULT, whatever it waits on
  // (docs/protocol.md): the server may then end the run of a client silent for its -to in
  // any phase, even while its session process is stuck in a provider (review N3).
  const bool fabric = result.spec->family == TransportFamily::kFabric;
  if (fabric) request["heartbeats"] = true;
  ch.set_keepalive(fabric);
  // The server keeps its own interval records too (a receiver's loss and jitter).
  if (config.interval_s > 0) request["interval_s"] = config.interval_s;
  Status asked = ch.send(MsgType::kRun, request);
  auto ready = asked.ok() ? await_ready(ch, result, timeout, config.progress)
                          : Result<nlohmann::json>(asked);
  if (!ready.ok()) ch.set_keepalive(false);
  return ready;
}

// Connects the run's context to the client around it: the stuck-call watch, the server's
// heartbeats, the reporters' samples, interval lines and descriptors.
void wire_context(TestContext& ctx, ControlChannel& ch, const ClientConfig& config,
                  TestResult& result, const nlohmann::json& ready,
                  const std::vector<std::unique_ptr<Reporter>>& reporters, const RunInfo& info,
                  const Abandon& abandon, double timeout) {
  ctx.stop = config.stop;
  // A provider call that has not returned for -to (review N4: a client spun 9.5 minutes in
  // fi_write on a killed server session's shm lock, ignored SIGTERM and wrote no JSON): the
  // run is written as failed and the process ends, whatever the provider does.
  ctx.on_stuck = [&ctx, &ch, &result, &abandon, timeout] {
    result.loc = ctx.stats;
    std::string why = "the fabric provider did not return for " + seconds_text(timeout) +
                      " (its peer is gone?): giving up";
    std::string server = server_account(ch);
    abandon(result, server.empty() ? why : server + "; " + why);
  };
  // A server that promised heartbeats is given up on after the client's -to of silence, in
  // every phase of the run (review N8); an older one is waited for as before.
  auto beats = ready.find("heartbeats");
  ctx.peer.sends_heartbeats = beats != ready.end() && beats->is_boolean() && beats->get<bool>();
  ch.set_silence_limit(ctx.peer.sends_heartbeats ? timeout : 0);
  for (const auto& reporter : reporters) {
    if (reporter->wants_samples()) ctx.latency.set_sink(&Reporter::sample_thunk, reporter.get());
  }
  if (config.interval_s > 0) {
    // Called on the measuring thread at each boundary (engine/interval.h).
    ctx.interval.configure(config.interval_s,
                           [&config, &result, &reporters, &info](const IntervalRecord& r) {
                             if (config.progress != nullptr) config.progress->pause();
                             result.intervals.push_back(IntervalSummary::of(r));
                             for (const auto& reporter : reporters)
                               reporter->on_interval(info, result, r);
                             if (config.progress != nullptr) config.progress->resume();
                           });
  }
  for (const auto& reporter : reporters) {
    reporter->on_run_start(info, result);  // a --json-stream file is open from here
    for (int fd : reporter->descriptors()) ctx.sink_fds.push_back(fd);
  }
}

// Takes the server's RESULT into `result` and `latency`, and sends it the client's REPORT.
Status exchange_results(ControlChannel& ch, const nlohmann::json& reply, TestResult& result,
                        LatencyRecorder& latency) {
  result.rem = SideStats::from_json(reply.value("stats", nlohmann::json::object()));
  result.server_intervals = server_intervals_of(reply);
  if (auto it = reply.find("overlapped"); it != reply.end() && it->is_array()) {
    for (const auto& o : *it) {
      if (o.is_string()) result.overlapped.push_back(printable(o.get<std::string>(), 128));
    }
  }
  nlohmann::json report = {{"stats", result.loc.to_json()}};
  if (latency.count() > 0) report["latency"] = latency.to_json();
  if (reply.contains("latency")) {
    auto remote = LatencyRecorder::from_json(reply["latency"]);
    if (!remote.ok()) return remote.status().prefixed("server's latency record");
    latency.merge(*remote);
  }
  return ch.send(MsgType::kReport, report);
}

Status run_measurement(ControlChannel& ch, const ClientConfig& config, TestResult& result,
                       LatencyRecorder& latency,
                       const std::vector<std::unique_ptr<Reporter>>& reporters, const RunInfo& info,
                       const Abandon& abandon) {
  double timeout = result.local_opts.timeout;
  auto ready = request_run(ch, config, result, timeout);
  if (!ready.ok()) return ready.status();
  // From here a ^C ends the measured loop (ctx.stop), and the results are still collected.
  ch.set_cancel(nullptr);
  TestContext ctx(Role::kClient, *result.spec, result.local_opts, ch, ch.peer_host());
  wire_context(ctx, ch, config, result, *ready, reporters, info, abandon, timeout);
  Status s = apply_cpu_affinity(result.local_opts.cpu_affinity);
  if (s.ok()) s = result.spec->client(ctx);
  result.loc = ctx.stats;
  latency = ctx.latency;
  latency.set_sink(nullptr, nullptr);
  // Between runs neither side promises anything.
  auto end_of_run = [&] {
    ch.set_cancel(config.stop);
    ch.set_keepalive(false);
    ch.set_silence_limit(0);
  };
  if (!s.ok()) {
    end_of_run();
    // The server's own account of a failure beats our view of its symptom.
    if (ch.peer_reported_error()) return s;
    auto peer = ch.recv(0.5);
    if (!peer.ok() && ch.peer_reported_error()) return peer.status();
    ch.send_error(s.message(), 1).ignore_error();
    return s;
  }
  // The server's side ends (a session process closes its provider, then its server reaps it)
  // before RESULT: twice the timeout for that, restarted by each heartbeat on the way.
  auto reply = ch.expect(MsgType::kResult, 2 * timeout + 1);
  end_of_run();
  if (!reply.ok()) return reply.status();
  return exchange_results(ch, *reply, result, latency);
}

Status run_misc(ControlChannel& ch, TestResult& result, double timeout) {
  if (result.spec->misc == MiscAction::kConf) {
    FP_RETURN_IF_ERROR(ch.send(MsgType::kConf, nlohmann::json::object()));
    auto reply = ch.expect(MsgType::kConfReply, timeout);
    if (!reply.ok()) return reply.status();
    result.conf_local = node_info();
    result.conf_remote = *reply;
    return Status::success();
  }
  FP_RETURN_IF_ERROR(ch.send(MsgType::kQuit, nlohmann::json::object()));
  return ch.expect(MsgType::kBye, timeout).status();
}

// What a failed run had measured before it failed (the JSON result carries it too).
void print_partial(const char* test, const SideStats& loc) {
  if (loc.send_msgs == 0 && loc.recv_msgs == 0) return;
  std::fprintf(stderr,
               "%s: before the failure: sent %llu messages (%llu bytes), received %llu "
               "messages (%llu bytes)\n",
               test, static_cast<unsigned long long>(loc.send_msgs),
               static_cast<unsigned long long>(loc.send_bytes),
               static_cast<unsigned long long>(loc.recv_msgs),
               static_cast<unsigned long long>(loc.recv_bytes));
}

bool stopped(const ClientConfig& config) { return config.stop != nullptr && config.stop->load(); }

// One run against a stock qperf server (config.qperf), announced to the reporters as
// run_measurement does.
Status run_against_qperf(const ClientConfig& config, TestResult& result, LatencyRecorder& latency,
                         const std::vector<std::unique_ptr<Reporter>>& reporters,
                         const RunInfo& info, const std::string& version) {
  if (result.spec->kind != TestKind::kMisc) {
    for (const auto& reporter : reporters) reporter->on_run_start(info, result);
  }
  return config.qperf->run(config, result, latency, version);
}

// The server names the test in its errors (its own log needs it); the client's line already
// starts with the name, so "tcp_lat: server: tcp_lat: ..." loses the second one.
// "10 million" asked, "163 K/sec" reached: the open loop could not keep its schedule.
std::string rate_shortfall_warning(const Figures& f) {
  auto text = [](double v) {
    Shown s = format_figure(v, Unit::kRate, FormatOptions{});
    return s.value + " " + s.unit;
  };
  return "warning: asked " + text(f.rate_asked) + ", reached " + text(f.msg_rate) +
         " (the schedule fell behind; each latency includes its wait)";
}

std::string without_echoed_name(const std::string& message, const std::string& test) {
  const std::string echoed = "server: " + test + ": ";
  if (message.rfind(echoed, 0) != 0) return message;
  return "server: " + message.substr(echoed.size());
}

// The runs of the plan from `from` on, which were never started (the plan was cut short),
// recorded as such so JSON and CSV show where it stopped (review N12).
void record_not_run(const std::vector<PlannedRun>& plan, size_t from, const RunInfo& info,
                    std::vector<std::unique_ptr<Reporter>>& reporters) {
  for (size_t i = from; i < plan.size(); ++i) {
    TestResult result;
    result.spec = plan[i].spec;
    result.test = plan[i].spec->name;
    result.local_opts = plan[i].params.local;
    result.remote_opts = plan[i].params.remote;
    result.loop_values = plan[i].loop_values;
    result.status = RunStatus::kNotRun;
    for (auto& reporter : reporters) reporter->on_result(info, result);
  }
}

// The connection the plan's runs share with the server.
struct ServerLink {
  std::unique_ptr<ControlChannel> session;
  // A stock qperf server (--qperf_server, or recognised by its answer to HELLO): every run
  // speaks qperf's protocol; `greeted` once its conf is known.
  bool qperf = false;
  bool greeted = false;
  std::string qperf_version;
};

// On a watch thread, the measuring thread held in its provider call: the run and the rest of
// the plan (from `next` on) are written, the reporters finished, this process's shm regions
// removed, and the process ends (never returns).
[[noreturn]] void abandon_plan(const std::vector<PlannedRun>& plan, size_t next,
                               const ClientConfig& config, RunInfo& info,
                               std::vector<std::unique_ptr<Reporter>>& reporters,
                               TestResult& result, const std::string& why) {
  if (config.progress != nullptr) config.progress->end();
  result.status = RunStatus::kError;
  result.error = without_echoed_name(why, result.test);
  std::fprintf(stderr, "%s: %s\n", result.test.c_str(), result.error.c_str());
  print_partial(result.test.c_str(), result.loc);
  derive_figures(result, LatencyRecorder(), info.percentiles);
  for (auto& reporter : reporters) reporter->on_result(info, result);
  record_not_run(plan, next, info, reporters);
  for (auto& reporter : reporters) {
    Status s = reporter->finish(info);
    if (!s.ok()) std::fprintf(stderr, "%s\n", s.message().c_str());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  // Its provider never closed them: the regions are this process's own, by name.
  remove_shm_files_of(getpid(), geteuid());
  // Not a return: the measuring thread is held in its provider, so this watch thread ends
  // the process itself, with a failed run's exit status (core/status.h: 1).
  _exit(Status::reported(Code::kFailed).exit_code());
}

// A planned run's result before it runs.
TestResult result_of(const PlannedRun& run) {
  TestResult result;
  result.spec = run.spec;
  result.test = run.spec->name;
  result.local_opts = run.params.local;
  result.remote_opts = run.params.remote;
  result.loop_values = run.loop_values;
  result.display = run.display;
  result.repetition = run.repetition;
  result.repetitions = run.repetitions;
  return result;
}

// Opens the session if none is open, or greets a stock qperf server the first time; a
// failure means the server cannot be reached or turns us away.
Status connect_for(const ClientConfig& config, const PlannedRun& run, const std::string& label,
                   RunInfo& info, ServerLink& link) {
  if (!link.session && !link.qperf) {
    auto opened = open_session(config, run.params.local.timeout, info, link.qperf_version);
    if (!opened.ok() && !link.qperf_version.empty()) {
      link.qperf = true;
      std::fprintf(stderr, "%s: the server is qperf %s: measuring with qperf's protocol\n",
                   label.c_str(), link.qperf_version.c_str());
    } else if (!opened.ok()) {
      return opened.status();
    } else {
      link.session = std::move(*opened);
    }
  }
  if (link.qperf && !link.greeted) {
    Status s = config.qperf->greet(config, info, link.qperf_version, run.params.local.timeout);
    if (!s.ok()) return s;
    link.greeted = true;
  }
  return Status::success();
}

// Busy-pollers that will share a CPU, said before the run (engine/poller_check.h).
void warn_shared_pollers(const ControlChannel& session, const PlannedRun& run, const RunInfo& info,
                         const std::string& label, std::set<std::string>& warned) {
  const std::string peer = session.peer_host();
  const bool same_host = peer == info.local_host || peer.rfind("127.", 0) == 0 || peer == "::1" ||
                         peer.rfind("::ffff:127.", 0) == 0;
  std::string w = poller_warning(*run.spec, run.params.local, run.params.remote, same_host,
                                 cpus_allowed_set(), parse_cpu_list(info.server_cpus));
  if (!w.empty() && warned.insert(label + w).second) {
    std::fprintf(stderr, "%s: %s\n", label.c_str(), w.c_str());
  }
}

// One run over the link: qperf's protocol, a misc exchange or a measurement.
Status run_over(ServerLink& link, const ClientConfig& config, const PlannedRun& run,
                TestResult& result, LatencyRecorder& latency,
                const std::vector<std::unique_ptr<Reporter>>& reporters, const RunInfo& info,
                const Abandon& abandon) {
  if (link.qperf) {
    return run_against_qperf(config, result, latency, reporters, info, link.qperf_version);
  }
  return run.spec->kind == TestKind::kMisc
             ? run_misc(*link.session, result, run.params.local.timeout)
             : run_measurement(*link.session, config, result, latency, reporters, info, abandon);
}

// A failed run, said on standard error with what it had measured; returns the plan's outcome.
Status record_failure(const ClientConfig& config, const std::string& label, const Status& s,
                      TestResult& result) {
  // A run the user stopped (^C) may fail on its way out, in a connect or a wait the stop
  // broke: it was interrupted, and says so, with what broke.
  result.status = stopped(config) ? RunStatus::kInterrupted : RunStatus::kError;
  result.error = without_echoed_name(s.message(), result.test);
  std::fprintf(stderr, "%s: %s\n", label.c_str(), result.error.c_str());
  print_partial(label.c_str(), result.loc);
  return Status::reported(s.code() == Code::kUsage ? Code::kUsage : Code::kFailed);
}

// The run's figures and the warnings they call for; false when a figure check failed the run.
bool settle_figures(const ClientConfig& config, const RunInfo& info, const std::string& label,
                    const LatencyRecorder& latency, TestResult& result) {
  derive_figures(result, latency, info.percentiles);
  if (result.ok() && result.figures.rate_short) {
    std::fprintf(stderr, "%s: %s\n", label.c_str(), rate_shortfall_warning(result.figures).c_str());
  }
  // One line per side the host disturbed past the thresholds (stats/host_noise.h).
  if (result.ok() && config.noise_warnings) {
    const std::pair<const SideStats*, const char*> sides[] = {{&result.loc, "client"},
                                                              {&result.rem, "server"}};
    for (const auto& [side, name] : sides) {
      std::string warning = host_noise_warning(side->noise, name);
      if (!warning.empty()) std::fprintf(stderr, "%s: %s\n", label.c_str(), warning.c_str());
    }
  }
  if (result.status == RunStatus::kOk && !result.error.empty()) {
    // A figure check failed (verification errors).
    result.status = RunStatus::kError;
    std::fprintf(stderr, "%s: %s\n", label.c_str(), result.error.c_str());
    return false;
  }
  return true;
}

}  // namespace

ClientConfig client_config_of(const ProgramOptions& program) {
  ClientConfig config;
  config.port = static_cast<uint16_t>(program.listen_port);
  config.wait_server_s = program.wait_server;
  config.bind_addr = program.bind;
  config.qperf_server = program.qperf_server;
  config.interval_s = report_interval_s(program);
  return config;
}

Status run_plan(const std::vector<PlannedRun>& plan, const ClientConfig& config, RunInfo& info,
                std::vector<std::unique_ptr<Reporter>>& reporters) {
  // Each failure is said on standard error as it happens; the outcome only decides the exit.
  Status outcome;
  ServerLink link;
  bool started = false;
  link.qperf = config.qperf != nullptr && config.qperf_server;
  std::set<std::string> warned;
  // A server that cannot be reached, or turns us away (busy, access, key), will not serve the
  // next run either.
  size_t index = 0;
  auto cannot_open = [&](TestResult& result, const std::string& label, const Status& s) {
    result.status = RunStatus::kError;
    result.error = s.message();
    std::fprintf(stderr, "%s: %s\n", label.c_str(), s.message().c_str());
    for (auto& reporter : reporters) reporter->on_result(info, result);
    record_not_run(plan, index + 1, info, reporters);
    return Status::reported(stopped(config) ? Code::kInterrupted : Code::kFailed);
  };
  Abandon abandon = [&](TestResult& result, const std::string& why) {
    abandon_plan(plan, index + 1, config, info, reporters, result, why);
  };
  for (; index < plan.size(); ++index) {
    const PlannedRun& run = plan[index];
    if (stopped(config)) {
      record_not_run(plan, index, info, reporters);
      return Status::reported(Code::kInterrupted);
    }
    // Once each: a loop's runs share their options' warnings.
    for (const std::string& w : run.warnings) {
      if (warned.insert(w).second) std::fprintf(stderr, "%s\n", w.c_str());
    }
    TestResult result = result_of(run);
    const std::string label = config.label_by_tool ? config.tool : run.spec->name;
    LatencyRecorder latency;
    Status s = connect_for(config, run, label, info, link);
    if (!s.ok()) return cannot_open(result, label, s);
    if (!started) {
      for (auto& reporter : reporters) reporter->on_start(info);
      started = true;
    }
    if (link.session && run.spec->kind != TestKind::kMisc && config.noise_warnings) {
      warn_shared_pollers(*link.session, run, info, label, warned);
    }
    if (config.progress != nullptr) {
      config.progress->begin(index, plan.size(), progress_label(result));
    }
    s = run_over(link, config, run, result, latency, reporters, info, abandon);
    if (config.progress != nullptr) config.progress->end();  // before anything is printed
    if (!s.ok()) {
      outcome = record_failure(config, label, s, result);
      // The server ended the session with its error; the next run reconnects.
      link.session.reset();
    } else if (stopped(config) && run.spec->kind != TestKind::kMisc) {
      result.status = RunStatus::kInterrupted;
    }
    if (!settle_figures(config, info, label, latency, result)) {
      outcome = Status::reported(Code::kFailed);
    }
    for (auto& reporter : reporters) reporter->on_result(info, result);
    if (run.spec->misc == MiscAction::kQuit && s.ok()) link.session.reset();
  }
  if (link.session) link.session->send(MsgType::kBye, nlohmann::json::object(), 1).ignore_error();
  if (stopped(config)) return Status::reported(Code::kInterrupted);
  return outcome;
}

}  // namespace fabperf
