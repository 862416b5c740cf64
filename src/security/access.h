// Access control by source address: the server's --allow list of CIDR blocks (IPv4 and IPv6).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "net/socket.h"

namespace fabperf {

// One address block. IPv4 blocks are kept as IPv4 (a v4-mapped IPv6 block is folded into
// one), so 127.0.0.0/8 matches a client however the dual-stack listener saw it.
struct Cidr {
  bool v6 = false;
  std::array<uint8_t, 16> addr{};  // first 4 bytes used for IPv4
  int prefix = 0;                  // bits
  std::string text;                // as given, for messages
};

Result<Cidr> parse_cidr(std::string_view text);

// An empty list allows everyone (the default); otherwise a peer must fall in one block.
class AllowList {
 public:
  // "CIDR[,CIDR...]"; a bare address is a host block (/32 or /128).
  static Result<AllowList> parse(std::string_view text);
  bool empty() const { return blocks_.empty(); }
  bool allows(const SockAddr& peer) const;
  // A block the program itself knows (a --matrix job's peers): not bounded by kMaxAllowBlocks.
  void add(const Cidr& block) { blocks_.push_back(block); }
  const std::vector<Cidr>& blocks() const { return blocks_; }

 private:
  std::vector<Cidr> blocks_;
};

// Bounds on what --allow accepts, so a hostile config cannot make every accept slow.
inline constexpr size_t kMaxAllowBlocks = 256;

}  // namespace fabperf
