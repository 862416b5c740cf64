// Server, client and loopback modes shared by both dialects.
#include "session/modes.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/signals.h"
#include "session/client.h"
#include "session/server_config.h"

namespace fabperf {

namespace {

Result<ServerOptions> configured_server(const Invocation& cl, const SessionEnv& env) {
  auto options = server_options_from(cl.program, cl.own.timeout, *env.tests);
  if (!options.ok()) return options.status();
  options->isolate = env.isolate;
  options->qperf = env.qperf;
  return options;
}

}  // namespace

Status run_server_mode(const Invocation& cl, const SessionEnv& env, ServerObserver* observer,
                       const std::string& banner, const std::string& tool, const OwnOptions* own) {
  for (const Assignment& a : cl.assignments) {
    if (a.spec->scope == OptScope::kClient && a.spec->field != FieldRef(&ProgramOptions::version)) {
      return Status::usage("you used a client-only option (" + a.spelling +
                           ") but did not specify the server name; try: fabperf --help");
    }
  }
  auto options = configured_server(cl, env);
  if (!options.ok()) return Status::usage(options.status().message());
  options->observer = observer;
  options->tool = tool;
  if (own != nullptr) options->own = *own;
  auto server = Server::listen(*options);
  if (!server.ok()) return Status::failed("fabperf server: " + server.status().message());
  if (!banner.empty()) {
    std::fputs(banner.c_str(), stdout);
    std::fflush(stdout);
  }
  Server* raw = server->get();
  int id = add_stop_callback([raw] { raw->stop(); });
  Status s = raw->serve();
  remove_stop_callback(id);
  // A once-server's session failed (logged).
  if (s.code() == Code::kFailed) return Status::reported(Code::kFailed);
  if (!s.ok()) {
    // Not a return: a client that ignores "server shutting down" holds a session thread this
    // process cannot join, and must not keep it alive. A stop asked for is a success.
    std::fprintf(stderr, "fabperf server: %s; exiting anyway\n", s.message().c_str());
    std::fflush(stderr);
    std::_Exit(Status::success().exit_code());
  }
  return Status::success();
}

Status run_client_mode(const Invocation& cl, const std::vector<PlannedRun>& plan, RunInfo& info,
                       std::vector<std::unique_ptr<Reporter>>& reporters, bool loopback,
                       const std::string& tool, const SessionEnv& env,
                       const nlohmann::json& own_options) {
  if (!loopback) {
    Status s = check_no_server_options(cl);
    if (!s.ok()) return Status::usage(s.message());
  }
  auto auth_key = auth_key_from(cl.program);
  if (!auth_key.ok()) return Status::usage(auth_key.status().message());
  ClientConfig config = client_config_of(cl.program);
  config.host = cl.host;
  config.tool = tool;
  config.label_by_tool = cl.dialect == Dialect::kCxi;
  config.auth_key = *auth_key;
  // qperf's grammar only: a fab_* tool's test has no qperf counterpart.
  if (cl.dialect == Dialect::kQperf) config.qperf = env.qperf;
  config.stop = &stop_flag();
  // Progress only where a person watches standard error.
  std::unique_ptr<TerminalProgress> progress = make_terminal_progress(STDERR_FILENO);
  config.progress = progress.get();
  config.own_options = own_options;

  std::unique_ptr<Server> local_server;
  std::thread server_thread;
  if (loopback) {
    auto options = configured_server(cl, env);
    if (!options.ok()) return Status::usage(options.status().message());
    options->bind_addr = "127.0.0.1";
    options->port = 0;
    options->log = false;  // the client reports every failure itself, once
    // Client and server are one process, one user: its sessions keep that user unless
    // --run_as says otherwise.
    if (cl.program.run_as.empty()) options->run_as.clear();
    auto server = Server::listen(*options);
    if (!server.ok()) return Status::failed("loopback server: " + server.status().message());
    local_server = std::move(*server);
    config.host = "127.0.0.1";
    config.port = local_server->port();
    server_thread = std::thread([&] { local_server->serve().ignore_error(); });
  }
  Status outcome = run_plan(plan, config, info, reporters);
  for (auto& reporter : reporters) {
    Status s = reporter->finish(info);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      if (outcome.ok()) outcome = Status::reported(Code::kFailed);
    }
  }
  if (local_server) {
    local_server->stop();
    server_thread.join();
  }
  return outcome;
}

}  // namespace fabperf
