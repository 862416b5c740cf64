// One client's session on the server: hello (and proof of the key), then its requests (runs,
// conf, quit) until it says goodbye, each run admitted, queued and bounded by a deadline.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "core/clock.h"
#include "core/text.h"
#include "engine/misc_tests.h"
#include "engine/poller_check.h"
#include "net/control.h"
#include "options/run_options_json.h"
#include "security/handshake.h"
#include "session/child_limits.h"
#include "session/server.h"

namespace fabperf {

namespace {

// Our own decoder's complaint about the client reads better to the client without the label.
std::string for_client(const std::string& message) {
  const std::string label = "client: ";
  return message.rfind(label, 0) == 0 ? message.substr(label.size()) : message;
}

std::string string_field(const nlohmann::json& body, const char* name) {
  auto it = body.find(name);
  return it != body.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

void Server::session(int fd) {
  Slot slot;
  SessionInfo info;
  {
    ControlChannel ch(fd);
    ch.set_peer_label("client");
    ch.set_max_body(kClientMaxFrameBody);
    ch.set_cancel(&slot.stop);
    info.peer_host = ch.peer_host();
    info.local_host = local_address(ch.fd()).host();
    {
      std::lock_guard<std::mutex> lock(mu_);
      slot.channel = &ch;
      slot.accepted_ns = now_ns();
      if (stop_.load()) slot.stop.store(true);
      sessions_.push_back(&slot);
    }
    // Both protocols share the port; the first byte tells them apart (docs/protocol.md).
    auto qperf = qperf_client(ch, slot);
    Status s = qperf.status();
    if (qperf.ok() && *qperf) {
      s = serve_qperf(ch, slot, info);  // a qperf client heard its failures in its own terms
    } else if (qperf.ok()) {
      s = handshake(ch, info);
      if (s.ok() && options_.unproven_s > 0) s = take_slot(slot);
      if (s.ok()) s = serve_requests(ch, slot, info);
    }
    if (!s.ok()) {
      // One line per failed session; the client hears the same reason when it can. A session
      // the supervisor ended was logged and told there.
      bool told;
      {
        std::lock_guard<std::mutex> lock(mu_);
        told = slot.told;
      }
      if (!told) {
        log(ch.peer_host() + ": " + s.message());
        if (s.code() != Code::kInterrupted && !(qperf.ok() && *qperf)) {
          ch.send_error(for_client(s.message()), 1).ignore_error();
          // A client that sent heartbeats meanwhile would get a reset, not the error.
          ch.linger(s.code() == Code::kTimeout ? 0.2 : 1);
        }
      }
      std::lock_guard<std::mutex> lock(mu_);
      if (first_failure_.empty() && counts_for_once(info)) first_failure_ = s.message();
    }
    if (options_.observer != nullptr && !info.tool.empty()) options_.observer->on_session_end(info);
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.remove(&slot);
    if (options_.unproven_s > 0) {
      if (slot.proven) {
        --proven_;
      } else {
        unproven_.fetch_sub(1);
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (counts_for_once(info)) sessions_ended_.fetch_add(1);
  active_.fetch_sub(1);
  sessions_done_.notify_all();
}

// A one-client (fab_*) server ends after its client, as the originals do; with a key, only a
// client that proved it holds the key is that client, so a stranger cannot end the server.
bool Server::counts_for_once(const SessionInfo& info) const {
  return options_.auth_key.empty() || info.authenticated;
}

Status Server::handshake(ControlChannel& ch, SessionInfo& info) {
  auto hello = ch.expect(MsgType::kHello, options_.timeout_s);
  if (!hello.ok()) return hello.status();
  info.tool = printable(string_field(*hello, "tool"), 64);
  if (info.tool.empty()) return Status::failed("not a fabperf client (its HELLO names no tool)");
  // A fab_* server serves its own tool, as the originals do, of the same major.minor version.
  if (!options_.tool.empty()) {
    if (info.tool != options_.tool) {
      return Status::failed("Client and server program names do not match!");
    }
    std::string version = string_field(*hello, "version");
    auto major_minor = [](const std::string& v) {
      return v.substr(0, v.find('.', v.find('.') + 1));
    };
    if (major_minor(version) != major_minor(FABPERF_VERSION)) {
      return Status::failed("Client and server program versions do not match!");
    }
  }
  if (auto pid = hello->find("pid"); pid != hello->end() && pid->is_number_integer()) {
    info.peer_pid = pid->get<int64_t>();
  }
  if (auto own = hello->find("options"); own != hello->end() && own->is_object()) {
    info.peer_options = *own;
  }
  // The CPUs this server (and its session processes) may run on: a client on this host judges
  // from them whether its busy-pollers and ours share one (engine/poller_check.h).
  nlohmann::json about = {{"server", node_info()},
                          {"pid", getpid()},
                          {"options", options_.own.said},
                          {"cpus_allowed", cpu_list_text(cpus_allowed_set())}};
  if (options_.auth_key.empty()) {
    // A client with a key refuses us itself: it cannot tell us from an impostor.
    info.authenticated = true;
    return ch.send(MsgType::kWelcome, about);
  }
  // With a key, WELCOME carries only the challenge: nothing about this host before the proof.
  const HandshakeWords words{
      "server", "client", " (--auth_key_file)",
      "authentication required: this server needs a pre-shared key (client option "
      "--auth_key_file)",
      "authentication failed: the client's key does not match this server's (--auth_key_file)"};
  FP_RETURN_IF_ERROR(
      check_key_proof(ch, options_.auth_key, *hello, about, words, options_.timeout_s));
  info.authenticated = true;
  return Status::success();
}

Status Server::serve_requests(ControlChannel& ch, Slot& slot, SessionInfo& info) {
  while (true) {
    auto request = ch.recv(options_.timeout_s);
    if (!request.ok()) {
      // A client that leaves between runs, having what it came for, ends the session quietly.
      if (request.status().code() == Code::kFailed && !ch.peer_reported_error() &&
          request.status().message().find("connection closed by peer") != std::string::npos &&
          request.status().message().find("middle") == std::string::npos) {
        return Status::success();
      }
      return request.status();
    }
    switch (request->type) {
      case MsgType::kConf:
        FP_RETURN_IF_ERROR(ch.send(MsgType::kConfReply, node_info()));
        continue;
      case MsgType::kQuit: {
        log(ch.peer_host() + ": quit");
        {
          std::lock_guard<std::mutex> lock(mu_);
          slot.told = true;  // its answer is BYE, not "server shutting down"
        }
        Status s = ch.send(MsgType::kBye, nlohmann::json::object());
        stop();
        return s;
      }
      case MsgType::kBye:
        return Status::success();
      case MsgType::kRun:
        FP_RETURN_IF_ERROR(run(ch, slot, info, request->body));
        continue;
      default:
        return Status::failed(std::string("protocol error: unexpected ") +
                              msg_type_name(request->type) +
                              misdirected_note(request->type, false));
    }
  }
}

int64_t Server::run_deadline_ns(const RunOptions& opts) const {
  // A run counted by -n, or one without a timer (a qperf request's time 0, ended by its
  // client), may last as long as the server allows.
  double length = opts.no_msgs > 0 || opts.time <= 0
                      ? options_.limits.max_time
                      : std::min(opts.time, options_.limits.max_time);
  return now_ns() + static_cast<int64_t>((length + 2 * opts.timeout + 5) * 1e9);
}

Status Server::run(ControlChannel& ch, Slot& slot, const SessionInfo& info,
                   const nlohmann::json& body) {
  ch.clear_peer_stopped();  // a stop belongs to the run it interrupted
  std::string name = string_field(body, "test");
  const TestSpec* spec = options_.tests->find(name);
  if (spec == nullptr || spec->kind == TestKind::kMisc) {
    return Status::failed("unknown test \"" + printable(name, 64) +
                          "\" (is the client newer? upgrade the server)");
  }
  auto opts = run_options_from_json(body.contains("params") ? body["params"] : nlohmann::json());
  if (!opts.ok()) return opts.status().prefixed(name);
  // This server's own options (a fab_* server's -t/-r/-g/-v/-d) over the client's.
  if (options_.own.apply) FP_RETURN_IF_ERROR(options_.own.apply(*spec, *opts).prefixed(name));
  // Wait for the turn to measure (other clients' runs first), telling the client so.
  auto ticket = admit(slot, info.peer_host + " " + name, *spec, *opts, [&](size_t ahead) {
    return ch.send(MsgType::kQueued, {{"ahead", ahead}}, 1);
  });
  if (!ticket.ok()) return ticket.status().prefixed(name);
  if (options_.observer != nullptr) options_.observer->on_run_start(info, *spec, *opts);
  // The client's --interval (its request says; older clients do not): the server keeps its
  // own records of a socket run too.
  double interval_s = 0;
  if (auto it = body.find("interval_s"); it != body.end() && it->is_number()) {
    interval_s = std::clamp(it->get<double>(), 0.0, 1e8);
    if (interval_s < 0.001) interval_s = 0;
  }
  // The client promises a heartbeat every 0.5 s until RESULT (docs/protocol.md).
  auto beats = body.find("heartbeats");
  bool heartbeats = beats != body.end() && beats->is_boolean() && beats->get<bool>();
  auto record = execute(ch, slot, *spec, *opts, interval_s, heartbeats);
  std::vector<std::string> overlapped = end_turn(slot, *ticket);
  if (!record.ok()) return record.status().prefixed(name);
  nlohmann::json result = record->to_json();
  result["overlapped"] = overlapped;
  FP_RETURN_IF_ERROR(ch.send(MsgType::kResult, result));
  // The client's side, so a dialect that shows results on the server (fab_*) can.
  auto report = ch.expect(MsgType::kReport, opts->timeout);
  // Named as every other failure of the run (a tcp_bw client killed mid-run fails here).
  if (!report.ok()) return report.status().prefixed(name);
  if (options_.observer != nullptr) {
    TestResult view;
    view.spec = spec;
    view.test = spec->name;
    view.local_opts = *opts;
    view.remote_opts = *opts;
    view.loc = SideStats::from_json(report->value("stats", nlohmann::json::object()));
    view.rem = record->stats;
    LatencyRecorder latency;
    if (!record->latency.is_null()) {
      auto mine = LatencyRecorder::from_json(record->latency);
      if (mine.ok()) latency.merge(*mine);
    }
    if (report->contains("latency")) {
      auto theirs = LatencyRecorder::from_json((*report)["latency"]);
      if (theirs.ok()) latency.merge(*theirs);
    }
    derive_figures(view, latency, default_percentiles());
    options_.observer->on_run_end(info, view);
  }
  return Status::success();
}

Result<uint64_t> Server::admit(Slot& slot, const std::string& who, const TestSpec& spec,
                               RunOptions& opts,
                               const std::function<Status(size_t ahead)>& on_wait) {
  // A request may leave the size out: counted, limited and run at the test's default.
  opts.msg_size = message_size_of(spec, opts);
  if (spec.check != nullptr) FP_RETURN_IF_ERROR(spec.check(opts));
  // The server's -to bounds every wait of the run, whatever the client asked for.
  opts.timeout = std::min(opts.timeout, options_.timeout_s);
  FP_RETURN_IF_ERROR(check_request(options_.limits, spec, opts, RunCost{}));
  auto ticket = queue_.enter(who, options_.queue_timeout_s, slot.stop, on_wait);
  if (!ticket.ok()) return ticket.status();
  std::lock_guard<std::mutex> lock(mu_);
  Status fits = check_request(options_.limits, spec, opts, in_use_);
  if (!fits.ok()) {
    queue_.leave(*ticket);
    return fits;
  }
  slot.cost = run_cost(spec, opts);
  in_use_ += slot.cost;
  slot.deadline_ns = run_deadline_ns(opts);
  return *ticket;
}

std::vector<std::string> Server::end_turn(Slot& slot, uint64_t ticket) {
  std::vector<std::string> overlapped = queue_.leave(ticket);
  std::lock_guard<std::mutex> lock(mu_);
  in_use_ -= slot.cost;
  slot.cost = RunCost{};
  slot.deadline_ns = INT64_MAX;
  return overlapped;
}

Result<RunRecord> Server::execute(ControlChannel& ch, Slot& slot, const TestSpec& spec,
                                  const RunOptions& opts, double interval_s,
                                  bool client_heartbeats) {
  if (spec.family == TransportFamily::kFabric && options_.isolate) {
    Needs needs = needs_of(spec, opts);
    // The peer's processes are looked up here, before a session process that may run as
    // another user (who cannot read the client's /proc entries) takes over.
    ControlPeer peer = ControlPeer::resolved(ch.fd(), options_.trust_fabric_addrs);
    peer.sends_heartbeats = client_heartbeats;
    std::string run_as = options_.run_as;
    if (options_.run_as_client && peer.pids.has_value()) {
      if (auto user = client_user(*peer.pids); user.ok()) run_as = *user;
    }
    return options_.isolate(ch, spec, opts, needs, Deadline(slot.deadline_ns), run_as, peer);
  }
  ControlPeer peer = ControlPeer::of_connection(ch.fd());
  peer.trust_fabric_only = options_.trust_fabric_addrs;
  peer.sends_heartbeats = client_heartbeats;
  return serve_run(ch, spec, opts, peer, &slot.stop, interval_s);
}

}  // namespace fabperf
