// TCP's own counters of a connection (getsockopt TCP_INFO): retransmits, congestion window,
// smoothed round-trip time and delivery rate, the figures iperf3 shows as Retr and Cwnd.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace fabperf {

struct TcpCounters {
  uint32_t connections = 0;        // summed over this many (--streams); 0: none read
  uint64_t retransmits = 0;        // segments retransmitted (tcpi_total_retrans), summed
  uint64_t cwnd_bytes = 0;         // congestion window (snd_cwnd * snd_mss), summed
  uint32_t rtt_us = 0;             // smoothed round-trip time, the connections' highest
  uint32_t rttvar_us = 0;          // its variation, of that connection
  uint64_t delivery_Bps = 0;       // the kernel's delivery-rate estimate, summed
  bool has_delivery_rate = false;  // the kernel reports one (Linux 4.9 and later)

  bool valid() const { return connections > 0; }
  // Adds another connection's (streams): sums, and the slowest round trip.
  void add(const TcpCounters& other);
  nlohmann::json to_json() const;
  static TcpCounters from_json(const nlohmann::json& j);  // tolerant: missing fields read 0
};

// The counters of TCP socket `fd`, or nothing where it is not TCP or the kernel refuses.
std::optional<TcpCounters> read_tcp_counters(int fd);
// Summed over several connections (a --streams run's); invalid when none could be read.
TcpCounters read_tcp_counters(const std::vector<int>& fds);

}  // namespace fabperf
