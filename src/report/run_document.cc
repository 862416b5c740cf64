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

using Json = nlohmann::json;

// Builds the document as nlohmann's own parser does, and keeps the path of the value being
// parsed, for the error.
class PathParser {
 public:
  explicit PathParser(Json& out) : dom_(out, false) {}

  bool null() { return value() && dom_.null(); }
  bool boolean(bool v) { return value() && dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return value() && dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return value() && dom_.number_unsigned(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return value() && dom_.number_float(v, s);
  }
  bool string(Json::string_t& v) { return value() && dom_.string(v); }
  bool binary(Json::binary_t& v) { return value() && dom_.binary(v); }
  bool start_object(std::size_t n) {
    value();
    frames_.push_back({false, -1, ""});
    return dom_.start_object(n);
  }
  bool key(Json::string_t& k) {
    frames_.back().key = k;
    return dom_.key(k);
  }
  bool end_object() {
    frames_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    value();
    frames_.push_back({true, -1, ""});
    return dom_.start_array(n);
  }
  bool end_array() {
    frames_.pop_back();
    return dom_.end_array();
  }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    error_id_ = e.id;
    error_ = e.what();
    token_ = token;
    position_ = position;
    path_ = path_of_next();
    return false;
  }

  int error_id() const { return error_id_; }
  const std::string& error() const { return error_; }
  const std::string& token() const { return token_; }
  std::size_t position() const { return position_; }
  const std::string& path() const { return path_; }

 private:
  struct Frame {
    bool array;
    long index;       // arrays: the element being read
    std::string key;  // objects: the member being read
  };

  // A value begins: in an array, the next element.
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }

  // Where the value that failed to parse would have gone.
  std::string path_of_next() const {
    std::string out;
    for (size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      const bool last = i + 1 == frames_.size();
      if (f.array) {
        out += "[" + std::to_string(last ? f.index + 1 : f.index) + "]";
      } else {
        out += (out.empty() ? "" : ".") + f.key;
      }
    }
    return out.empty() ? "(the top level)" : out;
  }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  std::vector<Frame> frames_;
  int error_id_ = 0;
  std::string error_, token_, path_;
  std::size_t position_ = 0;
};

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
  // A SAX parse that knows where it is, so a bad value is named by its field (review N6:
  // "1e999999" once ended `fabperf report` with SIGABRT); never an exception.
  nlohmann::json doc;
  PathParser parser(doc);
  const bool ok =
      nlohmann::json::sax_parse(text, &parser, nlohmann::detail::input_format_t::json, true);
  if (!ok) {
    // nlohmann's out_of_range.406: a number beyond a double's range.
    if (parser.error_id() == 406) {
      return Status::failed(name + ": not valid JSON: field " + parser.path() + ": the number " +
                            parser.token().substr(0, 64) +
                            " is out of range (a double holds at most about 1.8e308)");
    }
    // Past the last byte: the text ends before the document does (a run killed mid-write by
    // something other than fabperf, a copy cut short).
    if (parser.position() >= text.size()) {
      return Status::failed(name + ": truncated: the JSON ends after " +
                            std::to_string(text.size()) + " bytes, inside the document");
    }
    return Status::failed(name + ": not valid JSON: " + parser.error() + " (field " +
                          parser.path() + ")");
  }
  if (Status s = check_run_document(doc); !s.ok()) return s.prefixed(name);
  return RunDocument{label, std::move(doc)};
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
