// Helpers for the fabric peer-check tests: a bystander address that counts what reaches it, a
// hostile client that forges its fabric endpoint name, and a bystander process with a buffer.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace fabperf::testing {

// UDP and TCP on 127.0.0.3:port (one port for both): counts datagrams, bytes and connections
// until destroyed. A peer-checking server must never reach it.
class ThirdParty {
 public:
  ThirdParty();
  ~ThirdParty();
  bool ok() const { return port_ != 0; }
  uint16_t port() const { return port_; }
  // Its address as FI_SOCKADDR_IN endpoint name bytes, hex-encoded for the control exchange.
  std::string name_hex() const;
  uint64_t datagrams() const { return datagrams_.load(); }
  uint64_t bytes() const { return bytes_.load(); }
  uint64_t connections() const { return connections_.load(); }
  std::string summary() const;

 private:
  void serve();
  int udp_ = -1, tcp_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> datagrams_{0}, bytes_{0}, connections_{0};
  std::vector<int> accepted_;
  std::thread thread_;
};

// What a hostile client saw of the server.
struct ForgedRun {
  bool ready = false;           // the server answered RUN with READY
  std::string error;            // the server's ERROR text, "" when none came
  nlohmann::json server_hello;  // the server's EXCHANGE (its own endpoint), if any
};

// The client's side of a connectionless fabric test (RUN, READY, the endpoint EXCHANGE) with
// `name_hex` as its endpoint name and `memory` as its region; then waits up to `wait_s` for the
// server's ERROR. The control connection closes on return.
ForgedRun forge_connectionless(int port, const std::string& test, const std::string& provider,
                               const nlohmann::json& params, const std::string& name_hex,
                               const nlohmann::json& memory, double wait_s);

// The "memory" object of the exchange for a region at `region` (encode_region's form).
nlohmann::json forged_memory(const nlohmann::json& region, uint64_t stride);

// The bystander process (build/fabperf_shm_victim): a zeroed 64 KiB buffer registered on a shm
// endpoint it keeps progressing.
class ShmVictim {
 public:
  ShmVictim();
  ~ShmVictim();
  bool ok() const { return hello_.contains("name"); }
  std::string error() const;
  pid_t pid() const { return pid_; }
  const nlohmann::json& hello() const { return hello_; }  // {"pid", "name", "region"}
  // Ends it and returns how many bytes of its buffer changed (-1 when it did not say).
  long finish_and_count_changed(std::string* first_bytes = nullptr);

 private:
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  nlohmann::json hello_;
  std::string spawn_error_;
};

}  // namespace fabperf::testing
