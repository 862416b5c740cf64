// Unit tests: qperf's grammar, the option table's spellings, loops and parameter resolution.
#include "cli/command_line.h"

#include <gtest/gtest.h>

#include <set>

#include "app/all_tests.h"

namespace fabperf {
namespace {

Result<CommandLine> parse(std::vector<std::string> args) {
  return parse_command_line(args, all_tests().names());
}

const Assignment* find(const std::vector<Assignment>& list, const std::string& name) {
  for (const Assignment& a : list) {
    if (name == a.spec->name) return &a;
  }
  return nullptr;
}

TEST(CommandLine, HostThenTestsWithPositionalOptions) {
  auto cl = parse({"node1", "-m", "1K", "tcp_lat", "-m", "2k", "tcp_bw"});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  EXPECT_EQ(cl->host, "node1");
  ASSERT_EQ(cl->tests.size(), 2u);
  EXPECT_EQ(std::get<uint64_t>(cl->tests[0].assignments.back().value), 1024u);
  EXPECT_EQ(cl->tests[0].assignments.size(), 1u);  // options after tcp_lat belong to tcp_bw
  EXPECT_EQ(std::get<uint64_t>(cl->tests[1].assignments.back().value), 2000u);
}

TEST(CommandLine, TrailingOptionsApplyToEveryTest) {
  auto cl = parse({"node1", "tcp_lat", "udp_lat", "-n", "7"});
  ASSERT_TRUE(cl.ok());
  for (const TestRequest& t : cl->tests) {
    const Assignment* n = find(t.assignments, "no_msgs");
    ASSERT_NE(n, nullptr) << t.name;
    EXPECT_EQ(std::get<uint64_t>(n->value), 7u);
  }
}

TEST(CommandLine, QperfMultiLetterSpellings) {
  auto cl = parse({"h", "-lp", "4000", "-vvu", "-cp1", "-lcp1", "-rcp", "0", "-ar1", "-lca",
                   "1", "-rca", "any", "-lto", "3", "-rto", "4s", "-uu", "-un", "-ub", "-e", "5",
                   "tcp_lat"});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  const auto& as = cl->tests[0].assignments;
  EXPECT_EQ(std::get<uint64_t>(find(as, "listen_port")->value), 4000u);
  EXPECT_TRUE(cl->flag("verbose_more_used"));
  EXPECT_TRUE(cl->flag("verbose_used"));  // implied by -vvu
  EXPECT_FALSE(cl->flag("verbose_stat"));
  EXPECT_TRUE(cl->flag("unify_units"));
  EXPECT_EQ(std::get<int64_t>(cl->global("precision")), 5);
  std::vector<std::string> warnings;
  auto params = resolve_params(*all_tests().find("tcp_lat"), as, {}, &warnings);
  ASSERT_TRUE(params.ok()) << params.status().message();
  EXPECT_TRUE(params->local.on("cq_poll"));
  EXPECT_FALSE(params->remote.on("cq_poll"));
  EXPECT_TRUE(params->local.on("access_recv"));
  EXPECT_EQ(params->local.str("cpu_affinity"), "1");
  EXPECT_EQ(params->remote.str("cpu_affinity"), "any");
  EXPECT_DOUBLE_EQ(params->local.seconds("timeout"), 3);
  EXPECT_DOUBLE_EQ(params->remote.seconds("timeout"), 4);
  EXPECT_TRUE(warnings.empty());
}

TEST(CommandLine, LongFormsWithEqualsAndLocRem) {
  auto cl = parse({"h", "--msg_size=64K", "--loc_sock_buf_size", "1M", "--rem_sock_buf_size=2M",
                   "--time", "1m", "tcp_bw"});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  auto params = resolve_params(*all_tests().find("tcp_bw"), cl->tests[0].assignments, {}, nullptr);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->local.u64("msg_size"), 65536u);
  EXPECT_EQ(params->local.u64("sock_buf_size"), 1048576u);
  EXPECT_EQ(params->remote.u64("sock_buf_size"), 2097152u);
  EXPECT_DOUBLE_EQ(params->local.seconds("time"), 60);
  EXPECT_TRUE(params->local.set_by_user("msg_size"));
  EXPECT_FALSE(params->local.set_by_user("no_msgs"));
}

TEST(CommandLine, TestDefaultsForMessageSize) {
  for (const auto& [test, size] : std::vector<std::pair<std::string, uint64_t>>{
           {"tcp_lat", 1}, {"tcp_bw", 65536}, {"udp_bw", 32768}, {"udp_lat", 1}}) {
    auto params = resolve_params(*all_tests().find(test), {}, {}, nullptr);
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->local.u64("msg_size"), size) << test;
    EXPECT_EQ(params->remote.u64("msg_size"), size) << test;
  }
}

TEST(CommandLine, SetButNotUsedWarningNamesTheSpelling) {
  auto cl = parse({"h", "--verify", "-sl", "2", "tcp_lat"});
  ASSERT_TRUE(cl.ok());
  std::vector<std::string> warnings;
  ASSERT_TRUE(resolve_params(*all_tests().find("tcp_lat"), cl->tests[0].assignments, {}, &warnings).ok());
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "warning: --verify set but not used in test tcp_lat");
  EXPECT_EQ(warnings[1], "warning: -sl set but not used in test tcp_lat");
}

TEST(CommandLine, Errors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"h", "foo_lat"}, "foo_lat: bad test"},
           {{"h", "-xyz"}, "-xyz: bad option"},
           {{"h", "-m", "12Q", "tcp_lat"}, "-m: bad size: 12Q"},
           {{"h", "tcp_lat", "-m"}, "missing argument to -m"},
           {{"h", "-t", "-1", "tcp_lat"}, "-t:"},
           {{"h", "-lp", "0"}, "-lp:"},
           {{"h", "-e", "99"}, "-e:"},
           {{"h", "--poll=1"}, "takes no argument"},
           {{"h", "-oo", "nope:1:2", "tcp_lat"}, "unknown loop variable"},
           {{"h", "-oo", "msg_size:1", "tcp_lat"}, "Var:Init:Last:Incr"},
           {{"h", "-oo", "msg_size:1:8:*1", "tcp_lat"}, "multiplier"},
           {{"h", "-oo", "msg_size:1:100000000:1", "tcp_lat"}, "more than"},
       }) {
    auto cl = parse(c.args);
    ASSERT_FALSE(cl.ok()) << c.args.back();
    EXPECT_EQ(cl.status().code(), Code::kUsage);
    EXPECT_NE(cl.status().message().find(c.message), std::string::npos)
        << cl.status().message() << " vs " << c.message;
  }
}

TEST(CommandLine, LoopExpansion) {
  auto loop = parse_loop("msg_size:1:64K:*2");
  ASSERT_TRUE(loop.ok());
  ASSERT_EQ(loop->values.size(), 17u);
  EXPECT_EQ(std::get<uint64_t>(loop->values.back()), 65536u);
  auto additive = parse_loop("m:1K:4K:1K");
  ASSERT_TRUE(additive.ok());
  ASSERT_EQ(additive->values.size(), 4u);
  EXPECT_EQ(std::get<uint64_t>(additive->values[3]), 4096u);
  auto times = parse_loop("time:1:3:1");
  ASSERT_TRUE(times.ok());
  EXPECT_DOUBLE_EQ(std::get<double>(times->values[2]), 3);
  auto runs = expand_loops({*additive, *times});
  ASSERT_EQ(runs.size(), 12u);
  EXPECT_EQ(std::get<uint64_t>(runs[11][0].value), 4096u);
  EXPECT_DOUBLE_EQ(std::get<double>(runs[11][1].value), 3);
}

TEST(CommandLine, SixtyFourBitSizes) {
  auto cl = parse({"h", "-m", "5G", "tcp_bw"});
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(std::get<uint64_t>(cl->tests[0].assignments[0].value), 5ull * 1024 * 1024 * 1024);
}

TEST(CommandLine, HelpTakesATopic) {
  auto cl = parse({"--help", "tests"});
  ASSERT_TRUE(cl.ok());
  EXPECT_TRUE(cl->help);
  EXPECT_EQ(cl->help_topic, "tests");
}

TEST(ParamsFromJson, RoundTripAndRejection) {
  auto params = resolve_params(*all_tests().find("tcp_lat"), {}, {}, nullptr);
  ASSERT_TRUE(params.ok());
  auto back = params_from_json(params->remote.to_json());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->u64("msg_size"), 1u);
  EXPECT_DOUBLE_EQ(back->seconds("time"), 2);
  EXPECT_FALSE(params_from_json({{"no_such_option", 1}}).ok());
  EXPECT_FALSE(params_from_json({{"msg_size", "12Q"}}).ok());
  EXPECT_FALSE(params_from_json({{"msg_size", -5}}).ok());
  EXPECT_FALSE(params_from_json({{"msg_size", nlohmann::json::array()}}).ok());
  EXPECT_FALSE(params_from_json({{"json", "/etc/passwd"}}).ok());  // client-only: never accepted
  EXPECT_FALSE(params_from_json(nlohmann::json::array()).ok());
  auto defaults = params_from_json(nlohmann::json::object());
  ASSERT_TRUE(defaults.ok());
  EXPECT_DOUBLE_EQ(defaults->seconds("timeout"), 5);
}

TEST(Options, EverySpellingIsUniqueAndResolvable) {
  std::set<std::string> seen;
  for (const Spelling& s : option_spellings()) {
    EXPECT_TRUE(seen.insert(s.text).second) << "duplicate spelling " << s.text;
    EXPECT_EQ(find_spelling(s.text), &s);
  }
  for (const OptionSpec& spec : option_table()) {
    if (spec.type == OptType::kLoop) continue;
    EXPECT_TRUE(parse_option_value(spec, spec.default_text, spec.name).ok()) << spec.name;
  }
}

TEST(Options, Nearest) {
  EXPECT_EQ(nearest("tcp_lta", {"tcp_lat", "udp_lat"}), "tcp_lat");
  EXPECT_EQ(nearest("zzzzzzzz", {"tcp_lat", "udp_lat"}), "");
}

}  // namespace
}  // namespace fabperf
