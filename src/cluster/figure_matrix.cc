// Which figure a test contributes, and the matrix that holds it in one of three layouts.
#include "cluster/figure_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabperf::cluster {

namespace {

constexpr float kNone = std::numeric_limits<float>::quiet_NaN();
constexpr float kFailed = -std::numeric_limits<float>::infinity();
constexpr uint32_t kAsServer = 0x80000000u;

bool better_than(double a, double b, Better better) {
  return better == Better::kLower ? a < b : a > b;
}

}  // namespace

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

const char* layout_name(MatrixLayout layout) {
  switch (layout) {
    case MatrixLayout::kSquare:
      return "square";
    case MatrixLayout::kTriangle:
      return "triangle";
    case MatrixLayout::kSparse:
      return "sparse";
  }
  return "?";
}

FigureMatrix::FigureMatrix(int ranks, MatrixLayout layout) : ranks_(ranks), layout_(layout) {
  const size_t n = static_cast<size_t>(ranks);
  switch (layout) {
    case MatrixLayout::kSquare:
      cells_.assign(n * n, kNone);
      break;
    case MatrixLayout::kTriangle:
      cells_.assign(n * (n - 1) / 2, kNone);
      reverse_.assign((cells_.size() + 63) / 64, 0);
      break;
    case MatrixLayout::kSparse:
      peers_.resize(n);
      break;
  }
}

MatrixLayout FigureMatrix::layout_for(int ranks, uint64_t pairs_planned, bool ordered) {
  uint64_t n = static_cast<uint64_t>(ranks), unordered = n * (n - 1) / 2;
  if (pairs_planned * 4 < unordered) return MatrixLayout::kSparse;
  return ordered ? MatrixLayout::kSquare : MatrixLayout::kTriangle;
}

size_t FigureMatrix::tri(int a, int b) const {
  size_t i = static_cast<size_t>(std::min(a, b)), j = static_cast<size_t>(std::max(a, b));
  size_t n = static_cast<size_t>(ranks_);
  return i * (2 * n - i - 1) / 2 + (j - i - 1);
}

float* FigureMatrix::cell(int client, int server, bool create) {
  if (client == server) return nullptr;
  switch (layout_) {
    case MatrixLayout::kSquare:
      return &cells_[key(client, server)];
    case MatrixLayout::kTriangle:
      return &cells_[tri(client, server)];
    case MatrixLayout::kSparse: {
      if (create) return &sparse_.try_emplace(key(client, server), kNone).first->second;
      auto it = sparse_.find(key(client, server));
      return it == sparse_.end() ? nullptr : &it->second;
    }
  }
  return nullptr;
}

const float* FigureMatrix::cell(int client, int server) const {
  return const_cast<FigureMatrix*>(this)->cell(client, server, false);
}

bool FigureMatrix::stored_forward(int client, int server) const {
  if (layout_ != MatrixLayout::kTriangle) return true;
  size_t i = tri(client, server);
  bool reversed = (reverse_[i / 64] >> (i % 64)) & 1;
  return reversed == (client > server);
}

void FigureMatrix::note_new(int client, int server) {
  switch (layout_) {
    case MatrixLayout::kSquare: {
      float other = cells_[key(server, client)];
      if (std::isnan(other)) ++pairs_;
      break;
    }
    case MatrixLayout::kTriangle:
      ++pairs_;
      break;
    case MatrixLayout::kSparse: {
      const float* other = cell(server, client);
      if (other == nullptr || std::isnan(*other)) ++pairs_;
      peers_[static_cast<size_t>(client)].push_back(static_cast<uint32_t>(server));
      peers_[static_cast<size_t>(server)].push_back(static_cast<uint32_t>(client) | kAsServer);
      break;
    }
  }
}

void FigureMatrix::set(int client, int server, double value) {
  float* c = cell(client, server, true);
  if (c == nullptr) return;
  if (std::isnan(*c)) {
    ++measured_;
    note_new(client, server);
  } else if (std::isinf(*c)) {
    --failed_;
    ++measured_;
    errors_.erase(key(client, server));
    errors_.erase(key(server, client));
  }
  *c = static_cast<float>(std::min<double>(value, std::numeric_limits<float>::max()));
  if (layout_ == MatrixLayout::kTriangle) {
    size_t i = tri(client, server);
    uint64_t bit = uint64_t{1} << (i % 64);
    reverse_[i / 64] = client > server ? reverse_[i / 64] | bit : reverse_[i / 64] & ~bit;
  }
}

uint64_t FigureMatrix::repeat_slot(int client, int server) const {
  return layout_ == MatrixLayout::kTriangle ? tri(client, server) : key(client, server);
}

void FigureMatrix::record(int client, int server, double value, Better better) {
  float* c = cell(client, server, true);
  if (c == nullptr) return;
  if (std::isnan(*c) || std::isinf(*c)) {
    set(client, server, value);
    return;
  }
  ++repeats_;
  uint64_t slot = repeat_slot(client, server);
  uint8_t repeats = 0;
  if (layout_ == MatrixLayout::kSparse) {
    uint8_t& n = sparse_counts_[slot];
    repeats = n = static_cast<uint8_t>(std::min(255, n + 1));
  } else {
    if (counts_.empty()) counts_.assign(cells_.size(), 0);
    repeats = counts_[slot] = static_cast<uint8_t>(std::min(255, counts_[slot] + 1));
  }
  double kept = *c, worse = value;
  if (repeats == 1 && kept > 0 && value > 0) {  // its second run: against its first
    if (first_gaps_.empty()) first_gaps_.assign(kGapBins, 0);
    double gap = std::fabs(std::log(value / kept)) / kGapStep;
    ++first_gaps_[gap >= kGapBins - 1 ? kGapBins - 1 : static_cast<size_t>(gap)];
    ++first_gap_count_;
  }
  if (better_than(value, kept, better)) {
    worse = kept;
    set(client, server, value);
    kept = value;
  }
  auto off_by = [&](double factor) {
    return better == Better::kLower ? worse > kept * factor : worse * factor < kept;
  };
  if (!off_by(kWorseBy)) return;
  if (!worse_keys_.may_hold(slot) || !worse_.contains(slot)) {
    // Past the limit, only a new pair whose run is as far off as a flap (record()).
    if (worse_.pairs() >= (off_by(kFlapWorseBy) ? 2 * worse_limit_ : worse_limit_)) return;
    worse_keys_.add(slot);
  }
  worse_.add(slot, static_cast<float>(worse));
}

double FigureMatrix::run_spread() const {
  if (first_gap_count_ < kMinRepeatPairs) return 0;
  // The median |difference| of two runs of sigma each is 0.6745 * sqrt(2) * sigma.
  const double half = static_cast<double>(first_gap_count_) / 2;
  double seen = 0;
  for (size_t b = 0; b < kGapBins; ++b) {
    const uint32_t c = first_gaps_[b];
    if (c > 0 && seen + c >= half) {
      const double median = kGapStep * (static_cast<double>(b) + (half - seen) / c);
      return median / (0.6745 * std::sqrt(2.0));
    }
    seen += c;
  }
  return kGapStep * kGapBins / (0.6745 * std::sqrt(2.0));
}

uint32_t FigureMatrix::measurements(int client, int server) const {
  const float* c = cell(client, server);
  if (c == nullptr || std::isnan(*c) || std::isinf(*c)) return 0;
  uint64_t slot = repeat_slot(client, server);
  if (layout_ == MatrixLayout::kSparse) {
    auto it = sparse_counts_.find(slot);
    return 1 + (it == sparse_counts_.end() ? 0 : it->second);
  }
  return 1 + (counts_.empty() ? 0 : counts_[slot]);
}

std::vector<float> FigureMatrix::worse_values(int client, int server) const {
  std::vector<float> out;
  for_each_worse(client, server, [&](float v) { out.push_back(v); });
  return out;
}

std::optional<double> FigureMatrix::get(int client, int server) const {
  const float* c = cell(client, server);
  if (c == nullptr || !std::isfinite(*c) || !stored_forward(client, server)) return std::nullopt;
  return *c;
}

void FigureMatrix::fail(int client, int server, const std::string& error) {
  float* c = cell(client, server, true);
  if (c == nullptr || !std::isnan(*c)) return;  // a value (or an earlier failure) stands
  *c = kFailed;
  ++failed_;
  note_new(client, server);
  if (layout_ == MatrixLayout::kTriangle) {
    size_t i = tri(client, server);
    uint64_t bit = uint64_t{1} << (i % 64);
    reverse_[i / 64] = client > server ? reverse_[i / 64] | bit : reverse_[i / 64] & ~bit;
  }
  if (errors_.size() < kMaxErrorTexts) errors_[key(client, server)] = error;
}

bool FigureMatrix::failed(int client, int server) const {
  const float* c = cell(client, server);
  return c != nullptr && std::isinf(*c) && stored_forward(client, server);
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
  retest_keys_.add(key(client, server));
  std::vector<float>& values = retests_[key(client, server)];
  if (values.size() < kMaxRetests) {
    values.push_back(static_cast<float>(value));
  } else {
    values.back() = static_cast<float>(value);
  }
}

const std::vector<float>* FigureMatrix::retests(int client, int server) const {
  if (!retest_keys_.may_hold(key(client, server))) return nullptr;
  auto it = retests_.find(key(client, server));
  return it == retests_.end() ? nullptr : &it->second;
}

size_t FigureMatrix::bytes() const {
  return cells_.size() * sizeof(float) + reverse_.size() * sizeof(uint64_t) + sparse_.size() * 40 +
         counts_.size() + worse_.bytes();
}

}  // namespace fabperf::cluster
