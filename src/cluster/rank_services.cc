// Starting a rank's server and agent on the address its peers will reach.
#include "cluster/rank_services.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "net/socket.h"
#include "security/access.h"
#include "security/auth.h"
#include "session/server_config.h"

namespace fabperf::cluster {

namespace {

// How long a connection to a rank's server may take to prove the key (a pair's client takes
// milliseconds).
constexpr double kProveWithin = 2;

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

// Every address of this host a connection to a peer may come from: each up interface's,
// loopback included, IPv6 link-local aside (at most 32).
std::vector<std::string> host_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr && out.size() < 32; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || !(i->ifa_flags & IFF_UP)) continue;
    const int family = i->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    SockAddr a;
    a.len = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    memcpy(a.get(), i->ifa_addr, a.len);
    std::string host = a.host();
    if (host.rfind("fe80", 0) == 0) continue;
    if (std::find(out.begin(), out.end(), host) == out.end()) out.push_back(host);
  }
  freeifaddrs(list);
  return out;
}

// The host blocks of the cards' addresses (one that does not parse is left out: its owner
// cannot connect, and rank 0 reports its links).
AllowList addresses_of(const std::vector<RankCard>& cards) {
  AllowList allow;
  std::vector<std::string> seen;
  for (const RankCard& card : cards) {
    std::vector<std::string> all = card.addrs;
    all.push_back(card.addr);
    for (const std::string& a : all) {
      if (a.empty() || std::find(seen.begin(), seen.end(), a) != seen.end()) continue;
      seen.push_back(a);
      if (auto block = parse_cidr(a); block.ok()) allow.add(*block);
    }
  }
  return allow;
}

}  // namespace

void open_to_peers(RankServices& s, const std::vector<RankCard>& peers, const RankCard* rank0) {
  if (!s.server || s.server_thread.joinable()) return;
  if (!peers.empty()) s.server->set_allow(addresses_of(peers));
  if (rank0 != nullptr && s.agent) s.agent->set_allow(addresses_of({*rank0}));
  Server* raw = s.server.get();
  s.server_thread = std::thread([raw] { raw->serve().ignore_error(); });
}

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
  // Where its connections to peers come from: runs bind to `listen` when it is set.
  card.addrs = !listen.empty() ? std::vector<std::string>{listen} : host_addresses();
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
  // Only the job's ranks hold the key: a connection that has not proved it soon is a stranger,
  // and must not hold the slots the job's pair runs need (security-review N2).
  options->unproven_s = kProveWithin;
  options->log = false;  // rank 0 reports what failed, once
  auto server = Server::listen(*options);
  if (!server.ok()) {
    card.error = "its fabperf server cannot listen on " + (listen.empty() ? "*" : listen) + ": " +
                 server.status().message();
    return;
  }
  s.server = std::move(*server);
  card.server_port = s.server->port();
  Agent::Config config{boot.rank(), boot.size(), &o.runs,     &boot,
                       card.key,    listen,      o.timeout_s, stop};
  auto agent = Agent::listen(config);
  if (!agent.ok()) {
    card.error = "its agent cannot listen: " + agent.status().message();
    return;
  }
  s.agent = std::move(*agent);
  card.agent_port = s.agent->port();
}

}  // namespace fabperf::cluster
