// Unit tests of the key-proof handshake (security/handshake.h) over a socket pair: both sides
// with the key, each side facing a peer without it, a silent peer, malformed frames.
#include "security/handshake.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <functional>
#include <memory>
#include <thread>

#include "security/auth.h"

namespace fabperf {
namespace {

const std::string kKey = "0123456789abcdef-the-right-key";
const std::string kOtherKey = "0123456789abcdef-another-key!!";

HandshakeWords prover_words() {
  return {"client", "server", " (--test_key)", "PROVER-MISSING", "PROVER-MISMATCH"};
}
HandshakeWords checker_words() {
  return {"server", "client", "", "CHECKER-MISSING", "CHECKER-MISMATCH"};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class Handshake : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    prover_ch_ = std::make_unique<ControlChannel>(fds[0]);
    checker_ch_ = std::make_unique<ControlChannel>(fds[1]);
    prover_ch_->set_peer_label("server");
    checker_ch_->set_peer_label("client");
  }
  void TearDown() override {
    if (peer_.joinable()) peer_.join();
  }

  // The checker's side as a server runs it: HELLO, the handshake, ERROR with a refusal.
  void RunChecker(const std::string& key, double timeout_s = 5) {
    peer_ = std::thread([this, key, timeout_s] {
      auto hello = checker_ch_->expect(MsgType::kHello, timeout_s);
      checked_ = hello.ok() ? check_key_proof(*checker_ch_, key, *hello, {{"extra", 7}},
                                              checker_words(), timeout_s)
                            : hello.status();
      if (!checked_.ok()) checker_ch_->send_error(checked_.message(), 1).ignore_error();
    });
  }
  // The prover's side as a client runs it: HELLO with its nonce, WELCOME, the handshake.
  Result<nlohmann::json> Prove(const std::string& key, double timeout_s = 5) {
    auto prover = KeyProver::start(key, prover_words());
    if (!prover.ok()) return prover.status();
    FP_RETURN_IF_ERROR(prover_ch_->send(MsgType::kHello, {{"auth", prover->hello_auth()}}));
    auto welcome = prover_ch_->expect(MsgType::kWelcome, timeout_s);
    if (!welcome.ok()) return welcome.status();
    return prover->finish(*prover_ch_, *welcome, timeout_s);
  }
  // A checker without the key that answers HELLO with `welcome` and a prover's AUTH with
  // `proof` (given the server nonce and the client's nonce); null `proof`: silent after WELCOME.
  void RunRogueChecker(nlohmann::json welcome,
                       std::function<std::string(const std::string&, const std::string&)> proof) {
    peer_ = std::thread([this, welcome, proof] {
      auto hello = checker_ch_->expect(MsgType::kHello, 5);
      if (!hello.ok()) return;
      std::string nonce = (*hello)["auth"].value("nonce", "");
      std::string challenge = welcome["auth"].value("challenge", "");
      if (!checker_ch_->send(MsgType::kWelcome, welcome).ok()) return;
      auto answer = checker_ch_->expect(MsgType::kAuth, 5);
      if (!answer.ok() || !proof) return;
      if (!checker_ch_->send(MsgType::kAuth, {{"proof", proof(challenge, nonce)}}).ok()) return;
      auto told = checker_ch_->recv(5);  // the prover's ERROR, if it sends one
      rogue_told_ = told.ok() ? "" : told.status().message();
    });
  }

  std::unique_ptr<ControlChannel> prover_ch_, checker_ch_;
  std::thread peer_;
  Status checked_;
  std::string rogue_told_;
};

nlohmann::json welcome_with(const std::string& challenge) {
  return {{"auth", {{"method", kAuthMethod}, {"challenge", challenge}}}};
}

TEST_F(Handshake, RightKeyBothWays) {
  RunChecker(kKey);
  auto proven = Prove(kKey);
  ASSERT_TRUE(proven.ok()) << proven.status().message();
  EXPECT_EQ(proven->value("extra", 0), 7);  // the checker's extra fields come with its proof
  peer_.join();
  EXPECT_TRUE(checked_.ok()) << checked_.message();
}

TEST_F(Handshake, CheckerRefusesAProverWithAnotherKey) {
  RunChecker(kKey);
  auto proven = Prove(kOtherKey);
  peer_.join();
  EXPECT_EQ(checked_.message(), "CHECKER-MISMATCH");
  // The prover hears the checker's refusal, as the checker's words.
  ASSERT_FALSE(proven.ok());
  EXPECT_EQ(proven.status().message(), "server: CHECKER-MISMATCH");
}

TEST_F(Handshake, ProverRefusesACheckerWithAnotherKey) {
  auto challenge = random_nonce();
  ASSERT_TRUE(challenge.ok());
  RunRogueChecker(welcome_with(*challenge), [](const std::string& ns, const std::string& nc) {
    return server_proof(kOtherKey, ns, nc);
  });
  auto proven = Prove(kKey);
  peer_.join();
  ASSERT_FALSE(proven.ok());
  EXPECT_EQ(proven.status().message(), "PROVER-MISMATCH");
  EXPECT_TRUE(contains(rogue_told_, "the server's proof of the key is wrong")) << rogue_told_;
}

TEST_F(Handshake, AProverProofEchoedBackIsNoCheckerProof) {
  // The role in the MAC: a checker without the key cannot answer with the prover's own proof.
  auto challenge = random_nonce();
  ASSERT_TRUE(challenge.ok());
  RunRogueChecker(welcome_with(*challenge), [](const std::string& ns, const std::string& nc) {
    return client_proof(kKey, ns, nc);
  });
  auto proven = Prove(kKey);
  peer_.join();
  ASSERT_FALSE(proven.ok());
  EXPECT_EQ(proven.status().message(), "PROVER-MISMATCH");
}

TEST_F(Handshake, CheckerTimesOutOnASilentProver) {
  RunChecker(kKey, 0.3);
  auto prover = KeyProver::start(kKey, prover_words());
  ASSERT_TRUE(prover.ok());
  ASSERT_TRUE(prover_ch_->send(MsgType::kHello, {{"auth", prover->hello_auth()}}).ok());
  ASSERT_TRUE(prover_ch_->expect(MsgType::kWelcome, 5).ok());
  peer_.join();  // the prover says nothing more
  EXPECT_EQ(checked_.code(), Code::kTimeout) << checked_.message();
  EXPECT_TRUE(contains(checked_.message(), "waiting for the client's proof of the key"))
      << checked_.message();
  EXPECT_TRUE(contains(checked_.message(), "no answer from client")) << checked_.message();
}

TEST_F(Handshake, ProverTimesOutOnASilentChecker) {
  auto challenge = random_nonce();
  ASSERT_TRUE(challenge.ok());
  RunRogueChecker(welcome_with(*challenge), nullptr);  // silent after the prover's AUTH
  auto proven = Prove(kKey, 0.3);
  ASSERT_FALSE(proven.ok());
  EXPECT_EQ(proven.status().code(), Code::kTimeout) << proven.status().message();
  EXPECT_TRUE(contains(proven.status().message(), "waiting for the server's proof of the key"))
      << proven.status().message();
}

TEST_F(Handshake, CheckerRefusesAMalformedProof) {
  RunChecker(kKey);
  auto prover = KeyProver::start(kKey, prover_words());
  ASSERT_TRUE(prover.ok());
  ASSERT_TRUE(prover_ch_->send(MsgType::kHello, {{"auth", prover->hello_auth()}}).ok());
  ASSERT_TRUE(prover_ch_->expect(MsgType::kWelcome, 5).ok());
  ASSERT_TRUE(prover_ch_->send(MsgType::kAuth, {{"proof", std::string(64, 'Z')}}).ok());
  peer_.join();
  EXPECT_TRUE(contains(checked_.message(), "no well-formed proof")) << checked_.message();
}

TEST_F(Handshake, CheckerRefusesAHelloWithoutAuthOrWithABadNonce) {
  RunChecker(kKey);
  ASSERT_TRUE(prover_ch_->send(MsgType::kHello, {{"tool", "fabperf"}}).ok());
  peer_.join();
  EXPECT_EQ(checked_.message(), "CHECKER-MISSING");

  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  prover_ch_ = std::make_unique<ControlChannel>(fds[0]);
  checker_ch_ = std::make_unique<ControlChannel>(fds[1]);
  RunChecker(kKey);
  ASSERT_TRUE(
      prover_ch_->send(MsgType::kHello, {{"auth", {{"method", kAuthMethod}, {"nonce", "12"}}}})
          .ok());
  peer_.join();
  EXPECT_TRUE(contains(checked_.message(), "malformed nonce")) << checked_.message();
}

TEST_F(Handshake, ProverRefusesACheckerWithoutAKeyOrABadChallenge) {
  peer_ = std::thread([this] {
    if (checker_ch_->expect(MsgType::kHello, 5).ok()) {
      checker_ch_->send(MsgType::kWelcome, {{"server", "somewhere"}}).ignore_error();
      auto told = checker_ch_->recv(5);
      rogue_told_ = told.ok() ? "" : told.status().message();
    }
  });
  auto proven = Prove(kKey);
  peer_.join();
  ASSERT_FALSE(proven.ok());
  EXPECT_EQ(proven.status().message(), "PROVER-MISSING");
  EXPECT_TRUE(contains(rogue_told_, "requires authentication (--test_key)")) << rogue_told_;

  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  prover_ch_ = std::make_unique<ControlChannel>(fds[0]);
  checker_ch_ = std::make_unique<ControlChannel>(fds[1]);
  RunRogueChecker(welcome_with("not-a-nonce"), nullptr);
  proven = Prove(kKey);
  checker_ch_->shut_down();  // the rogue waits for an AUTH that never comes
  peer_.join();
  ASSERT_FALSE(proven.ok());
  EXPECT_TRUE(contains(proven.status().message(), "no well-formed challenge"))
      << proven.status().message();
}

}  // namespace
}  // namespace fabperf
