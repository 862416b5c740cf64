// The fab_* tools' grammar over the one option table: getopt_long spellings, the tools'
// defaults, and every validation message.
#include "cli/tool_grammar.h"

#include <gtest/gtest.h>

#include "cxi/cxi_plan.h"
#include "cxi/cxi_tools.h"

namespace fabperf::cxi {
namespace {

// The command line as a tool sees it, with its own defaults applied.
Result<Invocation> parse(const char* name, std::vector<std::string> args) {
  const Tool& tool = *find_tool(name);
  bool pair = tool.kind == ToolKind::kLatency || tool.kind == ToolKind::kBandwidth;
  auto cl = parse_tool_command_line(args, tool.bit, tool.name, pair);
  if (!cl.ok()) return cl.status();
  return resolve_tool_invocation(tool, std::move(*cl), false, true);
}

RunOptions run_of(const Invocation& cl) { return cl.own; }

std::string error_of(const char* tool, std::vector<std::string> args) {
  auto o = parse(tool, args);
  return o.ok() ? "(accepted)" : o.status().message();
}

TEST(ToolGrammar, EveryToolHasARowAndFindsItsOriginalName) {
  for (const char* name : {"fab_write_lat", "fab_read_lat", "fab_send_lat", "fab_atomic_lat",
                           "fab_write_bw", "fab_read_bw", "fab_send_bw", "fab_atomic_bw",
                           "fab_loopback_bw", "fab_heatsink_check", "fab_stat"}) {
    ASSERT_NE(find_tool(name), nullptr) << name;
    EXPECT_EQ(find_tool(find_tool(name)->original), find_tool(name));
  }
  EXPECT_EQ(find_tool("fabperf"), nullptr);
}

TEST(ToolGrammar, GetoptLongSpellings) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"-n", "5"}, {"-n5"}, {"--iters=5"}, {"--iters", "5"}, {"--it=5"}}) {
    auto o = parse("fab_write_lat", args);
    ASSERT_TRUE(o.ok()) << args[0] << ": " << o.status().message();
    EXPECT_EQ(o->program.iters, 5u) << args[0];
    EXPECT_EQ(run_of(*o).no_msgs, 5u);
  }
  // Operands anywhere; clustered flags; "--" ends the options.
  auto o = parse("fab_send_bw", {"-bR", "server", "-l", "64"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_TRUE(o->program.bidirectional);
  EXPECT_TRUE(run_of(*o).rdzv);
  EXPECT_FALSE(run_of(*o).reverse);  // fabperf's -R (--reverse) is not a fab_* spelling
  EXPECT_EQ(o->host, "server");
  EXPECT_EQ(run_of(*o).tx_depth, 64u);
  EXPECT_EQ(run_of(*o).no_msgs, 1000u * 64);  // -n counts lists of -l operations
  EXPECT_EQ(o->tests.at(0).name, "rdm_send_bi_bw");
  auto dashdash = parse("fab_write_lat", {"--", "-host"});
  ASSERT_TRUE(dashdash.ok());
  EXPECT_EQ(dashdash->host, "-host");
}

TEST(ToolGrammar, DefaultsAreTheOriginals) {
  auto lat = parse("fab_write_lat", {});
  ASSERT_TRUE(lat.ok());
  EXPECT_EQ(lat->program.iters, 100u);
  EXPECT_EQ(run_of(*lat).warmup, 10u);
  EXPECT_EQ(run_of(*lat).latency_gap, 1000u);
  EXPECT_EQ(run_of(*lat).latency_gap_mode, "original");  // their busy-wait, reproduced
  EXPECT_EQ(run_of(*lat).msg_size, 8u);
  EXPECT_TRUE(run_of(*lat).cq_poll);  // the originals busy-poll
  EXPECT_EQ(lat->program.listen_port, 49194u);
  EXPECT_TRUE(lat->program.once);
  EXPECT_TRUE(lat->host.empty());
  auto bw = parse("fab_write_bw", {});
  EXPECT_EQ(bw->program.iters, 1000u);
  EXPECT_EQ(run_of(*bw).msg_size, 65536u);
  EXPECT_EQ(run_of(*bw).tx_depth, 256u);
  // The originals' lists: no warm-up; --stream warms up with one list.
  EXPECT_EQ(run_of(*bw).bw_method, "lists");
  EXPECT_EQ(run_of(*bw).warmup, 0u);
  EXPECT_EQ(run_of(*parse("fab_write_bw", {"--stream"})).warmup, 256u);
  EXPECT_EQ(run_of(*parse("fab_write_bw", {"--stream"})).bw_method, "stream");
  EXPECT_EQ(bw->program.buf_size, 4294967296ull);
  EXPECT_EQ(bw->program.buf_align, 64u);
  auto amo = parse("fab_atomic_bw", {});
  EXPECT_EQ(amo->program.iters, 10000u);
  EXPECT_EQ(run_of(*amo).tx_depth, 4096u);
  // Reads and fetching atomics keep the whole list in flight (fabperf's own default is 16).
  EXPECT_EQ(run_of(*amo).rd_atomic, 4096u);
  EXPECT_EQ(run_of(*parse("fab_read_bw", {"-l", "64"})).rd_atomic, 64u);
  auto loop = parse("fab_loopback_bw", {});
  EXPECT_EQ(loop->program.iters, 25u);
  EXPECT_EQ(run_of(*loop).tx_depth, 8192u);
  EXPECT_EQ(run_of(*loop).msg_size, 524288u);
  auto heat = parse("fab_heatsink_check", {});
  EXPECT_EQ(heat->program.interval, 10);
  EXPECT_EQ(run_of(*heat).msg_size, 512u);
  EXPECT_EQ(parse("fab_stat", {})->program.pause, 4);
  auto keep = parse("fab_write_lat", {"--keep"});
  ASSERT_TRUE(keep.ok());
  EXPECT_FALSE(keep->program.once);
}

TEST(ToolGrammar, SizeRangeIsEveryPowerOfTwo) {
  auto o = parse("fab_write_lat", {"-s", "1:1024"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(tool_sizes(*o).size(), 11u);
  EXPECT_EQ(tool_sizes(*o).front(), 1u);
  EXPECT_EQ(tool_sizes(*o).back(), 1024u);
  EXPECT_EQ(tool_sizes(*parse("fab_write_lat", {"-s", "100"})), std::vector<uint64_t>{100});
  EXPECT_EQ(tool_sizes(*parse("fab_write_lat", {"-s", "4294967295"})).at(0), 4294967295ull);
}

TEST(ToolGrammar, ValidationMessages) {
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "3:1024"}),
            "Invalid size: 3:1024 (ranges must be powers of 2)");
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "1024:2"}), "Invalid size: 1024:2 (MIN is above MAX)");
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "0"}),
            "Invalid size: 0 (sizes are 1 to 4294967295 bytes)");
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "4294967296"}),
            "Invalid size: 4294967296 (sizes are 1 to 4294967295 bytes)");
  // Each names what was wrong, the value, and why.
  for (const auto& [args, start] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"-n", "0"}, "Invalid iteration count: 0 ("},
           {{"-n", "x"}, "Invalid iteration count: x ("},
           {{"-D", "0"}, "Invalid duration: 0 ("},
           {{"--warmup", "-1"}, "Invalid warmup count: -1 ("},
           {{"--latency-gap", "x"}, "Invalid iteration gap: x ("},
           {{"-p", "0"}, "Invalid port: 0 ("},
           {{"-p", "65536"}, "Invalid port: 65536 ("},
           {{"--use-hp", "4M"}, "Invalid hugepage type: 4M (4M is not one of 2M, 1G)"},
           {{"-g", "ARM"}, "Invalid GPU type: ARM (ARM is not one of AMD, NVIDIA, INTEL)"}}) {
    EXPECT_EQ(error_of("fab_write_lat", args).substr(0, start.size()), start) << args[0];
  }
  EXPECT_EQ(error_of("fab_write_lat", {"a", "b"}), "Unexpected argument: b");
  EXPECT_EQ(error_of("fab_stat", {"x"}), "Unexpected argument: x");
  EXPECT_EQ(error_of("fab_write_lat", {"-n", "5", "-D", "1"}),
            "-n/--iters and -D/--duration cannot both be given");
  EXPECT_EQ(error_of("fab_write_lat", {"--bogus"}),
            "fab_write_lat: unrecognized option '--bogus'\n"
            "Try 'fab_write_lat --help' for more information.");
  EXPECT_EQ(error_of("fab_write_lat", {"--iter=3"}), "(accepted)");  // a unique prefix
  EXPECT_EQ(
      error_of("fab_write_lat", {"-b"}),
      "fab_write_lat: invalid option -- 'b'\nTry 'fab_write_lat --help' for more information.");
  EXPECT_EQ(error_of("fab_write_lat", {"-n"}), "fab_write_lat: option requires an argument -- 'n'");
  EXPECT_EQ(error_of("fab_write_lat", {"--report-all=1"}),
            "fab_write_lat: option '--report-all' doesn't allow an argument");
  // Options a tool does not have are refused, not ignored.
  EXPECT_NE(error_of("fab_read_lat", {"--no-idc"}).find("unrecognized option"), std::string::npos);
  EXPECT_NE(error_of("fab_atomic_lat", {"-s", "8"}).find("invalid option"), std::string::npos);
}

TEST(ToolGrammar, AtomicNamesAreChecked) {
  EXPECT_EQ(error_of("fab_atomic_bw", {"-A", "NAND"}).substr(0, 32),
            "Invalid atomic operation: NAND (");
  EXPECT_EQ(error_of("fab_atomic_bw", {"-T", "INT7"}).substr(0, 26), "Invalid atomic type: INT7 ");
  auto o = parse("fab_atomic_lat", {"-A", "cswap", "-C", "lt", "-T", "float"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(run_of(*o).atomic_op, "CSWAP");
  EXPECT_EQ(run_of(*o).atomic_type, "FLOAT");
  EXPECT_EQ(run_of(*o).msg_size, 4u);  // the type's size
}

TEST(ToolGrammar, ProviderSpellingsAndHeatsinksOwnP) {
  EXPECT_EQ(run_of(*parse("fab_write_lat", {"-P", "shm"})).provider, "shm");
  EXPECT_EQ(run_of(*parse("fab_write_lat", {"--provider=tcp"})).provider, "tcp");
  auto heat = parse("fab_heatsink_check", {"-P", "3", "--provider", "shm"});
  ASSERT_TRUE(heat.ok()) << heat.status().message();
  EXPECT_EQ(heat->program.procs, 3u);
  EXPECT_EQ(run_of(*heat).provider, "shm");
}

TEST(ToolGrammar, ServersTakeTheSameProtectionsAsFabperfs) {
  auto o = parse("fab_write_lat", {"--allow", "10.0.0.0/8", "--max-memory", "64M", "--bind",
                                   "127.0.0.1", "--auth-key-file", "/k", "--concurrent"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->program.allow, "10.0.0.0/8");
  EXPECT_EQ(o->program.max_memory, 64u << 20);
  EXPECT_EQ(o->program.bind, "127.0.0.1");
  EXPECT_EQ(o->program.auth_key_file, "/k");
  EXPECT_TRUE(o->program.concurrent);
}

TEST(ToolGrammar, UsageListsOnlyTheToolsOptions) {
  std::string lat = tool_usage_options(kCxiWriteLat);
  EXPECT_NE(lat.find("--latency-gap"), std::string::npos);
  EXPECT_EQ(lat.find("--list-size"), std::string::npos);
  EXPECT_NE(lat.find("--allow"), std::string::npos);
  std::string heat = tool_usage_options(kCxiHeatsink);
  EXPECT_NE(heat.find("-P, --procs"), std::string::npos);
}

}  // namespace
}  // namespace fabperf::cxi
