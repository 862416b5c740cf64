// Client engine: connect, hello, run one test per control connection, collect both sides.
#include "client/client.h"

#include <cstdio>

#include "core/registry.h"
#include "net/control.h"
#include "net/socket.h"
#include "tests/misc_tests.h"
#include "tests/socket_link.h"

namespace fabperf {

namespace {

// A control connection that has been greeted: connected, versions checked.
Result<std::unique_ptr<ControlChannel>> open_session(const ClientConfig& config, double timeout,
                                                     RunInfo& info) {
  HostSpec host = split_host_iface(config.host);
  ConnectOptions options{config.wait_server_s, timeout, config.bind_addr, host.iface};
  auto fd = connect_tcp(host.host, config.port, options);
  if (!fd.ok()) return fd.status();
  auto ch = std::make_unique<ControlChannel>(fd->release());
  ch->set_peer_label("server");
  FP_RETURN_IF_ERROR(ch->send(MsgType::kHello, {{"tool", "fabperf"}, {"version", FABPERF_VERSION}}));
  auto welcome = ch->expect(MsgType::kWelcome, timeout);
  if (!welcome.ok()) return welcome.status();
  if (info.server.is_null() && welcome->contains("server")) info.server = (*welcome)["server"];
  return ch;
}

Status run_measurement(const ClientConfig& config, RunInfo& info, TestResult& result,
                       LatencyRecorder& latency) {
  double timeout = result.local_params.seconds("timeout");
  auto session = open_session(config, timeout, info);
  if (!session.ok()) return session.status();
  ControlChannel& ch = **session;
  nlohmann::json request = {{"test", result.test}, {"params", result.remote_params.to_json()}};
  FP_RETURN_IF_ERROR(ch.send(MsgType::kRun, request));
  auto ready = ch.expect(MsgType::kReady, timeout);
  if (!ready.ok()) return ready.status();
  TestContext ctx(Role::kClient, *result.spec, result.local_params, ch, ch.peer_host());
  ctx.stop = config.stop;
  Status s = apply_cpu_affinity(result.local_params.str("cpu_affinity"));
  if (s.ok()) s = result.spec->client(ctx);
  result.loc = ctx.stats;
  latency = ctx.latency;
  if (!s.ok()) {
    // The server's own account of a failure beats our view of its symptom.
    auto peer = ch.recv(0.5);
    if (!peer.ok() && peer.status().message().rfind("server: ", 0) == 0) return peer.status();
    ch.send_error(s.message());
    return s;
  }
  auto reply = ch.expect(MsgType::kResult, timeout + 1);
  if (!reply.ok()) return reply.status();
  result.rem = SideStats::from_json(reply->value("stats", nlohmann::json::object()));
  if (reply->contains("latency")) {
    auto remote = LatencyRecorder::from_json((*reply)["latency"]);
    if (!remote.ok()) return remote.status().Prefixed("server's latency record");
    latency.merge(*remote);
  }
  ch.send(MsgType::kBye, nlohmann::json::object());
  return Status::Ok();
}

Status run_misc(const ClientConfig& config, RunInfo& info, TestResult& result) {
  double timeout = result.local_params.has("timeout") ? result.local_params.seconds("timeout") : 5;
  auto session = open_session(config, timeout, info);
  if (!session.ok()) return session.status();
  ControlChannel& ch = **session;
  if (result.test == "conf") {
    FP_RETURN_IF_ERROR(ch.send(MsgType::kConf, nlohmann::json::object()));
    auto reply = ch.expect(MsgType::kConfReply, timeout);
    if (!reply.ok()) return reply.status();
    result.conf_local = node_info();
    result.conf_remote = *reply;
    return Status::Ok();
  }
  FP_RETURN_IF_ERROR(ch.send(MsgType::kQuit, nlohmann::json::object()));
  return ch.expect(MsgType::kBye, timeout).status();
}

}  // namespace

int run_client(const CommandLine& cl, const ClientConfig& config, RunInfo& info,
               std::vector<std::unique_ptr<Reporter>>& reporters) {
  int exit_code = 0;
  for (const TestRequest& request : cl.tests) {
    const TestSpec* spec = find_test(request.name);
    for (const std::vector<Assignment>& loop_values : expand_loops(request.loops)) {
      if (config.stop != nullptr && config.stop->load()) return 130;
      std::vector<std::string> warnings;
      auto params = resolve_params(*spec, request.assignments, loop_values, &warnings);
      for (const std::string& w : warnings) std::fprintf(stderr, "%s\n", w.c_str());
      if (!params.ok()) {
        std::fprintf(stderr, "%s\n", params.status().message().c_str());
        return 2;
      }
      TestResult result;
      result.spec = spec;
      result.test = spec->name;
      result.local_params = params->local;
      result.remote_params = params->remote;
      for (const Assignment& a : loop_values) result.loop_values.emplace_back(a.spec->name, a.value);
      LatencyRecorder latency;
      Status s = spec->kind == TestKind::kMisc ? run_misc(config, info, result)
                                               : run_measurement(config, info, result, latency);
      if (!s.ok()) {
        result.ok = false;
        result.error = s.message();
        std::fprintf(stderr, "%s: %s\n", spec->name, s.message().c_str());
        exit_code = s.code() == Code::kUsage ? 2 : 1;
      }
      derive_figures(result, latency, info.percentiles);
      if (!result.ok && s.ok()) {
        std::fprintf(stderr, "%s: %s\n", spec->name, result.error.c_str());
        exit_code = 1;
      }
      for (auto& reporter : reporters) reporter->Result(info, result);
      // Without a server there is nothing more to try.
      if (!s.ok() && s.message().rfind("failed to connect", 0) == 0) return 1;
    }
  }
  if (config.stop != nullptr && config.stop->load()) return 130;
  return exit_code;
}

}  // namespace fabperf
