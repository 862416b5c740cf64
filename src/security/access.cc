// CIDR parsing and matching for --allow; v4-mapped IPv6 addresses compare as IPv4.
#include "security/access.h"

#include <arpa/inet.h>

#include <cstring>

#include "core/units.h"

namespace fabperf {

namespace {

bool prefix_matches(const uint8_t* a, const uint8_t* b, int bits) {
  int whole = bits / 8;
  if (memcmp(a, b, static_cast<size_t>(whole)) != 0) return false;
  int rest = bits % 8;
  if (rest == 0) return true;
  uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

constexpr uint8_t kV4MappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

}  // namespace

Result<Cidr> parse_cidr(std::string_view text) {
  std::string who = "--allow: \"" + std::string(text.substr(0, 64)) + "\"";
  if (text.empty() || text.size() > 64) return Status::usage(who + ": not an address block");
  std::string addr_text(text);
  int prefix = -1;
  auto slash = addr_text.find('/');
  if (slash != std::string::npos) {
    auto bits = parse_int(addr_text.substr(slash + 1), 0, 128);
    if (!bits.ok()) return Status::usage(who + ": bad prefix length (0 to 32 or 128)");
    prefix = static_cast<int>(*bits);
    addr_text = addr_text.substr(0, slash);
  }
  Cidr cidr;
  cidr.text = std::string(text);
  in_addr a4{};
  in6_addr a6{};
  if (inet_pton(AF_INET, addr_text.c_str(), &a4) == 1) {
    if (prefix > 32) return Status::usage(who + ": an IPv4 prefix is at most 32 bits");
    memcpy(cidr.addr.data(), &a4, 4);
    cidr.prefix = prefix < 0 ? 32 : prefix;
  } else if (inet_pton(AF_INET6, addr_text.c_str(), &a6) == 1) {
    cidr.prefix = prefix < 0 ? 128 : prefix;
    if (IN6_IS_ADDR_V4MAPPED(&a6) && cidr.prefix >= 96) {
      memcpy(cidr.addr.data(), &a6.s6_addr[12], 4);
      cidr.prefix -= 96;
    } else {
      cidr.v6 = true;
      memcpy(cidr.addr.data(), &a6, 16);
    }
  } else {
    return Status::usage(who +
                         ": not an IPv4 or IPv6 address (numeric, like 10.0.0.0/8 or "
                         "fd00::/8)");
  }
  // Host bits set below the prefix are almost always a typo (10.1.2.3/8 meant 10.0.0.0/8?).
  int total = cidr.v6 ? 128 : 32;
  for (int bit = cidr.prefix; bit < total; ++bit) {
    if (cidr.addr[static_cast<size_t>(bit / 8)] & (0x80 >> (bit % 8))) {
      return Status::usage(who + ": host bits set below the /" + std::to_string(cidr.prefix) +
                           " prefix");
    }
  }
  return cidr;
}

Result<AllowList> AllowList::parse(std::string_view text) {
  AllowList list;
  if (text.empty()) return list;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    auto cidr = parse_cidr(item);
    if (!cidr.ok()) return cidr.status();
    if (list.blocks_.size() >= kMaxAllowBlocks) {
      return Status::usage("--allow: more than " + std::to_string(kMaxAllowBlocks) + " blocks");
    }
    list.blocks_.push_back(*cidr);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return list;
}

bool AllowList::allows(const SockAddr& peer) const {
  if (blocks_.empty()) return true;
  uint8_t v4[4];
  const uint8_t* v6 = nullptr;
  bool is_v4 = false;
  if (peer.family() == AF_INET) {
    memcpy(v4, &reinterpret_cast<const sockaddr_in*>(&peer.storage)->sin_addr, 4);
    is_v4 = true;
  } else if (peer.family() == AF_INET6) {
    v6 = reinterpret_cast<const sockaddr_in6*>(&peer.storage)->sin6_addr.s6_addr;
    if (memcmp(v6, kV4MappedPrefix, 12) == 0) {
      memcpy(v4, v6 + 12, 4);
      is_v4 = true;
    }
  } else {
    return false;
  }
  for (const Cidr& block : blocks_) {
    if (block.v6 == is_v4) continue;
    if (prefix_matches(block.addr.data(), is_v4 ? v4 : v6, block.prefix)) return true;
  }
  return false;
}

}  // namespace fabperf
