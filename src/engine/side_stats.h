// SideStats: the plain counters one side of a test fills while it runs (no presentation here).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/tcp_info.h"
#include "stats/cpu.h"
#include "stats/host_noise.h"

namespace fabperf {

// One stream's share of a multi-stream test (--streams): the counters that make its figures.
struct StreamCounters {
  uint64_t send_bytes = 0, send_msgs = 0, recv_bytes = 0, recv_msgs = 0;
  int64_t send_time_ns = 0, recv_time_ns = 0;
};

struct SideStats {
  uint64_t send_bytes = 0;  // payload bytes handed to the transport and accepted
  uint64_t send_msgs = 0;
  uint64_t recv_bytes = 0;  // payload bytes delivered to this side
  uint64_t recv_msgs = 0;
  uint64_t send_errors = 0;
  uint64_t recv_errors = 0;
  uint64_t lost_msgs = 0;       // datagrams or replies that never arrived
  double jitter_ns = -1;        // a paced UDP receiver's RFC 3550 jitter at the end (-1: none)
  int64_t send_time_ns = 0;     // first send .. last send on this side
  int64_t recv_time_ns = 0;     // measurement interval of the receive side
  int64_t real_time_ns = 0;     // wall time of the measured phase on this side
  uint64_t verify_checked = 0;  // values or buffers checked (--verify, ver_* tests)
  uint64_t verify_errors = 0;
  CpuUsage cpu;      // CPU used during the measured phase
  HostNoise noise;   // what the host did meanwhile (stats/host_noise.h)
  TcpCounters tcp;   // TCP tests: the data connections' TCP_INFO at the end
  std::string cpus;  // CPUs the measuring thread may run on ("0", "0-3"): -ca's effect
  std::vector<StreamCounters> streams;  // per stream, when a test ran several (--streams)
  nlohmann::json info = nlohmann::json::object();  // provider, completion level, ...

  nlohmann::json to_json() const;
  static SideStats from_json(const nlohmann::json& j);  // missing fields stay zero
};

}  // namespace fabperf
