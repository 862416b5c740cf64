// udp_bw's pacing, stamps, loss and jitter.
#include "socket/udp_pacing.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/clock.h"

namespace fabperf {

namespace {
constexpr int64_t kMaxWaitNs = 10'000'000;  // a paced sender looks at ^C and its limit this often
}  // namespace

bool udp_stamped(const RunOptions& opts, const SocketProtocol& proto) {
  return opts.udp_rate > 0 && !proto.reliable && !proto.byte_stream &&
         opts.msg_size >= kUdpStampBytes;
}

UdpPacer::UdpPacer(const TestContext& ctx, const SocketProtocol& proto, size_t size,
                   const StreamWorker& w)
    : size_(size), start_ns_(w.start_ns), now_(w.start_ns) {
  if (ctx.opts.udp_rate == 0 || proto.reliable) return;
  on_ = true;
  stamped_ = udp_stamped(ctx.opts, proto);
  const double streams = static_cast<double>(std::max<uint64_t>(1, ctx.opts.streams));
  const double bits_per_s = static_cast<double>(ctx.opts.udp_rate) / streams;
  ns_per_msg_ = static_cast<double>(size) * 8 * 1e9 / bits_per_s;
  buf_.assign(size, 0);
}

uint64_t UdpPacer::due(uint64_t sent, uint64_t most, int64_t end_ns) {
  now_ = now_ns();
  const double elapsed = static_cast<double>(now_ - start_ns_);
  const uint64_t due_by_now = static_cast<uint64_t>(elapsed / ns_per_msg_) + 1;
  if (sent < due_by_now) return std::min<uint64_t>(due_by_now - sent, std::max<uint64_t>(most, 1));
  const int64_t next = start_ns_ + static_cast<int64_t>(static_cast<double>(sent) * ns_per_msg_);
  int64_t wait = std::min({next - now_, kMaxWaitNs, end_ns - now_});
  if (wait > 0) {
    timespec ts{static_cast<time_t>(wait / 1000000000), static_cast<long>(wait % 1000000000)};
    nanosleep(&ts, nullptr);
  }
  now_ = now_ns();
  return 0;
}

Result<uint64_t> UdpPacer::send(DataLink& link, const char* letters, uint64_t count,
                                uint64_t first) {
  if (!stamped_) {
    auto sent = link.send_msgs(letters, size_, count);
    now_ = now_ns();
    return sent;
  }
  if (!filled_) {
    std::memcpy(buf_.data(), letters, size_);
    filled_ = true;
  }
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t seq = first + i;
    now_ = now_ns();
    std::memcpy(buf_.data(), &seq, sizeof seq);
    std::memcpy(buf_.data() + sizeof seq, &now_, sizeof now_);
    Status s = link.send_msg(buf_.data(), size_);
    if (!s.ok()) return i > 0 ? Result<uint64_t>(i) : Result<uint64_t>(s);
  }
  return count;
}

void UdpArrivals::on_datagram(const char* data, size_t len, int64_t arrival_ns) {
  if (len < kUdpStampBytes) return;
  uint64_t seq = 0;
  int64_t sent = 0;
  std::memcpy(&seq, data, sizeof seq);
  std::memcpy(&sent, data + sizeof seq, sizeof sent);
  ++received_;
  next_seq_ = std::max(next_seq_, seq + 1);
  const int64_t transit = arrival_ns - sent;
  if (have_transit_) {
    const double d = std::fabs(static_cast<double>(transit - transit_ns_));
    jitter_ns_ += (d - jitter_ns_) / 16;
  }
  transit_ns_ = transit;
  have_transit_ = true;
}

uint64_t UdpArrivals::lost() const { return next_seq_ > received_ ? next_seq_ - received_ : 0; }

int64_t drain_datagrams(DataLink& link, char* buf, size_t size, StreamCounters& c,
                        UdpArrivals* arrivals) {
  int64_t last = 0;
  for (;;) {
    auto more = link.recv_some(buf, size, 0.01);
    if (!more.ok() || *more == 0) break;
    c.recv_bytes += *more;
    c.recv_msgs++;
    last = now_ns();
    if (arrivals != nullptr) arrivals->on_datagram(buf, *more, last);
  }
  return last;
}

}  // namespace fabperf
