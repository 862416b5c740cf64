// JSON text: the indented layout with compact numeric arrays (json_text.h says why).
#include "report/json_text.h"

namespace fabperf {

namespace {

constexpr size_t kSmallArray = 4;  // [index, count] pairs and the like stay inline

std::string compact(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool is_scalar(const nlohmann::json& j) { return !j.is_object() && !j.is_array(); }

// Arrays that read best on one line: all scalars, or all small arrays of scalars.
bool inline_array(const nlohmann::json& j) {
  bool all_scalar = true, all_small = true;
  for (const nlohmann::json& e : j) {
    if (!is_scalar(e)) all_scalar = false;
    if (!e.is_array() || e.size() > kSmallArray) {
      all_small = false;
    } else {
      for (const nlohmann::json& x : e) all_small = all_small && is_scalar(x);
    }
  }
  return all_scalar || all_small;
}

void write(const nlohmann::json& j, int indent, std::string& out) {
  const bool object = j.is_object();
  if (is_scalar(j) || j.empty() || (j.is_array() && inline_array(j))) {
    out += compact(j);
    return;
  }
  out += object ? "{\n" : "[\n";
  const std::string pad(static_cast<size_t>(indent) + 2, ' ');
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += pad;
    if (object) out += compact(nlohmann::json(it.key())) + ": ";
    write(*it, indent + 2, out);
  }
  out += "\n" + std::string(static_cast<size_t>(indent), ' ') + (object ? "}" : "]");
}

}  // namespace

std::string json_text(const nlohmann::json& doc) {
  std::string out;
  write(doc, 0, out);
  out += "\n";
  return out;
}

}  // namespace fabperf
