// The HTML report page: its skeleton, with the embedded files and the model inlined.
#include "report/html_page.h"

#include "report/report_assets.h"

namespace fabperf::report {

namespace {

// JSON inside <script>: "</script>" or "<!--" in a host name or an error message must not end
// or comment out the element, so every '<' becomes \u003c (still the same JSON).
std::string script_safe_json(const nlohmann::json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

void append_script(std::string& page, std::string_view name) {
  page += "<script data-file=\"";
  page += name;
  page += "\">\n";
  page += report_asset(name);
  page += "\n</script>\n";
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_html(const nlohmann::json& model) {
  const std::string title = html_escape(model.value("title", std::string("fabperf report")));
  std::string page;
  page.reserve(400 * 1024);
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += "<meta name=\"generator\" content=\"" +
          html_escape(model.value("generator", std::string("fabperf"))) + "\">\n";
  page += "<title>" + title + "</title>\n<style>\n";
  page += report_asset("report.css");
  page += "\n</style>\n</head>\n<body>\n";
  page += "<header><h1>" + title + "</h1></header>\n";
  page +=
      "<noscript><p class=\"error\">This report draws its charts with JavaScript; the data "
      "is in the fabperf-model element of this file.</p></noscript>\n";
  page += "<ul id=\"report-errors\" class=\"error\"></ul>\n<main id=\"report\"></main>\n";
  page +=
      "<footer><details><summary>Charts drawn with Chart.js and chartjs-chart-matrix "
      "(MIT licenses)</summary><pre>";
  page += html_escape(std::string(report_asset("LICENSE-chart.js.md")));
  page += "\n";
  page += html_escape(std::string(report_asset("LICENSE-chartjs-chart-matrix")));
  page += "</pre></details></footer>\n";
  page += "<script id=\"fabperf-model\" type=\"application/json\">";
  page += script_safe_json(model);
  page += "</script>\n";
  append_script(page, "chart.umd.min.js");
  append_script(page, "chartjs-chart-matrix.min.js");
  append_script(page, "report.js");
  page += "</body>\n</html>\n";
  return page;
}

}  // namespace fabperf::report
