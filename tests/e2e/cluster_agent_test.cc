// Tests of the --matrix agent in one process (cluster/agent.h): it serves only the holder of its
// rank's key, runs a test only toward a rank of its own job's table, and returns the figure.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "app/all_tests.h"
#include "cli/run_plan.h"
#include "cluster/agent.h"
#include "cluster/agent_protocol.h"
#include "e2e_robust_util.h"
#include "net/socket.h"
#include "security/auth.h"
#include "security/handshake.h"
#include "session/server.h"
#include "session/server_config.h"

namespace fabperf::cluster {
namespace {

// The job's table, without PMIx.
class FakeBootstrap : public Bootstrap {
 public:
  FakeBootstrap(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_size() const override { return size_; }
  std::string job() const override { return "fake-job"; }
  Status publish(const RankCard& card) override {
    cards[card.rank] = card;
    return Status::success();
  }
  Status exchange(double) override { return Status::success(); }
  Result<RankCard> lookup(int rank, double) override {
    auto it = cards.find(rank);
    if (it == cards.end()) return Status::timeout("published no address");
    return it->second;
  }
  void abort_job(const std::string&) override {}
  void finalize() override {}
  std::map<int, RankCard> cards;

 private:
  int rank_, size_;
};

class ClusterAgent : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cl = parse_command_line({"--matrix", "tcp_lat"}, all_tests().names());
    ASSERT_TRUE(cl.ok()) << cl.status().message();
    auto runs = plan_runs(*cl, all_tests());
    ASSERT_TRUE(runs.ok()) << runs.status().message();
    runs_ = *runs;
    key_ = *random_nonce();
    Agent::Config config{0, 3, &runs_, &boot_, key_, "127.0.0.1", 2, &stop_};
    auto agent = Agent::listen(config);
    ASSERT_TRUE(agent.ok()) << agent.status().message();
    agent_ = std::move(*agent);
    me_ = {0, "here", "127.0.0.1", 1, agent_->port(), key_, "", 0, "", {}};
    serving_ = std::thread([this] { served_ = agent_->serve(30); });
  }
  void TearDown() override {
    if (agent_) agent_->stop();
    if (serving_.joinable()) serving_.join();
    if (peer_) peer_->stop();
    if (peer_serving_.joinable()) peer_serving_.join();
  }
  // Rank 1's fabperf server, opened by the key it returns.
  std::string StartPeer() {
    ServerOptions options = default_server_options(all_tests());
    options.bind_addr = "127.0.0.1";
    options.port = 0;
    options.log = false;
    options.auth_key = *random_nonce();
    auto server = Server::listen(options);
    EXPECT_TRUE(server.ok()) << server.status().message();
    peer_ = std::move(*server);
    peer_serving_ = std::thread([this] { peer_->serve().ignore_error(); });
    return options.auth_key;
  }
  std::unique_ptr<ControlChannel> coordinator(const std::string& key) {
    RankCard card = me_;
    card.key = key;
    auto ch = connect_agent(card, CoordinatorHello{"fake-job", 60}, "", 5);
    EXPECT_TRUE(ch.ok()) << ch.status().message();
    return ch.ok() ? std::move(*ch) : nullptr;
  }
  nlohmann::json run(ControlChannel& ch, int peer, uint64_t step) {
    EXPECT_TRUE(
        ch.send(kAgentRun,
                {{"step", step}, {"peer", peer}, {"test", 0}, {"name", "tcp_lat"}, {"time_s", 0.1}})
            .ok());
    auto reply = ch.expect(kAgentResult, 30);
    EXPECT_TRUE(reply.ok()) << reply.status().message();
    return reply.ok() ? *reply : nlohmann::json();
  }

  std::vector<PlannedRun> runs_;
  std::string key_;
  FakeBootstrap boot_{0, 3};
  std::atomic<bool> stop_{false};
  std::unique_ptr<Agent> agent_;
  RankCard me_;
  std::thread serving_;
  Status served_;
  std::unique_ptr<Server> peer_;
  std::thread peer_serving_;
};

TEST_F(ClusterAgent, RefusesAnyoneWithoutTheKey) {
  RankCard forged = me_;
  forged.key = *random_nonce();
  auto denied = connect_agent(forged, CoordinatorHello{"fake-job", 60}, "", 5);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("authentication failed"), std::string::npos)
      << denied.status().message();
  // A plain fabperf client (no --matrix hello) is told what this port is.
  auto fd = connect_tcp("127.0.0.1", agent_->port(), ConnectOptions{});
  ASSERT_TRUE(fd.ok());
  ControlChannel plain(fd->release());
  ASSERT_TRUE(plain.send(MsgType::kHello, {{"tool", "fabperf"}, {"version", "0"}}).ok());
  auto answer = plain.expect(MsgType::kWelcome, 5);
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.status().message().find("not a --matrix coordinator"), std::string::npos)
      << answer.status().message();
  // The one who holds the key is served, after all that.
  EXPECT_TRUE(coordinator(key_));
}

TEST_F(ClusterAgent, RunsOnlyTowardRanksOfItsOwnTable) {
  auto ch = coordinator(key_);
  ASSERT_TRUE(ch);
  // Not another rank of the job, and a rank that has no card: refused, nothing run.
  EXPECT_NE(run(*ch, 0, 1).value("error", "").find("not another rank"), std::string::npos);
  EXPECT_NE(run(*ch, 7, 2).value("error", "").find("not another rank"), std::string::npos);
  EXPECT_NE(run(*ch, 2, 3).value("error", "").find("published no address"), std::string::npos);
  // Other tests than the agent's own command line: refused.
  ASSERT_TRUE(ch->send(kAgentRun,
                       {{"step", 4}, {"peer", 1}, {"test", 0}, {"name", "udp_bw"}, {"time_s", 0.1}})
                  .ok());
  auto reply = ch->expect(kAgentResult, 10);
  ASSERT_TRUE(reply.ok());
  EXPECT_NE(reply->value("error", "").find("other tests than rank 0"), std::string::npos);
}

TEST_F(ClusterAgent, MeasuresAPeerAndReturnsTheFigure) {
  std::string key = StartPeer();
  boot_.cards[1] = {1, "there", "127.0.0.1", peer_->port(), 1, key, "", 0, "", {}};
  auto ch = coordinator(key_);
  ASSERT_TRUE(ch);
  nlohmann::json result = run(*ch, 1, 9);
  EXPECT_EQ(result.value("step", 0), 9);
  ASSERT_TRUE(result.contains("value")) << result.dump();
  EXPECT_GT(result["value"].get<double>(), 0);
  // A ping is answered while idle; QUIT ends the session with BYE.
  ASSERT_TRUE(ch->send(kAgentPing, {{"ping", 5}}).ok());
  auto pong = ch->expect(kAgentPong, 5);
  ASSERT_TRUE(pong.ok());
  EXPECT_EQ(pong->value("pong", 0), 5);
  ASSERT_TRUE(ch->send(kAgentQuit, nlohmann::json::object()).ok());
  EXPECT_TRUE(ch->expect(kAgentBye, 5).ok());
}

// The peer's key in the table is what opens its server: a wrong one fails the run.
TEST_F(ClusterAgent, PeerServerNeedsThePeersKey) {
  StartPeer();
  boot_.cards[1] = {1, "there", "127.0.0.1", peer_->port(), 1, *random_nonce(), "", 0, "", {}};
  auto ch = coordinator(key_);
  ASSERT_TRUE(ch);
  nlohmann::json result = run(*ch, 1, 3);
  EXPECT_FALSE(result.contains("value"));
  EXPECT_NE(result.value("error", "").find("key"), std::string::npos) << result.dump();
}

// A frame's type says what it is: the agent refuses a session frame (EXCHANGE once meant
// "cancel" here) and names it, after a coordinator that proved the key.
TEST_F(ClusterAgent, RefusesASessionFrameByItsType) {
  auto ch = coordinator(key_);
  ASSERT_TRUE(ch);
  ASSERT_TRUE(ch->send(MsgType::kExchange, {{"cancel", 1}}).ok());
  auto answer = ch->recv(5);
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.status().message().find("unexpected EXCHANGE"), std::string::npos)
      << answer.status().message();
  EXPECT_NE(answer.status().message().find("session message"), std::string::npos)
      << answer.status().message();
}

// A rank 0 of an older fabperf (agent protocol 1: no version in its HELLO) is refused in the
// handshake, before any frame it would misread.
TEST_F(ClusterAgent, RefusesAnOlderAgentProtocol) {
  auto fd = connect_tcp("127.0.0.1", agent_->port(), ConnectOptions{});
  ASSERT_TRUE(fd.ok());
  ControlChannel ch(fd->release());
  auto prover = KeyProver::start(key_, {"rank 0", "agent", "", "missing", "mismatch"});
  ASSERT_TRUE(prover.ok());
  ASSERT_TRUE(ch.send(MsgType::kHello, {{"tool", "fabperf"},
                                        {"matrix", {{"job", "fake-job"}, {"deadline_s", 60}}},
                                        {"auth", prover->hello_auth()}})
                  .ok());
  auto answer = ch.expect(MsgType::kWelcome, 5);
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.status().message().find("speaks agent protocol 1"), std::string::npos)
      << answer.status().message();
}

// A session server refuses the agent protocol: rank 0 that reaches a server (a card's wrong
// port) is told so, and an agent frame after a session's handshake is named for what it is.
TEST_F(ClusterAgent, ASessionServerRefusesTheAgentProtocol) {
  std::string key = StartPeer();
  RankCard card = me_;
  card.agent_port = peer_->port();
  card.key = key;
  auto denied = connect_agent(card, CoordinatorHello{"fake-job", 60}, "", 5);
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.status().message().find("a fabperf server answers"), std::string::npos)
      << denied.status().message();

  auto fd = connect_tcp("127.0.0.1", peer_->port(), ConnectOptions{});
  ASSERT_TRUE(fd.ok());
  ControlChannel ch(fd->release());
  ch.set_peer_label("server");
  auto prover = KeyProver::start(key, {"client", "server", "", "missing", "mismatch"});
  ASSERT_TRUE(prover.ok());
  ASSERT_TRUE(
      ch.send(MsgType::kHello,
              {{"tool", "fabperf"}, {"version", FABPERF_VERSION}, {"auth", prover->hello_auth()}})
          .ok());
  auto welcome = ch.expect(MsgType::kWelcome, 5);
  ASSERT_TRUE(welcome.ok()) << welcome.status().message();
  ASSERT_TRUE(prover->finish(ch, *welcome, 5).ok());
  ASSERT_TRUE(
      ch.send(kAgentRun, {{"step", 1}, {"peer", 1}, {"test", 0}, {"name", "tcp_lat"}}).ok());
  auto answer = ch.recv(5);
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.status().message().find("unexpected AGENT_RUN"), std::string::npos)
      << answer.status().message();
  EXPECT_NE(answer.status().message().find("not a fabperf client or server"), std::string::npos)
      << answer.status().message();
}

}  // namespace
}  // namespace fabperf::cluster
