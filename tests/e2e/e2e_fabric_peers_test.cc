// End-to-end: a hostile client that forges its fabric endpoint name gets a refusal naming the
// fabric peer check, and nothing reaches the address or process it named (security review D1,
// D2): a third address on loopback counts datagrams and connections; a bystander process with
// a registered buffer checks its bytes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>

#include "e2e_fabric_peers_util.h"
#include "e2e_robust_util.h"
#include "fabric/address_codec.h"
#include "fabric/endpoint.h"
#include "fabric/provider.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

// The server would find `name` for such a test.
bool has_provider(fi_ep_type ep, uint64_t caps, const std::string& name) {
  FabricRequest request;
  request.ep_type = ep;
  request.caps = caps;
  request.provider = name;
  auto choice = select_fabric(request);
  return choice.ok() && choice->provider() == name;
}

// A region the hostile client claims as its own: the server has no business writing there.
json some_region(uint64_t len) {
  return {{"addr", "0x0000000000001000"}, {"key", "0x0"}, {"len", len}};
}

// How long a forging client waits for the refusal; a checking server refuses before any data
// moves, so this only bounds how long the unchecked server is watched.
constexpr double kWatchS = 6;

struct ForgeCase {
  const char* test;
  const char* provider;
  fi_ep_type ep;
};

void PrintTo(const ForgeCase& c, std::ostream* os) { *os << c.test << " over " << c.provider; }

class ForgedAddress : public ::testing::TestWithParam<ForgeCase> {};

TEST_P(ForgedAddress, NothingReachesIt) {
  const ForgeCase& c = GetParam();
  if (!has_provider(c.ep, FI_MSG, c.provider)) GTEST_SKIP() << "no " << c.provider << " here";
  ThirdParty third;
  if (!third.ok()) GTEST_SKIP() << "cannot listen on 127.0.0.3";
  LoggedServer server;
  int lines = server.log_lines();
  json params = {{"provider", c.provider}, {"msg_size", 1024}, {"time", 1}, {"timeout", 3}};
  ForgedRun run = forge_connectionless(server.port(), c.test, c.provider, params, third.name_hex(),
                                       forged_memory(some_region(1024), 1024), kWatchS);
  ASSERT_TRUE(run.ready) << run.error;
  // The refusal names the check, the provider, the address given and the control peer.
  std::string expected = std::string("fabric peer check: provider ") + c.provider +
                         ": address 127.0.0.3:" + std::to_string(third.port()) +
                         " is not the control connection's peer 127.0.0.1";
  EXPECT_NE(run.error.find(expected), std::string::npos) << "server said: " << run.error;
  // Its session is over once it logs its end: nothing more can come.
  server.wait_log_lines(lines + 1, 20);
  EXPECT_NE(server.log().find("fabric peer check"), std::string::npos) << server.log();
  EXPECT_EQ(third.datagrams() + third.connections() + third.bytes(), 0u) << third.summary();
}

INSTANTIATE_TEST_SUITE_P(Providers, ForgedAddress,
                         ::testing::Values(ForgeCase{"ud_bi_bw", "udp", FI_EP_DGRAM},
                                           ForgeCase{"rdm_send_bi_bw", "tcp;ofi_rxm", FI_EP_RDM},
                                           ForgeCase{"rdm_send_bi_bw", "sockets", FI_EP_RDM},
                                           ForgeCase{"ud_bi_bw", "sockets", FI_EP_DGRAM},
                                           ForgeCase{"rdm_send_bi_bw", "udp;ofi_rxd", FI_EP_RDM}),
                         [](const auto& info) {
                           std::string name =
                               std::string(info.param.provider) + "_" + info.param.test;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// --trust_fabric_addrs is about addresses that name no IP; an IP address is still checked.
TEST(ForgedAddressTrusted, TrustDoesNotCoverIpAddresses) {
  if (!has_provider(FI_EP_DGRAM, FI_MSG, "udp")) GTEST_SKIP() << "no udp here";
  ThirdParty third;
  if (!third.ok()) GTEST_SKIP() << "cannot listen on 127.0.0.3";
  LoggedServer server({"--trust_fabric_addrs"});
  int lines = server.log_lines();
  json params = {{"provider", "udp"}, {"msg_size", 1024}, {"time", 1}, {"timeout", 3}};
  ForgedRun run = forge_connectionless(server.port(), "ud_bi_bw", "udp", params, third.name_hex(),
                                       forged_memory(some_region(1024), 1024), kWatchS);
  ASSERT_TRUE(run.ready) << run.error;
  EXPECT_NE(run.error.find("fabric peer check: provider udp: address 127.0.0.3:"),
            std::string::npos)
      << "server said: " << run.error;
  server.wait_log_lines(lines + 1, 20);
  EXPECT_EQ(third.datagrams() + third.connections() + third.bytes(), 0u) << third.summary();
}

class ForgedConnection : public ::testing::TestWithParam<const char*> {};

// FI_EP_MSG: the server listens and accepts; a connection request from an address other than
// the control connection's is rejected with the reason, and the session fails saying so.
TEST_P(ForgedConnection, ARequestFromAnotherAddressIsRejected) {
  const std::string provider = GetParam();
  if (!has_provider(FI_EP_MSG, FI_MSG, provider)) GTEST_SKIP() << "no " << provider << " here";
  FabricRequest third_party;
  third_party.ep_type = FI_EP_MSG;
  third_party.provider = provider;
  third_party.node = "127.0.0.3";
  auto choice = select_fabric(third_party);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  const fi_info* bound = choice->info.get();
  if (bound->src_addr == nullptr ||
      reinterpret_cast<const sockaddr_in*>(bound->src_addr)->sin_addr.s_addr != htonl(0x7f000003)) {
    GTEST_SKIP() << provider << " cannot bind to 127.0.0.3";
  }

  LoggedServer server;
  auto ch = fake_session(server.port());
  ASSERT_TRUE(ch);
  json params = {{"provider", provider}, {"msg_size", 1024}, {"time", 1}, {"timeout", 3}};
  ASSERT_TRUE(ch->send(MsgType::kRun, {{"test", "rc_bi_bw"}, {"params", params}}).ok());
  ASSERT_TRUE(ch->expect(MsgType::kReady, 10).ok());
  ASSERT_TRUE(ch->send(MsgType::kExchange, {{"provider", provider}}).ok());
  auto listening = ch->expect(MsgType::kExchange, 10);
  ASSERT_TRUE(listening.ok()) << listening.status().message();
  auto server_name = hex_decode(listening->value("name", ""), "name");
  ASSERT_TRUE(server_name.ok());

  // Someone else on this host (127.0.0.3) connects to the endpoint the server listens on.
  InfoPtr info = dup_one_info(bound);
  info->dest_addr = std::malloc(server_name->size());
  std::memcpy(info->dest_addr, server_name->data(), server_name->size());
  info->dest_addrlen = server_name->size();
  auto intruder = FabricEndpoint::connect(info.get(), EndpointOptions{}, Deadline::after(15));
  EXPECT_FALSE(intruder.ok()) << "the server accepted a connection from 127.0.0.3";
  if (!intruder.ok()) {
    EXPECT_NE(intruder.status().message().find("refused"), std::string::npos)
        << intruder.status().message();
  }
  intruder = Status::failed("closed");  // the connection, if any, goes before the session

  // The server waits for the real peer until its deadline, then says what it refused.
  auto end = ch->recv(20);
  ASSERT_FALSE(end.ok());
  EXPECT_TRUE(ch->peer_reported_error()) << end.status().message();
  EXPECT_NE(end.status().message().find("fabric peer check: provider " + provider +
                                        ": address 127.0.0.3:"),
            std::string::npos)
      << end.status().message();
}

INSTANTIATE_TEST_SUITE_P(Providers, ForgedConnection, ::testing::Values("tcp", "sockets"));

// shm: the peer names a region by process id; only the control peer's own process may be
// named, so a hostile client cannot have the server write into a bystander.
TEST(ForgedShmPeer, ABystandersNameWritesNothingIntoIt) {
  if (!has_provider(FI_EP_RDM, FI_RMA, "shm")) GTEST_SKIP() << "no shm here";
  ShmVictim victim;
  ASSERT_TRUE(victim.ok()) << victim.error();
  LoggedServer server;
  json params = {{"provider", "shm"}, {"msg_size", 4096}, {"time", 1}, {"timeout", 3}};
  ForgedRun run = forge_connectionless(server.port(), "rdm_write_bi_bw", "shm", params,
                                       victim.hello()["name"].get<std::string>(),
                                       forged_memory(victim.hello()["region"], 4096), kWatchS);
  ASSERT_TRUE(run.ready) << run.error;
  std::string first;
  long changed = victim.finish_and_count_changed(&first);
  EXPECT_EQ(changed, 0) << "the bystander's buffer now starts " << first;
  EXPECT_NE(run.error.find("fabric peer check: provider shm: fi_shm://" +
                           std::to_string(victim.pid()) + ":"),
            std::string::npos)
      << "server said: " << run.error;
  EXPECT_NE(run.error.find("127.0.0.1 (process " + std::to_string(getpid()) + ")"),
            std::string::npos)
      << run.error;
}

}  // namespace
}  // namespace fabperf::testing
