// What derives from the option rows: lookup, value parsing and checks, the typed structs'
// defaults, and reading and writing their fields.
#include "options/option_table.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/text.h"
#include "core/units.h"

namespace fabperf {

std::vector<OptionSpec> build_option_rows();  // option_rows.cc

namespace {

constexpr double kU64Max = 18446744073709551615.0;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string choices_text(const std::vector<const char*>& choices) {
  std::string out;
  for (const char* c : choices) out += (out.empty() ? "" : ", ") + std::string(c);
  return out;
}

// True when M is a pointer to a data member of C.
template <typename M, typename C>
struct member_of : std::false_type {};
template <typename T, typename C>
struct member_of<T C::*, C> : std::true_type {};

// Calls fn(options.*member) when the row's field is a member of this struct.
template <typename Options, typename Fn>
void with_field(Options& options, const FieldRef& field, Fn&& fn) {
  using Owner = std::remove_const_t<Options>;
  std::visit(
      [&](auto member) {
        if constexpr (member_of<decltype(member), Owner>::value) fn(options.*member);
      },
      field);
}

template <typename V, typename T>
T convert(const V& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    if constexpr (std::is_same_v<V, std::string>) return v;
    return option_value_text(OptionValue(v));
  } else if constexpr (std::is_same_v<V, std::string>) {
    return T{};
  } else {
    return static_cast<T>(v);
  }
}

template <typename Options>
void store_in(Options& options, const OptionSpec& spec, const OptionValue& value, bool by_user) {
  with_field(options, spec.field, [&](auto& slot) {
    using T = std::remove_reference_t<decltype(slot)>;
    slot =
        std::visit([](const auto& v) { return convert<std::decay_t<decltype(v)>, T>(v); }, value);
  });
  if (by_user) options.given.set(spec.index);
}

template <typename Options>
OptionValue load_from(const Options& options, const OptionSpec& spec) {
  OptionValue out = std::string();
  with_field(options, spec.field, [&](const auto& slot) { out = slot; });
  return out;
}

template <typename Options>
Options defaults_for(Dialect dialect, bool run) {
  Options out{};
  for (const OptionSpec& spec : option_table()) {
    if (spec.type == OptType::kLoop || spec.is_run_option() != run) continue;
    auto v = parse_option_value(spec, spec.default_for(dialect), spec.name);
    // The table's own defaults are checked by a unit test; a bad one is a build defect.
    if (v.ok()) store_in(out, spec, *v, false);
  }
  return out;
}

}  // namespace

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = [] {
    std::vector<OptionSpec> rows = build_option_rows();
    for (size_t i = 0; i < rows.size(); ++i) rows[i].index = i;
    return rows;
  }();
  return table;
}

const OptionSpec* find_option(std::string_view name) {
  for (const OptionSpec& spec : option_table()) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

const OptionSpec& option_of(const FieldRef& field) {
  for (const OptionSpec& spec : option_table()) {
    if (spec.field == field) return spec;
  }
  // Every field has a row (options_test checks it); reaching here is a build defect.
  std::abort();
}

Result<OptionValue> parse_option_value(const OptionSpec& spec, std::string_view text,
                                       std::string_view who_view) {
  std::string who(who_view);
  auto range_error = [&](const std::string& shown, const char* unit) {
    auto bound = [&](double b) {
      return b >= kU64Max ? std::string("max") : option_value_text(OptionValue(b));
    };
    return Status::usage(who + ": " + shown + " is out of range (" + bound(spec.min) + " to " +
                         bound(spec.max) + unit + ")");
  };
  switch (spec.type) {
    case OptType::kSize:
    case OptType::kCount: {
      Result<uint64_t> v = uint64_t{0};
      if (spec.type == OptType::kSize) {
        v = parse_size(text);
      } else {
        // A negative count is out of the option's range, said as such (not the parser's range).
        auto i = parse_int(text, std::numeric_limits<int64_t>::min(),
                           std::numeric_limits<int64_t>::max());
        if (i.ok() && *i < 0) return range_error(std::string(text), "");
        v = i.ok() ? Result<uint64_t>(static_cast<uint64_t>(*i)) : Result<uint64_t>(i.status());
      }
      if (!v.ok()) return Status::usage(who + ": " + v.status().message());
      double d = static_cast<double>(*v);
      if (d < spec.min || d > spec.max) return range_error(std::string(text), "");
      return OptionValue(*v);
    }
    case OptType::kInt: {
      auto v = parse_int(text, static_cast<int64_t>(spec.min), static_cast<int64_t>(spec.max));
      if (!v.ok()) return Status::usage(who + ": " + v.status().message());
      return OptionValue(*v);
    }
    case OptType::kTime:
    case OptType::kNumber: {
      auto v = parse_time(text);
      // A number is not a time: "x" is a bad number, not a bad time.
      if (spec.type == OptType::kNumber &&
          text.find_first_not_of("0123456789.") != std::string_view::npos) {
        return Status::usage(who + ": bad number: " + std::string(text));
      }
      if (!v.ok()) return Status::usage(who + ": " + v.status().message());
      if (*v < spec.min || *v > spec.max) {
        return range_error(std::string(text), spec.type == OptType::kTime ? " seconds" : "");
      }
      if (spec.positive && *v <= 0) {
        return Status::usage(who + ": " + std::string(text) + " must be more than 0" +
                             (spec.type == OptType::kTime ? " seconds" : ""));
      }
      return OptionValue(*v);
    }
    case OptType::kOnOff:
    case OptType::kFlag: {
      auto v = parse_on_off(text);
      if (!v.ok()) return Status::usage(who + ": " + v.status().message());
      return OptionValue(*v);
    }
    case OptType::kString: {
      if (text.size() > 4096) return Status::usage(who + ": value too long");
      // A run option crosses the wire and may reach the peer's terminal or log: terminal
      // controls and bytes that are not UTF-8 are refused here, on the command line and from a
      // peer alike (the server refuses what the client would have let through otherwise), and
      // shown escaped (core/text.h printable).
      if (spec.is_run_option() && printable(text, text.size()) != text) {
        return Status::usage(
            who + " holds control characters or bytes that are not UTF-8: " + printable(text, 64));
      }
      std::string value(text);
      if (!spec.choices.empty() && !value.empty()) {
        auto it = std::find_if(spec.choices.begin(), spec.choices.end(),
                               [&](const char* c) { return lower(c) == lower(value); });
        if (it == spec.choices.end()) {
          return Status::usage(who + ": " + value + " is not one of " + choices_text(spec.choices));
        }
        value = *it;
      }
      if (spec.check != nullptr) {
        Status s = spec.check(value);
        if (!s.ok()) return Status::usage(who + ": " + s.message());
      }
      return OptionValue(value);
    }
    case OptType::kLoop:
      return OptionValue(std::string(text));
  }
  return Status::usage(who + ": unknown option type");
}

void store(RunOptions& options, const OptionSpec& spec, const OptionValue& value, bool by_user) {
  store_in(options, spec, value, by_user);
}
void store(ProgramOptions& options, const OptionSpec& spec, const OptionValue& value,
           bool by_user) {
  store_in(options, spec, value, by_user);
}
OptionValue load(const RunOptions& options, const OptionSpec& spec) {
  return load_from(options, spec);
}
OptionValue load(const ProgramOptions& options, const OptionSpec& spec) {
  return load_from(options, spec);
}
bool given(const RunOptions& options, const FieldRef& field) {
  return options.given.test(option_of(field).index);
}
bool given(const ProgramOptions& options, const FieldRef& field) {
  return options.given.test(option_of(field).index);
}
double report_interval_s(const ProgramOptions& options) {
  return given(options, &ProgramOptions::interval) ? options.interval : 0;
}

RunOptions default_run_options(Dialect dialect) { return defaults_for<RunOptions>(dialect, true); }
ProgramOptions default_program_options(Dialect dialect) {
  return defaults_for<ProgramOptions>(dialect, false);
}

std::string option_value_text(const OptionValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "1" : "0"; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
        return std::to_string(static_cast<int64_t>(v));
      }
      char buf[64];
      snprintf(buf, sizeof buf, "%g", v);
      return buf;
    }
    std::string operator()(const std::string& s) const { return s; }
  };
  return std::visit(Visitor{}, value);
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string w = lower(word);
  std::string best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string& candidate : candidates) {
    std::string c = lower(candidate);
    std::vector<size_t> prev(c.size() + 1), cur(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= w.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= c.size(); ++j) {
        size_t cost = w[i - 1] == c[j - 1] ? 0 : 1;
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      }
      std::swap(prev, cur);
    }
    if (prev[c.size()] < best_distance) {
      best_distance = prev[c.size()];
      best = candidate;
    }
  }
  // Close enough to be a typo: at most a third of the word, and at most 3 edits.
  size_t limit = std::min<size_t>(3, std::max<size_t>(1, w.size() / 3));
  return best_distance <= limit ? best : "";
}

}  // namespace fabperf
