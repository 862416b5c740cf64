// Reading saved documents: file, JSON, and the checks every reader relies on.
#include "report/run_document.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <vector>

#include "core/json_read.h"
#include "report/report_sections.h"
#include "report/reporter.h"

namespace fabperf::report {

namespace {

// A file's whole text ("-" is standard input), or why it could not be read.
Result<std::string> read_text(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::failed(path + ": cannot read the file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::failed(path + ": cannot read the file");
  return text.str();
}

}  // namespace

Status check_run_document(const nlohmann::json& doc) {
  if (!doc.is_object()) return Status::failed("not a fabperf document (not a JSON object)");
  if (string_at(doc, "tool") != "fabperf") {
    return Status::failed(
        "not a fabperf document (\"tool\" is " +
        (doc.contains("tool") ? "\"" + text_of(doc["tool"]) + "\"" : std::string("missing")) + ")");
  }
  const bool matrix = doc.contains("matrix");
  if (auto it = doc.find("schema"); it != doc.end()) {
    if (!it->is_number_integer()) return Status::failed("\"schema\" is not an integer");
    const auto schema = it->get<int64_t>();
    if (schema < 1) return Status::failed("schema " + std::to_string(schema) + " is not valid");
    if (schema > kJsonSchema) {
      return Status::failed("schema " + std::to_string(schema) +
                            " comes from a newer fabperf (this one reads schemas 1 to " +
                            std::to_string(kJsonSchema) + ")");
    }
  } else if (!matrix) {
    return Status::failed("no \"schema\"");
  }
  if (matrix) {
    if (!doc["matrix"].is_object()) return Status::failed("\"matrix\" is not an object");
    return Status::success();
  }
  auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) {
    return Status::failed("no \"results\" array (and no \"matrix\")");
  }
  for (size_t i = 0; i < results->size(); ++i) {
    if (!(*results)[i].is_object()) {
      return Status::failed("results[" + std::to_string(i) + "] is not an object");
    }
  }
  return Status::success();
}

Result<RunDocument> parse_run_document(std::string_view text, const std::string& name,
                                       const std::string& label) {
  auto doc = parse_json_text(text, name);
  if (!doc.ok()) return doc.status();
  if (Status s = check_run_document(*doc); !s.ok()) return s.prefixed(name);
  return RunDocument{label, std::move(doc).value()};
}

Result<RunDocument> read_run_document(const std::string& path, const std::string& label) {
  auto text = read_text(path);
  if (!text.ok()) return text.status();
  return parse_run_document(*text, path, label);
}

InputArg parse_input_arg(const std::string& arg) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || arg.find('/') < eq) return {arg, ""};
  std::error_code ignored;
  if (std::filesystem::exists(arg, ignored)) return {arg, ""};
  return {arg.substr(eq + 1), arg.substr(0, eq)};
}

std::vector<std::string> run_labels(const std::vector<InputArg>& inputs) {
  std::vector<std::string> names;
  for (const InputArg& in : inputs) {
    const std::string& p = in.path;
    names.push_back(!in.label.empty() ? in.label
                    : p == "-"        ? "stdin"
                                      : p.substr(p.find_last_of('/') + 1));
  }
  // Names two inputs share become their paths (decided on the names as first given, so
  // the first of a pair keeps nothing the second lacks).
  std::vector<std::string> out = names;
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < names.size(); ++j) {
      if (i != j && names[i] == names[j] && inputs[i].label.empty()) out[i] = inputs[i].path;
    }
  }
  return out;
}

Result<std::vector<RunDocument>> read_run_documents(const std::vector<InputArg>& inputs) {
  const std::vector<std::string> labels = run_labels(inputs);
  std::vector<RunDocument> runs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto run = read_run_document(inputs[i].path, labels[i]);
    if (!run.ok()) return run.status();
    runs.push_back(std::move(*run));
  }
  return runs;
}

}  // namespace fabperf::report
