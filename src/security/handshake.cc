// The key-proof handshake's two sides over a ControlChannel (security/handshake.h).
#include "security/handshake.h"

#include "core/text.h"
#include "security/auth.h"

namespace fabperf {

namespace {

std::string text_of(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A proof as client_proof/server_proof make them: 64 lowercase hex digits.
bool valid_proof(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The peer's AUTH within the timeout. A failure names the step, unless it is the peer's own
// ERROR (its refusal names the cause itself).
Result<nlohmann::json> expect_auth(ControlChannel& ch, const HandshakeWords& words,
                                   double timeout_s) {
  auto answer = ch.expect(MsgType::kAuth, timeout_s);
  if (answer.ok() || ch.peer_reported_error()) return answer;
  return answer.status().prefixed("waiting for the " + words.peer + "'s proof of the key");
}

Result<std::string> receive_proof(ControlChannel& ch, const HandshakeWords& words,
                                  double timeout_s) {
  auto answer = expect_auth(ch, words, timeout_s);
  if (!answer.ok()) return answer.status();
  std::string proof = text_of(*answer, "proof");
  if (!valid_proof(proof)) {
    return Status::failed("authentication failed: the " + words.peer +
                          "'s AUTH carries no well-formed proof (64 hex digits)");
  }
  return proof;
}

}  // namespace

Result<KeyProver> KeyProver::start(std::string key, HandshakeWords words) {
  auto nonce = random_nonce();
  if (!nonce.ok()) return nonce.status();
  return KeyProver(std::move(key), std::move(*nonce), std::move(words));
}

nlohmann::json KeyProver::hello_auth() const {
  return {{"method", kAuthMethod}, {"nonce", nonce_}};
}

Result<nlohmann::json> KeyProver::finish(ControlChannel& ch, const nlohmann::json& welcome,
                                         double timeout_s) const {
  auto auth = welcome.find("auth");
  if (auth == welcome.end() || !auth->is_object()) {
    ch.send_error("this " + words_.self + " requires authentication" + words_.key_hint +
                      " and the " + words_.peer + " has no key",
                  1)
        .ignore_error();
    return Status::failed(words_.missing);
  }
  std::string method = text_of(*auth, "method");
  if (method != kAuthMethod) {
    return Status::failed("the " + words_.peer + " asks for authentication this " + words_.self +
                          " does not speak (" + printable(method, 32) +
                          "): upgrade the older fabperf");
  }
  std::string challenge = text_of(*auth, "challenge");
  if (!valid_nonce(challenge)) {
    return Status::failed("authentication failed: the " + words_.peer +
                          "'s WELCOME carries no well-formed challenge (64 hex digits)");
  }
  FP_RETURN_IF_ERROR(
      ch.send(MsgType::kAuth, {{"proof", client_proof(key_, challenge, nonce_)}}, timeout_s)
          .prefixed("sending the " + words_.self + "'s proof of the key"));
  auto reply = expect_auth(ch, words_, timeout_s);
  if (!reply.ok()) return reply.status();
  if (!proofs_equal(text_of(*reply, "proof"), server_proof(key_, challenge, nonce_))) {
    ch.send_error("the " + words_.peer + "'s proof of the key is wrong", 1).ignore_error();
    return Status::failed(words_.mismatch);
  }
  return std::move(*reply);
}

Status check_key_proof(ControlChannel& ch, const std::string& key, const nlohmann::json& hello,
                       const nlohmann::json& reply_extra, const HandshakeWords& words,
                       double timeout_s) {
  auto auth = hello.find("auth");
  if (auth == hello.end() || !auth->is_object()) return Status::failed(words.missing);
  std::string method = text_of(*auth, "method");
  if (method != kAuthMethod) {
    return Status::failed("authentication failed: the " + words.peer + " offers method \"" +
                          printable(method, 32) + "\"; this " + words.self + " speaks " +
                          kAuthMethod);
  }
  std::string nonce = text_of(*auth, "nonce");
  if (!valid_nonce(nonce)) {
    return Status::failed("authentication failed: malformed nonce in the " + words.peer +
                          "'s HELLO (64 hex digits expected)");
  }
  auto challenge = random_nonce();
  if (!challenge.ok()) return challenge.status();
  FP_RETURN_IF_ERROR(ch.send(MsgType::kWelcome,
                             {{"auth", {{"method", kAuthMethod}, {"challenge", *challenge}}}},
                             timeout_s)
                         .prefixed("sending the " + words.self + "'s challenge"));
  auto proof = receive_proof(ch, words, timeout_s);
  if (!proof.ok()) return proof.status();
  if (!proofs_equal(*proof, client_proof(key, *challenge, nonce))) {
    return Status::failed(words.mismatch);
  }
  nlohmann::json reply = reply_extra.is_object() ? reply_extra : nlohmann::json::object();
  reply["proof"] = server_proof(key, *challenge, nonce);
  return ch.send(MsgType::kAuth, reply, timeout_s)
      .prefixed("sending the " + words.self + "'s proof of the key");
}

}  // namespace fabperf
