// Every repository path that README.md, bench/README.md and docs/*.md name exists, so the
// docs cannot keep pointing at files that moved or went away.
//
// What counts as a path (the rule the docs are held to):
// - A word of path characters (letters, digits, _ . - + * / and one {a,b} brace group) that
//   holds a '/'. Markdown around it (backticks, brackets, a trailing ':line', '.' or ',')
//   is not part of it.
// - Its first component says where it starts: an entry of the repository root
//   (`src/net/control.h`, `tests/e2e/`, `Makefile`), else an entry of src/ (the short
//   form `engine/test_result.cc`), else an entry of the document's own directory
//   (bench/README.md's `results/...`, `probes/...`). A word whose first component is none
//   of these is prose, not a path ("TCP/SCTP", "GB/sec", "loc/rem").
// - Not checked: absolute paths (/proc/stat, /dev/shm), build outputs (build/..., other
//   build-*/ trees), a path inside a URL or after '$' or '~', and a path in another commit
//   written as git writes it (`29a1cd2:bench/probes/tcp_probes.sh`).
// - `dir/` must be a directory; `a.{h,cc}` needs each of a.h and a.cc; a word with '*' or
//   '?' must match at least one file.
#include <glob.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/environment.h"

#ifndef FABPERF_SOURCE_DIR
#error "FABPERF_SOURCE_DIR names the repository root (CMakeLists.txt sets it)"
#endif

namespace fabperf {
namespace {

namespace fs = std::filesystem;

bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
         c == '+' || c == '*' || c == '?' || c == '/';
}

// A word of one line that holds a '/', and what comes before it.
struct Word {
  std::string text;
  std::string before;  // up to 12 characters before the word, to see URLs and commits
};

std::vector<Word> slash_words(const std::string& line) {
  std::vector<Word> out;
  size_t i = 0;
  while (i < line.size()) {
    if (!path_char(line[i]) && line[i] != '{') {
      ++i;
      continue;
    }
    size_t start = i;
    bool brace = false;
    while (i < line.size()) {
      char c = line[i];
      if (path_char(c)) {
        ++i;
      } else if (c == '{' && !brace) {
        size_t close = line.find('}', i);
        if (close == std::string::npos) break;
        brace = true;
        i = close + 1;
      } else {
        break;
      }
    }
    if (i == start) {  // a lone '{'
      ++i;
      continue;
    }
    std::string text = line.substr(start, i - start);
    while (!text.empty() && (text.back() == '.' || text.back() == ',')) text.pop_back();
    if (text.find('/') != std::string::npos) {
      size_t from = start >= 12 ? start - 12 : 0;
      out.push_back({text, line.substr(from, start - from)});
    }
  }
  return out;
}

// a.{h,cc} -> a.h, a.cc; anything else as it is.
std::vector<std::string> expand_braces(const std::string& path) {
  size_t open = path.find('{');
  if (open == std::string::npos) return {path};
  size_t close = path.find('}', open);
  std::vector<std::string> out;
  std::stringstream alternatives(path.substr(open + 1, close - open - 1));
  std::string alt;
  while (std::getline(alternatives, alt, ',')) {
    out.push_back(path.substr(0, open) + alt + path.substr(close + 1));
  }
  return out;
}

bool is_commit_prefix(const std::string& before) {
  // "29a1cd2:" right before the word: a path in that commit.
  if (before.empty() || before.back() != ':') return false;
  size_t n = 0;
  for (size_t i = before.size() - 1; i > 0; --i, ++n) {
    if (!std::isxdigit(static_cast<unsigned char>(before[i - 1]))) break;
  }
  return n >= 7;
}

bool exists_as_named(const fs::path& base, const std::string& path) {
  if (path.find_first_of("*?") != std::string::npos) {
    glob_t g{};
    std::string pattern = (base / path).string();
    int rc = glob(pattern.c_str(), 0, nullptr, &g);
    size_t found = rc == 0 ? g.gl_pathc : 0;
    globfree(&g);
    return found > 0;
  }
  fs::path p = base / path;
  if (path.back() == '/') return fs::is_directory(p);
  return fs::exists(p);
}

std::set<std::string> entries_of(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.insert(e.path().filename().string());
  return names;
}

// The paths `doc` (relative to root) names that do not exist, as "doc:line: path".
std::vector<std::string> missing_paths(const fs::path& root, const std::string& doc) {
  const std::set<std::string> at_root = entries_of(root);
  const std::set<std::string> in_src = entries_of(root / "src");
  const fs::path doc_dir = (root / doc).parent_path();
  const std::set<std::string> beside =
      doc_dir == root ? std::set<std::string>{} : entries_of(doc_dir);
  std::vector<std::string> missing;
  std::ifstream in(root / doc);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    for (const Word& w : slash_words(line)) {
      const std::string& t = w.text;
      char prev = w.before.empty() ? 0 : w.before.back();
      if (t[0] == '/' || prev == '$' || prev == '~' || prev == '@') continue;
      if (is_commit_prefix(w.before)) continue;
      const std::string first = t.substr(0, t.find('/'));
      if (first == "build" || first.rfind("build-", 0) == 0) continue;
      fs::path base;
      if (at_root.count(first) > 0) {
        base = root;
      } else if (in_src.count(first) > 0) {
        base = root / "src";
      } else if (beside.count(first) > 0) {
        base = doc_dir;
      } else {
        continue;  // prose
      }
      for (const std::string& path : expand_braces(t)) {
        if (!exists_as_named(base, path)) {
          missing.push_back(doc + ":" + std::to_string(number) + ": " + path);
        }
      }
    }
  }
  return missing;
}

std::vector<std::string> checked_docs(const fs::path& root) {
  std::vector<std::string> docs = {"README.md", "bench/README.md"};
  std::vector<std::string> in_docs;
  for (const auto& e : fs::directory_iterator(root / "docs")) {
    if (e.path().extension() == ".md") in_docs.push_back("docs/" + e.path().filename().string());
  }
  std::sort(in_docs.begin(), in_docs.end());
  docs.insert(docs.end(), in_docs.begin(), in_docs.end());
  return docs;
}

TEST(DocPaths, EveryPathTheDocsNameExists) {
  const fs::path root = FABPERF_SOURCE_DIR;
  const std::vector<std::string> docs = checked_docs(root);
  ASSERT_GE(docs.size(), 3u) << "no docs found under " << root;
  for (const std::string& doc : docs) {
    ASSERT_TRUE(fs::exists(root / doc)) << doc;
    for (const std::string& m : missing_paths(root, doc)) {
      ADD_FAILURE() << m << " does not exist (fix the doc, or see the rule in "
                    << "tests/unit/doc_paths_test.cc)";
    }
  }
}

// README's "Environment variables" names every variable fabperf reads (core/environment.h's
// table), so a variable added to the table cannot go unsaid.
TEST(DocPaths, ReadmeNamesEveryEnvironmentVariable) {
  std::ifstream in(fs::path(FABPERF_SOURCE_DIR) / "README.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string readme = text.str();
  const size_t section = readme.find("### Environment variables");
  ASSERT_NE(section, std::string::npos) << "README.md has no \"Environment variables\" section";
  const std::string body = readme.substr(section, readme.find("\n#", section + 1) - section);
  for (const std::string& name : Environment::names()) {
    EXPECT_NE(body.find("`" + name + "`"), std::string::npos)
        << name << " is read (src/core/environment.h) but not in README's section";
  }
}

// The rule itself, on a tree of its own: a stale path of each form is found, and prose,
// absolute paths, build outputs, URLs and other commits' paths are left alone.
class DocPathsRule : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fabperf_doc_paths_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    fs::create_directories(root_ / "src/net");
    fs::create_directories(root_ / "src/engine");
    fs::create_directories(root_ / "tests/e2e");
    fs::create_directories(root_ / "bench/results/run1");
    touch("src/net/control.h");
    touch("src/net/control.cc");
    touch("tests/e2e/a_test.cc");
    touch("Makefile");
  }
  void TearDown() override { fs::remove_all(root_); }
  void touch(const std::string& rel) { std::ofstream(root_ / rel) << "\n"; }
  std::vector<std::string> check(const std::string& doc, const std::string& text) {
    std::ofstream(root_ / doc) << text;
    return missing_paths(root_, doc);
  }
  fs::path root_;
};

TEST_F(DocPathsRule, PathsThatExistPass) {
  EXPECT_EQ(check("README.md",
                  "See `src/net/control.{h,cc}` and net/control.h:12, tests/e2e/, "
                  "(tests/e2e/*_test.cc), src/net/control.h.\n"),
            std::vector<std::string>{});
  EXPECT_EQ(check("bench/README.md", "`results/run1/` and bench/results/run1.\n"),
            std::vector<std::string>{});
}

TEST_F(DocPathsRule, StalePathsOfEveryFormAreNamed) {
  std::vector<std::string> want = {
      "README.md:1: src/core/figures.cc", "README.md:2: src/net/control.c",
      "README.md:2: tests/e2e_util.h",    "README.md:3: engine/run_plan.cc",
      "README.md:3: tests/unit/",         "README.md:4: tests/e2e/*_fuzz.cc",
      "README.md:4: src/net/control.h/"};
  EXPECT_EQ(check("README.md",
                  "(see `src/core/figures.cc`).\n"
                  "src/net/control.{h,c} and tests/e2e_util.h:40\n"
                  "engine/run_plan.cc, tests/unit/\n"
                  "tests/e2e/*_fuzz.cc src/net/control.h/\n"),
            want);
  EXPECT_EQ(check("bench/README.md", "results/run2/\n"),
            std::vector<std::string>{"bench/README.md:1: results/run2/"});
}

TEST_F(DocPathsRule, ProseAbsoluteBuildUrlsAndOtherCommitsAreNotChecked) {
  EXPECT_EQ(check("README.md",
                  "TCP/SCTP at GB/sec, loc/rem; /proc/stat and /dev/shm/x; build/man/x.1,\n"
                  "build-release/fabperf; https://github.com/src/nope.h; $OUT/src/x;\n"
                  "~/src/x.h; `git show 29a1cd2:src/net/gone.cc`\n"),
            std::vector<std::string>{});
}

}  // namespace
}  // namespace fabperf
