// One client's session on the server: hello (and proof of the key), one request, close.
#include <cstdio>

#include "cli/command_line.h"
#include "core/clock.h"
#include "engine/registry.h"
#include "net/control.h"
#include "security/auth.h"
#include "session/server.h"
#include "engine/misc_tests.h"
#include "engine/affinity.h"

namespace fabperf {

namespace {

// Our own decoder's complaint about the client reads better to the client without the label.
std::string for_client(const std::string& message) {
  const std::string label = "client: ";
  return message.rfind(label, 0) == 0 ? message.substr(label.size()) : message;
}

std::string string_field(const nlohmann::json& body, const char* name) {
  auto it = body.find(name);
  return it != body.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

void Server::Session(int fd) {
  Slot slot;
  {
    ControlChannel ch(fd);
    ch.set_peer_label("client");
    ch.set_max_body(kClientMaxFrameBody);
    ch.set_cancel(&slot.stop);
    {
      std::lock_guard<std::mutex> lock(mu_);
      slot.channel = &ch;
      if (stop_.load()) slot.stop.store(true);
      sessions_.push_back(&slot);
    }
    Status s = Handshake(ch);
    if (s.ok()) s = HandleRequest(ch, slot);
    if (!s.ok()) {
      // One line per failed session; the client hears the same reason when it can. A session
      // the supervisor ended was logged and told there.
      bool told;
      {
        std::lock_guard<std::mutex> lock(mu_);
        told = slot.told;
      }
      if (!told) {
        Log(ch.peer_host() + ": " + s.message());
        if (s.code() != Code::kInterrupted) ch.send_error(for_client(s.message()), 1);
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.remove(&slot);
    memory_in_use_ -= slot.memory;
  }
  std::lock_guard<std::mutex> lock(mu_);
  active_.fetch_sub(1);
  sessions_done_.notify_all();
}

Status Server::Handshake(ControlChannel& ch) {
  auto hello = ch.expect(MsgType::kHello, options_.timeout_s);
  if (!hello.ok()) return hello.status();
  const nlohmann::json* auth = nullptr;
  if (auto it = hello->find("auth"); it != hello->end() && it->is_object()) auth = &*it;
  if (options_.auth_key.empty()) {
    // A client with a key refuses us itself: it cannot tell us from an impostor.
    return ch.send(MsgType::kWelcome, {{"server", node_info()}});
  }
  std::string client_nonce = auth != nullptr ? string_field(*auth, "nonce") : "";
  if (auth == nullptr) {
    return Status::Failed(
        "authentication required: this server needs a pre-shared key "
        "(client option --auth_key_file)");
  }
  if (!valid_nonce(client_nonce)) return Status::Failed("authentication failed: malformed nonce");
  auto server_nonce = random_nonce();
  if (!server_nonce.ok()) return server_nonce.status();
  FP_RETURN_IF_ERROR(ch.send(MsgType::kWelcome,
                             {{"auth", {{"method", kAuthMethod}, {"challenge", *server_nonce}}}}));
  auto answer = ch.expect(MsgType::kAuth, options_.timeout_s);
  if (!answer.ok()) return answer.status();
  std::string proof = string_field(*answer, "proof");
  if (!proofs_equal(proof, client_proof(options_.auth_key, *server_nonce, client_nonce))) {
    return Status::Failed(
        "authentication failed: the client's key does not match this "
        "server's (--auth_key_file)");
  }
  return ch.send(MsgType::kAuth,
                 {{"proof", server_proof(options_.auth_key, *server_nonce, client_nonce)},
                  {"server", node_info()}});
}

Status Server::HandleRequest(ControlChannel& ch, Slot& slot) {
  auto request = ch.recv(options_.timeout_s);
  if (!request.ok()) return request.status();
  switch (request->type) {
    case MsgType::kConf:
      return ch.send(MsgType::kConfReply, node_info());
    case MsgType::kQuit: {
      Log(ch.peer_host() + ": quit");
      {
        std::lock_guard<std::mutex> lock(mu_);
        slot.told = true;  // its answer is BYE, not "server shutting down"
      }
      Status s = ch.send(MsgType::kBye, nlohmann::json::object());
      Stop();
      return s;
    }
    case MsgType::kRun:
      break;
    default:
      return Status::Failed(std::string("protocol error: unexpected ") +
                            msg_type_name(request->type));
  }
  const nlohmann::json& body = request->body;
  std::string name = string_field(body, "test");
  const TestSpec* spec = options_.tests->find(name);
  if (spec == nullptr || spec->kind == TestKind::kMisc) {
    return Status::Failed("unknown test \"" + name.substr(0, 64) +
                          "\" (is the client newer? upgrade the server)");
  }
  auto params = params_from_json(body.contains("params") ? body["params"] : nlohmann::json());
  if (!params.ok()) return params.status().Prefixed(name);
  {
    std::lock_guard<std::mutex> lock(mu_);
    Status allowed = check_request(options_.limits, *spec, *params, memory_in_use_);
    if (!allowed.ok()) return allowed.Prefixed(name);
    slot.memory = session_memory(*spec, *params);
    memory_in_use_ += slot.memory;
    // The watchdog's bound: the longest run allowed, and then one timeout to wind down.
    double bound_s = options_.limits.max_time + params->seconds("timeout") + 5;
    slot.deadline_ns = now_ns() + static_cast<int64_t>(bound_s * 1e9);
  }
  return RunTest(ch, slot, *spec, *params, name);
}

Status Server::RunTest(ControlChannel& ch, Slot& slot, const TestSpec& spec, const ParamSet& params,
                       const std::string& name) {
  TestContext ctx(Role::kServer, spec, params, ch, ch.peer_host());
  ctx.stop = &slot.stop;
  Status s = apply_cpu_affinity(params.str("cpu_affinity"));
  if (s.ok()) s = ch.send(MsgType::kReady, nlohmann::json::object());
  if (s.ok()) s = spec.server(ctx);
  if (!s.ok()) return s.Prefixed(name);
  nlohmann::json result = {{"stats", ctx.stats.to_json()}};
  if (ctx.latency.count() > 0) result["latency"] = ctx.latency.to_json();
  FP_RETURN_IF_ERROR(ch.send(MsgType::kResult, result));
  // Wait for the client's goodbye so our close never resets unread data; a client that
  // leaves without one has its results already.
  ch.recv(params.seconds("timeout"));
  return Status::Ok();
}

}  // namespace fabperf
