// The agent protocol's handshake: HELLO (with the coordinator's nonce), WELCOME (the agent's
// challenge), then HMAC proofs of the rank's key both ways (security/auth.h).
#include "cluster/agent_protocol.h"

#include "net/socket.h"
#include "security/auth.h"

namespace fabperf::cluster {

namespace {

std::string text_of(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
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
  auto nonce = random_nonce();
  if (!nonce.ok()) return nonce.status();
  FP_RETURN_IF_ERROR(ch->send(MsgType::kHello,
                              {{"tool", "fabperf"},
                               {"version", FABPERF_VERSION},
                               {"matrix", {{"job", hello.job}, {"deadline_s", hello.deadline_s}}},
                               {"auth", {{"method", kAuthMethod}, {"nonce", *nonce}}}},
                              timeout_s));
  auto welcome = ch->expect(MsgType::kWelcome, timeout_s);
  if (!welcome.ok()) return welcome.status();
  std::string challenge;
  if (auto it = welcome->find("auth"); it != welcome->end() && it->is_object()) {
    challenge = text_of(*it, "challenge");
  }
  if (!valid_nonce(challenge)) return Status::failed("its agent sent no valid challenge");
  FP_RETURN_IF_ERROR(
      ch->send(MsgType::kAuth, {{"proof", client_proof(card.key, challenge, *nonce)}}, timeout_s));
  auto proof = ch->expect(MsgType::kAuth, timeout_s);
  if (!proof.ok()) return proof.status();
  if (!proofs_equal(text_of(*proof, "proof"), server_proof(card.key, challenge, *nonce))) {
    return Status::failed(
        "its agent does not hold the key its card published (another "
        "process on its port?)");
  }
  return ch;
}

Status accept_coordinator(ControlChannel& ch, const std::string& key, double timeout_s,
                          CoordinatorHello* hello) {
  auto first = ch.expect(MsgType::kHello, timeout_s);
  if (!first.ok()) return first.status();
  auto matrix = first->find("matrix");
  auto auth = first->find("auth");
  if (matrix == first->end() || !matrix->is_object() || auth == first->end() ||
      !auth->is_object()) {
    return Status::failed(
        "not a --matrix coordinator: this port runs jobs only for the rank 0 "
        "of its own job");
  }
  std::string nonce = text_of(*auth, "nonce");
  if (text_of(*auth, "method") != kAuthMethod || !valid_nonce(nonce)) {
    return Status::failed("authentication failed: malformed hello");
  }
  auto challenge = random_nonce();
  if (!challenge.ok()) return challenge.status();
  FP_RETURN_IF_ERROR(ch.send(MsgType::kWelcome,
                             {{"auth", {{"method", kAuthMethod}, {"challenge", *challenge}}}},
                             timeout_s));
  auto answer = ch.expect(MsgType::kAuth, timeout_s);
  if (!answer.ok()) return answer.status();
  if (!proofs_equal(text_of(*answer, "proof"), client_proof(key, *challenge, nonce))) {
    return Status::failed("authentication failed: the coordinator does not hold this job's key");
  }
  FP_RETURN_IF_ERROR(
      ch.send(MsgType::kAuth, {{"proof", server_proof(key, *challenge, nonce)}}, timeout_s));
  hello->job = text_of(*matrix, "job");
  auto deadline = matrix->find("deadline_s");
  hello->deadline_s =
      deadline != matrix->end() && deadline->is_number() ? deadline->get<double>() : 0;
  if (!(hello->deadline_s > 0 && hello->deadline_s < 1e9)) {
    return Status::failed("the coordinator sent no job deadline");
  }
  return Status::success();
}

}  // namespace fabperf::cluster
