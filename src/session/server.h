// Server: accepts control connections and serves each client in its own thread, within limits.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"
#include "engine/registry.h"
#include "net/socket.h"
#include "security/access.h"
#include "security/limits.h"

namespace fabperf {

class ControlChannel;
class ParamSet;
struct TestSpec;

struct ServerOptions {
  const TestRegistry* tests = nullptr;  // the tests this server runs
  uint16_t port = 19765;
  std::string bind_addr;  // "" = every address, IPv6 and IPv4
  double timeout_s = 5;   // deadline for a client's control messages until it sends its own
  int max_clients = 16;   // sessions served at once; one more is told "busy"
  bool log = true;        // one line on stderr per refused or failed session
  ServerLimits limits;    // what one request may ask for (--max_*)
  AllowList allow;        // empty: every address may connect
  std::string auth_key;   // non-empty: clients must prove they hold it (HMAC-SHA256)
};

// Frames a client may send are small; this bounds what one costs before it is checked.
inline constexpr uint32_t kClientMaxFrameBody = 64 * 1024;
// Log lines per second before the rest are counted and summarised (a flood stays readable).
inline constexpr int kMaxLogLinesPerSecond = 20;

class Server {
 public:
  static Result<std::unique_ptr<Server>> Listen(const ServerOptions& options);
  ~Server();

  uint16_t port() const { return port_; }
  // Serves until Stop() or a client's quit. Then tells every client the server is going,
  // and waits for the sessions to end: Ok once they have, Timeout when some did not end
  // within the grace period (their threads still run; the caller should exit the process).
  Status Serve();
  // Safe from any thread (and, through the flag, from a signal handler).
  void Stop() { stop_.store(true); }
  std::atomic<bool>& stop_flag() { return stop_; }
  int active_sessions() const { return active_.load(); }

 private:
  // A live session as the supervisor sees it; owned by the session's thread, listed in
  // sessions_ while its channel exists.
  struct Slot {
    ControlChannel* channel = nullptr;
    std::atomic<bool> stop{false};    // the session's tests end early when set
    int64_t deadline_ns = INT64_MAX;  // --max_time watchdog, set when a run starts
    uint64_t memory = 0;              // reserved against --max_memory
    bool told = false;                // already sent its ERROR by the supervisor
  };

  explicit Server(const ServerOptions& options, Fd listener, uint16_t port);
  void Session(int fd);
  Status Handshake(ControlChannel& ch);
  Status HandleRequest(ControlChannel& ch, Slot& slot);
  Status RunTest(ControlChannel& ch, Slot& slot, const TestSpec& spec, const ParamSet& params,
                 const std::string& who);
  // Answers a connection that will not be served, without waiting on it.
  void Refuse(Fd conn, const SockAddr& peer, const std::string& why);
  // Ends sessions past their run-time limit, or all of them when stopping.
  void Supervise(bool stopping);
  void Log(const std::string& line);

  ServerOptions options_;
  Fd listener_;
  uint16_t port_;
  std::atomic<bool> stop_{false};
  std::atomic<int> active_{0};
  std::mutex mu_;  // guards sessions_, memory_in_use_, and the channels listed
  std::condition_variable sessions_done_;
  std::list<Slot*> sessions_;
  uint64_t memory_in_use_ = 0;
  std::mutex log_mu_;
  int64_t log_window_ns_ = 0;
  int log_lines_ = 0;
  int log_suppressed_ = 0;
};

}  // namespace fabperf
