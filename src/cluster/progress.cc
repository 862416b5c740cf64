// Progress lines and the terminal bar.
#include "cluster/progress.h"

#include <fmt/format.h>

#include <cmath>

namespace fabperf::cluster {

std::string duration_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 60) return fmt::format("{:.1f} s", s);
  if (s < 3600)
    return fmt::format("{} min {} s", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  return fmt::format("{} h {} min", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
}

void Progress::line(const std::string& text) {
  done();
  fmt::print(out_, "{}\n", text);
  std::fflush(out_);
}

void Progress::round(size_t done, size_t total, double elapsed_s, double rounds_s,
                     uint64_t suspects, int unreachable) {
  double eta =
      done > 0 ? rounds_s / static_cast<double>(done) * static_cast<double>(total - done) : 0;
  std::string facts = fmt::format("round {} of {}, elapsed {}, ETA {}, suspects {}", done, total,
                                  duration_text(elapsed_s), duration_text(eta), suspects);
  if (unreachable > 0) facts += fmt::format(", unreachable {}", unreachable);
  if (!terminal_) {
    fmt::print(out_, "matrix: {}\n", facts);
  } else {
    constexpr int kWidth = 30;
    int filled = total > 0 ? static_cast<int>(kWidth * done / total) : kWidth;
    fmt::print(out_, "\r[{}{}] {}\x1b[K", std::string(static_cast<size_t>(filled), '#'),
               std::string(static_cast<size_t>(kWidth - filled), '.'), facts);
    bar_open_ = true;
  }
  std::fflush(out_);
}

void Progress::done() {
  if (bar_open_) {
    fmt::print(out_, "\n");
    std::fflush(out_);
    bar_open_ = false;
  }
}

}  // namespace fabperf::cluster
