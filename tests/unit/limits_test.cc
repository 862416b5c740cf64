// Unit tests: the server's request limits and the reasons it gives for a refusal.
#include "security/limits.h"

#include <gtest/gtest.h>

#include "app/all_tests.h"
#include "engine/test_context.h"
#include "options/option_table.h"
#include "options/run_options_json.h"

namespace fabperf {
namespace {

RunOptions request(const nlohmann::json& params) {
  auto p = run_options_from_json(params);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : default_run_options();
}

const TestSpec& tcp_bw() { return *all_tests().find("tcp_bw"); }

// A server's limits with no --max_* given: the option table's defaults.
ServerLimits table_limits() { return limits_from(default_program_options()); }

TEST(ServerLimits, DefaultsAcceptOrdinaryRuns) {
  ServerLimits limits = table_limits();
  EXPECT_TRUE(
      check_request(limits, tcp_bw(), request({{"msg_size", 65536}, {"time", 2}}), RunCost{}).ok());
  EXPECT_TRUE(check_request(limits, tcp_bw(), request({{"msg_size", 1 << 30}}), RunCost{}).ok());
}

TEST(ServerLimits, MessageSizeBeyondTheLimitIsRefusedWithTheReason) {
  ServerLimits limits = table_limits();
  Status s = check_request(limits, tcp_bw(), request({{"msg_size", 5ull << 30}}), RunCost{});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kFailed);
  EXPECT_NE(s.message().find("message size 5G exceeds this server's limit of 1G"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("--max_msg_size"), std::string::npos);
}

TEST(ServerLimits, TimeCountAndTimeout) {
  ServerLimits limits = table_limits();
  limits.max_time = 10;
  limits.max_msgs = 1000;
  Status t = check_request(limits, tcp_bw(), request({{"time", 11}}), RunCost{});
  EXPECT_NE(t.message().find("-t 11 s exceeds this server's limit of 10 s"), std::string::npos)
      << t.message();
  // With -n the duration is not -t's.
  EXPECT_TRUE(
      check_request(limits, tcp_bw(), request({{"time", 11}, {"no_msgs", 10}}), RunCost{}).ok());
  Status n = check_request(limits, tcp_bw(), request({{"no_msgs", 1001}}), RunCost{});
  EXPECT_NE(n.message().find("--max_msgs"), std::string::npos) << n.message();
  Status w = check_request(limits, tcp_bw(), request({{"warmup", 5000}}), RunCost{});
  EXPECT_NE(w.message().find("--warmup"), std::string::npos) << w.message();
  // -to is not refused: the server caps it at its own (server_session.cc).
  EXPECT_TRUE(check_request(limits, tcp_bw(), request({{"timeout", 3600}}), RunCost{}).ok());
}

// Review N11: a root server bound TCP 22 and 80 when a client (a qperf request, or -ip) asked.
TEST(ServerLimits, AClientMayNotChooseAPrivilegedDataPort) {
  ServerLimits limits = table_limits();
  Status low = check_request(limits, tcp_bw(), request({{"ip_port", 22}}), RunCost{});
  EXPECT_EQ(low.message(),
            "refused: data port 22 is below 1024: a client may not ask for a privileged port "
            "(give 0 or 1024 to 65535)");
  EXPECT_FALSE(check_request(limits, tcp_bw(), request({{"ip_port", 1023}}), RunCost{}).ok());
  EXPECT_TRUE(check_request(limits, tcp_bw(), request({{"ip_port", 1024}}), RunCost{}).ok());
  EXPECT_TRUE(check_request(limits, tcp_bw(), request({{"ip_port", 0}}), RunCost{}).ok());
}

// Review N11: "--streams -1" said "(must be 0 to 9223372036854775807)", the parser's range.
TEST(ServerLimits, ANegativeCountIsOutOfTheOptionsOwnRange) {
  auto streams = parse_option_value(*find_option("streams"), "-1", "--streams");
  ASSERT_FALSE(streams.ok());
  EXPECT_EQ(streams.status().message(), "--streams: -1 is out of range (1 to 256)");
  EXPECT_EQ(parse_option_value(*find_option("streams"), "0", "--streams").status().message(),
            "--streams: 0 is out of range (1 to 256)");
  EXPECT_TRUE(parse_option_value(*find_option("streams"), "256", "--streams").ok());
}

// Review N7: a string parameter from the wire with terminal controls is refused by name.
TEST(ServerLimits, StringParametersWithControlsAreRefused) {
  auto p = run_options_from_json({{"domain", "\x1b[2Jdom"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "domain holds control characters or bytes that are not UTF-8: ?[2Jdom");
  EXPECT_TRUE(run_options_from_json({{"domain", "mlx5_0"}}).ok());
  EXPECT_TRUE(run_options_from_json({{"domain", "caf\xc3\xa9"}}).ok());  // UTF-8 is text
}

TEST(ServerLimits, MemoryAloneAndTogether) {
  ServerLimits limits = table_limits();
  limits.max_memory = 64 << 20;
  Status alone = check_request(limits, tcp_bw(), request({{"msg_size", 100 << 20}}), RunCost{});
  EXPECT_NE(alone.message().find("--max_memory"), std::string::npos) << alone.message();
  EXPECT_NE(alone.message().find("refused"), std::string::npos);
  // What fits alone but not beside the other sessions is "busy, try again".
  Status together =
      check_request(limits, tcp_bw(), request({{"msg_size", 32 << 20}}), RunCost{40 << 20, 0, 0});
  EXPECT_NE(together.message().find("server busy"), std::string::npos) << together.message();
  EXPECT_NE(together.message().find("try again"), std::string::npos);
  EXPECT_TRUE(check_request(limits, tcp_bw(), request({{"msg_size", 32 << 20}}), RunCost{}).ok());
}

// The limits' defaults are the option table's, read through limits_from (a drift between the
// table and what a server enforces fails here); the process's limits are not options.
TEST(ServerLimits, DefaultsAreTheOptionTables) {
  ServerLimits limits = table_limits();
  EXPECT_EQ(limits.max_msg_size, uint64_t{1} << 30);
  EXPECT_EQ(limits.max_time, 3600);
  EXPECT_EQ(limits.max_msgs, 1'000'000'000u);
  EXPECT_EQ(limits.max_memory, uint64_t{2} << 30);
  EXPECT_EQ(limits.max_descriptors, 960u);
  EXPECT_EQ(limits.max_threads, 1024u);
  // The options' values, whatever they are, are what the limits hold.
  ProgramOptions program = default_program_options();
  program.max_msg_size = 4096;
  program.max_time = 7;
  program.max_msgs = 11;
  program.max_memory = uint64_t{3} << 20;
  limits = limits_from(program);
  EXPECT_EQ(limits.max_msg_size, 4096u);
  EXPECT_EQ(limits.max_time, 7);
  EXPECT_EQ(limits.max_msgs, 11u);
  EXPECT_EQ(limits.max_memory, uint64_t{3} << 20);
}

TEST(ServerLimits, MemoryEstimateNeverWraps) {
  RunOptions p = default_run_options();
  p.msg_size = uint64_t{1} << 40;
  p.streams = uint64_t{1} << 40;
  EXPECT_EQ(run_cost(tcp_bw(), p).memory, UINT64_MAX);
}

// A request that leaves the size out (0) is counted at the size its run will have, the
// test's default, for a socket test and for a fabric test under --verify alike.
TEST(ServerLimits, ASizeLeftOutIsCountedAtTheTestsDefault) {
  for (const char* name : {"tcp_bw", "rdm_write_bw", "rc_bw"}) {
    const TestSpec& spec = *all_tests().find(name);
    RunOptions left_out = request({{"tx_depth", 1024}, {"verify", true}});
    RunOptions given = left_out;
    given.msg_size = spec.default_msg_size;
    EXPECT_EQ(message_size_of(spec, left_out), spec.default_msg_size) << name;
    EXPECT_EQ(run_cost(spec, left_out).memory, run_cost(spec, given).memory) << name;
    RunOptions one_byte = given;
    one_byte.msg_size = 1;
    EXPECT_GT(run_cost(spec, left_out).memory, run_cost(spec, one_byte).memory) << name;
  }
}

TEST(ServerLimits, SizeText) {
  EXPECT_EQ(size_text(uint64_t{1} << 30), "1G");
  EXPECT_EQ(size_text(uint64_t{5} << 30), "5G");
  EXPECT_EQ(size_text(1536), "1.5K");
  EXPECT_EQ(size_text(1000), "1,000 bytes");
  EXPECT_EQ(size_text(uint64_t{3} << 40), "3T");
}

}  // namespace
}  // namespace fabperf
