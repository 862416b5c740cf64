// libFuzzer target: the reader of saved run documents (`fabperf report`), and what the report
// does with a document it accepts: the model and the page. Any input must end in a document or
// an error naming the file; nothing may abort (review N6: "1e999999" aborted with rc 134).
#include <cstddef>
#include <cstdint>
#include <string>

#include "report/html_page.h"
#include "report/report_model.h"
#include "report/run_document.h"

using namespace fabperf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto doc = report::parse_run_document(text, "fuzz.json", "fuzz");
  if (!doc.ok()) {
    if (doc.status().message().rfind("fuzz.json: ", 0) != 0) __builtin_trap();  // names the file
    return 0;
  }
  auto model = report::build_report_model({std::move(*doc)});
  if (!model.ok()) return 0;
  std::string page = report::render_html(*model);
  if (page.empty()) __builtin_trap();
  return 0;
}
