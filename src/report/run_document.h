// Reading saved fabperf documents (--json files): the one place a document from disk is
// read, parsed and checked, for `fabperf report`, `fabperf compare` and whatever else reads
// them. Every failure is a Status whose message starts with the file's name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabperf::report {

// One run to show, and what to call it where several are overlaid (a file name).
struct RunDocument {
  std::string label;
  nlohmann::json doc;
};

// Whether `doc` is a document this fabperf can draw: an object with "tool" "fabperf", an
// integer "schema" from 1 to kJsonSchema (a matrix document may omit it), and either
// "results" (an array of objects) or "matrix" (an object). The message says what is wrong,
// naming the schema version it cannot read.
Status check_run_document(const nlohmann::json& doc);

// `text` as a checked document; `name` (the file) starts every message. A text cut short
// says it is truncated; numbers out of range, bad UTF-8 and the like are messages, never
// exceptions.
Result<RunDocument> parse_run_document(std::string_view text, const std::string& name,
                                       const std::string& label);

// The file at `path` ("-": standard input), read whole and parsed as above.
Result<RunDocument> read_run_document(const std::string& path, const std::string& label);

// An input as typed: "PATH", or "LABEL=PATH" to name the run ("before=a.json"; a LABEL has
// no '/', and an existing file whose name holds '=' is read as a path).
struct InputArg {
  std::string path, label;  // label "" when not given
};
InputArg parse_input_arg(const std::string& arg);

// What to call each run in legends and columns: its label where given, else its file name,
// or the whole path where two share a name ("stdin" for "-").
std::vector<std::string> run_labels(const std::vector<InputArg>& inputs);

// Every input read (in order), or the first failure, naming its file.
Result<std::vector<RunDocument>> read_run_documents(const std::vector<InputArg>& inputs);

}  // namespace fabperf::report
