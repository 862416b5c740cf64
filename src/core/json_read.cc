// Reading JSON text from outside the process, with the field of a bad value named.
#include "core/json_read.h"

#include <cstddef>
#include <string>
#include <vector>

namespace fabperf {

namespace {

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

// "line L column C" of the byte at `byte` (0-based).
std::string place_of_byte(std::string_view text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + " column " + std::to_string(column);
}

}  // namespace

Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& name) {
  nlohmann::json doc;
  PathParser parser(doc);
  if (nlohmann::json::sax_parse(text, &parser, nlohmann::detail::input_format_t::json, true)) {
    return doc;
  }
  // nlohmann's out_of_range.406: a number beyond a double's range.
  if (parser.error_id() == 406) {
    return Status::failed(name + ": not valid JSON: field " + parser.path() + ": the number " +
                          parser.token().substr(0, 64) +
                          " is out of range (a double holds at most about 1.8e308)");
  }
  // Past the last byte: the text ends before the document does (a run killed mid-write by
  // something other than fabperf, a copy cut short), unless that last byte is itself a
  // complete token the grammar did not expect there (`{"a": }`).
  const bool unexpected_last = parser.error().find("unexpected '") != std::string::npos;
  if (parser.position() >= text.size() && !unexpected_last) {
    return Status::failed(name + ": truncated: the JSON ends after " + std::to_string(text.size()) +
                          " bytes, inside the document");
  }
  // nlohmann's text repeats the place ("[json.exception...] parse error at line 2, column 14: "):
  // keep only what it found there.
  std::string what = parser.error();
  if (const size_t place = what.find(" parse error at line "); place != std::string::npos) {
    if (const size_t colon = what.find(": ", place); colon != std::string::npos) {
      what.erase(0, colon + 2);
    }
  }
  const std::size_t at = parser.position() > 0 ? parser.position() - 1 : 0;
  return Status::failed(name + ": not valid JSON at " + place_of_byte(text, at) + " (field " +
                        parser.path() + "): " + what);
}

}  // namespace fabperf
