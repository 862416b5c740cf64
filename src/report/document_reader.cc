// Reading a run document: a SAX parse that knows where it is, so a bad value is named.
#include "report/document_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <vector>

#include "report/report_model.h"

namespace fabperf::report {

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

}  // namespace

Result<nlohmann::json> parse_run_document(const std::string& text, const std::string& name) {
  Json doc;
  PathParser parser(doc);
  bool ok = Json::sax_parse(text, &parser, nlohmann::detail::input_format_t::json, true);
  if (!ok) {
    // nlohmann's out_of_range.406: a number beyond a double's range (its parser would throw).
    if (parser.error_id() == 406) {
      return Status::Failed(name + ": field " + parser.path() + ": the number " +
                            parser.token().substr(0, 64) +
                            " is out of range (a double holds at most about 1.8e308)");
    }
    return Status::Failed(name + ": not valid JSON: " + parser.error() + " (field " +
                          parser.path() + ")");
  }
  if (Status s = check_run_document(doc); !s.ok()) return Status::Failed(name + ": " + s.message());
  return doc;
}

Result<nlohmann::json> read_run_document(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::Failed(path + ": cannot read the file: " + std::strerror(errno));
    std::ostringstream all;
    all << in.rdbuf();
    if (in.bad()) return Status::Failed(path + ": cannot read the file");
    text = all.str();
  }
  return parse_run_document(text, path == "-" ? std::string("stdin") : path);
}

}  // namespace fabperf::report
