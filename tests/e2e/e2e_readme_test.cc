// End-to-end: every command the README shows (its ```sh blocks) is run, against servers on
// loopback instead of node2 and shortened to a fraction of a second, and must do what the
// README says: succeed, or, where this host lacks what it needs (an interface, an address, four
// CPUs), fail with the reason named. A README example no test runs is a promise no one keeps.
// Its compare output is docs/images/compare.txt, as `make report-docs` wrote it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_robust_util.h"
#include "e2e_util.h"

namespace fabperf::testing {
namespace {

namespace fs = std::filesystem;

// The source tree (README.md beside src/) above the binary, or "" where there is none.
fs::path source_root() {
  for (fs::path dir = fs::absolute(fabperf_bin()).parent_path(); !dir.empty();
       dir = dir.parent_path()) {
    if (fs::exists(dir / "README.md") && fs::exists(dir / "src")) return dir;
    if (dir == dir.parent_path()) break;
  }
  return "";
}

// The README beside the sources (tests run from build/ or anywhere under the tree).
std::string readme_text() {
  const fs::path root = source_root();
  return root.empty() ? "" : read_file((root / "README.md").string());
}

// Words as the shell splits them (double quotes kept together), comments dropped.
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> out;
  std::string word;
  bool quoted = false, any = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && c == '#' && (i == 0 || line[i - 1] == ' ')) {
      break;
    } else if (!quoted && c == ' ') {
      if (any) out.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) out.push_back(word);
  return out;
}

// Every fabperf or fab_* command line of the README's sh blocks, but the synopses (HOST,
// TESTS..., N) and the bare servers.
std::vector<std::string> readme_commands(const std::string& readme) {
  std::vector<std::string> out;
  bool in_sh = false;
  std::istringstream in(readme);
  std::string line;
  // The synopses' placeholders (not CSWAP or INT32, which are values).
  const std::set<std::string> placeholders = {"HOST", "[OPTIONS]",   "OPTIONS",     "TESTS...",
                                              "N",    "RUN.json...", "SERVER_ADDR", "FILE"};
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      in_sh = !in_sh && line == "```sh";
      continue;
    }
    if (!in_sh || !(line.rfind("fabperf", 0) == 0 || line.rfind("fab_", 0) == 0)) continue;
    std::vector<std::string> words = shell_words(line);
    if (words.size() < 2) continue;  // a bare server
    if (std::any_of(words.begin(), words.end(),
                    [&](const std::string& w) { return placeholders.count(w) > 0; })) {
      continue;
    }
    out.push_back(line);
  }
  return out;
}

class ReadmeExamples : public ::testing::Test {
 protected:
  // The words to run: node2 is a server here, runs last a fraction of a second, files land
  // in a directory of the test's.
  std::vector<std::string> runnable(const std::vector<std::string>& words, int port, bool cxi) {
    std::vector<std::string> out;
    bool timed = false, hostless = false;
    for (size_t i = 0; i < words.size(); ++i) {
      std::string w = words[i];
      if (w == "--loopback" || w == "--list-fabrics" || w == "report" || w == "compare") {
        hostless = true;
      }
      if (w == "node2" || (cxi && w == "127.0.0.1")) {
        out.push_back("127.0.0.1");
        out.push_back(cxi ? "-p" : "-lp");
        out.push_back(std::to_string(port));
        continue;
      }
      if ((w == "-t" || w == "-D") && i + 1 < words.size()) {
        out.push_back(w);
        out.push_back("0.2");
        ++i;
        timed = true;
        continue;
      }
      if ((w == "--omit" || w == "--interval") && i + 1 < words.size()) {
        out.push_back(w);
        out.push_back(w == "--omit" ? "0.1" : "0.05");
        ++i;
        continue;
      }
      if (w == "-n" && i + 1 < words.size()) {
        out.push_back(w);
        out.push_back(cxi ? words[i + 1] : "2000");
        ++i;
        timed = true;
        continue;
      }
      std::smatch labelled;  // LABEL=RUN.json (report, compare)
      if (std::regex_match(w, labelled, std::regex(R"((\w+)=([\w.-]+\.json))"))) {
        w = labelled[1].str() + "=" + dir_.file(labelled[2].str());
      } else if (std::regex_match(w, std::regex(R"([\w.-]+\.(json|csv|html))"))) {
        w = dir_.file(w);
      }
      out.push_back(w);
    }
    const bool measures = std::none_of(out.begin(), out.end(), [](const std::string& w) {
      return w == "conf" || w == "quit" || w == "--list-fabrics" || w == "report" || w == "compare";
    });
    if (!timed && measures && !hostless && !cxi) {
      out.insert(out.begin() + 1, {"-t", "0.2"});
    } else if (!timed && measures && !cxi) {
      out.push_back("-t");
      out.push_back("0.2");
    }
    if (std::find(out.begin(), out.end(), "-oo") != out.end()) {
      for (size_t i = 0; i + 1 < out.size(); ++i) {
        if (out[i] == "-t") out[i + 1] = "0.05";
      }
    }
    return out;
  }
  TempDir dir_;
};

TEST_F(ReadmeExamples, EveryCommandRunsAsTheReadmeSays) {
  const std::string readme = readme_text();
  ASSERT_FALSE(readme.empty()) << "README.md not found above " << fabperf_bin();
  std::vector<std::string> commands = readme_commands(readme);
  ASSERT_GE(commands.size(), 20u) << "fewer README commands than expected";
  // `conf quit` stops its server: it runs last, against a server of its own.
  std::stable_partition(commands.begin(), commands.end(),
                        [](const std::string& c) { return c.find(" quit") == std::string::npos; });
  ServerProcess server;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int ran = 0;
  for (const std::string& command : commands) {
    std::vector<std::string> words = shell_words(command);
    const std::string program = words[0] == "fabperf" ? "" : beside_fabperf(words[0]);
    const bool cxi = !program.empty();
    // A fab_* tool's server serves one client and ends, as the originals: one each.
    std::unique_ptr<Proc> cxi_server;
    int port = server.port();
    if (cxi) {
      port = free_port();
      cxi_server =
          std::make_unique<Proc>(std::vector<std::string>{"-p", std::to_string(port)}, program);
    }
    std::unique_ptr<ServerProcess> own;
    if (command.find(" quit") != std::string::npos) {
      own = std::make_unique<ServerProcess>();
      port = own->port();
    }
    if (command.find("report before=a.json after=b.json") != std::string::npos) {
      // Two saved runs, labelled: the README's earlier examples wrote run.json and lat.json.
      fs::copy_file(dir_.file("run.json"), dir_.file("a.json"),
                    fs::copy_options::overwrite_existing);
      fs::copy_file(dir_.file("lat.json"), dir_.file("b.json"),
                    fs::copy_options::overwrite_existing);
    }
    if (command.find("report before.json after.json") != std::string::npos) {
      // Two saved runs to compare: the README's earlier examples wrote run.json and lat.json.
      fs::copy_file(dir_.file("run.json"), dir_.file("before.json"),
                    fs::copy_options::overwrite_existing);
      fs::copy_file(dir_.file("lat.json"), dir_.file("after.json"),
                    fs::copy_options::overwrite_existing);
    }
    std::vector<std::string> args = runnable(words, port, cxi);
    args.erase(args.begin());  // the program's own name
    RunOutput r = run(args, 120, program);
    ++ran;
    SCOPED_TRACE(command);
    if (command.find("fe80::2%eth1") != std::string::npos) {
      // No eth1 here: the connection fails at once, naming the reason.
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_FALSE(r.err.empty());
    } else if (command.find("--bind 10.0.0.1") != std::string::npos) {
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_TRUE(contains(r.err, "10.0.0.1")) << r.err;
    } else if (command.find("-lca 2 -rca 3") != std::string::npos && cpus < 4) {
      // The server's side refuses its CPU (exit 1) or the client its own (exit 2).
      EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << r.exit_code << " " << r.err;
      EXPECT_TRUE(contains(r.err, "has no CPU")) << r.err;
    } else if (contains(command, "fabperf compare ")) {
      // 1: a regression past the threshold (busy polling may lose bandwidth here), as the
      // README says; either way the comparison is printed.
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << " " << r.err;
      EXPECT_TRUE(contains(r.out, "runs:\n  block")) << r.out;
    } else {
      EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
      const bool writes_stdout = !contains(command, "report ");
      if (writes_stdout) {
        EXPECT_FALSE(r.out.empty());
      }
      for (const std::string& arg : args) {
        const std::string w = arg.substr(arg.find('=') + 1);  // LABEL=PATH: the path
        if (std::regex_match(w, std::regex(R"(.*\.(json|csv|html))"))) {
          EXPECT_TRUE(fs::exists(w) && fs::file_size(w) > 0) << w;
        }
      }
    }
    if (cxi_server) cxi_server->wait(30);
    if (own) {
      EXPECT_EQ(own->wait_exit(30), 0) << "quit left its server running";
    }
  }
  EXPECT_EQ(ran, static_cast<int>(commands.size()));
}

// The README's compare example is the output `make report-docs` wrote, verbatim: the block
// after the line naming docs/images/compare.txt.
TEST(ReadmeCompareExample, IsDocsImagesCompareTxt) {
  const fs::path root = source_root();
  ASSERT_FALSE(root.empty()) << "README.md not found above " << fabperf_bin();
  const std::string readme = read_file((root / "README.md").string());
  const std::string txt = read_file((root / "docs" / "images" / "compare.txt").string());
  ASSERT_FALSE(txt.empty());
  const size_t named = readme.find("`docs/images/compare.txt`, made by `make report-docs`):");
  ASSERT_NE(named, std::string::npos);
  const size_t open = readme.find("\n```\n", named);
  ASSERT_NE(open, std::string::npos);
  const size_t body = open + 5, close = readme.find("\n```\n", body);
  ASSERT_NE(close, std::string::npos);
  EXPECT_EQ(readme.substr(body, close + 1 - body), txt)
      << "README.md's compare example differs from docs/images/compare.txt: paste it again";
}

}  // namespace
}  // namespace fabperf::testing
