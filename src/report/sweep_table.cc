// The sweep table of the text output.
#include "report/sweep_table.h"

#include <algorithm>

namespace fabperf {

namespace {

// A loop value as its column shows it: sizes and counts as plain integers (perftest's and
// OSU's bytes column), times in seconds, anything else as typed.
std::string loop_text(const OptionSpec& spec, const OptionValue& value) {
  if (const auto* n = std::get_if<uint64_t>(&value)) return std::to_string(*n);
  if (spec.type == OptType::kTime) {
    if (const auto* t = std::get_if<double>(&value)) {
      Shown s = format_figure(*t, Unit::kTime, FormatOptions{});
      return s.value + " " + s.unit;
    }
  }
  return option_value_text(value);
}

std::string cell_text(const Shown& s) {
  if (s.text || s.unit.empty()) return s.value;
  return s.value + " " + s.unit;
}

}  // namespace

bool SweepTable::fits(const LoopValues& values) const {
  if (keys_.empty()) return true;
  if (values.size() != vars_.size()) return false;
  std::vector<std::string> key;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].first != vars_[i]) return false;
    key.push_back(loop_text(*values[i].first, values[i].second));
  }
  return std::find(keys_.begin(), keys_.end(), key) == keys_.end();
}

void SweepTable::add(const LoopValues& values, const std::vector<Line>& lines) {
  std::vector<std::string> key;
  if (keys_.empty()) {
    for (const auto& [spec, value] : values) vars_.push_back(spec);
  }
  for (const auto& [spec, value] : values) key.push_back(loop_text(*spec, value));
  keys_.push_back(key);
  std::vector<std::pair<std::string, std::string>> cells;
  for (const Line& line : lines) {
    if (std::find(columns_.begin(), columns_.end(), line.name) == columns_.end()) {
      columns_.push_back(line.name);
    }
    cells.emplace_back(line.name, cell_text(line.shown));
  }
  std::vector<std::string> row = key;
  row.resize(vars_.size() + columns_.size());
  for (const auto& [name, text] : cells) {
    size_t at =
        static_cast<size_t>(std::find(columns_.begin(), columns_.end(), name) - columns_.begin());
    row[vars_.size() + at] = text;
  }
  rows.push_back(std::move(row));
}

std::string SweepTable::render() const {
  std::vector<std::string> header;
  for (const OptionSpec* v : vars_) header.push_back(v->name);
  header.insert(header.end(), columns_.begin(), columns_.end());
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "   ";
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      out += " " + std::string(width[c] - std::min(width[c], cell.size()), ' ') + cell;
      if (c + 1 < width.size()) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = title + ":\n" + line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace fabperf
