// Headless Chromium for the report's browser tests.
#include "browser_util.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include "e2e_util.h"

namespace fabperf::testing {

std::string find_chromium(std::string* why) {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (access(path, X_OK) == 0) return path;
  }
  *why = "headless Chromium not found (/usr/bin/chromium; `make deps` installs Debian's chromium)";
  return "";
}

PageView open_page(const std::string& chromium, const std::string& html_path,
                   const std::string& screenshot_path, int width, int height) {
  namespace fs = std::filesystem;
  PageView view;
  const fs::path profile =
      fs::temp_directory_path() /
      ("fabperf-chromium-" + std::to_string(getpid()) + "-" + std::to_string(std::rand()));
  fs::create_directories(profile);
  // timeout(1) signals its whole process group, so a hung browser takes its helpers with it.
  RunOutput out = run({"-k",
                       "10",
                       "120",
                       chromium,
                       "--headless",
                       "--disable-gpu",
                       "--no-sandbox",
                       "--no-first-run",
                       "--disable-extensions",
                       "--disable-sync",
                       "--disable-background-networking",
                       "--disable-component-update",
                       "--host-resolver-rules=MAP * ~NOTFOUND",
                       "--user-data-dir=" + profile.string(),
                       "--enable-logging=stderr",
                       "--v=0",
                       "--hide-scrollbars",
                       "--virtual-time-budget=10000",
                       "--window-size=" + std::to_string(width) + "," + std::to_string(height),
                       "--screenshot=" + screenshot_path,
                       "--dump-dom",
                       "file://" + fs::absolute(html_path).string()},
                      150, "/usr/bin/timeout");
  std::error_code ignored;
  fs::remove_all(profile, ignored);
  std::istringstream err(out.err);
  for (std::string line; std::getline(err, line);) {
    if (line.find(":CONSOLE") != std::string::npos) view.console.push_back(line);
  }
  view.dom = out.out;
  view.ok = out.exit_code == 0 && !out.timed_out && !out.out.empty();
  if (!view.ok) {
    view.error = "chromium exit " + std::to_string(out.exit_code) +
                 (out.timed_out ? " (timed out)" : "") + ": " + out.err.substr(0, 4000);
  }
  return view;
}

std::vector<std::map<std::string, std::string>> elements(const std::string& dom,
                                                         const std::string& tag) {
  std::vector<std::map<std::string, std::string>> out;
  const std::regex open("<" + tag + R"((\s[^>]*)?>)");
  const std::regex attribute(R"(([\w:-]+)="([^"]*)\")");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), open); it != std::sregex_iterator();
       ++it) {
    std::map<std::string, std::string> attrs;
    const std::string inside = (*it)[1];
    for (auto a = std::sregex_iterator(inside.begin(), inside.end(), attribute);
         a != std::sregex_iterator(); ++a) {
      attrs[(*a)[1]] = (*a)[2];
    }
    out.push_back(std::move(attrs));
  }
  return out;
}

}  // namespace fabperf::testing
