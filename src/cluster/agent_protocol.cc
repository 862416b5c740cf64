// The agent protocol's handshake: rank 0's HELLO (the job, its deadline, the agent protocol's
// version), then the key-proof handshake of security/handshake.h with the rank's key.
#include "cluster/agent_protocol.h"

#include "net/socket.h"
#include "security/handshake.h"

namespace fabperf::cluster {

namespace {

constexpr const char* kNotCoordinator =
    "not a --matrix coordinator: this port runs jobs only for the rank 0 of its own job";

// The version a peer's member names; 1 where it names none (a fabperf before version 2).
int protocol_of(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 1;
}

std::string version_mismatch(const std::string& who, int theirs) {
  return who + " speaks agent protocol " + std::to_string(theirs) + ", this side " +
         std::to_string(kAgentProtocolVersion) +
         ": every rank of a job needs the same fabperf version";
}

}  // namespace

Result<std::unique_ptr<ControlChannel>> connect_agent(const RankCard& card,
                                                      const CoordinatorHello& hello,
                                                      const std::string& bind, double timeout_s) {
  ConnectOptions options{timeout_s, timeout_s, bind, ""};
  auto fd = connect_tcp(card.addr, card.agent_port, options);
  if (!fd.ok()) return fd.status();
  auto ch = std::make_unique<ControlChannel>(fd->release());
  ch->set_peer_label("rank " + std::to_string(card.rank) + "'s agent");
  ch->set_agent_protocol(true);
  auto prover = KeyProver::start(
      card.key, {"rank 0", "agent", " (the rank's key, from its card)",
                 "its agent asks for no proof of the rank's key (not an agent of this job?)",
                 "its agent does not hold the key its card published (another process on its "
                 "port?)"});
  if (!prover.ok()) return prover.status();
  FP_RETURN_IF_ERROR(ch->send(MsgType::kHello,
                              {{"tool", "fabperf"},
                               {"version", FABPERF_VERSION},
                               {"matrix",
                                {{"job", hello.job},
                                 {"deadline_s", hello.deadline_s},
                                 {"protocol", kAgentProtocolVersion}}},
                               {"auth", prover->hello_auth()}},
                              timeout_s));
  auto welcome = ch->expect(MsgType::kWelcome, timeout_s);
  if (!welcome.ok()) return welcome.status();
  auto proven = prover->finish(*ch, *welcome, timeout_s);
  if (!proven.ok()) return proven.status();
  if (proven->contains("server") && !proven->contains("agent_protocol")) {
    // A session server's AUTH describes its host: the card's agent port leads to a server.
    return Status::failed("a fabperf server answers on its agent's port, not an agent");
  }
  int theirs = protocol_of(*proven, "agent_protocol");
  if (theirs != kAgentProtocolVersion) {
    return Status::failed(version_mismatch("its agent", theirs));
  }
  return ch;
}

Status accept_coordinator(ControlChannel& ch, const std::string& key, double timeout_s,
                          CoordinatorHello* hello) {
  ch.set_agent_protocol(true);
  auto first = ch.expect(MsgType::kHello, timeout_s);
  if (!first.ok()) return first.status();
  auto matrix = first->find("matrix");
  if (matrix == first->end() || !matrix->is_object()) return Status::failed(kNotCoordinator);
  int theirs = protocol_of(*matrix, "protocol");
  if (theirs != kAgentProtocolVersion) return Status::failed(version_mismatch("rank 0", theirs));
  FP_RETURN_IF_ERROR(
      check_key_proof(ch, key, *first, {{"agent_protocol", kAgentProtocolVersion}},
                      {"agent", "coordinator", "", kNotCoordinator,
                       "authentication failed: the coordinator does not hold this job's key"},
                      timeout_s));
  auto job = matrix->find("job");
  hello->job = job != matrix->end() && job->is_string() ? job->get<std::string>() : "";
  auto deadline = matrix->find("deadline_s");
  hello->deadline_s =
      deadline != matrix->end() && deadline->is_number() ? deadline->get<double>() : 0;
  if (!(hello->deadline_s > 0 && hello->deadline_s < 1e9)) {
    return Status::failed("the coordinator sent no job deadline");
  }
  return Status::success();
}

}  // namespace fabperf::cluster
