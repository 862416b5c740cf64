// Reading TCP_INFO. linux/tcp.h's struct tcp_info, not glibc's, which ends before the
// delivery rate; the kernel fills what it has and says how much.
#include "net/tcp_info.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace fabperf {

void TcpCounters::add(const TcpCounters& o) {
  if (!o.valid()) return;
  if (o.rtt_us >= rtt_us) {
    rtt_us = o.rtt_us;
    rttvar_us = o.rttvar_us;
  }
  connections += o.connections;
  retransmits += o.retransmits;
  cwnd_bytes += o.cwnd_bytes;
  delivery_Bps += o.delivery_Bps;
  has_delivery_rate = has_delivery_rate || o.has_delivery_rate;
}

nlohmann::json TcpCounters::to_json() const {
  nlohmann::json j = {{"connections", connections},
                      {"retransmits", retransmits},
                      {"cwnd_bytes", cwnd_bytes},
                      {"rtt_us", rtt_us},
                      {"rttvar_us", rttvar_us}};
  if (has_delivery_rate) j["delivery_Bps"] = delivery_Bps;
  return j;
}

TcpCounters TcpCounters::from_json(const nlohmann::json& j) {
  TcpCounters t;
  if (!j.is_object()) return t;
  auto get = [&j](const char* key) -> uint64_t {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return 0;
    const double v = it->get<double>();
    return v > 0 && v < 1.8e19 ? static_cast<uint64_t>(v) : 0;
  };
  t.connections = static_cast<uint32_t>(std::min<uint64_t>(get("connections"), 1u << 20));
  t.retransmits = get("retransmits");
  t.cwnd_bytes = get("cwnd_bytes");
  t.rtt_us = static_cast<uint32_t>(std::min<uint64_t>(get("rtt_us"), UINT32_MAX));
  t.rttvar_us = static_cast<uint32_t>(std::min<uint64_t>(get("rttvar_us"), UINT32_MAX));
  t.has_delivery_rate = j.contains("delivery_Bps");
  t.delivery_Bps = get("delivery_Bps");
  return t;
}

std::optional<TcpCounters> read_tcp_counters(int fd) {
  struct tcp_info info;
  std::memset(&info, 0, sizeof info);
  socklen_t len = sizeof info;
  if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return std::nullopt;
  if (len < offsetof(struct tcp_info, tcpi_total_retrans) + sizeof info.tcpi_total_retrans) {
    return std::nullopt;
  }
  TcpCounters t;
  t.connections = 1;
  t.retransmits = info.tcpi_total_retrans;
  t.cwnd_bytes = static_cast<uint64_t>(info.tcpi_snd_cwnd) * info.tcpi_snd_mss;
  t.rtt_us = info.tcpi_rtt;
  t.rttvar_us = info.tcpi_rttvar;
  if (len >= offsetof(struct tcp_info, tcpi_delivery_rate) + sizeof info.tcpi_delivery_rate) {
    t.delivery_Bps = info.tcpi_delivery_rate;
    t.has_delivery_rate = true;
  }
  return t;
}

TcpCounters read_tcp_counters(const std::vector<int>& fds) {
  TcpCounters sum;
  for (int fd : fds) {
    if (auto one = read_tcp_counters(fd)) sum.add(*one);
  }
  return sum;
}

}  // namespace fabperf
