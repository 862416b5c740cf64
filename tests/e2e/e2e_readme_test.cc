// End-to-end: every command the README shows (its ```sh blocks) is run, against servers on
// loopback instead of node2 and shortened to a fraction of a second, and must do what the
// README says: succeed, or, where this host lacks what it needs (an interface, an address, four
// CPUs), fail with the reason named; where the README shows what a command prints (the blocks,
// the sweep table, interval lines, `time = not used`), the output has that shape. The sessions
// of its plain blocks (`$ fabperf ...`, the output under each) run too, as shown. A README
// example no test runs is a promise no one keeps: the launchers' lines are run where the
// launcher is (srun's: SlurmE2E.TheReadmesSrunLine). Its compare output is
// docs/images/compare.txt, as `make report-docs` wrote it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_robust_util.h"
#include "e2e_util.h"

namespace fabperf::testing {
namespace {

namespace fs = std::filesystem;

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

// What the README shows a command of its sh blocks to print (a plain block under it or beside
// it), as a regex that the README's text and the real output must both match.
struct ShownShape {
  const char* command;  // the sh block's line contains this ...
  const char* not_in;   // ... and not this ("" : no such condition)
  const char* regex;
};
const ShownShape kShownShapes[] = {
    // qperf's blocks ("## Output")
    {"fabperf --loopback tcp_lat tcp_bw udp_lat udp_bw", "",
     R"(tcp_lat:\n    latency  =  [\d.]+ \w+\n)"},
    {"fabperf --loopback tcp_lat tcp_bw udp_lat udp_bw", "",
     R"(udp_bw:\n    send_bw +=  +[\d.]+ [\w/]+\n    recv_bw +=  +[\d.]+ [\w/]+\n)"},
    // a sweep without -vu: one table, a row per size
    {"-oo msg_size:1:64K:*2 tcp_lat", "-vu",
     R"(tcp_lat:\n    msg_size +latency\n(?: +\d+ +[\d.]+ \w+\n){3,})"},
    // interval lines ("Interval reports")
    {"--interval 1 -t 10 -v tcp_bw", "",
     R"(tcp_bw \[\d+\.\d\d-\d+\.\d\d s\]  send_bw = [\d.]+ [\w/]+  msg_rate = [\d.]+ [\w/]+)"},
};

bool shape_applies(const ShownShape& shape, const std::string& command) {
  return contains(command, shape.command) &&
         (shape.not_in[0] == '\0' || !contains(command, shape.not_in));
}

// A host-noise warning line (stats/host_noise.cc), whatever its causes.
constexpr const char* kNoiseWarning =
    R"(\w+: warning: (client|server)'s measuring thread )"
    R"((?:(?:, | and )?(?:was preempted [\d,]+ times(?: \([\d.]+% of \w+\))?)"
    R"(|waited for a CPU [\d.]+% of the run)"
    R"(|lost [\d.]+% of the host's CPU time to the hypervisor \(steal\))"
    R"(|ran \d+ busy-polling threads on \d+ CPU\(s\))"
    R"(|ran while the CPU frequency moved between [\d.]+ and [\d.]+ GHz))+)"
    R"((?: \(host: \d+ runnable threads on \d+ CPUs\))?; results are not trustworthy)";

// A `$ command` of the README's plain blocks, with the lines it shows under it.
struct ShownRun {
  std::string command;
  std::vector<std::string> shown;
};

std::vector<ShownRun> shown_runs(const std::string& readme) {
  std::vector<ShownRun> out;
  bool in_fence = false, in_plain = false, open = false;
  std::istringstream in(readme);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      in_plain = !in_fence && line == "```";
      in_fence = !in_fence;
      open = false;  // a block's lines belong to its own `$` lines only
      continue;
    }
    if (!in_plain) continue;
    if (line.rfind("$ ", 0) == 0) {
      out.push_back({line.substr(2), {}});
      open = true;
    } else if (open && !line.empty()) {
      out.back().shown.push_back(line);
    }
  }
  return out;
}

// A shown output line as a regex: numbers (1,234 or 20.4) and the unit after one free, runs
// of spaces one or more, the rest as written.
std::string shape_of(const std::string& shown) {
  std::istringstream words(shown);
  std::string word, out = shown.rfind(' ', 0) == 0 ? " +" : "";
  bool after_number = false, first = true;
  const std::regex number(R"([\d.,]+)");
  while (words >> word) {
    if (!first) out += " +";
    first = false;
    if (std::regex_match(word, number)) {
      out += R"([\d.,]+)";
      after_number = true;
      continue;
    }
    if (after_number && std::regex_match(word, std::regex(R"([A-Za-z/]+)"))) {
      out += R"(\S+)";
    } else {
      out += std::regex_replace(word, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
    }
    after_number = false;
  }
  return out + " *";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// Why this host cannot run a session line as the README did ("" : it can).
std::string cannot_run(const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    if (w == "chrt" || w == "taskset") {
      if (access(("/usr/bin/" + w).c_str(), X_OK) != 0) return "no /usr/bin/" + w + " here";
    }
    if (w == "chrt" && geteuid() != 0) return "not root: chrt -r needs CAP_SYS_NICE";
    if (w == "taskset" && sysconf(_SC_NPROCESSORS_ONLN) < 2) return "one CPU: -lca 0 -rca 1";
  }
  if (std::find(words.begin(), words.end(), "&") != words.end() &&
      access("/usr/bin/setpriv", X_OK) != 0) {
    return "no /usr/bin/setpriv to end the busy job with this test";
  }
  return "";
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

 public:
  // `fabperf ...` words made short (-t 0.2) and appended to `out`, for the sessions.
  static void shorten(const std::vector<std::string>& words, std::vector<std::string>& out) {
    for (size_t i = 0; i < words.size(); ++i) {
      out.push_back(words[i]);
      if (words[i] == "-t" && i + 1 < words.size()) {
        out.push_back("0.2");
        ++i;
      }
    }
  }
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
  int ran = 0, shaped = 0;
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
      // Its client connects once, as the originals' does: wait until the server listens (an
      // ASan build on a loaded CI took long enough to start that the client was refused).
      for (int i = 0;
           i < 6000 && !contains(cxi_server->out() + cxi_server->err(), "for client to connect");
           ++i) {
        if (cxi_server->wait(0) >= 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
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
      for (const ShownShape& shape : kShownShapes) {
        if (!shape_applies(shape, command)) continue;
        ++shaped;
        EXPECT_TRUE(std::regex_search(r.out, std::regex(shape.regex)))
            << "not shaped as the README shows (" << shape.regex << "):\n"
            << r.out;
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
  EXPECT_EQ(shaped, static_cast<int>(std::size(kShownShapes)))
      << "a README command whose output the README shows was not found";
}

// The output the README shows (a plain block, or its words) is what the command shows: each
// shape matches the README's text and the real output.
TEST(ReadmeShapes, TheReadmeShowsEachShape) {
  const std::string readme = readme_text();
  ASSERT_FALSE(readme.empty());
  for (const ShownShape& shape : kShownShapes) {
    EXPECT_TRUE(std::regex_search(readme, std::regex(shape.regex)))
        << "README no longer shows " << shape.regex;
  }
}

// `-t` and `-n` together, as the README's words say: `-n` governs, the warning names it, and
// `-vu` shows `time = not used`.
TEST(ReadmeShapes, TimeAndCountTogetherAsTheReadmeSays) {
  const std::string readme = readme_text();
  ASSERT_TRUE(contains(readme, "`-t set but not used in test tcp_lat: -n 50000 governs`"));
  ASSERT_TRUE(contains(readme, "`-vu` shows `time = not used`"));
  RunOutput r = run({"--loopback", "-t", "0.2", "-n", "2000", "-vu", "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "-t set but not used in test tcp_lat: -n 2000 governs")) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n    time += +not used)"))) << r.out;
}

// The README's sessions (`$ command` lines in plain blocks, the output shown under each) run
// here as shown, shortened: each shown output line has its shape in the real output (numbers
// and their units free), and each shown noise warning is a real one's shape. Whether a run
// warns depends on the host's load, so a warning is required only where the README ran a busy
// job beside it (`$ ... &` up to `kill %1`): that job runs here too, as long as that. A
// session that needs root or a tool this host lacks is skipped, with the reason.
TEST(ReadmeShapes, SessionsRunAndLookAsShown) {
  const std::string readme = readme_text();
  ASSERT_FALSE(readme.empty());
  const std::vector<ShownRun> sessions = shown_runs(readme);
  ASSERT_GE(sessions.size(), 4u) << "the README's noise example is gone";
  const std::regex warning(kNoiseWarning);
  std::unique_ptr<Proc> job;  // the README's `&` job
  std::string cannot;         // why this host cannot run the rest of the session
  int fabperf_runs = 0;
  for (const ShownRun& session : sessions) {
    SCOPED_TRACE(session.command);
    std::string command = session.command;
    if (command.rfind("kill %1; ", 0) == 0) {
      job.reset();  // SIGKILLs it
      command = command.substr(9);
    }
    std::vector<std::string> words = shell_words(command);
    ASSERT_FALSE(words.empty());
    const std::string why = cannot_run(words);
    if (!why.empty()) {
      std::printf("[ skipped  ] $ %s: %s\n", command.c_str(), why.c_str());
      cannot = why;
      continue;
    }
    if (words.back() == "&") {
      // The busy job, as the README ran it; it dies with this test (--pdeathsig), and at
      // `kill %1` (its pid is the loop's: every program on the way execs the next).
      const std::string line = command.substr(0, command.rfind('&'));
      job = std::make_unique<Proc>(
          std::vector<std::string>{"-c", "exec setpriv --pdeathsig KILL " + line}, "/bin/sh");
      continue;
    }
    const auto at = std::find(words.begin(), words.end(), "fabperf");
    ASSERT_NE(at, words.end()) << "a session line that runs no fabperf";
    ASSERT_TRUE(cannot.empty()) << "ran although an earlier line could not: " << cannot;
    // `chrt -r 10 fabperf ...`: chrt runs the fabperf under test.
    const bool wrapped = at != words.begin();
    std::vector<std::string> args(words.begin() + (wrapped ? 1 : 0), at);
    if (wrapped) args.push_back(fabperf_bin());
    ReadmeExamples::shorten(std::vector<std::string>(at + 1, words.end()), args);
    RunOutput r = run(args, 60, wrapped ? "/usr/bin/" + words.front() : "");
    ++fabperf_runs;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> out_lines, err_lines;
    for (const std::string& line : lines_of(r.out)) out_lines.push_back(line);
    for (const std::string& line : lines_of(r.err)) {
      if (contains(line, "measuring thread")) {
        EXPECT_TRUE(std::regex_match(line, warning))
            << "a noise warning of another shape: " << line;
      }
      err_lines.push_back(line);
    }
    size_t next = 0;  // shown stdout lines, in order
    for (const std::string& shown : session.shown) {
      if (contains(shown, ": warning: ")) {
        EXPECT_TRUE(std::regex_match(shown, warning)) << "the README's warning: " << shown;
        if (job) {
          const std::string side = shown.substr(0, shown.find("'s measuring thread"));
          EXPECT_TRUE(std::any_of(err_lines.begin(), err_lines.end(),
                                  [&](const std::string& l) {
                                    return std::regex_match(l, warning) && l.rfind(side, 0) == 0;
                                  }))
              << "beside the busy job, no warning like: " << shown << "\nstderr:\n"
              << r.err;
        }
        continue;
      }
      const std::regex shape(shape_of(shown));
      while (next < out_lines.size() && !std::regex_match(out_lines[next], shape)) ++next;
      EXPECT_LT(next, out_lines.size()) << "no line shaped as the README's `" << shown << "`:\n"
                                        << r.out;
      ++next;
    }
  }
  EXPECT_TRUE(fabperf_runs == 3 || !cannot.empty()) << fabperf_runs;
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
