// Server: accepts control connections and serves each client in its own thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"
#include "net/socket.h"

namespace fabperf {

struct ServerOptions {
  uint16_t port = 19765;
  std::string bind_addr;   // "" = every address, IPv6 and IPv4
  double timeout_s = 5;    // deadline for a client's control messages until it sends its own
  int max_clients = 16;    // sessions served at once; one more is told "busy"
  bool log = true;         // one line on stderr per refused or failed session
};

class Server {
 public:
  static Result<std::unique_ptr<Server>> Listen(const ServerOptions& options);
  ~Server();

  uint16_t port() const { return port_; }
  // Serves until stop() or a client's quit; returns after every session has ended.
  Status Serve();
  // Safe from any thread (and, through the flag, from a signal handler).
  void Stop() { stop_.store(true); }
  std::atomic<bool>& stop_flag() { return stop_; }
  int active_sessions() const { return active_.load(); }

 private:
  explicit Server(const ServerOptions& options, Fd listener, uint16_t port);
  void Session(int fd);
  void Log(const std::string& line);

  ServerOptions options_;
  Fd listener_;
  uint16_t port_;
  std::atomic<bool> stop_{false};
  std::atomic<int> active_{0};
  std::mutex mu_;
  std::condition_variable sessions_done_;
};

}  // namespace fabperf
