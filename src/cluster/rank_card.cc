// RankCard's JSON form, checked field by field: a card comes from another process.
#include "cluster/bootstrap.h"

namespace fabperf::cluster {

namespace {

constexpr size_t kMaxField = 1024;
constexpr size_t kMaxAddrs = 32;

Result<std::string> text_field(const nlohmann::json& j, const char* name, bool required) {
  auto it = j.find(name);
  if (it == j.end()) {
    if (required) return Status::failed(std::string("card lacks \"") + name + "\"");
    return std::string();
  }
  if (!it->is_string() || it->get_ref<const std::string&>().size() > kMaxField) {
    return Status::failed(std::string("card field \"") + name + "\" is not a short string");
  }
  return it->get<std::string>();
}

Result<int64_t> number_field(const nlohmann::json& j, const char* name, int64_t lo, int64_t hi) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < lo ||
      it->get<int64_t>() > hi) {
    return Status::failed(std::string("card field \"") + name + "\" is missing or out of range");
  }
  return it->get<int64_t>();
}

}  // namespace

nlohmann::json RankCard::to_json() const {
  nlohmann::json j = {{"rank", rank},
                      {"host", host},
                      {"addr", addr},
                      {"server_port", server_port},
                      {"agent_port", agent_port},
                      {"key", key},
                      {"tests", tests},
                      {"pid", pid},
                      {"addrs", addrs}};
  if (!error.empty()) j["error"] = error;
  return j;
}

Result<RankCard> RankCard::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::failed("card is not an object");
  RankCard card;
  auto rank = number_field(j, "rank", 0, INT32_MAX);
  if (!rank.ok()) return rank.status();
  card.rank = static_cast<int>(*rank);
  auto pid = number_field(j, "pid", 0, INT64_MAX);
  if (!pid.ok()) return pid.status();
  card.pid = *pid;
  auto error = text_field(j, "error", false);
  if (!error.ok()) return error.status();
  card.error = *error;
  auto host = text_field(j, "host", true);
  if (!host.ok()) return host.status();
  card.host = *host;
  auto tests = text_field(j, "tests", true);
  if (!tests.ok()) return tests.status();
  card.tests = *tests;
  if (!card.error.empty()) return card;  // a rank that cannot serve publishes no address
  auto addr = text_field(j, "addr", true);
  if (!addr.ok()) return addr.status();
  card.addr = *addr;
  if (auto it = j.find("addrs"); it != j.end()) {
    if (!it->is_array() || it->size() > kMaxAddrs) {
      return Status::failed("card field \"addrs\" is not a short list");
    }
    for (const nlohmann::json& a : *it) {
      if (!a.is_string() || a.get_ref<const std::string&>().size() > 64) {
        return Status::failed("card field \"addrs\" holds something not an address");
      }
      card.addrs.push_back(a.get<std::string>());
    }
  }
  auto key = text_field(j, "key", true);
  if (!key.ok()) return key.status();
  card.key = *key;
  auto server_port = number_field(j, "server_port", 1, 65535);
  if (!server_port.ok()) return server_port.status();
  card.server_port = static_cast<uint16_t>(*server_port);
  auto agent_port = number_field(j, "agent_port", 1, 65535);
  if (!agent_port.ok()) return agent_port.status();
  card.agent_port = static_cast<uint16_t>(*agent_port);
  return card;
}

}  // namespace fabperf::cluster
