// The pairing patterns: round-robin tournament, ring shifts, serial pairs, and a file's pairs.
#include "cluster/schedule.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/file_text.h"

namespace fabperf::cluster {

namespace {

constexpr uint64_t kMaxFileBytes = 256ull << 20;

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::string in_job(int rank, int ranks) {
  return "rank " + std::to_string(rank) + " is not in the job (" + std::to_string(ranks) +
         " ranks: 0 to " + std::to_string(ranks - 1) + ")";
}

// Pair index -> (i, j), i < j, in the order (0,1) (0,2) .. (0,N-1) (1,2) ..
Pair unrank_pair(uint64_t index, int n) {
  auto before = [n](uint64_t i) { return i * (2 * static_cast<uint64_t>(n) - i - 1) / 2; };
  double nn = n;
  double estimate =
      nn - 0.5 - std::sqrt((nn - 0.5) * (nn - 0.5) - 2.0 * static_cast<double>(index));
  uint64_t i = estimate < 0 ? 0 : static_cast<uint64_t>(estimate);
  while (i > 0 && before(i) > index) --i;
  while (before(i + 1) <= index) ++i;
  return {static_cast<int>(i), static_cast<int>(i + 1 + (index - before(i)))};
}

// One line of a pairs file: its round as given (-1: none), its pair, its line number.
struct PairLine {
  int64_t round;
  Pair pair;
  size_t line;
};

// The pairs file's lines, each pair checked; fields_seen: 2 (CLIENT SERVER) or 3 (with ROUND).
Result<std::vector<PairLine>> read_pair_lines(std::string_view text, int ranks,
                                              const std::string& origin, int& fields_seen) {
  std::vector<PairLine> lines;
  std::unordered_set<uint64_t> seen;
  size_t line_no = 0, start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream in(line);
    std::vector<int64_t> numbers;
    std::string token;
    std::string where = origin + ": line " + std::to_string(line_no) + ": ";
    while (in >> token) {
      if (token.empty() || token.size() > 18 ||
          !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return Status::usage(where + "\"" + token.substr(0, 32) + "\" is not a rank number");
      }
      numbers.push_back(std::stoll(token));
    }
    if (numbers.empty()) continue;
    int fields = static_cast<int>(numbers.size());
    if (fields != 2 && fields != 3) {
      return Status::usage(where + "expected CLIENT SERVER or ROUND CLIENT SERVER");
    }
    if (fields_seen != 0 && fields != fields_seen) {
      return Status::usage(where + "mixes lines with and without a round number");
    }
    fields_seen = fields;
    int64_t a = numbers[fields - 2], b = numbers[fields - 1];
    if (a >= ranks)
      return Status::usage(where +
                           in_job(static_cast<int>(std::min<int64_t>(a, INT32_MAX)), ranks));
    if (b >= ranks)
      return Status::usage(where +
                           in_job(static_cast<int>(std::min<int64_t>(b, INT32_MAX)), ranks));
    if (a == b) return Status::usage(where + "a rank cannot measure itself");
    if (!seen.insert(static_cast<uint64_t>(a) * static_cast<uint64_t>(ranks) +
                     static_cast<uint64_t>(b))
             .second) {
      return Status::usage(where + "pair " + std::to_string(a) + " " + std::to_string(b) +
                           " is listed twice");
    }
    lines.push_back(
        {fields == 3 ? numbers[0] : -1, {static_cast<int>(a), static_cast<int>(b)}, line_no});
  }
  if (lines.empty()) return Status::usage(origin + ": lists no pairs");
  return lines;
}

// The rounds as the file numbers them, into round_of; returns how many, or the line where a
// rank is in a round twice.
Result<size_t> given_rounds(const std::vector<PairLine>& lines, int ranks,
                            const std::string& origin, std::vector<size_t>& round_of) {
  size_t rounds = 0;
  std::map<int64_t, size_t> index;  // given round numbers, in order -> 0..R-1
  for (const PairLine& l : lines) index.emplace(l.round, 0);
  for (auto& [given, i] : index) i = rounds++;
  std::unordered_map<uint64_t, size_t> busy;  // round * N + rank -> line
  for (size_t i = 0; i < lines.size(); ++i) {
    round_of[i] = index[lines[i].round];
    for (int rank : {lines[i].pair.client, lines[i].pair.server}) {
      uint64_t key = round_of[i] * static_cast<uint64_t>(ranks) + static_cast<uint64_t>(rank);
      auto [it, fresh] = busy.emplace(key, lines[i].line);
      if (!fresh) {
        return Status::usage(origin + ": line " + std::to_string(lines[i].line) + ": rank " +
                             std::to_string(rank) + " is already in round " +
                             std::to_string(lines[i].round) + " (line " +
                             std::to_string(it->second) + ")");
      }
    }
  }
  return rounds;
}

// The pairs packed into rounds (shuffled first with randomize), into round_of; returns how many.
size_t packed_rounds(std::vector<PairLine>& lines, int ranks, bool randomize, uint64_t seed,
                     std::vector<size_t>& round_of) {
  size_t rounds = 0;
  if (randomize) std::shuffle(lines.begin(), lines.end(), std::mt19937_64(seed));
  // In order, each pair in the first round after both its ranks' previous pairs.
  std::vector<size_t> next_free(static_cast<size_t>(ranks), 0);
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t a = static_cast<size_t>(lines[i].pair.client),
           b = static_cast<size_t>(lines[i].pair.server);
    round_of[i] = std::max(next_free[a], next_free[b]);
    next_free[a] = next_free[b] = round_of[i] + 1;
    rounds = std::max(rounds, round_of[i] + 1);
  }
  return rounds;
}

}  // namespace

std::string PatternSpec::name() const {
  switch (kind) {
    case PatternKind::kAll:
      return "all";
    case PatternKind::kShift:
      return "shift";
    case PatternKind::kSerial:
      return "serial";
    case PatternKind::kFile:
      return "file:" + path;
    case PatternKind::kAdaptive:
      return "adaptive";
  }
  return "?";
}

Result<PatternSpec> parse_pattern(std::string_view text) {
  PatternSpec spec;
  if (text == "all") return spec;
  if (text == "shift") {
    spec.kind = PatternKind::kShift;
    return spec;
  }
  if (text == "serial") {
    spec.kind = PatternKind::kSerial;
    return spec;
  }
  if (text == "adaptive") {
    spec.kind = PatternKind::kAdaptive;
    return spec;
  }
  if (text.rfind("file:", 0) == 0 && text.size() > 5) {
    spec.kind = PatternKind::kFile;
    spec.path = std::string(text.substr(5));
    return spec;
  }
  return Status::usage("--pattern: " + std::string(text) +
                       ": expected all, shift, serial, adaptive or file:PAIRS");
}

IndexPermutation::IndexPermutation(uint64_t size, uint64_t seed, bool identity)
    : size_(size), seed_(seed), identity_(identity || size < 2) {
  int bits = 2;
  while (bits < 62 && (uint64_t{1} << bits) < size) ++bits;
  half_bits_ = (bits + 1) / 2;
}

uint64_t IndexPermutation::operator()(uint64_t index) const {
  if (identity_) return index;
  const uint64_t mask = (uint64_t{1} << half_bits_) - 1;
  uint64_t x = index;
  do {  // cycle-walk: a permutation of [0, 4^half) restricted to [0, size)
    uint64_t left = x >> half_bits_, right = x & mask;
    for (uint64_t round = 0; round < 4; ++round) {
      uint64_t f = mix(seed_ ^ (round * 0x632be59bd9b4e019ull) ^ right) & mask;
      uint64_t next = left ^ f;
      left = right;
      right = next;
    }
    x = (left << half_bits_) | right;
  } while (x >= size_);
  return x;
}

Schedule::Schedule(PatternKind kind, int ranks, bool randomize, uint64_t seed)
    : kind_(kind), ranks_(ranks), order_(static_cast<size_t>(ranks)), round_order_(1, seed, true) {
  std::iota(order_.begin(), order_.end(), 0);
  if (randomize) std::shuffle(order_.begin(), order_.end(), std::mt19937_64(seed));
}

Result<Schedule> Schedule::make(const PatternSpec& spec, int ranks, bool randomize, uint64_t seed) {
  if (ranks < 2) {
    return Status::usage("--matrix needs at least 2 ranks (this job has " + std::to_string(ranks) +
                         ")");
  }
  if (spec.kind == PatternKind::kFile) {
    const std::string origin = "--pattern file:" + spec.path;
    auto text = read_capped_file(spec.path, kMaxFileBytes, origin);
    if (!text.ok()) return text.status();
    return from_pairs_text(*text, ranks, randomize, seed, origin);
  }
  if (spec.kind == PatternKind::kAdaptive) {
    return Status::usage("--pattern adaptive is planned round by round, not scheduled");
  }
  Schedule s(spec.kind, ranks, randomize, seed);
  uint64_t n = static_cast<uint64_t>(ranks);
  switch (spec.kind) {
    case PatternKind::kAll:
      s.rounds_ = n % 2 == 0 ? n - 1 : n;
      s.pair_count_ = n * (n - 1) / 2;
      break;
    case PatternKind::kShift:
      s.rounds_ = n - 1;
      s.pair_count_ = n * (n - 1);
      break;
    case PatternKind::kSerial:
      s.rounds_ = n * (n - 1) / 2;
      s.pair_count_ = s.rounds_;
      break;
    case PatternKind::kFile:
    case PatternKind::kAdaptive:
      break;
  }
  s.round_order_ = IndexPermutation(s.rounds_, mix(seed + 1), !randomize);
  return s;
}

std::vector<Pair> Schedule::round(size_t k) const {
  std::vector<Pair> out;
  if (k >= rounds_) return out;
  uint64_t r = round_order_(k);
  auto pair = [&](uint64_t a, uint64_t b) {
    out.push_back({order_[static_cast<size_t>(a)], order_[static_cast<size_t>(b)]});
  };
  switch (kind_) {
    case PatternKind::kAll: {
      // The circle method: node M (= the phantom "bye" when N is odd) stays put, the others
      // turn around it; round r pairs r with M and (r+k) with (r-k) around the circle.
      uint64_t n = static_cast<uint64_t>(ranks_), even = n + n % 2, m = even - 1;
      out.reserve(static_cast<size_t>(even / 2));
      if (m < n) {
        if (r % 2 == 0)
          pair(r, m);
        else
          pair(m, r);
      }
      for (uint64_t d = 1; d < even / 2; ++d) {
        uint64_t a = (r + d) % m, b = (r + m - d) % m;
        if (d % 2 == 1)
          pair(a, b);
        else
          pair(b, a);  // each rank a client about half the time
      }
      break;
    }
    case PatternKind::kShift: {
      uint64_t n = static_cast<uint64_t>(ranks_), d = r + 1;
      out.reserve(static_cast<size_t>(n));
      for (uint64_t i = 0; i < n; ++i) pair(i, (i + d) % n);
      break;
    }
    case PatternKind::kSerial: {
      Pair p = unrank_pair(r, ranks_);
      if (r % 2 == 0)
        pair(p.client, p.server);
      else
        pair(p.server, p.client);
      break;
    }
    case PatternKind::kAdaptive:
      break;
    case PatternKind::kFile:
      out.assign(pairs_.begin() + static_cast<ptrdiff_t>(round_start_[r]),
                 pairs_.begin() + static_cast<ptrdiff_t>(round_start_[r + 1]));
      break;
  }
  return out;
}

Result<Schedule> Schedule::from_pairs_text(std::string_view text, int ranks, bool randomize,
                                           uint64_t seed, const std::string& origin) {
  if (ranks < 2) return Status::usage("--matrix needs at least 2 ranks");
  int fields_seen = 0;
  auto read = read_pair_lines(text, ranks, origin, fields_seen);
  if (!read.ok()) return read.status();
  std::vector<PairLine>& lines = *read;
  Schedule s(PatternKind::kFile, ranks, false, seed);
  std::vector<size_t> round_of(lines.size());
  size_t rounds = 0;
  if (fields_seen == 3) {
    auto given = given_rounds(lines, ranks, origin, round_of);
    if (!given.ok()) return given.status();
    rounds = *given;
  } else {
    rounds = packed_rounds(lines, ranks, randomize, seed, round_of);
  }
  s.round_start_.assign(rounds + 1, 0);
  for (size_t r : round_of) ++s.round_start_[r + 1];
  for (size_t r = 0; r < rounds; ++r) s.round_start_[r + 1] += s.round_start_[r];
  s.pairs_.resize(lines.size());
  std::vector<size_t> fill(s.round_start_.begin(), s.round_start_.end() - 1);
  for (size_t i = 0; i < lines.size(); ++i) s.pairs_[fill[round_of[i]]++] = lines[i].pair;
  s.rounds_ = rounds;
  s.pair_count_ = lines.size();
  s.round_order_ = IndexPermutation(rounds, mix(seed + 1), !(randomize && fields_seen == 3));
  return s;
}

}  // namespace fabperf::cluster
