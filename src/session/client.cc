// Client engine: connect, hello, run one test per control connection, collect both sides.
#include "session/client.h"

#include <cstdio>

#include "engine/registry.h"
#include "net/control.h"
#include "net/socket.h"
#include "security/auth.h"
#include "engine/misc_tests.h"
#include "engine/affinity.h"

namespace fabperf {

namespace {

// Proves our key to a server that challenged us, and checks the server's proof in return.
Status authenticate(ControlChannel& ch, const ClientConfig& config, const nlohmann::json& welcome,
                    const std::string& client_nonce, double timeout, nlohmann::json& server_info) {
  auto auth = welcome.find("auth");
  if (auth == welcome.end() || !auth->is_object()) {
    ch.send_error("this client requires authentication (--auth_key_file) and the server has no key",
                  1);
    return Status::Failed("the server does not prove it holds the key (it runs without "
                          "--auth_key_file): not running a test against it");
  }
  std::string method = auth->value("method", std::string());
  std::string challenge = auth->value("challenge", std::string());
  if (method != kAuthMethod || !valid_nonce(challenge)) {
    return Status::Failed("the server asks for authentication this client does not speak (" +
                          method.substr(0, 32) + "): upgrade the older fabperf");
  }
  FP_RETURN_IF_ERROR(
      ch.send(MsgType::kAuth, {{"proof", client_proof(config.auth_key, challenge, client_nonce)}}));
  auto reply = ch.expect(MsgType::kAuth, timeout);
  if (!reply.ok()) return reply.status();
  std::string proof = reply->value("proof", std::string());
  if (!proofs_equal(proof, server_proof(config.auth_key, challenge, client_nonce))) {
    ch.send_error("the server's proof of the key is wrong", 1);
    return Status::Failed("the server failed to prove it holds the key (a different "
                          "--auth_key_file?)");
  }
  server_info = reply->value("server", nlohmann::json());
  return Status::Ok();
}

// A control connection that has been greeted: connected, versions checked, key proven.
Result<std::unique_ptr<ControlChannel>> open_session(const ClientConfig& config, double timeout,
                                                     RunInfo& info) {
  HostSpec host = split_host_iface(config.host);
  ConnectOptions options{config.wait_server_s, timeout, config.bind_addr, host.iface};
  auto fd = connect_tcp(host.host, config.port, options);
  if (!fd.ok()) return fd.status();
  auto ch = std::make_unique<ControlChannel>(fd->release());
  ch->set_peer_label("server");
  ch->set_cancel(config.stop);  // ^C while waiting for the server ends the wait
  nlohmann::json hello = {{"tool", "fabperf"}, {"version", FABPERF_VERSION}};
  std::string client_nonce;
  if (!config.auth_key.empty()) {
    auto nonce = random_nonce();
    if (!nonce.ok()) return nonce.status();
    client_nonce = *nonce;
    hello["auth"] = {{"method", kAuthMethod}, {"nonce", client_nonce}};
  }
  Status sent = ch->send(MsgType::kHello, hello);
  if (!sent.ok()) {
    // A server that turned us away at once (busy, access denied) said why before closing.
    auto reason = ch->recv(0.5);
    if (!reason.ok() && ch->peer_reported_error()) return reason.status();
    return sent;
  }
  auto welcome = ch->expect(MsgType::kWelcome, timeout);
  if (!welcome.ok()) return welcome.status();
  nlohmann::json server_info = welcome->value("server", nlohmann::json());
  if (!config.auth_key.empty()) {
    FP_RETURN_IF_ERROR(authenticate(*ch, config, *welcome, client_nonce, timeout, server_info));
  } else if (welcome->contains("auth")) {
    return Status::Failed("the server requires a pre-shared key: give --auth_key_file");
  }
  if (info.server.is_null() && !server_info.is_null()) info.server = server_info;
  return ch;
}

Status run_measurement(const ClientConfig& config, RunInfo& info, TestResult& result,
                       LatencyRecorder& latency, bool& no_session) {
  double timeout = result.local_params.seconds("timeout");
  auto session = open_session(config, timeout, info);
  if (!session.ok()) {
    no_session = true;
    return session.status();
  }
  ControlChannel& ch = **session;
  nlohmann::json request = {{"test", result.test}, {"params", result.remote_params.to_json()}};
  FP_RETURN_IF_ERROR(ch.send(MsgType::kRun, request));
  auto ready = ch.expect(MsgType::kReady, timeout);
  if (!ready.ok()) return ready.status();
  // From here a ^C ends the measured loop (ctx.stop), and the results are still collected.
  ch.set_cancel(nullptr);
  TestContext ctx(Role::kClient, *result.spec, result.local_params, ch, ch.peer_host());
  ctx.stop = config.stop;
  Status s = apply_cpu_affinity(result.local_params.str("cpu_affinity"));
  if (s.ok()) s = result.spec->client(ctx);
  result.loc = ctx.stats;
  latency = ctx.latency;
  if (!s.ok()) {
    // The server's own account of a failure beats our view of its symptom.
    if (ch.peer_reported_error()) return s;
    auto peer = ch.recv(0.5);
    if (!peer.ok() && ch.peer_reported_error()) return peer.status();
    ch.send_error(s.message(), 1);
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

Status run_misc(const ClientConfig& config, RunInfo& info, TestResult& result,
                bool& no_session) {
  double timeout = result.local_params.has("timeout") ? result.local_params.seconds("timeout") : 5;
  auto session = open_session(config, timeout, info);
  if (!session.ok()) {
    no_session = true;
    return session.status();
  }
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

// What a failed run had measured before it failed (the JSON result carries it too).
void print_partial(const char* test, const SideStats& loc) {
  if (loc.send_msgs == 0 && loc.recv_msgs == 0) return;
  std::fprintf(stderr, "%s: before the failure: sent %llu messages (%llu bytes), received %llu "
               "messages (%llu bytes)\n", test, static_cast<unsigned long long>(loc.send_msgs),
               static_cast<unsigned long long>(loc.send_bytes),
               static_cast<unsigned long long>(loc.recv_msgs),
               static_cast<unsigned long long>(loc.recv_bytes));
}

}  // namespace

int run_client(const CommandLine& cl, const ClientConfig& config, RunInfo& info,
               std::vector<std::unique_ptr<Reporter>>& reporters) {
  int exit_code = 0;
  for (const TestRequest& request : cl.tests) {
    const TestSpec* spec = config.tests->find(request.name);
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
      bool no_session = false;
      Status s = spec->kind == TestKind::kMisc
                     ? run_misc(config, info, result, no_session)
                     : run_measurement(config, info, result, latency, no_session);
      if (!s.ok()) {
        result.ok = false;
        result.error = s.message();
        std::fprintf(stderr, "%s: %s\n", spec->name, s.message().c_str());
        print_partial(spec->name, result.loc);
        exit_code = s.code() == Code::kUsage ? 2 : 1;
      }
      derive_figures(result, latency, info.percentiles);
      if (!result.ok && s.ok()) {
        std::fprintf(stderr, "%s: %s\n", spec->name, result.error.c_str());
        exit_code = 1;
      }
      for (auto& reporter : reporters) reporter->Result(info, result);
      // A server that cannot be reached, or turns us away (busy, access, key), will not
      // serve the next test either.
      if (no_session) return config.stop != nullptr && config.stop->load() ? 130 : 1;
    }
  }
  if (config.stop != nullptr && config.stop->load()) return 130;
  return exit_code;
}

}  // namespace fabperf
