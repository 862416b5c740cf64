// Unit tests: the mode table (app/mode_table.h): every mode a row, which mode each command line
// of either grammar asks for, the help's synopsis from the rows, "did you mean".
#include "app/mode_table.h"

#include <gtest/gtest.h>

#include "app/all_tests.h"
#include "cli/help.h"

namespace fabperf {
namespace {

Result<ModeCall> resolved(const std::string& program, std::vector<std::string> args) {
  ModeCall call;
  call.program = program;
  call.args = std::move(args);
  Status s = resolve_mode(call);
  if (!s.ok()) return s;
  return call;
}

Mode mode_of(const std::string& program, std::vector<std::string> args) {
  auto call = resolved(program, std::move(args));
  EXPECT_TRUE(call.ok()) << call.status().message();
  return call.ok() ? call->mode : Mode::kSessionChild;
}

TEST(ModeTable, EveryModeHasOneRow) {
  const Mode all[] = {Mode::kServe,   Mode::kClient,   Mode::kLoopback,    Mode::kReport,
                      Mode::kCompare, Mode::kMatrix,   Mode::kListFabrics, Mode::kHelp,
                      Mode::kVersion, Mode::kHeatsink, Mode::kStat,        Mode::kSessionChild};
  for (Mode m : all) {
    int rows = 0;
    for (const ModeRow& row : mode_table()) rows += row.mode == m;
    EXPECT_EQ(rows, 1) << static_cast<int>(m);
    EXPECT_EQ(mode_row(m).mode, m);
  }
  EXPECT_EQ(mode_table().size(), std::size(all));
}

TEST(ModeTable, FabperfsGrammarPicksTheMode) {
  EXPECT_EQ(mode_of("fabperf", {}), Mode::kServe);
  EXPECT_EQ(mode_of("fabperf", {"node1", "tcp_lat"}), Mode::kClient);
  EXPECT_EQ(mode_of("fabperf", {"--loopback", "tcp_lat"}), Mode::kLoopback);
  EXPECT_EQ(mode_of("fabperf", {"report", "a.json", "-o", "a.html"}), Mode::kReport);
  EXPECT_EQ(mode_of("fabperf", {"compare", "a.json", "b.json"}), Mode::kCompare);
  EXPECT_EQ(mode_of("fabperf", {"--matrix", "tcp_lat"}), Mode::kMatrix);
  EXPECT_EQ(mode_of("fabperf", {"--list-fabrics"}), Mode::kListFabrics);
  EXPECT_EQ(mode_of("fabperf", {"--help", "tests"}), Mode::kHelp);
  EXPECT_EQ(mode_of("fabperf", {"--version"}), Mode::kVersion);
  EXPECT_EQ(mode_of("fabperf", {"--fabperf-session-child", "1"}), Mode::kSessionChild);
  // A --matrix option without --matrix is the matrix row's usage error to say.
  EXPECT_EQ(mode_of("fabperf", {"--pattern", "shift", "node1", "tcp_lat"}), Mode::kMatrix);
  auto call = resolved("fabperf", {"node1", "tcp_lat"});
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->dialect, Dialect::kQperf);
  EXPECT_EQ(call->tool, nullptr);
  EXPECT_EQ(call->cl.host, "node1");
}

TEST(ModeTable, ToolsGrammarPicksTheModeByToolKind) {
  EXPECT_EQ(mode_of("fab_write_lat", {}), Mode::kServe);
  EXPECT_EQ(mode_of("fab_write_lat", {"node1"}), Mode::kClient);
  EXPECT_EQ(mode_of("fab_send_bw", {"node1", "-b"}), Mode::kClient);
  EXPECT_EQ(mode_of("fab_loopback_bw", {}), Mode::kLoopback);
  EXPECT_EQ(mode_of("fab_heatsink_check", {}), Mode::kHeatsink);
  EXPECT_EQ(mode_of("fab_stat", {}), Mode::kStat);
  EXPECT_EQ(mode_of("fab_stat", {"--help"}), Mode::kHelp);
  EXPECT_EQ(mode_of("fab_write_lat", {"--version"}), Mode::kVersion);
  auto call = resolved("fab_write_lat", {"node1"});
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->dialect, Dialect::kCxi);
  ASSERT_NE(call->tool, nullptr);
  EXPECT_STREQ(call->tool->name, "fab_write_lat");
}

TEST(ModeTable, UsageErrorsNameWhatWasWrong) {
  auto no_test = resolved("fabperf", {"node1"});
  ASSERT_FALSE(no_test.ok());
  EXPECT_EQ(no_test.status().code(), Code::kUsage);
  EXPECT_NE(no_test.status().message().find("must specify a test type"), std::string::npos);
  auto bad_option = resolved("fab_write_lat", {"--no-such-option"});
  ASSERT_FALSE(bad_option.ok());
  EXPECT_EQ(bad_option.status().code(), Code::kUsage);
}

TEST(ModeTable, MistypedSubcommandGetsDidYouMean) {
  auto typo = resolved("fabperf", {"reprot", "a.json", "-o", "a.html"});
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), Code::kUsage);
  EXPECT_NE(typo.status().message().find("did you mean fabperf report?"), std::string::npos)
      << typo.status().message();
  auto alone = resolved("fabperf", {"compaer"});
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.status().message().find("did you mean fabperf compare?"), std::string::npos)
      << alone.status().message();
  // A subcommand's word is one only in first place: elsewhere it is a host, with the hint.
  auto later = resolved("fabperf", {"-lp", "5000", "report"});
  ASSERT_FALSE(later.ok());
  EXPECT_NE(later.status().message().find("did you mean fabperf report?"), std::string::npos);
  // A host far from every subcommand's word gets no guess.
  auto host = resolved("fabperf", {"node1"});
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().message().find("did you mean"), std::string::npos);
}

TEST(ModeTable, HelpListsEveryListedRow) {
  auto text = help_text("", all_tests(), mode_synopsis());
  ASSERT_TRUE(text.ok());
  size_t listed = 0;
  for (const ModeRow& row : mode_table()) {
    if (row.synopsis == nullptr) continue;
    ++listed;
    EXPECT_NE(text->find("\n    " + std::string(row.synopsis) + "\n"), std::string::npos)
        << row.name;
  }
  EXPECT_EQ(listed, mode_synopsis().size());
  EXPECT_NE(text->find("fabperf report RUN.json"), std::string::npos);
  EXPECT_EQ(text->find("session-child"), std::string::npos);
}

}  // namespace
}  // namespace fabperf
