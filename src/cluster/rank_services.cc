// Starting a rank's server and agent on the address its peers will reach.
#include "cluster/rank_services.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <unistd.h>

#include <cstring>

#include "net/socket.h"
#include "security/auth.h"
#include "session/server_config.h"

namespace fabperf::cluster {

namespace {

// Where peers reach this rank: --bind, loopback when the whole job is on this host, else the
// first address of an interface that is up (IPv4 first).
std::string pick_address(const std::string& bind, bool all_local) {
  if (!bind.empty()) return bind;
  if (all_local) return "127.0.0.1";
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "127.0.0.1";
  std::string v4, v6;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
      continue;
    SockAddr a;
    if (i->ifa_addr->sa_family == AF_INET && v4.empty()) {
      a.len = sizeof(sockaddr_in);
      memcpy(a.get(), i->ifa_addr, a.len);
      v4 = a.host();
    } else if (i->ifa_addr->sa_family == AF_INET6 && v6.empty()) {
      a.len = sizeof(sockaddr_in6);
      memcpy(a.get(), i->ifa_addr, a.len);
      if (a.host().rfind("fe80", 0) != 0) v6 = a.host();
    }
  }
  freeifaddrs(list);
  return !v4.empty() ? v4 : !v6.empty() ? v6 : "127.0.0.1";
}

}  // namespace

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

RankServices::~RankServices() {
  if (server) server->stop();
  if (server_thread.joinable()) server_thread.join();
}

void start_services(const CommandLine& cl, const MatrixOptions& o, const SessionEnv& env,
                    Bootstrap& boot, const std::atomic<bool>* stop, RankServices& s) {
  RankCard& card = s.card;
  card.rank = boot.rank();
  card.host = host_name();
  card.pid = getpid();
  card.tests = tests_fingerprint(o.runs);
  bool all_local = boot.local_size() == boot.size();
  std::string listen = !o.bind.empty() ? o.bind : all_local ? "127.0.0.1" : "";
  card.addr = pick_address(o.bind, all_local);
  auto key = random_nonce();
  if (!key.ok()) {
    card.error = key.status().message();
    return;
  }
  card.key = *key;
  auto options = server_options_from(cl.program, o.timeout_s, *env.tests);
  if (!options.ok()) {
    card.error = options.status().message();
    return;
  }
  options->isolate = env.isolate;
  // One pair at a time reaches this server (a round pairs each rank once), so measurements
  // queue only behind a cancelled run's server side that has not yet ended: waiting is right.
  options->port = 0;
  options->bind_addr = listen;
  options->auth_key = card.key;
  options->log = false;  // rank 0 reports what failed, once
  auto server = Server::listen(*options);
  if (!server.ok()) {
    card.error = "its fabperf server cannot listen on " + (listen.empty() ? "*" : listen) + ": " +
                 server.status().message();
    return;
  }
  s.server = std::move(*server);
  card.server_port = s.server->port();
  Agent::Config config{boot.rank(), boot.size(), &o.runs, &boot, card.key, listen, o.timeout_s,
                       stop};
  auto agent = Agent::listen(config);
  if (!agent.ok()) {
    card.error = "its agent cannot listen: " + agent.status().message();
    return;
  }
  s.agent = std::move(*agent);
  card.agent_port = s.agent->port();
  Server* raw = s.server.get();
  s.server_thread = std::thread([raw] { raw->serve().IgnoreError(); });
}

}  // namespace fabperf::cluster
