// fabperf_docgen: writes the man pages and the bash completion from the tables at build time
// (CMakeLists.txt runs it into build/man and build/completion).
#include <cstdio>
#include <fstream>
#include <string>

#include "app/all_tests.h"
#include "app/mode_table.h"
#include "cxi/cxi_tools.h"
#include "manual/completion.h"
#include "manual/man_page.h"

namespace {

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) std::fprintf(stderr, "fabperf_docgen: cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

// Every page into DIR/man/NAME.1 and the completion into DIR/completion/fabperf (the
// directories exist: CMake makes them).
int write_all(const std::string& dir) {
  using namespace fabperf;
  bool ok =
      write_file(dir + "/man/fabperf.1", manual::fabperf_man_page(all_tests(), mode_synopsis()));
  for (const cxi::Tool& tool : cxi::tools()) {
    ok = ok && write_file(dir + "/man/" + tool.name + ".1", *manual::tool_man_page(tool.name));
  }
  ok = ok && write_file(dir + "/completion/fabperf", manual::bash_completion(all_tests()));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fabperf;
  if (argc == 3 && std::string(argv[1]) == "all") return write_all(argv[2]);
  const std::string what = argc > 1 ? argv[1] : "";
  std::string text;
  if (what == "man" && argc == 2) {
    text = manual::fabperf_man_page(all_tests(), mode_synopsis());
  } else if (what == "man" && argc == 3 && std::string(argv[2]) == "fabperf") {
    text = manual::fabperf_man_page(all_tests(), mode_synopsis());
  } else if (what == "man" && argc == 3) {
    auto page = manual::tool_man_page(argv[2]);
    if (!page.ok()) {
      std::fprintf(stderr, "fabperf_docgen: %s\n", page.status().message().c_str());
      return 2;
    }
    text = *page;
  } else if (what == "completion" && argc == 2) {
    text = manual::bash_completion(all_tests());
  } else {
    std::fprintf(stderr, "usage: fabperf_docgen man [fabperf|TOOL] | completion | all DIR\n");
    return 2;
  }
  std::fputs(text.c_str(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
