// SideStats to and from its wire form; tolerant of missing fields, strict on types.
#include "engine/side_stats.h"

namespace fabperf {

namespace {
template <typename T>
void read_field(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it != j.end() && it->is_number()) out = it->get<T>();
}
}  // namespace

nlohmann::json SideStats::to_json() const {
  nlohmann::json j = {{"send_bytes", send_bytes},
                      {"send_msgs", send_msgs},
                      {"recv_bytes", recv_bytes},
                      {"recv_msgs", recv_msgs},
                      {"send_errors", send_errors},
                      {"recv_errors", recv_errors},
                      {"lost_msgs", lost_msgs},
                      {"send_time_ns", send_time_ns},
                      {"recv_time_ns", recv_time_ns},
                      {"real_time_ns", real_time_ns},
                      {"verify_checked", verify_checked},
                      {"verify_errors", verify_errors},
                      {"cpu", cpu.to_json()},
                      {"info", info}};
  if (!cpus.empty()) j["cpus"] = cpus;
  if (noise.measured) j["host_noise"] = noise.to_json();
  if (jitter_ns >= 0) j["jitter_ns"] = jitter_ns;
  if (tcp.valid()) j["tcp"] = tcp.to_json();
  if (!streams.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const StreamCounters& c : streams) {
      list.push_back({{"send_bytes", c.send_bytes},
                      {"send_msgs", c.send_msgs},
                      {"recv_bytes", c.recv_bytes},
                      {"recv_msgs", c.recv_msgs},
                      {"send_time_ns", c.send_time_ns},
                      {"recv_time_ns", c.recv_time_ns}});
    }
    j["streams"] = list;
  }
  return j;
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
  read_field(j, "jitter_ns", s.jitter_ns);
  if (!(s.jitter_ns >= 0 && s.jitter_ns < 1e15)) s.jitter_ns = -1;
  read_field(j, "verify_checked", s.verify_checked);
  read_field(j, "verify_errors", s.verify_errors);
  if (auto it = j.find("cpu"); it != j.end()) s.cpu = CpuUsage::from_json(*it);
  if (auto it = j.find("info"); it != j.end() && it->is_object()) s.info = *it;
  if (auto it = j.find("host_noise"); it != j.end()) s.noise = HostNoise::from_json(*it);
  if (auto it = j.find("tcp"); it != j.end()) s.tcp = TcpCounters::from_json(*it);
  if (auto it = j.find("cpus"); it != j.end() && it->is_string()) {
    s.cpus = it->get<std::string>().substr(0, 256);
  }
  if (auto it = j.find("streams"); it != j.end() && it->is_array()) {
    for (const auto& e : *it) {
      if (s.streams.size() >= 1024) break;  // the option's range is far lower; a cap all the same
      StreamCounters c;
      if (e.is_object()) {
        read_field(e, "send_bytes", c.send_bytes);
        read_field(e, "send_msgs", c.send_msgs);
        read_field(e, "recv_bytes", c.recv_bytes);
        read_field(e, "recv_msgs", c.recv_msgs);
        read_field(e, "send_time_ns", c.send_time_ns);
        read_field(e, "recv_time_ns", c.recv_time_ns);
      }
      s.streams.push_back(c);
    }
  }
  return s;
}

}  // namespace fabperf
