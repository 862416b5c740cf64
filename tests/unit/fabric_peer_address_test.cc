// Endpoint names decoded by address format (checked against the names real endpoints of this
// host's providers give), and the fabric peer check's rule for each kind of address.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <rdma/fabric.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fabric/endpoint.h"
#include "fabric/peer_address.h"
#include "fabric/provider.h"

// The net provider's fi_info leak under ASan is suppressed for every binary in
// src/sanitizer/lsan_suppressions.cc.

namespace fabperf {
namespace {

std::vector<uint8_t> sockaddr_bytes(const char* ip, uint16_t port) {
  auto addrs = resolve(ip, port, SOCK_DGRAM);
  EXPECT_TRUE(addrs.ok() && !addrs->empty()) << ip;
  const SockAddr& a = addrs->front();
  const auto* bytes = reinterpret_cast<const uint8_t*>(&a.storage);
  return std::vector<uint8_t>(bytes, bytes + a.len);
}

std::vector<uint8_t> v4_mapped(const char* ip, uint16_t port) {
  sockaddr_in6 a6{};
  a6.sin6_family = AF_INET6;
  a6.sin6_port = htons(port);
  a6.sin6_addr.s6_addr[10] = a6.sin6_addr.s6_addr[11] = 0xff;
  inet_pton(AF_INET, ip, &a6.sin6_addr.s6_addr[12]);
  const auto* bytes = reinterpret_cast<const uint8_t*>(&a6);
  return std::vector<uint8_t>(bytes, bytes + sizeof a6);
}

std::vector<uint8_t> text_bytes(const std::string& text) {
  std::vector<uint8_t> out(text.begin(), text.end());
  out.push_back(0);
  return out;
}

ControlPeer peer_at(const std::string& host, std::vector<pid_t> pids = {}) {
  ControlPeer peer;
  peer.host = host;
  peer.self_pid = getpid();
  if (!pids.empty()) peer.pids = pids;
  return peer;
}

// What each provider's endpoints call themselves on this host, decoded.
struct Endpoint {
  const char* provider;
  fi_ep_type type;
};

class RealEndpointNames : public ::testing::TestWithParam<Endpoint> {};

TEST_P(RealEndpointNames, DecodeToWhatTheEndpointIs) {
  FabricRequest request;
  request.ep_type = GetParam().type;
  request.provider = GetParam().provider;
  request.node = "127.0.0.1";
  auto choice = select_fabric(request);
  if (!choice.ok()) GTEST_SKIP() << choice.status().message();
  const fi_info* info = choice->info.get();
  auto ep = request.ep_type == FI_EP_MSG ? FabricEndpoint::listen(info, EndpointOptions{})
                                         : FabricEndpoint::open(info, EndpointOptions{});
  ASSERT_TRUE(ep.ok()) << ep.status().message();
  auto name = (*ep)->name();
  ASSERT_TRUE(name.ok()) << name.status().message();
  auto decoded = decode_fabric_address(info->addr_format, choice->provider(), *name);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  if (choice->provider() == "shm") {
    // libfabric 1.17: "fi_shm://PID:UID:INDEX" with a terminating NUL.
    EXPECT_EQ(decoded->kind, FabricAddressKind::kShm);
    EXPECT_EQ(decoded->pid, getpid()) << decoded->text;
    EXPECT_EQ(decoded->text.rfind("fi_shm://" + std::to_string(getpid()) + ":", 0), 0u);
    EXPECT_TRUE(
        check_fabric_peer(*info, *name, peer_at("127.0.0.1", {getpid()}), Role::kServer).ok());
  } else {
    EXPECT_EQ(decoded->kind, FabricAddressKind::kIp) << decoded->format;
    ASSERT_EQ(decoded->ips.size(), 1u);
    EXPECT_EQ(decoded->ips[0].host(), "127.0.0.1");
    EXPECT_NE(decoded->ips[0].port(), 0);
    EXPECT_TRUE(check_fabric_peer(*info, *name, peer_at("127.0.0.1"), Role::kServer).ok());
    // The same endpoint from another loopback address is someone else.
    Status refused = check_fabric_peer(*info, *name, peer_at("127.0.0.2"), Role::kServer);
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find(choice->provider()), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(
    ThisHost, RealEndpointNames,
    ::testing::Values(Endpoint{"udp", FI_EP_DGRAM}, Endpoint{"udp;ofi_rxd", FI_EP_RDM},
                      Endpoint{"tcp", FI_EP_RDM}, Endpoint{"tcp;ofi_rxm", FI_EP_RDM},
                      Endpoint{"tcp", FI_EP_MSG}, Endpoint{"sockets", FI_EP_RDM},
                      Endpoint{"sockets", FI_EP_DGRAM}, Endpoint{"sockets", FI_EP_MSG},
                      Endpoint{"net", FI_EP_RDM}, Endpoint{"shm", FI_EP_RDM}),
    [](const auto& info) {
      std::string name = std::string(info.param.provider) + "_" + ep_type_name(info.param.type);
      for (char& c : name) {
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

TEST(FabricPeerCheckTest, AnIpAddressMustBeTheControlPeers) {
  auto forged = sockaddr_bytes("127.0.0.3", 52060);
  EXPECT_TRUE(check_fabric_peer(FI_SOCKADDR_IN, "udp", forged, peer_at("127.0.0.3"), false).ok());
  Status refused = check_fabric_peer(FI_SOCKADDR_IN, "udp", forged, peer_at("127.0.0.1"), false);
  ASSERT_FALSE(refused.ok());
  // Names the check, the provider, the address given and the control peer.
  EXPECT_EQ(refused.message().rfind("fabric peer check: provider udp: address 127.0.0.3:52060 ", 0),
            0u)
      << refused.message();
  EXPECT_NE(refused.message().find("control connection's peer 127.0.0.1"), std::string::npos);
  // Equality, not "is loopback": any other 127.x is another address.
  EXPECT_FALSE(check_fabric_peer(FI_SOCKADDR, "tcp;ofi_rxm", sockaddr_bytes("127.0.0.2", 1),
                                 peer_at("127.0.0.1"), true)
                   .ok());
  EXPECT_FALSE(check_fabric_peer(FI_SOCKADDR_IN6, "udp", sockaddr_bytes("::1", 9),
                                 peer_at("127.0.0.1"), true)
                   .ok());
  EXPECT_TRUE(
      check_fabric_peer(FI_SOCKADDR_IN6, "udp", sockaddr_bytes("::1", 9), peer_at("::1"), false)
          .ok());
}

TEST(FabricPeerCheckTest, V4MappedAddressesCompareAsIPv4) {
  auto mapped = v4_mapped("127.0.0.1", 7000);
  EXPECT_TRUE(check_fabric_peer(FI_SOCKADDR, "sockets", mapped, peer_at("127.0.0.1"), false).ok());
  EXPECT_FALSE(check_fabric_peer(FI_SOCKADDR, "sockets", v4_mapped("127.0.0.3", 7000),
                                 peer_at("127.0.0.1"), false)
                   .ok());
}

TEST(FabricPeerCheckTest, MalformedSocketAddressesAreRefused) {
  auto v4 = sockaddr_bytes("127.0.0.1", 5);
  ControlPeer peer = peer_at("127.0.0.1");
  // Short: libfabric would read past the bytes given.
  std::vector<uint8_t> shortened(v4.begin(), v4.begin() + 8);
  Status s = check_fabric_peer(FI_SOCKADDR_IN, "udp", shortened, peer, false);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("malformed FI_SOCKADDR_IN"), std::string::npos) << s.message();
  EXPECT_FALSE(check_fabric_peer(FI_SOCKADDR_IN, "udp", {}, peer, false).ok());
  // A family other than the format's.
  EXPECT_FALSE(check_fabric_peer(FI_SOCKADDR_IN6, "udp", v4, peer, false).ok());
  EXPECT_FALSE(
      check_fabric_peer(FI_SOCKADDR_IN, "udp", sockaddr_bytes("::1", 5), peer_at("::1"), false)
          .ok());
  std::vector<uint8_t> unix_family = v4;
  sa_family_t family = AF_UNIX;
  std::memcpy(unix_family.data(), &family, sizeof family);
  EXPECT_FALSE(check_fabric_peer(FI_SOCKADDR, "sockets", unix_family, peer, false).ok());
  // Trailing bytes that are no whole address.
  std::vector<uint8_t> trailing = v4;
  trailing.push_back(0);
  EXPECT_FALSE(check_fabric_peer(FI_SOCKADDR_IN, "udp", trailing, peer, false).ok());
}

TEST(FabricPeerCheckTest, EveryRailOfAJoinedNameIsChecked) {
  // ofi_mrail hands out its rails' names back to back.
  auto good = sockaddr_bytes("127.0.0.1", 5);
  auto joined = good;
  auto third = sockaddr_bytes("127.0.0.3", 6);
  joined.insert(joined.end(), third.begin(), third.end());
  Status s =
      check_fabric_peer(FI_SOCKADDR_IN, "tcp;ofi_mrail", joined, peer_at("127.0.0.1"), false);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("127.0.0.3:6"), std::string::npos) << s.message();
  joined = good;
  joined.insert(joined.end(), good.begin(), good.end());
  EXPECT_TRUE(
      check_fabric_peer(FI_SOCKADDR_IN, "tcp;ofi_mrail", joined, peer_at("127.0.0.1"), false).ok());
}

TEST(FabricPeerCheckTest, AnAddressStringIsDecodedByItsPrefix) {
  ControlPeer peer = peer_at("127.0.0.1");
  EXPECT_TRUE(check_fabric_peer(FI_ADDR_STR, "tcp", text_bytes("fi_sockaddr_in://127.0.0.1:4000"),
                                peer, false)
                  .ok());
  EXPECT_FALSE(check_fabric_peer(FI_ADDR_STR, "tcp", text_bytes("fi_sockaddr_in://127.0.0.3:4000"),
                                 peer, false)
                   .ok());
  EXPECT_TRUE(check_fabric_peer(FI_ADDR_STR, "tcp", text_bytes("fi_sockaddr_in6://[::1]:4000"),
                                peer_at("::1"), false)
                  .ok());
  EXPECT_FALSE(
      check_fabric_peer(FI_ADDR_STR, "tcp", text_bytes("fi_sockaddr_in://127.0.0.1"), peer, false)
          .ok());
  // Another string form names no IP: trusted or not, as cxi's addresses.
  auto efa = text_bytes("fi_addr_efa://[fe80::1]:1:2");
  EXPECT_FALSE(check_fabric_peer(FI_ADDR_STR, "efa", efa, peer, false).ok());
  EXPECT_TRUE(check_fabric_peer(FI_ADDR_STR, "efa", efa, peer, true).ok());
}

TEST(FabricPeerCheckTest, AShmNameMustBeTheControlPeersProcess) {
  pid_t me = getpid();
  pid_t other = me + 1;
  const std::string uid = std::to_string(geteuid());
  ControlPeer peer = peer_at("127.0.0.1", {me});
  auto own = text_bytes("fi_shm://" + std::to_string(me) + ":" + uid + ":3");
  EXPECT_TRUE(check_fabric_peer(FI_ADDR_STR, "shm", own, peer, false).ok());
  // The bare form opens the same region.
  EXPECT_TRUE(check_fabric_peer(FI_ADDR_STR, "shm",
                                text_bytes(std::to_string(me) + ":" + uid + ":0"), peer, false)
                  .ok());
  auto victim = text_bytes("fi_shm://" + std::to_string(other) + ":" + uid + ":0");
  Status s = check_fabric_peer(FI_ADDR_STR, "shm", victim, peer, true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("provider shm: fi_shm://" + std::to_string(other) + ":" + uid +
                             ":0 names process " + std::to_string(other)),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("127.0.0.1 (process " + std::to_string(me) + ")"), std::string::npos)
      << s.message();
  // Several processes hold the peer's socket (it forked): any of them.
  EXPECT_TRUE(
      check_fabric_peer(FI_ADDR_STR, "shm", victim, peer_at("127.0.0.1", {me, other}), false).ok());
}

TEST(FabricPeerCheckTest, AShmRegionOfAnotherUserIsRefusedInWords) {
  // Each side opens the other's region, created mode 600: two users cannot talk over shm, and
  // libfabric would only say EINVAL from fi_av_insert.
  pid_t me = getpid();
  ControlPeer peer = peer_at("127.0.0.1", {me});
  uid_t other_uid = geteuid() == 0 ? 65534 : 0;
  auto name = text_bytes("fi_shm://" + std::to_string(me) + ":" + std::to_string(other_uid) + ":0");
  auto decoded = decode_fabric_address(FI_ADDR_STR, "shm", name);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->uid, other_uid);
  Status s = check_fabric_peer(FI_ADDR_STR, "shm", name, peer, false);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the peer's shm region belongs to uid " + std::to_string(other_uid) +
                             " and this side runs as uid " + std::to_string(geteuid()) +
                             "; shm regions are mode 600, so both sides must be one user"),
            std::string::npos)
      << s.message();
}

TEST(FabricPeerCheckTest, ShmIsRefusedWhenThePeersProcessIsUnknown) {
  // A peer on another host: no process here holds its socket.
  ControlPeer remote = peer_at("192.0.2.7");
  auto name = text_bytes("fi_shm://" + std::to_string(getpid()) + ":0:0");
  Status s = check_fabric_peer(FI_ADDR_STR, "shm", name, remote, true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("shm is only for a peer on this host"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("192.0.2.7"), std::string::npos);
}

TEST(FabricPeerCheckTest, MalformedShmNamesAreRefused) {
  ControlPeer peer = peer_at("127.0.0.1", {getpid()});
  std::string me = std::to_string(getpid());
  for (const std::string& text : std::vector<std::string>{
           std::string("fi_shm://") + me + ":0", "fi_shm://" + me + ":0:0:1",
           "fi_shm://+" + me + ":0:0", "fi_shm://" + me + ":0:0/../x", "fi_shm://0:0:0",
           "fi_shm://" + me + ": 0:0", std::string("fi_shm://"), std::string("victim-region")}) {
    EXPECT_FALSE(check_fabric_peer(FI_ADDR_STR, "shm", text_bytes(text), peer, true).ok()) << text;
  }
  // Unterminated, or with a NUL inside: shm reads up to the first NUL.
  std::string name = "fi_shm://" + me + ":0:0";
  std::vector<uint8_t> unterminated(name.begin(), name.end());
  EXPECT_FALSE(check_fabric_peer(FI_ADDR_STR, "shm", unterminated, peer, true).ok());
  auto embedded = text_bytes(name);
  embedded.insert(embedded.begin() + 9, 0);
  EXPECT_FALSE(check_fabric_peer(FI_ADDR_STR, "shm", embedded, peer, true).ok());
}

TEST(FabricPeerCheckTest, FabricOnlyAddressesNeedTheServersTrust) {
  ControlPeer peer = peer_at("10.1.1.2");
  // struct cxip_addr: pid 5 (9 bits), NIC 0x12345 (20 bits); VNI 10.
  std::vector<uint8_t> cxi(8, 0);
  uint32_t word = 5u | (0x12345u << 9);
  uint16_t vni = 10;
  std::memcpy(cxi.data(), &word, 4);
  std::memcpy(cxi.data() + 4, &vni, 2);
  Status s = check_fabric_peer(FI_ADDR_CXI, "cxi", cxi, peer, false);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("FI_ADDR_CXI NIC 0x12345 pid 5 VNI 10"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("--trust_fabric_addrs"), std::string::npos);
  EXPECT_NE(s.message().find("10.1.1.2"), std::string::npos);
  EXPECT_TRUE(check_fabric_peer(FI_ADDR_CXI, "cxi", cxi, peer, true).ok());
  for (uint32_t format :
       std::vector<uint32_t>{FI_ADDR_EFA, FI_SOCKADDR_IB, FI_ADDR_IB_UD, FI_ADDR_PSMX2,
                             FI_ADDR_PSMX3, FI_ADDR_OPX, FI_FORMAT_UNSPEC, 999u}) {
    std::vector<uint8_t> name(32, 0xab);
    EXPECT_FALSE(check_fabric_peer(format, "x", name, peer, false).ok()) << format;
    EXPECT_TRUE(check_fabric_peer(format, "x", name, peer, true).ok()) << format;
    EXPECT_FALSE(check_fabric_peer(format, "x", {}, peer, true).ok()) << "empty " << format;
  }
}

TEST(FabricPeerCheckTest, AConnectionRequestMustComeFromTheControlPeer) {
  InfoPtr connreq(fi_allocinfo());
  ASSERT_TRUE(connreq);
  connreq->addr_format = FI_SOCKADDR_IN;
  // A provider that does not say where the request came from: refused, not trusted.
  Status s = check_connection_request(*connreq, "tcp", peer_at("127.0.0.1"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("fabric peer check: provider tcp: "), std::string::npos);
  auto source = sockaddr_bytes("127.0.0.3", 40000);
  connreq->dest_addr = std::malloc(source.size());  // fi_freeinfo frees it
  std::memcpy(connreq->dest_addr, source.data(), source.size());
  connreq->dest_addrlen = source.size();
  s = check_connection_request(*connreq, "tcp", peer_at("127.0.0.1"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("address 127.0.0.3:40000 is not the control connection's peer "
                             "127.0.0.1"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(check_connection_request(*connreq, "tcp", peer_at("127.0.0.3")).ok());
}

TEST(FabricPeerCheckTest, AProcessAskingItselfNeedsNoTrust) {
  // --loopback, fab_loopback_bw: the control peer is this process, naming its own endpoint.
  std::vector<uint8_t> cxi(8, 1);
  EXPECT_TRUE(
      check_fabric_peer(FI_ADDR_CXI, "cxi", cxi, peer_at("127.0.0.1", {getpid()}), false).ok());
  EXPECT_FALSE(
      check_fabric_peer(FI_ADDR_CXI, "cxi", cxi, peer_at("127.0.0.1", {getpid() + 1}), false).ok());
}

TEST(FabricPeerCheckTest, TrustIsTheServersOptionAndOffByDefault) {
  EXPECT_FALSE(ControlPeer().trust_fabric_only);
  std::vector<uint8_t> cxi(8, 1);
  ControlPeer trusted = peer_at("127.0.0.1", {getpid() + 1});
  trusted.trust_fabric_only = true;
  fi_info info{};
  fi_fabric_attr fabric{};
  fabric.prov_name = const_cast<char*>("cxi");
  info.fabric_attr = &fabric;
  info.addr_format = FI_ADDR_CXI;
  EXPECT_TRUE(check_fabric_peer(info, cxi, trusted, Role::kServer).ok());
  trusted.trust_fabric_only = false;
  EXPECT_FALSE(check_fabric_peer(info, cxi, trusted, Role::kServer).ok());
  EXPECT_TRUE(check_fabric_peer(info, cxi, trusted, Role::kClient).ok());  // its user chose
}

TEST(FabricPeerCheckTest, ThePeerTravelsToASessionProcessWhole) {
  ControlPeer peer = peer_at("127.0.0.1", {41, 42});
  peer.self_pid = 7;
  peer.trust_fabric_only = true;
  ControlPeer back = ControlPeer::from_json(peer.to_json());
  EXPECT_EQ(back.host, "127.0.0.1");
  ASSERT_TRUE(back.pids.has_value());
  EXPECT_EQ(*back.pids, (std::vector<pid_t>{41, 42}));
  EXPECT_EQ(back.self_pid, 7);
  EXPECT_TRUE(back.trust_fabric_only);
  EXPECT_EQ(back.fd, -1);
}

}  // namespace
}  // namespace fabperf
