// `fabperf compare` in the terminal: the comparison document as benchstat-style tables.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/chart_model.h"
#include "report/compare_model.h"
#include "report/report_sections.h"

namespace fabperf::report {

namespace {

using nlohmann::json;

// "52k", "1.2M": a count as the n= of a table reads it.
std::string count_text(double n) {
  char buf[32];
  if (n < 1000) {
    std::snprintf(buf, sizeof buf, "%.0f", n);
  } else if (n < 1e6) {
    std::snprintf(buf, sizeof buf, "%.3gk", n / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3gM", n / 1e6);
  }
  return buf;
}

// Footnotes of one table: each distinct text once, marked ¹ ² ³ ... in the cells.
class Footnotes {
 public:
  std::string mark(const std::string& text) {
    auto it = std::find(texts_.begin(), texts_.end(), text);
    const size_t i = static_cast<size_t>(it - texts_.begin());
    if (it == texts_.end()) texts_.push_back(text);
    return marker(i);
  }
  std::string lines() const {
    std::string out;
    for (size_t i = 0; i < texts_.size(); ++i) out += marker(i) + " " + texts_[i] + "\n";
    return out;
  }

 private:
  static std::string marker(size_t i) {
    static const char* const kSup[] = {"¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    return i < std::size(kSup) ? kSup[i] : "[" + std::to_string(i + 1) + "]";
  }
  std::vector<std::string> texts_;
};

// Display width of UTF-8 text: code points, which is what a terminal gives µ and ¹.
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string pad(const std::string& s, size_t w, bool right) {
  const size_t have = width(s);
  const std::string fill(have < w ? w - have : 0, ' ');
  return right ? fill + s : s + fill;
}

// Rows of cells laid out in columns two spaces apart; `right` says which columns align right.
std::string layout(const std::vector<std::vector<std::string>>& rows,
                   const std::vector<bool>& right) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], width(row[i]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += (i ? "  " : "") + pad(row[i], widths[i], i < right.size() && right[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// One run's value in a row and its interval, each with its footnote marks.
void add_cell(const json& row, size_t i, const DisplayUnit& unit, double level, Footnotes& notes,
              std::vector<std::string>& line) {
  const bool by_reps = row["basis"] == "repetitions";
  const json& cell = row["cells"][i];
  if (!cell.contains("value")) {
    line.push_back("-" + notes.mark(cell.value("why", std::string("not measured"))));
    line.push_back("");
  } else {
    std::string v = format_value(cell["value"], {"", unit.divisor}, 4);
    if (cell.contains("note"))
      v += notes.mark(cell["note"].get<std::string>() + ": its figures cover only the time it ran");
    line.push_back(v);
    std::string ci = row["basis"] == "single" ? "" : interval_text(cell);
    if (!ci.empty() && cell.value("confidence", 1.0) < level - 1e-9) {
      char buf[160];
      std::snprintf(
          buf, sizeof buf, "too few %s for a %.0f%% interval: the range shown covers %.1f%%",
          by_reps ? "repetitions" : "samples", level * 100, cell.value("confidence", 0.0) * 100);
      ci += notes.mark(buf);
    }
    line.push_back(ci);
  }
}

// A run's difference from the first: the change with its p and n, or `~`, or `?` and why.
std::string delta_cell(const json& row, size_t i, Footnotes& notes) {
  const json& d = row["deltas"][i - 1];
  std::string text;
  const std::string verdict = d.value("verdict", std::string("?"));
  if (verdict == "?") {
    text = (d.contains("delta_pct") ? delta_text(d["delta_pct"]) + " " : std::string("")) + "?" +
           notes.mark(d.value("why", std::string("no test")));
  } else {
    text = verdict == "~" ? "~" : delta_text(d.value("delta_pct", 0.0));
    char buf[96];
    const double n0 = row["cells"][0].value("n", 0.0), n1 = row["cells"][i].value("n", 0.0);
    std::snprintf(
        buf, sizeof buf, " (p=%.3f n=%s)", d.value("p", 1.0),
        n0 == n1 ? count_text(n0).c_str() : (count_text(n0) + "+" + count_text(n1)).c_str());
    text += buf;
    if (d.value("regressed", false)) text += " !";
  }
  return text;
}

// The two header lines: each run's statistic and unit, its interval, its difference.
void add_head(const json& t, const json& runs, const std::vector<DisplayUnit>& units,
              std::vector<std::vector<std::string>>& rows, std::vector<bool>& right) {
  char stat_buf[32] = "";
  if (t.value("quantile", 0.0) > 0) {
    std::snprintf(stat_buf, sizeof stat_buf, "p%g", t.value("quantile", 0.0));
  }
  const std::string stat = stat_buf;
  const std::string base = runs[0]["label"];
  std::vector<std::string> head1 = {t["title"].get<std::string>()}, head2 = {""};
  right = {false};
  for (size_t i = 0; i < runs.size(); ++i) {
    head1.push_back(runs[i]["label"]);
    head2.push_back((stat.empty() ? std::string("") : stat + " ") + "(" + units[i].name + ")");
    right.push_back(true);
    head1.push_back("");  // the interval's column
    head2.push_back("");
    right.push_back(false);
    if (i > 0) {
      head1.push_back("");
      head2.push_back("vs " + base);
      right.push_back(false);
    }
  }
  rows.push_back(head1);
  rows.push_back(head2);
}

std::string table_text(const json& doc, const json& t) {
  const json& runs = doc["runs"];
  const size_t n_runs = runs.size();
  const double level = doc.value("confidence", 0.95);
  std::vector<std::vector<double>> column_values(n_runs);
  for (const json& row : t["rows"]) {
    for (size_t i = 0; i < n_runs; ++i) {
      if (row["cells"][i].contains("value")) column_values[i].push_back(row["cells"][i]["value"]);
    }
  }
  std::vector<DisplayUnit> units;
  for (size_t i = 0; i < n_runs; ++i) units.push_back(bulk_unit(t["unit"], column_values[i]));
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right;
  add_head(t, runs, units, rows, right);
  Footnotes notes;
  for (const json& row : t["rows"]) {
    std::vector<std::string> line = {row["key"]};
    for (size_t i = 0; i < n_runs; ++i) {
      add_cell(row, i, units[i], level, notes, line);
      if (i > 0) line.push_back(delta_cell(row, i, notes));
    }
    rows.push_back(std::move(line));
  }
  if (t.contains("geomean")) {
    std::vector<std::string> line = {"geomean"};
    for (size_t i = 0; i < n_runs; ++i) {
      line.push_back(format_value(t["geomean"]["values"][i], {"", units[i].divisor}, 4));
      line.push_back("");
      if (i > 0) line.push_back(delta_text(t["geomean"]["deltas_pct"][i - 1]));
    }
    rows.push_back(std::move(line));
  }
  std::string out = layout(rows, right);
  std::string basis_note;
  bool samples = false, reps = false;
  for (const json& row : t["rows"]) {
    samples = samples || row["basis"] == "samples";
    reps = reps || row["basis"] == "repetitions";
  }
  if (reps) basis_note += "n: repetitions a run; ";
  if (samples) basis_note += "n: samples (every one, from the histogram); ";
  if (!basis_note.empty()) out += basis_note.substr(0, basis_note.size() - 2) + "\n";
  return out + notes.lines();
}

}  // namespace

std::string interval_text(const nlohmann::json& cell) {
  const double v = cell.value("value", 0.0), lo = cell.value("lo", v), hi = cell.value("hi", v);
  if (v == 0) return "";
  const double pct = std::max(hi - v, v - lo) / std::fabs(v) * 100;
  char buf[32];
  std::snprintf(buf, sizeof buf, pct < 10 ? "± %.2g%%" : "± %.0f%%", pct);
  return buf;
}

std::string delta_text(double pct) {
  char buf[32];
  const double a = std::fabs(pct);
  std::snprintf(buf, sizeof buf, a >= 100 ? "%+.0f%%" : a >= 10 ? "%+.1f%%" : "%+.2f%%", pct);
  return buf;
}

std::string comparison_text(const nlohmann::json& doc) {
  std::string out;
  const json& runs = doc["runs"];
  std::vector<std::vector<std::string>> run_rows;
  for (const json& r : runs) {
    std::string hosts = r.value("client", std::string(""));
    if (!r.value("server", std::string("")).empty())
      hosts += " -> " + r["server"].get<std::string>();
    run_rows.push_back({"  " + r["label"].get<std::string>(), r.value("started", std::string("")),
                        "fabperf " + r.value("version", std::string("?")), hosts});
  }
  out += "runs:\n" + layout(run_rows, {});
  const json& params = doc["parameters"];
  if (params.empty()) {
    out += "parameters: the same in every run\n";
  } else {
    out += "parameters that differ:\n";
    std::vector<std::vector<std::string>> rows;
    for (const json& p : params) {
      std::string values;
      for (const json& v : p["values"]) values += (values.empty() ? "" : " -> ") + text_of(v);
      rows.push_back({"  " + p["name"].get<std::string>() + ":", values});
    }
    out += layout(rows, {});
  }
  for (const json& note : doc.value("notes", json::array())) out += "note: " + text_of(note) + "\n";
  for (const json& t : doc["tables"]) out += "\n" + table_text(doc, t);
  char legend[256];
  std::snprintf(legend, sizeof legend,
                "\n± : %.0f%% confidence interval of the figure; ~ : no significant difference "
                "(p >= %g); ! : a regression\n",
                doc.value("confidence", 0.95) * 100, doc.value("alpha", 0.05));
  out += legend;
  const json& regressions = doc["regressions"];
  char head[96];
  std::snprintf(head, sizeof head, "regressions past %g%%", doc.value("threshold_pct", 5.0));
  if (regressions.empty()) {
    out += std::string(head) + ": none\n";
  } else {
    out += std::string(head) + ":\n";
    for (const json& r : regressions) {
      char p[32];
      std::snprintf(p, sizeof p, " (p=%.3f)", r.value("p", 1.0));
      out += "  " + r["table"].get<std::string>() + " " + r["key"].get<std::string>() + ": " +
             runs[r["run"].get<size_t>()]["label"].get<std::string>() + " " +
             delta_text(r["delta_pct"]) + p + "\n";
    }
  }
  return out;
}

}  // namespace fabperf::report
