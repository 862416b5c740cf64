// RunOptions by name: the one place options cross the wire.
#include "options/run_options_json.h"

#include "core/text.h"
#include "options/option_table.h"

namespace fabperf {

nlohmann::json to_json(const RunOptions& options) {
  nlohmann::json out = nlohmann::json::object();
  for (const OptionSpec& spec : option_table()) {
    if (!spec.is_run_option()) continue;
    std::visit([&](const auto& v) { out[spec.name] = v; }, load(options, spec));
  }
  return out;
}

Result<RunOptions> run_options_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::failed("parameters must be an object");
  RunOptions out = default_run_options();
  for (const auto& item : j.items()) {
    const std::string& name = item.key();
    const nlohmann::json& value = item.value();
    const OptionSpec* spec = find_option(name);
    if (spec == nullptr || !spec->is_run_option()) {
      return Status::failed("unknown parameter \"" + printable(name, 64) +
                            "\" (is the client newer? upgrade the server)");
    }
    std::string text;
    bool wants_text = spec->type == OptType::kString;
    if (value.is_string() != wants_text) {
      return Status::failed("parameter " + name + " has the wrong type");
    }
    if (value.is_string()) {
      text = value.get<std::string>();  // controls and non-UTF-8 bytes: parse_option_value
    } else if (value.is_boolean()) {
      text = value.get<bool>() ? "1" : "0";
    } else if (value.is_number_unsigned() || value.is_number_integer()) {
      text = value.dump();
    } else if (value.is_number_float()) {
      text = option_value_text(OptionValue(value.get<double>()));
    } else {
      return Status::failed("parameter " + name + " has the wrong type");
    }
    auto parsed = parse_option_value(*spec, text, name);
    if (!parsed.ok()) return Status::failed(parsed.status().message());
    store(out, *spec, *parsed, false);
  }
  return out;
}

}  // namespace fabperf
