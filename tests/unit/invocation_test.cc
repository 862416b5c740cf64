// Unit tests: the Invocation (cli/invocation.h) resolved once at the front (app/mode_table.h's
// resolve_mode), from either grammar: this process's run options, a fab_* tool's defaults in
// force under the user's options, and none where the mode takes its client's.
#include "cli/invocation.h"

#include <gtest/gtest.h>

#include "app/mode_table.h"
#include "cxi/cxi_tools.h"

namespace fabperf {
namespace {

ModeCall resolved(const std::string& program, std::vector<std::string> args) {
  ModeCall call;
  call.program = program;
  call.args = std::move(args);
  Status s = resolve_mode(call);
  EXPECT_TRUE(s.ok()) << s.message();
  return call;
}

std::string error_of(const std::string& program, std::vector<std::string> args) {
  ModeCall call;
  call.program = program;
  call.args = std::move(args);
  Status s = resolve_mode(call);
  return s.ok() ? "(accepted)" : s.message();
}

TEST(Invocation, QperfGrammarResolvesThisProcesssRunOptions) {
  ModeCall server = resolved("fabperf", {"-to", "7"});
  EXPECT_EQ(server.mode, Mode::kServe);
  EXPECT_EQ(server.cl.dialect, Dialect::kQperf);
  EXPECT_EQ(server.cl.own.timeout, 7);
  // The remote side's value is the peer's, not this process's.
  ModeCall client = resolved("fabperf", {"host", "--rem_timeout", "9", "-m", "4096", "tcp_lat"});
  EXPECT_EQ(client.cl.host, "host");
  EXPECT_EQ(client.cl.own.timeout, default_run_options(Dialect::kQperf).timeout);
  EXPECT_EQ(client.cl.own.msg_size, 4096u);
  ASSERT_EQ(client.cl.tests.size(), 1u);
  EXPECT_EQ(client.cl.tests[0].name, "tcp_lat");
}

TEST(Invocation, QperfClientsRunsArePlannedOnceAtTheFront) {
  ModeCall c = resolved("fabperf", {"host", "--repeat", "2", "-oo", "msg_size:1:4:*2", "tcp_lat"});
  ASSERT_EQ(c.cl.runs.size(), 6u);  // 3 sizes, 2 rounds
  EXPECT_EQ(c.cl.runs.back().repetition, 2u);
  EXPECT_EQ(c.cl.runs.back().params.local.msg_size, 4u);
  EXPECT_TRUE(resolved("fabperf", {}).cl.runs.empty());  // a server plans nothing
  EXPECT_NE(error_of("fabperf", {"host", "-oo", "msg_size:8:1", "tcp_lat"}).find("Init is above"),
            std::string::npos);
}

TEST(Invocation, ToolGrammarPutsTheToolsDefaultsInForce) {
  const cxi::Tool& bw = *cxi::find_tool("fab_write_bw");
  ModeCall call = resolved("fab_write_bw", {"server"});
  EXPECT_EQ(call.mode, Mode::kClient);
  EXPECT_EQ(call.cl.dialect, Dialect::kCxi);
  EXPECT_EQ(call.cl.own.msg_size, bw.size);
  EXPECT_EQ(call.cl.own.tx_depth, bw.list_size);
  EXPECT_EQ(call.cl.own.no_msgs, bw.iters * bw.list_size);  // -n counts lists
  EXPECT_EQ(call.cl.program.iters, bw.iters);
  EXPECT_FALSE(given(call.cl.program, &ProgramOptions::iters));  // a default, not typed
  ASSERT_EQ(call.cl.tests.size(), 1u);
  EXPECT_EQ(call.cl.tests[0].name, bw.test);
  // Each test's options hold the defaults too, as plan_runs reads them.
  EXPECT_FALSE(call.cl.tests[0].assignments.empty());
}

TEST(Invocation, UsersValueBeatsTheToolsDefault) {
  ModeCall lat = resolved("fab_write_lat", {"server", "-s", "100", "-n", "5"});
  EXPECT_EQ(lat.cl.own.msg_size, 100u);
  EXPECT_EQ(lat.cl.own.no_msgs, 5u);
  EXPECT_EQ(lat.cl.program.iters, 5u);
  // The defaults come first, so the user's assignment is the later, winning one on the test.
  const std::vector<Assignment>& a = lat.cl.tests.at(0).assignments;
  const Assignment* last_size = nullptr;
  for (const Assignment& each : a) {
    if (each.spec->field == FieldRef(&RunOptions::msg_size)) last_size = &each;
  }
  ASSERT_NE(last_size, nullptr);
  EXPECT_EQ(std::get<uint64_t>(last_size->value), 100u);
  ModeCall bw = resolved("fab_write_bw", {"server", "-l", "64", "-n", "10"});
  EXPECT_EQ(bw.cl.own.tx_depth, 64u);
  EXPECT_EQ(bw.cl.own.no_msgs, 640u);
}

TEST(Invocation, ModesThatRunNoTestOfTheToolsKeepTheTypedOptions) {
  // A pair tool's server takes its client's size, list and iterations.
  ModeCall server = resolved("fab_write_bw", {});
  EXPECT_EQ(server.mode, Mode::kServe);
  EXPECT_TRUE(server.cl.assignments.empty());
  EXPECT_EQ(server.cl.own.tx_depth, default_run_options(Dialect::kCxi).tx_depth);
  EXPECT_TRUE(resolved("fab_stat", {}).cl.assignments.empty());
  for (const Assignment& a : resolved("fab_write_lat", {"--help"}).cl.assignments) {
    EXPECT_FALSE(a.spec->is_run_option()) << a.spelling;  // --help alone, no tool default
  }
}

TEST(Invocation, ToolDefaultsErrorsComeFromResolving) {
  EXPECT_EQ(error_of("fab_write_lat", {"server", "-n", "5", "-D", "2"}),
            "-n/--iters and -D/--duration cannot both be given");
  // A server never applied the client's rule, and still does not.
  EXPECT_EQ(error_of("fab_write_lat", {"-n", "5", "-D", "2"}), "(accepted)");
}

}  // namespace
}  // namespace fabperf
