// Server: accepts control connections and serves each client's session in its own thread,
// for both dialects: hello, optional proof of the key, the allow-list, then runs (admitted
// against the limits, queued behind other clients' measurements, each within a deadline).
#pragma once

#include <poll.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "engine/registry.h"
#include "engine/test_result.h"
#include "net/socket.h"
#include "security/access.h"
#include "security/limits.h"
#include "session/measurement_queue.h"
#include "session/qperf_hooks.h"
#include "session/server_run.h"

namespace fabperf {

class ControlChannel;

// A client's session as the server knows it.
struct SessionInfo {
  std::string peer_host;       // the control connection's numeric peer address
  std::string local_host;      // this server's address on that connection
  std::string tool;            // the client's HELLO: "fabperf", "fab_write_lat" ...
  int64_t peer_pid = 0;        // the client's pid, as it says (fab_* summaries show it)
  bool authenticated = false;  // proved it holds the key, or the server needs none
  nlohmann::json peer_options = nlohmann::json::object();  // the client's OwnOptions::said
};

// A dialect whose processes each keep options of their own (the fab_* tools' -t/-r/-g/-v/-d,
// as the originals: a server started with -r 0 receives into GPU 0 whatever the client
// says): what this process tells its peer about them (in HELLO or WELCOME, for the
// summaries), and, on a server, how they change each run's options.
struct OwnOptions {
  nlohmann::json said = nlohmann::json::object();
  std::function<Status(const TestSpec& spec, RunOptions& opts)> apply;  // null: none
};

// What a dialect shows on the server's terminal while sessions run (the fab_* tools print a
// summary and their tables; fabperf's server prints only its log). Called on session
// threads, one run at a time per session.
class ServerObserver {
 public:
  virtual ~ServerObserver() = default;
  virtual void on_run_start(const SessionInfo& session, const TestSpec& spec,
                            const RunOptions& server_side) = 0;
  // `result` is the run as its client sees it (loc = the client's side, rem = this server's).
  virtual void on_run_end(const SessionInfo& session, const TestResult& result) = 0;
  virtual void on_session_end(const SessionInfo& session) = 0;
};

// Runs one run's server side in a process of its own; the server kills it at `deadline`.
// `run_as`: the user it runs as when the server is root ("" = nobody).
using IsolatedRunner = std::function<Result<RunRecord>(
    ControlChannel& ch, const TestSpec& spec, const RunOptions& opts, const Needs& needs,
    const Deadline& deadline, const std::string& run_as, const ControlPeer& peer)>;

// The fields that are options (-lp, --bind, -to, --max_*, --concurrent, --queue_timeout,
// --once, --trust_fabric_addrs, --no_qperf) take their defaults from the option table alone:
// server_options_of() (session/server_config.h) reads them from ProgramOptions, and their zeros
// here are never a second copy of them. Build one with server_options_from() or
// default_server_options(), then set what is not an option.
struct ServerOptions {
  const TestRegistry* tests = nullptr;  // the tests this server runs
  uint16_t port = 0;
  std::string bind_addr;       // "" = every address, IPv6 and IPv4
  double timeout_s = 0;        // every wait on a client, and the cap on a client's own -to
  int max_clients = 0;         // sessions served at once; one more is told "busy"
  bool concurrent = false;     // measurements of several clients at once (else they queue)
  double queue_timeout_s = 0;  // how long a run waits for others' measurements
  bool once = false;           // stop after the first session (the fab_* tools' way)
  std::string tool;            // a fab_* server: clients must be the same tool and version
  bool log = true;             // one line on stderr per refused or failed session
  ServerLimits limits;         // what one request may ask for (--max_*)
  AllowList allow;             // empty: every address may connect
  std::string auth_key;        // non-empty: clients must prove they hold it (HMAC-SHA256)
  IsolatedRunner isolate;      // runs fabric tests' server sides in their own process (if set)
  std::string run_as;          // --run_as: the user those processes run as when the server is root
  // A root server given no --run_as: a session whose client is a process on this host runs as
  // that client's user (client_user()); others as `run_as` (nobody).
  bool run_as_client = false;
  bool trust_fabric_addrs = false;     // accept fabric addresses no IP ties to the client
  ServerObserver* observer = nullptr;  // the dialect's server output (may be null)
  OwnOptions own;                      // this server's own per-process options
  // Stock qperf clients on the same port, told apart by their first byte (null: none, and a
  // qperf client hears fabperf's error frame).
  const QperfHooks* qperf = nullptr;
  bool no_qperf = false;  // --no_qperf: qperf clients are refused, in qperf's terms
  // > 0, with a key (a --matrix rank's server): a connection must prove the key within this
  // many seconds of its accept, and until it has it holds none of the max_clients slots; at
  // most kMaxUnproven wait at once, a newer one cutting the oldest. Strangers holding idle
  // connections then cannot keep the job's own clients out.
  double unproven_s = 0;
};

inline constexpr int kMaxUnproven = 64;

// Frames a client may send are small; this bounds what one costs before it is checked.
inline constexpr uint32_t kClientMaxFrameBody = 64 * 1024;
// Log lines per second before the rest are counted and summarised (a flood stays readable).
inline constexpr int kMaxLogLinesPerSecond = 20;

class Server {
 public:
  static Result<std::unique_ptr<Server>> listen(const ServerOptions& options);
  ~Server();

  uint16_t port() const { return port_; }
  // Serves until stop(), a client's quit, or (with `once`) the end of the first session. Then
  // tells every client the server is going and waits for the sessions to end: Ok once they
  // have, Timeout when some did not end within the grace period (the caller should exit),
  // Failed when the one session of a `once` server failed (the fab_* servers exit 1 then).
  Status serve();
  // Replaces the --allow list; only before serve() (a --matrix rank learns its job's peers
  // after its server is listening).
  void set_allow(AllowList allow) { options_.allow = std::move(allow); }
  // Safe from any thread.
  void stop() { stop_.store(true); }
  int active_sessions() const { return active_.load(); }

 private:
  // A live session as the supervisor sees it; owned by the session's thread, listed in
  // sessions_ while its channel exists.
  struct Slot {
    ControlChannel* channel = nullptr;
    std::atomic<bool> stop{false};    // the session's runs end early when set
    int64_t deadline_ns = INT64_MAX;  // the current run's deadline, kept by the supervisor
    RunCost cost;                     // reserved by the current run (memory, threads, fds)
    bool told = false;                // already sent its ERROR by the supervisor
    int64_t accepted_ns = 0;
    bool proven = false;  // with unproven_s: proved the key and holds a client slot
    // Set: the supervisor tells the client this way (a qperf client, in qperf's terms).
    std::function<void(const std::string&)> tell;
  };

  explicit Server(const ServerOptions& options, Fd listener, uint16_t port);
  void session(int fd);
  Status handshake(ControlChannel& ch, SessionInfo& info);
  Status serve_requests(ControlChannel& ch, Slot& slot, SessionInfo& info);
  Status run(ControlChannel& ch, Slot& slot, const SessionInfo& info, const nlohmann::json& body);
  // A run's turn, the same for both protocols: the limits, its place in the measurement queue
  // (on_wait while it waits), its memory and its deadline. Caps opts.timeout at the server's.
  Result<uint64_t> admit(Slot& slot, const std::string& who, const TestSpec& spec, RunOptions& opts,
                         const std::function<Status(size_t ahead)>& on_wait);
  // The turn is over: the queue moves on, the memory is returned. Returns the runs that
  // measured at the same time.
  std::vector<std::string> end_turn(Slot& slot, uint64_t ticket);
  // Both protocols share the port: true when the client's first byte opens a qperf request;
  // Timeout when it sends nothing within the server's -to (server_qperf.cc).
  Result<bool> qperf_client(ControlChannel& ch, Slot& slot);
  // A stock qperf client's session, under the rules of a fabperf client's (server_qperf.cc).
  Status serve_qperf(ControlChannel& ch, Slot& slot, const SessionInfo& info);
  bool counts_for_once(const SessionInfo& info) const;
  // `interval_s`: the client's --interval (socket runs keep the server's records too).
  // `client_heartbeats`: the RUN promised them (ControlPeer::sends_heartbeats).
  Result<RunRecord> execute(ControlChannel& ch, Slot& slot, const TestSpec& spec,
                            const RunOptions& opts, double interval_s, bool client_heartbeats);
  // The latest a run may end: its length (or --max_time for -n runs) and two timeouts.
  int64_t run_deadline_ns(const RunOptions& opts) const;
  // Answers a connection that will not be served, without waiting on it: in qperf's terms
  // when it opens like a qperf request, else in fabperf's. One that has sent nothing yet waits
  // among the pending refusals (when `may_wait` and there is room), answered once it speaks.
  void refuse(Fd conn, const SockAddr& peer, const std::string& why, bool may_wait = true);
  // The pending refusals that spoke, or whose wait is over, get their answer.
  void answer_pending(const std::vector<pollfd>& polled, bool all);
  // Ends runs past their deadline, or every session when stopping; with unproven_s, cuts the
  // connections that did not prove the key in time.
  void supervise(bool stopping);
  // With unproven_s: makes room for one more connection that has yet to prove the key.
  void cut_oldest_unproven();
  // With unproven_s: a session that proved the key takes a client slot, or is told busy.
  Status take_slot(Slot& slot);
  void log(const std::string& line);

  ServerOptions options_;
  Fd listener_;
  uint16_t port_;
  std::atomic<bool> stop_{false};
  std::atomic<int> active_{0};
  std::atomic<int> unproven_{0};  // with unproven_s: connections yet to prove the key
  int proven_ = 0;                // with unproven_s: sessions holding a slot (guarded by mu_)
  std::atomic<int> sessions_ended_{0};
  std::string first_failure_;  // with `once`: why the session failed (guarded by mu_)
  MeasurementQueue queue_;
  std::mutex mu_;  // guards sessions_, in_use_, and the channels listed
  std::condition_variable sessions_done_;
  std::list<Slot*> sessions_;
  // Refused connections that had sent nothing yet: which protocol to answer in is known from
  // their first byte. Polled by the accept loop with the listener; only it touches them.
  struct PendingRefusal {
    Fd conn;
    SockAddr peer;
    std::string why;
    int64_t until_ns;
  };
  std::vector<PendingRefusal> pending_refusals_;
  RunCost in_use_;  // what the runs under way hold
  std::mutex log_mu_;
  int64_t log_window_ns_ = 0;
  int log_lines_ = 0;
  int log_suppressed_ = 0;
};

}  // namespace fabperf
