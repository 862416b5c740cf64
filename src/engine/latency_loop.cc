// The latency loop's gap between iterations.
#include "engine/latency_loop.h"

namespace fabperf {

void wait_gap(int64_t gap_ns) {
  int64_t until = now_ns() + gap_ns;
  constexpr int64_t kSpinNs = 60'000;
  if (gap_ns > kSpinNs) {
    int64_t sleep_ns = gap_ns - kSpinNs;
    timespec ts{static_cast<time_t>(sleep_ns / 1'000'000'000),
                static_cast<long>(sleep_ns % 1'000'000'000)};
    nanosleep(&ts, nullptr);
  }
  while (now_ns() < until) {
  }
}

}  // namespace fabperf
