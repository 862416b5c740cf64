// Building the server's configuration from parsed options, where usage errors are caught.
#include "app/server_config.h"

#include "app/all_tests.h"
#include "security/auth.h"

namespace fabperf {

namespace {

uint64_t u64_of(const CommandLine& cl, const char* name) {
  return std::get<uint64_t>(cl.global(name));
}

double seconds_of(const CommandLine& cl, const char* name) {
  ParamValue v = cl.global(name);
  if (auto* d = std::get_if<double>(&v)) return *d;
  return 5;
}

}  // namespace

Result<std::string> auth_key_from(const CommandLine& cl) {
  std::string path = std::get<std::string>(cl.global("auth_key_file"));
  if (path.empty()) return std::string();
  return load_key_file(path);
}

Result<ServerOptions> server_options_from(const CommandLine& cl) {
  ServerOptions options;
  options.tests = &all_tests();
  options.port = static_cast<uint16_t>(u64_of(cl, "listen_port"));
  options.bind_addr = std::get<std::string>(cl.global("bind"));
  options.timeout_s = seconds_of(cl, "timeout");
  options.max_clients = static_cast<int>(u64_of(cl, "max_clients"));
  options.limits.max_msg_size = u64_of(cl, "max_msg_size");
  options.limits.max_time = seconds_of(cl, "max_time");
  options.limits.max_msgs = u64_of(cl, "max_msgs");
  options.limits.max_memory = u64_of(cl, "max_memory");
  auto allow = AllowList::Parse(std::get<std::string>(cl.global("allow")));
  if (!allow.ok()) return allow.status();
  options.allow = std::move(*allow);
  auto key = auth_key_from(cl);
  if (!key.ok()) return key.status();
  options.auth_key = std::move(*key);
  return options;
}

Status check_no_server_options(const CommandLine& cl) {
  for (const Assignment& a : cl.assignments) {
    if (a.spec->scope == OptScope::kServer) {
      return Status::Usage(a.spelling +
                           " is a server option: give it to the fabperf server "
                           "(or with --loopback), not to a client of a remote server");
    }
  }
  return Status::Ok();
}

}  // namespace fabperf
