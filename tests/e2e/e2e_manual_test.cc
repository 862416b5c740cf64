// End-to-end: the generated man pages (every option row, rendered by man without warnings),
// the bash completion (sourced by bash, completing tests, options and values) and
// `cmake --install --strip` putting the binary, links, pages and completion where README says.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "app/all_tests.h"
#include "cxi/cxi_tools.h"
#include "e2e_util.h"
#include "manual/roff.h"
#include "options/option_table.h"
#include "options/spellings.h"

namespace fabperf::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RunOutput sh(const std::string& command, double timeout = 120) {
  return run({"-c", command}, timeout, "/bin/sh");
}

bool have(const std::string& program) {
  return sh("command -v " + program + " >/dev/null 2>&1", 30).exit_code == 0;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::vector<std::string> page_names() {
  std::vector<std::string> names = {"fabperf"};
  for (const cxi::Tool& t : cxi::tools()) names.push_back(t.name);
  return names;
}

// A built page is what the generator prints now (the build ran it from the same tables).
TEST(ManualPages, BuiltPagesAreTheGeneratorsOutput) {
  for (const std::string& name : page_names()) {
    RunOutput gen = run({"man", name}, 60, beside_fabperf("fabperf_docgen"));
    ASSERT_EQ(gen.exit_code, 0) << name << ": " << gen.err;
    EXPECT_EQ(gen.out, slurp(beside_fabperf("man/" + name + ".1"))) << name;
  }
  RunOutput bad = run({"man", "fab_nope"}, 60, beside_fabperf("fabperf_docgen"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "fab_nope") && contains(bad.err, "fab_write_lat")) << bad.err;
}

TEST(ManualPages, FabperfPageHasEveryOptionRowAndTest) {
  const std::string page = slurp(beside_fabperf("man/fabperf.1"));
  ASSERT_FALSE(page.empty());
  for (const OptionSpec& spec : option_table()) {
    if (!spec.qperf) continue;
    EXPECT_TRUE(contains(page, manual::bold(std::string("--") + spec.name))) << spec.name;
    if (spec.short_name != nullptr) {
      EXPECT_TRUE(contains(page, manual::bold(std::string("-") + spec.short_name))) << spec.name;
    }
    if (spec.help[0] != '\0') {
      EXPECT_TRUE(contains(page, manual::roff_escape(spec.help))) << spec.name;
    }
  }
  for (const std::string& test : all_tests().names()) {
    EXPECT_TRUE(contains(page, manual::bold(test))) << test;
  }
}

TEST(ManualPages, ToolPagesHaveEverySpellingOfTheirTool) {
  for (const cxi::Tool& tool : cxi::tools()) {
    const std::string page = slurp(beside_fabperf(std::string("man/") + tool.name + ".1"));
    ASSERT_FALSE(page.empty()) << tool.name;
    for (const ToolSpelling& s : tool_spellings(tool.bit)) {
      EXPECT_TRUE(contains(page, manual::bold("--" + s.long_name)))
          << tool.name << " " << s.long_name;
      if (s.cxi->short_name != 0) {
        EXPECT_TRUE(contains(page, manual::bold(std::string("-") + s.cxi->short_name)))
            << tool.name << " -" << s.cxi->short_name;
      }
    }
  }
}

TEST(ManualPages, ManRendersEveryPageWithoutWarnings) {
  if (!have("man") || !have("groff")) GTEST_SKIP() << "man or groff is not installed";
  for (const std::string& name : page_names()) {
    const std::string path = beside_fabperf("man/" + name + ".1");
    RunOutput r =
        sh("MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l " + quoted(path) + " 2>&1 >/dev/null");
    EXPECT_EQ(r.exit_code, 0) << name;
    EXPECT_EQ(r.out, "") << name;  // man's and groff's warnings, nothing else
    RunOutput text = sh("MANWIDTH=80 LC_ALL=C.UTF-8 man -l " + quoted(path) + " 2>/dev/null");
    EXPECT_TRUE(contains(text.out, "NAME") && contains(text.out, "OPTIONS")) << name;
  }
}

// Completes `words` (the last one being typed) as bash would, with the generated script.
std::string complete(const std::string& words) {
  RunOutput r = run(
      {"-c", "source " + quoted(beside_fabperf("completion/fabperf")) + "; COMP_WORDS=(" + words +
                 "); COMP_CWORD=$((${#COMP_WORDS[@]}-1));"
                 " _fabperf; echo \"${COMPREPLY[*]}\""},
      60, "/bin/bash");
  EXPECT_EQ(r.exit_code, 0) << words << ": " << r.err;
  EXPECT_EQ(r.err, "") << words;
  return r.out;
}

TEST(BashCompletion, RegisteredForFabperfAndEveryTool) {
  if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no /bin/bash";
  std::string script =
      "source " + quoted(beside_fabperf("completion/fabperf")) + "; complete -p fabperf";
  for (const cxi::Tool& t : cxi::tools()) script += std::string(" ") + t.name;
  RunOutput r = run({"-c", script}, 60, "/bin/bash");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "-F _fabperf fabperf\n")) << r.out;
  for (const cxi::Tool& t : cxi::tools()) {
    EXPECT_TRUE(contains(r.out, std::string("-F _fabperf ") + t.name + "\n")) << t.name;
  }
}

TEST(BashCompletion, CompletesTestsOptionsAndValues) {
  if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no /bin/bash";
  std::string tcp_tests;
  for (const std::string& n : all_tests().names()) {
    if (n.rfind("tcp_", 0) == 0) tcp_tests += (tcp_tests.empty() ? "" : " ") + n;
  }
  ASSERT_FALSE(tcp_tests.empty());
  EXPECT_EQ(complete("fabperf host tcp_"), tcp_tests + "\n");
  EXPECT_EQ(complete("fabperf --msg"), "--msg_size\n");
  EXPECT_TRUE(contains(complete("fabperf --loc_"), "--loc_cpu_affinity"));
  EXPECT_EQ(complete("fabperf --atomic_op S"), "SUM SWAP\n");
  EXPECT_TRUE(contains(complete("fabperf --help tcp_"), "tcp_lat"));
  EXPECT_EQ(complete("fabperf -cp ''"), "0 1\n");
  // Free text and file names: no words of ours, so bash completes file names (-o default).
  EXPECT_EQ(complete("fabperf --json tcp_"), "\n");
  EXPECT_EQ(complete("fabperf report tcp_"), "\n");
  EXPECT_EQ(complete("fabperf compare tcp_"), "\n");
  // The fab_* tools: their own spellings, short and long, not fabperf's, and no tests.
  EXPECT_EQ(complete("fab_write_lat --si"), "--size\n");
  EXPECT_TRUE(contains(complete("fab_write_lat -"), "-s "));
  EXPECT_FALSE(contains(complete("fab_write_lat --"), "--msg_size"));
  EXPECT_EQ(complete("fab_write_lat --use-hp ''"), "2M 1G\n");
  EXPECT_EQ(complete("fab_write_lat tcp_"), "\n");
}

// Where the server goes, no test names: `report`, or a host (user review, item 16); the rest
// of what people type: --json-stream's spelling, -oo's variables, -P's providers.
TEST(BashCompletion, HostPositionSpellingsLoopsAndProviders) {
  if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no /bin/bash";
  EXPECT_EQ(complete("fabperf tcp_"), "\n");
  EXPECT_EQ(complete("fabperf rep"), "report\n");
  EXPECT_EQ(complete("fabperf -m 64 -t 1 tcp_l"), "\n");  // option arguments are no host
  EXPECT_EQ(complete("fabperf -m 64 node2 tcp_l"), "tcp_lat\n");
  EXPECT_EQ(complete("fabperf --loopback tcp_l"), "tcp_lat\n");
  EXPECT_EQ(complete("fabperf --json-s"), "--json-stream\n");
  EXPECT_EQ(complete("fabperf --msg"), "--msg_size\n");  // underscores unless a dash is typed
  EXPECT_EQ(complete("fabperf -oo msg"), "msg_size:\n");
  EXPECT_TRUE(contains(complete("fabperf -oo ''"), "time:")) << complete("fabperf -oo ''");
  if (access("/usr/bin/fi_info", X_OK) != 0) {
    GTEST_SKIP() << "no fi_info: provider names not checked";
  }
  for (const char* words : {"fabperf -P ''", "fabperf --loc_provider t", "fab_write_lat -P ''"}) {
    std::string got = complete(words);
    EXPECT_TRUE(contains(got, "tcp")) << words << ": " << got;
    EXPECT_FALSE(contains(got, "ofi_hook")) << words << ": " << got;
  }
}

bool is_link_to(const std::string& path, const std::string& target) {
  char buf[4096];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf);
  return n > 0 && std::string(buf, static_cast<size_t>(n)) == target;
}

// DESTDIR and --prefix together: everything lands under DESTDIR/PREFIX, stripped.
TEST(Install, StrippedBinaryLinksPagesAndCompletion) {
  if (!have("cmake")) GTEST_SKIP() << "cmake is not installed";
  const std::string build = beside_fabperf("");
  struct stat st {};
  if (stat((build + "cmake_install.cmake").c_str(), &st) != 0) {
    GTEST_SKIP() << "no cmake_install.cmake beside " << fabperf_bin();
  }
  char tmpl[] = "/tmp/fabperf_install_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dest = tmpl;
  RunOutput inst = sh("DESTDIR=" + quoted(dest) + " cmake --install " + quoted(build) +
                          " --prefix /opt/fabperf --strip 2>&1",
                      300);
  ASSERT_EQ(inst.exit_code, 0) << inst.out;
  const std::string root = dest + "/opt/fabperf";
  const std::string bin = root + "/bin/fabperf";
  ASSERT_EQ(access(bin.c_str(), X_OK), 0) << inst.out;
  if (have("readelf")) {
    RunOutput sections = sh("readelf -S " + quoted(bin));
    EXPECT_FALSE(contains(sections.out, ".debug_info")) << "not stripped";
  }
  RunOutput version = run({"--version"}, 60, root + "/bin/fab_write_lat");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(contains(version.out, "fab_write_lat version")) << version.out;
  for (const std::string& name : page_names()) {
    EXPECT_EQ(slurp(root + "/share/man/man1/" + name + ".1"),
              slurp(beside_fabperf("man/" + name + ".1")))
        << name;
  }
  const std::string completions = root + "/share/bash-completion/completions/";
  EXPECT_EQ(slurp(completions + "fabperf"), slurp(beside_fabperf("completion/fabperf")));
  for (const cxi::Tool& t : cxi::tools()) {
    EXPECT_TRUE(is_link_to(root + "/bin/" + t.name, "fabperf")) << t.name;
    EXPECT_TRUE(is_link_to(completions + t.name, "fabperf")) << t.name;
  }
  sh("rm -rf " + quoted(dest));
}

}  // namespace
}  // namespace fabperf::testing
