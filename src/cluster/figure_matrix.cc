// Which figure a test contributes, and the dense matrix that holds it.
#include "cluster/figure_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabperf::cluster {

FigureDef figure_for(const TestSpec& spec) {
  switch (spec.kind) {
    case TestKind::kLatency:
      return {FigureKind::kLatencyP50, "latency_ns.p50", "ns", Better::kLower, true};
    case TestKind::kBandwidth:
      return {FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher, false};
    case TestKind::kBiBandwidth:
      return {FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher, true};
    case TestKind::kMsgRate:
    case TestKind::kVerify:
    case TestKind::kMisc:
      break;
  }
  return {FigureKind::kMsgRate, "msg_rate", "msg/s", Better::kHigher, false};
}

std::optional<double> figure_value(const TestResult& result, const FigureDef& figure) {
  const Figures& f = result.figures;
  std::optional<double> v;
  switch (figure.kind) {
    case FigureKind::kLatencyP50:
      if (f.latency && f.latency->samples > 0) {
        for (const auto& [p, value] : f.latency->percentiles) {
          if (p == 50) v = value;
        }
      }
      break;
    case FigureKind::kRecvBandwidth:
      if (f.has_bandwidth) v = f.recv_Bps;
      break;
    case FigureKind::kMsgRate:
      v = f.msg_rate;
      break;
  }
  if (v && !std::isfinite(*v)) return std::nullopt;
  return v;
}

FigureMatrix::FigureMatrix(int ranks)
    : ranks_(ranks),
      cells_(static_cast<size_t>(ranks) * static_cast<size_t>(ranks),
             std::numeric_limits<float>::quiet_NaN()) {}

void FigureMatrix::set(int client, int server, double value) {
  float& cell = cells_[key(client, server)];
  if (std::isnan(cell)) ++measured_;
  if (std::isinf(cell)) {
    --failed_;
    ++measured_;
    errors_.erase(key(client, server));
  }
  cell = static_cast<float>(std::min<double>(value, std::numeric_limits<float>::max()));
}

std::optional<double> FigureMatrix::get(int client, int server) const {
  float v = cells_[key(client, server)];
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

void FigureMatrix::fail(int client, int server, const std::string& error) {
  float& cell = cells_[key(client, server)];
  if (!std::isnan(cell)) return;  // a value (or an earlier failure) stands
  cell = -std::numeric_limits<float>::infinity();
  ++failed_;
  if (errors_.size() < kMaxErrorTexts) errors_[key(client, server)] = error;
}

bool FigureMatrix::failed(int client, int server) const {
  return std::isinf(cells_[key(client, server)]);
}

const std::string* FigureMatrix::error(int client, int server) const {
  auto it = errors_.find(key(client, server));
  return it == errors_.end() ? nullptr : &it->second;
}

void FigureMatrix::set_noisy(int client, int server, bool noisy) {
  if (noisy) {
    noisy_.insert(key(client, server));
  } else {
    noisy_.erase(key(client, server));  // a quiet retest clears it
  }
}

void FigureMatrix::set_retest(int client, int server, double value) {
  retests_[key(client, server)] = static_cast<float>(value);
}

std::optional<double> FigureMatrix::retest(int client, int server) const {
  auto it = retests_.find(key(client, server));
  if (it == retests_.end()) return std::nullopt;
  return it->second;
}

}  // namespace fabperf::cluster
