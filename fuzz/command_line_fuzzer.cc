// libFuzzer target: the qperf-grammar command line, parameter resolution, and --allow lists.
//
// The input is split at NUL bytes into arguments (at most 64), as argv would hold them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/all_tests.h"
#include "cli/command_line.h"
#include "cli/run_plan.h"
#include "options/run_options_json.h"
#include "security/access.h"

using namespace fabperf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size && args.size() <= 64; ++i) {
    if (data[i] == 0) {
      args.emplace_back();
    } else {
      args.back().push_back(static_cast<char>(data[i]));
    }
  }
  static const std::vector<std::string> tests = all_tests().names();
  auto cl = parse_command_line(args, tests);
  if (cl.ok()) {
    // Every run the line asks for: bounded by the loop limits, but cap the work per input.
    int runs = 0;
    for (const TestRequest& request : cl->tests) {
      const TestSpec* spec = all_tests().find(request.name);
      if (spec == nullptr) __builtin_trap();  // the parser only accepts known tests
      for (const auto& loop_values : expand_loops(request.loops)) {
        if (++runs > 64) break;
        std::vector<std::string> warnings;
        auto params =
            resolve_run(*spec, request.assignments, loop_values, Dialect::kQperf, &warnings);
        if (params.ok()) {
          // What the server rebuilds from the wire must parse back.
          auto remote = run_options_from_json(to_json(params->remote));
          if (!remote.ok()) __builtin_trap();
        }
      }
    }
    // The whole plan, as the client checks it before anything runs.
    plan_runs(*cl, all_tests()).ok();
  }
  for (const std::string& arg : args) AllowList::parse(arg).ok();
  // The same bytes as a parameter object from a client.
  auto j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (!j.is_discarded()) run_options_from_json(j).ok();
  return 0;
}
