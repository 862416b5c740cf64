// Unit tests: where Nagle goes off (ping-pongs always, bandwidth tests with --nodelay per side).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "app/all_tests.h"
#include "cli/run_plan.h"
#include "options/option_table.h"
#include "socket/sock_protocol.h"
#include "socket/socket_link.h"

namespace fabperf {
namespace {

// The parameters each side of `test` gets from `args` (options only, then the test).
RunParams resolve(const std::string& test, std::vector<std::string> args,
                  std::vector<std::string>* warnings) {
  args.insert(args.begin(), "host");
  args.push_back(test);
  auto cl = parse_command_line(args, all_tests().names());
  EXPECT_TRUE(cl.ok()) << cl.status().message();
  if (!cl.ok()) return {};
  auto params =
      resolve_run(*all_tests().find(test), cl->tests[0].assignments, {}, Dialect::kQperf, warnings);
  EXPECT_TRUE(params.ok()) << params.status().message();
  return params.ok() ? *params : RunParams{};
}

const SocketProtocol& proto(const char* name) { return *find_socket_protocol(name); }

TEST(Nodelay, SpellingsPerSideSetTheSidesOfABandwidthTest) {
  std::vector<std::string> warnings;
  RunParams none = resolve("tcp_bw", {}, &warnings);
  EXPECT_FALSE(none.local.nodelay);
  EXPECT_FALSE(none.remote.nodelay);
  RunParams both = resolve("tcp_bw", {"--nodelay"}, &warnings);
  EXPECT_TRUE(both.local.nodelay);
  EXPECT_TRUE(both.remote.nodelay);
  RunParams loc = resolve("tcp_bw", {"--loc_nodelay"}, &warnings);
  EXPECT_TRUE(loc.local.nodelay);
  EXPECT_FALSE(loc.remote.nodelay);
  RunParams rem = resolve("sctp_bw", {"--rem_nodelay"}, &warnings);
  EXPECT_FALSE(rem.local.nodelay);
  EXPECT_TRUE(rem.remote.nodelay);
  RunParams off = resolve("tcp_bw", {"--nodelay", "--rem_nodelay=0"}, &warnings);
  EXPECT_TRUE(off.local.nodelay);
  EXPECT_FALSE(off.remote.nodelay);
  EXPECT_TRUE(warnings.empty()) << warnings[0];
}

TEST(Nodelay, UnusedWhereTheTestHasNoChoice) {
  // A ping-pong always turns Nagle off, and UDP has none: the option is named as unused.
  for (const char* test : {"tcp_lat", "udp_bw", "udp_lat"}) {
    std::vector<std::string> warnings;
    resolve(test, {"--nodelay"}, &warnings);
    ASSERT_EQ(warnings.size(), 1u) << test;
    EXPECT_EQ(warnings[0], std::string("warning: --nodelay set but not used in test ") + test);
  }
}

TEST(Nodelay, BadValueIsAUsageError) {
  auto cl = parse_command_line({"host", "--nodelay=maybe", "tcp_bw"}, all_tests().names());
  ASSERT_FALSE(cl.ok());
  EXPECT_EQ(cl.status().code(), Code::kUsage);
  EXPECT_NE(cl.status().message().find("--nodelay"), std::string::npos) << cl.status().message();
}

TEST(Nodelay, PingPongsAlwaysBandwidthOnlyWhenAsked) {
  RunOptions off = default_run_options(), on = default_run_options();
  on.nodelay = true;
  EXPECT_TRUE(wants_nodelay(proto("tcp"), TestKind::kLatency, off));
  EXPECT_FALSE(wants_nodelay(proto("tcp"), TestKind::kBandwidth, off));
  EXPECT_TRUE(wants_nodelay(proto("tcp"), TestKind::kBandwidth, on));
  EXPECT_TRUE(wants_nodelay(proto("sctp"), TestKind::kBandwidth, on));
  EXPECT_FALSE(wants_nodelay(proto("udp"), TestKind::kLatency, on));
  EXPECT_FALSE(wants_nodelay(proto("rds"), TestKind::kBandwidth, on));
}

TEST(Nodelay, TableNamesEachProtocolsOwnOption) {
  EXPECT_EQ(proto("tcp").nodelay_opt, TCP_NODELAY);
  EXPECT_EQ(proto("sctp").nodelay_opt, 3);  // SCTP_NODELAY; 1 would be SCTP_ASSOCINFO
  EXPECT_EQ(proto("udp").nodelay_opt, 0);
}

TEST(Nodelay, ReadsTheKernelsSetting) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
  ASSERT_GE(fd, 0);
  Fd owner(fd);
  auto before = socket_nodelay(fd, proto("tcp"));
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_FALSE(*before);
  int one = 1;
  ASSERT_EQ(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one), 0);
  auto after = socket_nodelay(fd, proto("tcp"));
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(*after);
  EXPECT_EQ(socket_nodelay(fd, proto("udp")).status().code(), Code::kUnsupported);
  EXPECT_EQ(socket_nodelay(-1, proto("tcp")).status().code(), Code::kFailed);
}

}  // namespace
}  // namespace fabperf
