// Building the server's configuration from parsed options.
#include "session/server_config.h"

#include <unistd.h>

#include "options/option_table.h"
#include "security/auth.h"
#include "session/child_limits.h"

namespace fabperf {

Result<std::string> auth_key_from(const ProgramOptions& program) {
  if (program.auth_key_file.empty()) return std::string();
  return load_key_file(program.auth_key_file);
}

ServerOptions server_options_of(const ProgramOptions& program, double timeout_s,
                                const TestRegistry& tests) {
  ServerOptions options;
  options.tests = &tests;
  options.port = static_cast<uint16_t>(program.listen_port);
  options.bind_addr = program.bind;
  options.timeout_s = timeout_s;
  options.max_clients = static_cast<int>(program.max_clients);
  options.concurrent = program.concurrent;
  options.queue_timeout_s = program.queue_timeout;
  options.once = program.once;
  options.trust_fabric_addrs = program.trust_fabric_addrs;
  options.no_qperf = program.no_qperf;
  options.limits = limits_from(program);
  return options;
}

ServerOptions default_server_options(const TestRegistry& tests) {
  return server_options_of(default_program_options(), default_run_options().timeout, tests);
}

Result<ServerOptions> server_options_from(const ProgramOptions& program, double timeout_s,
                                          const TestRegistry& tests) {
  ServerOptions options = server_options_of(program, timeout_s, tests);
  // A root server's fabric sessions run as an unprivileged user (nobody unless --run_as says).
  options.run_as = program.run_as.empty() ? default_run_as() : program.run_as;
  options.run_as_client = program.run_as.empty() && geteuid() == 0;
  FP_RETURN_IF_ERROR(check_run_as(options.run_as));
  options.limits.max_descriptors = descriptor_budget();
  auto allow = AllowList::parse(program.allow);
  if (!allow.ok()) return allow.status();
  options.allow = std::move(*allow);
  auto key = auth_key_from(program);
  if (!key.ok()) return key.status();
  options.auth_key = std::move(*key);
  return options;
}

Status check_no_server_options(const CommandLine& cl) {
  for (const Assignment& a : cl.assignments) {
    if (a.spec->scope == OptScope::kServer) {
      return Status::usage(a.spelling +
                           " is a server option: give it to the fabperf server "
                           "(or with --loopback), not to a client of a remote server");
    }
  }
  return Status::success();
}

}  // namespace fabperf
