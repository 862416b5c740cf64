// The server's accept loop and per-client sessions: hello, then one request, then close.
#include "server/server.h"

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include "cli/command_line.h"
#include "core/registry.h"
#include "net/control.h"
#include "tests/misc_tests.h"
#include "tests/socket_link.h"

namespace fabperf {

Result<std::unique_ptr<Server>> Server::Listen(const ServerOptions& options) {
  auto fd = listen_tcp(options.bind_addr, options.port, 64);
  if (!fd.ok()) return fd.status();
  uint16_t port = local_address(fd->get()).port();
  return std::unique_ptr<Server>(new Server(options, std::move(*fd), port));
}

Server::Server(const ServerOptions& options, Fd listener, uint16_t port)
    : options_(options), listener_(std::move(listener)), port_(port) {}

Server::~Server() {
  Stop();
  std::unique_lock<std::mutex> lock(mu_);
  sessions_done_.wait(lock, [&] { return active_.load() == 0; });
}

void Server::Log(const std::string& line) {
  if (options_.log) std::fprintf(stderr, "fabperf server: %s\n", line.c_str());
}

Status Server::Serve() {
  while (!stop_.load()) {
    pollfd pfd{listener_.get(), POLLIN, 0};
    int rc = poll(&pfd, 1, 200);  // wake up to notice Stop()
    if (rc <= 0) continue;
    SockAddr peer;
    peer.len = sizeof peer.storage;
    int fd = accept4(listener_.get(), peer.get(), &peer.len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    if (active_.load() >= options_.max_clients) {
      ControlChannel busy(fd);
      busy.send_error("server busy: " + std::to_string(options_.max_clients) +
                      " clients are being served; try again later");
      Log(peer.host() + ": refused, busy");
      continue;
    }
    active_.fetch_add(1);
    std::thread([this, fd] { Session(fd); }).detach();
  }
  std::unique_lock<std::mutex> lock(mu_);
  sessions_done_.wait(lock, [&] { return active_.load() == 0; });
  return Status::Ok();
}

void Server::Session(int fd) {
  {
    ControlChannel ch(fd);
    ch.set_peer_label("client");
    std::string who = ch.peer_host();
    auto fail = [&](const std::string& what, const Status& s) {
      Log(who + ": " + what + s.message());
      ch.send_error(s.message());
    };
    auto hello = ch.expect(MsgType::kHello, options_.timeout_s);
    if (!hello.ok()) {
      fail("", hello.status());
    } else {
      ch.send(MsgType::kWelcome, {{"server", node_info()}});
      auto request = ch.recv(options_.timeout_s);
      if (!request.ok()) {
        fail("", request.status());
      } else if (request->type == MsgType::kConf) {
        ch.send(MsgType::kConfReply, node_info());
      } else if (request->type == MsgType::kQuit) {
        Log(who + ": quit");
        ch.send(MsgType::kBye, nlohmann::json::object());
        Stop();
      } else if (request->type != MsgType::kRun) {
        fail("", Status::Failed(std::string("protocol error: unexpected ") +
                                msg_type_name(request->type)));
      } else {
        const nlohmann::json& body = request->body;
        auto name_it = body.find("test");
        std::string name = name_it != body.end() && name_it->is_string() ? name_it->get<std::string>() : "";
        const TestSpec* spec = find_test(name);
        auto params = params_from_json(body.contains("params") ? body["params"] : nlohmann::json());
        if (spec == nullptr || spec->kind == TestKind::kMisc) {
          fail("", Status::Failed("unknown test \"" + name.substr(0, 64) +
                                  "\" (is the client newer? upgrade the server)"));
        } else if (!params.ok()) {
          fail(name + ": ", params.status());
        } else {
          TestContext ctx(Role::kServer, *spec, *params, ch, who);
          ctx.stop = &stop_;
          Status s = apply_cpu_affinity(params->str("cpu_affinity"));
          if (s.ok()) s = ch.send(MsgType::kReady, nlohmann::json::object());
          if (s.ok()) s = spec->server(ctx);
          if (!s.ok()) {
            fail(name + ": ", s);
          } else {
            nlohmann::json result = {{"stats", ctx.stats.to_json()}};
            if (ctx.latency.count() > 0) result["latency"] = ctx.latency.to_json();
            ch.send(MsgType::kResult, result);
            // Wait for the client's goodbye so our close never resets unread data.
            ch.recv(options_.timeout_s);
          }
        }
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  active_.fetch_sub(1);
  sessions_done_.notify_all();
}

}  // namespace fabperf
