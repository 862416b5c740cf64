// Fabric runs' server sides in a session process: the server's IsolatedRunner, and the entry
// the session process runs (the app's, since only the app knows every test).
#include "app/session_process.h"

#include <poll.h>
#include <unistd.h>

#include "app/all_tests.h"
#include "core/text.h"
#include "net/control.h"
#include "net/peer_process.h"
#include "net/shm_cleanup.h"
#include "options/run_options_json.h"
#include "security/limits.h"
#include "session/child_limits.h"
#include "session/child_main.h"
#include "session/session_child.h"

namespace fabperf {

namespace {

// The session process: READY, the test's server role; what it measured goes to the parent,
// which sends RESULT (with what only it knows, as the overlapping runs).
// Returns the child process's own exit status (SessionChildEntry), not a mode's Status.
int session_entry(int control_fd, const nlohmann::json& request, ResultSink& sink) {
  ControlChannel ch(control_fd);
  ch.set_peer_label("client");
  ch.set_max_body(kClientMaxFrameBody);
  std::string name = request.value("test", "");
  const TestSpec* spec = all_tests().find(name);
  if (spec == nullptr || spec->family != TransportFamily::kFabric) {
    sink.fail(
            Status::failed("session process: \"" + printable(name, 64) + "\" is not a fabric test"))
        .ignore_error();
    return 1;
  }
  auto opts =
      run_options_from_json(request.contains("params") ? request["params"] : nlohmann::json());
  if (!opts.ok()) {
    sink.fail(opts.status()).ignore_error();
    return 1;
  }
  ControlPeer peer = ControlPeer::from_json(request.value("peer", nlohmann::json::object()));
  // This process speaks for its server: its heartbeats stop while the server is stopped, so
  // the client hears a stopped server within its -to although the measurement goes on here.
  const pid_t server = getppid();
  ch.set_heartbeat_gate([server] {
    char state = process_state(server);
    return state != 'T' && state != 't';
  });
  // Once the fabric session is set up the client owes heartbeats: the server watches their
  // silence itself from then on, whatever this process is doing (review N3).
  auto watch = [&sink] { sink.watch_peer().ignore_error(); };
  auto record = serve_run(ch, *spec, *opts, peer, nullptr, 0, watch);
  if (!record.ok()) {
    // The client hears of it from the parent, with how the process ended.
    sink.fail(record.status()).ignore_error();
    return record.status().exit_code();
  }
  Status sent = sink.send(record->to_json());
  return sent.ok() ? 0 : 1;
}

}  // namespace

void register_session_entry() { set_session_child_entry(session_entry); }

IsolatedRunner session_process_runner() {
  return [](ControlChannel& ch, const TestSpec& spec, const RunOptions& opts, const Needs& needs,
            const Deadline& deadline, const std::string& run_as,
            const ControlPeer& peer) -> Result<RunRecord> {
    ChildRequest request;
    request.test = spec.name;
    request.params = to_json(opts);
    request.timeout_s = opts.timeout;
    double bound_s = static_cast<double>(deadline.at_ns() - now_ns()) / 1e9;
    request.limits = child_limits_for(needs.buffer_bytes, bound_s, run_as);
    request.peer = peer.to_json();
    ChildOptions options;
    options.deadline_ns = deadline.at_ns();
    options.deadline_span_s = bound_s;
    options.hangup_fd = ch.fd();  // a client that dies frees its slot in seconds (D3)
    // A client that promised heartbeats and stops frees it at the server's -to (N3).
    if (peer.sends_heartbeats) options.peer_silence_s = opts.timeout;
    auto outcome = run_session_child(ch.fd(), request, options);
    if (!outcome.ok()) return outcome.status();
    // A client killed mid-run leaves its own shm regions (16 MiB each): its server, which
    // knows its pid, removes them once it is gone (review N11).
    std::vector<std::string> client_left;
    pollfd hup{ch.fd(), POLLRDHUP, 0};
    bool hung_up = outcome->peer_hung_up ||
                   (poll(&hup, 1, 0) > 0 && (hup.revents & (POLLRDHUP | POLLHUP)) != 0);
    if (hung_up && !outcome->status().ok() && peer.pids.has_value()) {
      for (pid_t pid : *peer.pids) {
        for (std::string& name : remove_shm_files_of_dead(pid, 2)) {
          client_left.push_back(std::move(name));
        }
      }
    }
    Status s = outcome->status();
    if (!s.ok()) {
      // The child's own account of its failure where it gave one; else how it ended.
      if (outcome->child_error.has_value() && outcome->end == ChildOutcome::End::kExited) return s;
      std::string how = "session process " + std::to_string(outcome->pid) + " " +
                        outcome->description + " (peak resident " +
                        size_text(outcome->peak_rss_bytes) + ")";
      if (!outcome->shm_removed.empty()) {
        how += "; removed " + std::to_string(outcome->shm_removed.size()) +
               " shm file(s) it left in /dev/shm";
      }
      if (!client_left.empty()) {
        how += "; removed " + std::to_string(client_left.size()) + " shm file(s) its client left";
      }
      return Status(s.code(), how);
    }
    if (!outcome->result.has_value()) {
      return Status::failed("session process " + std::to_string(outcome->pid) +
                            " ended without its results");
    }
    auto record = RunRecord::from_json(*outcome->result);
    if (record.ok()) {
      record->peak_rss_bytes = outcome->peak_rss_bytes;
      // What the run cost the server, beside what admission counted for it (--max_memory).
      record->stats.info["session_process"] = {{"peak_resident_bytes", outcome->peak_rss_bytes},
                                               {"admitted_bytes", needs.buffer_bytes}};
    }
    return record;
  };
}

}  // namespace fabperf
