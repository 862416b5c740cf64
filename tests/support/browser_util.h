// Headless Chromium for the report's browser tests: open a page from disk, keep a
// screenshot, and return the DOM after its scripts ran plus every console message.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fabperf::testing {

// Debian's chromium (installed by `make deps`), or "" with `why` saying what is missing.
std::string find_chromium(std::string* why);

struct PageView {
  bool ok = false;                   // the browser ran and exited 0
  std::string error;                 // why not, with the browser's stderr
  std::string dom;                   // the document after its scripts ran (--dump-dom)
  std::vector<std::string> console;  // console messages and uncaught errors, one a line
};

// One browser start: loads `html_path` (file://) with every host name unresolvable (the page
// must need no network), writes a `width` x `height` screenshot to `screenshot_path`.
PageView open_page(const std::string& chromium, const std::string& html_path,
                   const std::string& screenshot_path, int width, int height);

// The attributes of every <tag ...> element in `dom`, in document order.
std::vector<std::map<std::string, std::string>> elements(const std::string& dom,
                                                         const std::string& tag);

}  // namespace fabperf::testing
