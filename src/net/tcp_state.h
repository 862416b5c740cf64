// What the kernel knows of a TCP connection that no reader has to take from it: how long ago
// the peer last sent data, its receive window, the segment size. Watching a connection this
// way works while another process (a session child) owns the reading.
#pragma once

#include <cstdint>

#include "core/status.h"

namespace fabperf {

struct TcpState {
  uint32_t last_data_recv_ms = 0;  // since the last segment that carried data from the peer
  uint32_t peer_window = 0;        // the peer's advertised receive window; 0 when unknown
  uint32_t mss = 0;                // this side's send segment size
};

// TCP_INFO of `fd`; fails for a socket that is not TCP.
Result<TcpState> tcp_state(int fd);

}  // namespace fabperf
