// SideStats to and from its wire form; tolerant of missing fields, strict on types.
#include "core/side_stats.h"

namespace fabperf {

namespace {
template <typename T>
void read_field(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && it->is_number()) out = it->get<T>();
}
}  // namespace

nlohmann::json SideStats::to_json() const {
  return {{"send_bytes", send_bytes},     {"send_msgs", send_msgs},
          {"recv_bytes", recv_bytes},     {"recv_msgs", recv_msgs},
          {"send_errors", send_errors},   {"recv_errors", recv_errors},
          {"lost_msgs", lost_msgs},       {"send_time_ns", send_time_ns},
          {"recv_time_ns", recv_time_ns}, {"real_time_ns", real_time_ns},
          {"verify_checked", verify_checked}, {"verify_errors", verify_errors},
          {"cpu", cpu.to_json()},         {"info", info}};
}

SideStats SideStats::from_json(const nlohmann::json& j) {
  SideStats s;
  if (!j.is_object()) return s;
  read_field(j, "send_bytes", s.send_bytes);
  read_field(j, "send_msgs", s.send_msgs);
  read_field(j, "recv_bytes", s.recv_bytes);
  read_field(j, "recv_msgs", s.recv_msgs);
  read_field(j, "send_errors", s.send_errors);
  read_field(j, "recv_errors", s.recv_errors);
  read_field(j, "lost_msgs", s.lost_msgs);
  read_field(j, "send_time_ns", s.send_time_ns);
  read_field(j, "recv_time_ns", s.recv_time_ns);
  read_field(j, "real_time_ns", s.real_time_ns);
  read_field(j, "verify_checked", s.verify_checked);
  read_field(j, "verify_errors", s.verify_errors);
  if (auto it = j.find("cpu"); it != j.end()) s.cpu = CpuUsage::from_json(*it);
  if (auto it = j.find("info"); it != j.end() && it->is_object()) s.info = *it;
  return s;
}

}  // namespace fabperf
