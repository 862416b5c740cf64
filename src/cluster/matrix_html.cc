// The --html page of a --matrix run: its --json document through the report's data step, the
// same page `fabperf report m.json` draws.
#include "cluster/matrix_run.h"
#include "core/output_file.h"
#include "report/html_page.h"
#include "report/report_model.h"

namespace fabperf::cluster {

Status write_matrix_html(const MatrixRun& run, const std::string& path) {
  auto text = matrix_json_text(run);
  if (!text.ok()) return text.status();
  nlohmann::json doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded()) return Status::failed("--html: the run's document is not JSON");
  auto model = report::build_report_model({{"this run", std::move(doc)}});
  if (!model.ok()) return model.status().prefixed("--html");
  return write_file_atomically(path, report::render_html(*model), "--html");
}

}  // namespace fabperf::cluster
