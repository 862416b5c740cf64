// The latency loop's gap between iterations: a real one, or the CXI tools' busy-wait.
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

nlohmann::json GapRecord::to_json() const {
  return {{"mode", original ? "original" : "exact"},
          {"how", original ? "busy-wait as the CXI tools' active_sleep: it ends once the times "
                             "since its start add up to the gap"
                           : "sleep, then spin to the end of the gap"},
          {"asked_us", asked_ns / 1000},
          {"mean_us",
           count > 0 ? static_cast<double>(total_ns) / static_cast<double>(count) / 1e3 : 0.0},
          {"gaps", count}};
}

}  // namespace fabperf
