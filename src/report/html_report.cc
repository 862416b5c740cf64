// HTML renderer (--html FILE): the run's JSON document, drawn as a self-contained page.
#include "report/html_page.h"
#include "report/report_model.h"
#include "report/reporter.h"

namespace fabperf {

// The same document --json writes goes through the same data step as `fabperf report`; also
// after SIGINT, so an interrupted run's page shows what was measured, marked as interrupted.
Result<std::unique_ptr<Reporter>> make_html_reporter(const std::string& path) {
  return make_document_reporter(path, "--html", [](const nlohmann::json& document) {
    auto model = report::build_report_model({{"this run", document}});
    if (!model.ok()) return Result<std::string>(model.status());
    return Result<std::string>(report::render_html(*model));
  });
}

}  // namespace fabperf
