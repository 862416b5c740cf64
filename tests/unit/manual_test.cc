// The man page and completion generators (src/manual/): roff escaping, --help text as
// sections, the tool pages' refusal of unknown names, the completion's word lists.
#include <gtest/gtest.h>

#include "app/all_tests.h"
#include "app/mode_table.h"
#include "cxi/cxi_tools.h"
#include "manual/completion.h"
#include "manual/man_page.h"
#include "manual/roff.h"
#include "options/spellings.h"

namespace fabperf::manual {
namespace {

TEST(ManualRoff, EscapesBackslashHyphenAndLeadingControlCharacters) {
  EXPECT_EQ(roff_escape("--msg_size"), "\\-\\-msg_size");
  EXPECT_EQ(roff_escape("a\\b"), "a\\eb");
  EXPECT_EQ(roff_escape(".foo"), "\\&.foo");
  EXPECT_EQ(roff_escape("'quoted"), "\\&'quoted");
  EXPECT_EQ(roff_escape("mid.dle's"), "mid.dle's");
  EXPECT_EQ(bold("-m"), "\\fB\\-m\\fR");
  EXPECT_EQ(italic("Size"), "\\fISize\\fR");
}

TEST(ManualRoff, HelpTextBecomesSectionsKeptAsLaidOut) {
  EXPECT_EQ(sections_of_help("Synopsis\n    fabperf -t 1\n\n    .hidden\nExit status\n    0\n"),
            ".SH SYNOPSIS\n.nf\nfabperf \\-t 1\n.sp\n\\&.hidden\n.fi\n"
            ".SH EXIT STATUS\n.nf\n0\n.fi\n");
  EXPECT_EQ(sections_of_help(""), "");
}

TEST(ManualPage, EveryToolHasAPageAndOtherNamesAreRefused) {
  for (const cxi::Tool& tool : cxi::tools()) {
    auto page = tool_man_page(tool.name);
    ASSERT_TRUE(page.ok()) << tool.name;
    EXPECT_NE(page->find(".SH OPTIONS"), std::string::npos) << tool.name;
    EXPECT_NE(page->find("fabperf\\fR(1)"), std::string::npos) << tool.name;  // SEE ALSO
  }
  for (const char* bad : {"fab_nope", "cxi_write_lat", "fabperf", ""}) {
    auto page = tool_man_page(bad);
    ASSERT_FALSE(page.ok()) << bad;
    EXPECT_NE(page.status().message().find("fab_stat"), std::string::npos);
  }
}

// The originals' pages' sections: how to read the output, the two examples, and the exit
// statuses the tools really have (1 for bad usage, as the originals).
TEST(ManualPage, ToolPagesHaveOutputExamplesAndTheirExitStatus) {
  for (const cxi::Tool& tool : cxi::tools()) {
    auto page = tool_man_page(tool.name);
    ASSERT_TRUE(page.ok()) << tool.name;
    EXPECT_NE(page->find(".SH OUTPUT\n"), std::string::npos) << tool.name;
    EXPECT_NE(page->find(".SH EXAMPLES\n"), std::string::npos) << tool.name;
    EXPECT_NE(page->find(".SH EXIT STATUS\n0 success; 1 an error, bad usage included"),
              std::string::npos)
        << tool.name;
    EXPECT_EQ(page->find("2 bad usage"), std::string::npos) << tool.name;
  }
  auto lat = tool_man_page("fab_write_lat");
  EXPECT_NE(lat->find("$ fab_write_lat 10.1.1.8 \\-D 1 \\-s 1:1024\n"), std::string::npos);
  EXPECT_NE(lat->find("$ fab_write_lat 10.1.1.8 \\-n 5 \\-\\-report\\-all\n"), std::string::npos);
  EXPECT_NE(lat->find("Results Reported : All\n"), std::string::npos);
  EXPECT_NE(lat->find(".TP\n\\fIWriteNum\\fR\n"), std::string::npos);
  EXPECT_NE(lat->find(".TP\n\\fIStdDev[us]\\fR\n"), std::string::npos);
  auto heat = tool_man_page("fab_heatsink_check");
  EXPECT_NE(heat->find("2 a temperature or power limit or the bandwidth target failed"),
            std::string::npos);
}

TEST(ManualPage, FabperfPageNamesEveryTest) {
  const std::string page = fabperf_man_page(all_tests(), mode_synopsis());
  EXPECT_EQ(page.rfind(".TH FABPERF 1", 0), 0u);
  for (const std::string& name : all_tests().names()) {
    EXPECT_NE(page.find(".TP\n" + bold(name) + "\n"), std::string::npos) << name;
  }
}

// `word` appears in one of the script's quoted word lists, as a whole word.
bool has_word(const std::string& script, const std::string& word) {
  for (size_t at = script.find(word); at != std::string::npos; at = script.find(word, at + 1)) {
    const char before = at == 0 ? ' ' : script[at - 1];
    const char after = at + word.size() < script.size() ? script[at + word.size()] : ' ';
    if ((before == ' ' || before == '"') && (after == ' ' || after == '"')) return true;
  }
  return false;
}

TEST(ManualCompletion, ListsEverySpellingOfBothGrammars) {
  const std::string script = bash_completion(all_tests());
  for (const Spelling& s : qperf_spellings()) {
    EXPECT_TRUE(has_word(script, s.text)) << s.text;
  }
  for (const cxi::Tool& tool : cxi::tools()) {
    EXPECT_NE(script.find(std::string("    ") + tool.name + "|"), std::string::npos);
    for (const ToolSpelling& s : tool_spellings(tool.bit)) {
      EXPECT_TRUE(has_word(script, "--" + s.long_name)) << s.long_name;
    }
  }
  EXPECT_NE(script.find("complete -o default -F _fabperf fabperf fab_write_lat"),
            std::string::npos);
}

}  // namespace
}  // namespace fabperf::manual
