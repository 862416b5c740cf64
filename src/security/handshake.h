// The key-proof handshake: the HMAC-SHA256 challenge-response of security/auth.h driven over
// a ControlChannel, written once for the session (client proves to server) and the --matrix
// agent protocol (rank 0 proves to a rank's agent). Both sides prove the key; docs/security.md
// describes the exchange.
//
//   prover  HELLO {..., "auth": {"method", "nonce": Nc}}  ---->  checker
//           <----  WELCOME {"auth": {"method", "challenge": Ns}}
//           AUTH {"proof": client_proof(Ns, Nc)}  ---->
//           <----  AUTH {"proof": server_proof(Ns, Nc), ...the checker's extra fields}
//
// HELLO and WELCOME are the callers' own frames (they carry more than the handshake), so the
// prover hands its part of HELLO to its caller and takes the WELCOME its caller received.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "net/control.h"

namespace fabperf {

// The words one use of the handshake refuses with, so that a refusal names the roles and what
// the user should check.
struct HandshakeWords {
  std::string self;      // this side: "client", "server", "rank 0", "agent"
  std::string peer;      // the other side, as this side names it
  std::string key_hint;  // where the key comes from, in parentheses, or ""
  std::string missing;   // the refusal when the peer takes no part in the handshake
  std::string mismatch;  // the refusal when the peer's proof is not of this side's key
};

// The connecting side: draws its nonce, offers it in HELLO, and after WELCOME proves the key
// and checks the checker's proof in return.
class KeyProver {
 public:
  static Result<KeyProver> start(std::string key, HandshakeWords words);

  // HELLO's "auth" member: {"method": "hmac-sha256", "nonce": Nc}.
  nlohmann::json hello_auth() const;

  // Answers WELCOME's challenge with AUTH, then waits at most `timeout_s` for the checker's
  // AUTH and checks its proof. Returns that AUTH's body (where the checker's extra fields are).
  // A checker without a key, or with another key, is told so in an ERROR and refused.
  Result<nlohmann::json> finish(ControlChannel& ch, const nlohmann::json& welcome,
                                double timeout_s) const;

 private:
  KeyProver(std::string key, std::string nonce, HandshakeWords words)
      : key_(std::move(key)), nonce_(std::move(nonce)), words_(std::move(words)) {}

  std::string key_;
  std::string nonce_;
  HandshakeWords words_;
};

// The accepting side, given the HELLO it received: challenges in WELCOME, checks the prover's
// AUTH within `timeout_s`, and answers AUTH with its own proof plus `reply_extra`'s members.
// A prover without the key is refused with the reason (the caller sends it as ERROR).
Status check_key_proof(ControlChannel& ch, const std::string& key, const nlohmann::json& hello,
                       const nlohmann::json& reply_extra, const HandshakeWords& words,
                       double timeout_s);

}  // namespace fabperf
