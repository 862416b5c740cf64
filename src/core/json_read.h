// Reading JSON text from outside the process (saved documents, fabric models, baselines):
// nlohmann's parser, never an exception, and a failure named by the field and the place.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status.h"

namespace fabperf {

// The document in `text`, or a failed Status whose message starts with `name`: a number no
// double holds ("1e999999": review N6 once saw it end a reader with SIGABRT) names its field;
// text that ends inside the document says it was truncated; any other error gives its line,
// column and field.
Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& name);

}  // namespace fabperf
