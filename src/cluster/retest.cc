// Choosing the pairs to re-measure alone and packing them into rounds that share nothing.
#include "cluster/retest.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "cluster/fabric_findings.h"
#include "cluster/locate.h"
#include "cluster/matrix_run.h"

namespace fabperf::cluster {

namespace {

// Severity given to an element's pairs, so they come before every link.
constexpr double kElementFirst = 1e9;
// Severity given to pairs measured under host noise, so they come before everything.
constexpr double kNoisyFirst = 2 * kElementFirst;
// As the findings' test (fabric_findings.cc): the chance that some healthy pair is named.
constexpr double kLinkAlpha = 0.01;
// A pair that flapped is re-measured alone this many times a wave (in rounds of their own: a
// pair shares its ranks with itself).
constexpr uint32_t kFlapBatch = 4;

// One pair's flaps in a test (fabric_findings.h): in its rounds and alone, of how many runs.
struct Flaps {
  uint32_t rounds = 0, rounds_hit = 0, alone = 0, alone_hit = 0;
};

Flaps flaps_of(const MatrixRun& run, const TestFit& tf, size_t t, int a, int b, double best,
               double flap_limit) {
  const FigureMatrix& m = run.tests[t].matrix;
  Flaps f;
  f.rounds = m.measurements(a, b);
  if (pair_residual(run, tf, t, a, b, best) > flap_limit) {
    f.rounds_hit = f.rounds;  // the best of its rounds was off: every one was
  } else {
    m.for_each_worse(
        a, b, [&](float w) { f.rounds_hit += pair_residual(run, tf, t, a, b, w) > flap_limit; });
  }
  if (const std::vector<float>* alone = m.retests(a, b)) {
    for (float w : *alone) {
      ++f.alone;
      f.alone_hit += alone_residual(run, tf, t, a, b, w) > flap_limit;
    }
  }
  return f;
}

// Whether a pair that flapped is still undecided (fabric_findings.h): not yet named at the
// job's rates of flaps (`rates`: its rounds', alone), nor so rarely off that a link flapping
// in kFlapLeast of its runs would have shown more, and not re-measured kFlapRetests times.
bool flap_open(const Flaps& f, const double rates[2], double level) {
  const uint32_t hits = f.rounds_hit + f.alone_hit, runs = f.rounds + f.alone;
  if (hits == 0 || hits == runs || f.alone >= kFlapRetests) return false;
  if (binomial_tail(hits, {f.rounds, f.alone}, {rates[0], rates[1]}) < level) return false;
  return binomial_at_most(hits, runs, kFlapLeast) >= kFlapMiss;
}

// A pair through a bad element that crosses `bad` bad elements in all.
struct SharedPair {
  int bad = 0;
  Pair pair{0, 0};
};

// Keeps the kElementRetests pairs with the fewest bad elements (the first seen among equals).
void keep_shared(std::vector<SharedPair>& kept, SharedPair p) {
  auto fewer = [](const SharedPair& x, const SharedPair& y) { return x.bad < y.bad; };
  auto at = std::upper_bound(kept.begin(), kept.end(), p, fewer);
  if (at == kept.end() && kept.size() >= kElementRetests) return;
  kept.insert(at, p);
  if (kept.size() > kElementRetests) kept.pop_back();
}

// The elements that no pair of their own (through no other bad element) re-measures enough --
// a contended local link whose pairs all cross nodes the fit blames as well -- take pairs
// that cross other bad elements, the fewest first: the findings judge each element on what
// the pair alone leaves once every other factor on its path is taken out, so one run alone
// speaks for all of them (fabric_findings.cc). Element by element, in id order; a pair taken
// counts for every bad element it crosses.
void shared_pairs(const Topology& topo, const TestFit& tf, size_t t,
                  const std::unordered_map<ElementId, std::vector<SharedPair>>& shared,
                  std::unordered_map<ElementId, uint32_t>& taken, std::vector<RetestPair>& out) {
  std::vector<ElementId> ids;
  for (const auto& [id, pairs] : shared) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  std::unordered_set<uint64_t> chosen;
  ElementId path[kMaxPathElements];
  for (ElementId id : ids) {
    for (const SharedPair& p : shared.at(id)) {
      if (taken[id] >= kElementRetests) break;
      const uint64_t key = static_cast<uint64_t>(static_cast<uint32_t>(p.pair.client)) << 32 |
                           static_cast<uint32_t>(p.pair.server);
      if (!chosen.insert(key).second) continue;
      out.push_back({t, p.pair, kElementFirst + tf.factor[id]});
      size_t k = topo.path(p.pair.client, p.pair.server, path);
      for (size_t i = 0; i < k; ++i) {
        if (element_bad(tf, path[i])) ++taken[path[i]];
      }
    }
  }
}

// A test's job-wide rates: how often a healthy pair's run is slow, and flaps.
struct TestRates {
  double limit = 0, rate = 0, level = 0;
  bool flapping = false;
  double flap_limit = 0, flap_rates[2] = {0, 0}, flap_level = 0;
};

// Test t's rates, from its pairs; counts into `taken` the pairs already re-measured through
// each bad element.
TestRates test_rates(const MatrixRun& run, const TestFit& tf, size_t t, const std::vector<bool>& up,
                     std::unordered_map<ElementId, uint32_t>& taken) {
  const Topology& topo = *run.topology;
  const FigureMatrix& m = run.tests[t].matrix;
  ElementId path[kMaxPathElements];
  const double limit = link_limit(tf);
  uint64_t pairs = 0, slow = 0;
  // With --passes, the job's rates of flaps, in the rounds and alone (fabric_findings.h).
  const bool flapping = run.passes >= 2;
  const double flap_limit = std::max(limit, std::log(kFlapFactor));
  uint64_t flap_runs[2] = {0, 0}, flap_hits[2] = {0, 0};
  // The share of pairs slow at their best: the rate a healthy pair's run is slow at.
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (!v || !up[static_cast<size_t>(a)] || !up[static_cast<size_t>(b)]) return;
    ++pairs;
    slow += pair_residual(run, tf, t, a, b, *v) > limit;
    if (flapping) {
      Flaps f = flaps_of(run, tf, t, a, b, *v, flap_limit);
      flap_runs[0] += f.rounds;
      flap_hits[0] += f.rounds_hit;
      flap_runs[1] += f.alone;
      flap_hits[1] += f.alone_hit;
    }
    if (!m.retests(a, b)) return;
    size_t k = topo.path(a, b, path);
    for (size_t i = 0; i < k; ++i) {
      if (element_bad(tf, path[i])) ++taken[path[i]];
    }
  });
  TestRates out;
  out.limit = limit;
  out.flapping = flapping;
  out.flap_limit = flap_limit;
  out.rate = std::max<double>(1, static_cast<double>(slow)) /
             std::max<double>(1, static_cast<double>(pairs));
  out.level = kLinkAlpha / std::max<double>(1, static_cast<double>(pairs));
  out.flap_rates[0] = std::max<double>(1, static_cast<double>(flap_hits[0])) /
                      std::max<double>(1, static_cast<double>(flap_runs[0]));
  out.flap_rates[1] =
      std::max(out.flap_rates[0], static_cast<double>(flap_hits[1]) /
                                      std::max<double>(1, static_cast<double>(flap_runs[1])));
  out.flap_level = kFlapAlpha / std::max<double>(1, static_cast<double>(pairs * run.tests.size()));
  return out;
}

// The `keep` most severe pairs of those pushed, ties in the order pushed (a stable sort's):
// a wave takes at most `--retest` links and flaps (retest_candidates), and at 10,000 ranks
// with passes a wave's flapping pairs alone were 2 million, 48 MiB (and the vector's growth
// on top) for the 100,000 it took.
class MostSevere {
 public:
  explicit MostSevere(size_t keep) : keep_(keep) {}
  void push_back(const RetestPair& p) {
    pairs_.push_back(p);
    if (pairs_.size() >= std::max<size_t>(2 * keep_, 64)) trim();
  }
  std::vector<RetestPair> take() {
    trim();
    return std::move(pairs_);
  }

 private:
  // The kept ones came before every pair pushed since: a stable sort keeps ties in order.
  void trim() {
    std::stable_sort(pairs_.begin(), pairs_.end(), [](const RetestPair& x, const RetestPair& y) {
      return x.severity > y.severity;
    });
    if (pairs_.size() > keep_) pairs_.resize(keep_);
  }
  size_t keep_;
  std::vector<RetestPair> pairs_;
};

// The pairs to re-measure, by kind: through a bad element, links, flapping pairs (the most
// severe `keep` of each of the last two).
struct Candidates {
  explicit Candidates(size_t keep) : links(keep), flaps(keep) {}
  std::vector<RetestPair> elements;
  MostSevere links, flaps;
};

// Test t's pairs to re-measure, added to out; `taken` counts the pairs through each bad element.
void test_candidates(const MatrixRun& run, const TestFit& tf, size_t t, const std::vector<bool>& up,
                     const TestRates& rates, std::unordered_map<ElementId, uint32_t>& taken,
                     Candidates& out) {
  const Topology& topo = *run.topology;
  const FigureMatrix& m = run.tests[t].matrix;
  ElementId path[kMaxPathElements];
  const double limit = rates.limit;
  // Per bad element, its pairs not yet re-measured that cross other bad elements too, the
  // fewest first.
  std::unordered_map<ElementId, std::vector<SharedPair>> shared;
  m.for_each_sorted([&](int a, int b, std::optional<double> v) {
    if (!up[static_cast<size_t>(a)] || !up[static_cast<size_t>(b)]) return;
    const std::vector<float>* alone = m.retests(a, b);
    size_t retested = alone != nullptr ? alone->size() : 0;
    if (!v) {
      // A failed pair: the worst of links, below the elements; once.
      if (retested == 0) out.links.push_back({t, {a, b}, kElementFirst / 2});
      return;
    }
    double r = pair_residual(run, tf, t, a, b, *v);
    size_t k = topo.path(a, b, path);
    int bad = -1, bad_count = 0;
    for (size_t i = 0; i < k; ++i) {
      if (element_bad(tf, path[i])) {
        bad = static_cast<int>(i);
        ++bad_count;
      }
    }
    if (retested == 0 && bad_count == 1 && taken[path[bad]] < kElementRetests) {
      ++taken[path[bad]];
      out.elements.push_back({t, {a, b}, kElementFirst + tf.factor[path[bad]]});
      return;
    }
    if (retested == 0 && bad_count > 1) {
      for (size_t i = 0; i < k; ++i) {
        if (element_bad(tf, path[i])) keep_shared(shared[path[i]], {bad_count, {a, b}});
      }
    }
    if (rates.flapping && r <= limit) {
      // Off in some run, fine at its best: re-measured alone a few times a wave until its
      // runs decide it.
      Flaps f = flaps_of(run, tf, t, a, b, *v, rates.flap_limit);
      if (!flap_open(f, rates.flap_rates, rates.flap_level)) return;
      const uint32_t again = std::min(kFlapBatch, kFlapRetests - f.alone);
      for (uint32_t i = 0; i < again; ++i) {
        out.flaps.push_back({t, {a, b}, static_cast<double>(f.rounds_hit + f.alone_hit)});
      }
      return;
    }
    if (r <= limit || retested >= kPairRetests) return;
    for (size_t i = 0; i < retested; ++i) {
      if (alone_residual(run, tf, t, a, b, (*alone)[i]) <= limit) return;  // fine alone once
    }
    uint32_t runs = m.measurements(a, b) + static_cast<uint32_t>(retested);
    if (std::pow(rates.rate, runs) < rates.level) return;  // decided
    out.links.push_back({t, {a, b}, r});
  });
  shared_pairs(topo, tf, t, shared, taken, out.elements);
}

// With switch levels: first a few pairs through each bad element (the element's own evidence,
// pairs whose other elements are healthy) until kElementRetests of them were re-measured, then
// the links the fit leaves unexplained: slow in their best run and in every retest so far, not
// yet decided (kPairRetests at most; a link in a single pass of 10,000 ranks needs three: a
// healthy pair slow in its round and once alone is one in a million, and there are 50 million).
std::vector<RetestPair> fabric_candidates(const MatrixRun& run, const FabricFit& fit, size_t keep) {
  std::vector<bool> up = run.alive();
  Candidates out(keep);
  for (size_t t = 0; t < run.tests.size(); ++t) {
    const TestFit& tf = fit.tests[t];
    if (!tf.valid) continue;
    std::unordered_map<ElementId, uint32_t> taken;
    const TestRates rates = test_rates(run, tf, t, up, taken);
    test_candidates(run, tf, t, up, rates, taken, out);
  }
  const std::vector<RetestPair> links = out.links.take(), flaps = out.flaps.take();
  out.elements.insert(out.elements.end(), links.begin(), links.end());
  out.elements.insert(out.elements.end(), flaps.begin(), flaps.end());
  return std::move(out.elements);
}

// Pairs whose last measurement was taken under host noise (their figure says little about
// their link), both ranks alive: re-measured first, suspect or not.
std::vector<RetestPair> noisy_candidates(const MatrixRun& run) {
  std::vector<RetestPair> all;
  std::vector<bool> up = run.alive();
  for (size_t t = 0; t < run.tests.size(); ++t) {
    const FigureMatrix& m = run.tests[t].matrix;
    // Among them, a suspect by its severity first, then the others by rank.
    std::vector<std::pair<int, int>> pairs;
    for (uint64_t cell : m.noisy_cells()) pairs.push_back(m.pair_of(cell));
    std::sort(pairs.begin(), pairs.end());
    const size_t first = all.size();
    for (const auto& [client, server] : pairs) {
      if (!up[static_cast<size_t>(client)] || !up[static_cast<size_t>(server)]) continue;
      double severity = 0;
      for (const Suspect& s : run.tests[t].judgement.suspects) {
        if (s.client == client && s.server == server) severity = s.severity;
      }
      all.push_back({t, {client, server}, kNoisyFirst + severity});
    }
    std::stable_sort(
        all.begin() + static_cast<long>(first), all.end(),
        [](const RetestPair& x, const RetestPair& y) { return x.severity > y.severity; });
  }
  return all;
}

std::vector<RetestPair> suspect_candidates(const MatrixRun& run) {
  std::vector<RetestPair> all;
  std::vector<bool> up = run.alive();
  for (size_t t = 0; t < run.tests.size(); ++t) {
    for (const Suspect& s : run.tests[t].judgement.suspects) {
      if (up[static_cast<size_t>(s.client)] && up[static_cast<size_t>(s.server)] && !s.retest) {
        all.push_back({t, {s.client, s.server}, s.severity});
      }
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const RetestPair& x, const RetestPair& y) {
    return x.severity > y.severity;
  });
  return all;
}

}  // namespace

std::vector<RetestPair> retest_candidates(const MatrixRun& run, const FabricFit* fit,
                                          size_t limit) {
  std::vector<RetestPair> all = noisy_candidates(run);
  if (all.size() > limit) all.resize(limit);
  const size_t noisy = all.size();
  auto add = [&](const std::vector<RetestPair>& more, size_t room) {
    for (const RetestPair& p : more) {
      if (room == 0) break;
      const bool listed = std::any_of(all.begin(), all.begin() + static_cast<long>(noisy),
                                      [&](const RetestPair& n) {
                                        return n.test == p.test && n.pair.client == p.pair.client &&
                                               n.pair.server == p.pair.server;
                                      });
      if (listed) continue;
      all.push_back(p);
      --room;
    }
  };
  if (fit == nullptr || !run.topology || !run.topology->has_levels()) {
    add(suspect_candidates(run), limit - noisy);
    return all;
  }
  // The bad elements' few pairs come on top of the `limit` links. Of the links and the flaps
  // after them, add() looks at `limit` at most (the noisy pairs it skips took room before).
  std::vector<RetestPair> fabric = fabric_candidates(run, *fit, limit);
  size_t elements = 0;
  while (elements < fabric.size() && fabric[elements].severity >= kElementFirst) ++elements;
  add(fabric, elements + limit - noisy);
  return all;
}

std::vector<PlannedRound> pack_alone(const std::vector<RetestPair>& pairs, const Topology* topo) {
  std::vector<PlannedRound> rounds;
  if (topo == nullptr) {
    for (const RetestPair& p : pairs) rounds.push_back({{p.pair}, {p.test}, true});
    return rounds;
  }
  // Per round: the ranks and shared elements taken.
  std::vector<std::unordered_set<uint64_t>> taken;
  ElementId path[kMaxPathElements];
  for (const RetestPair& p : pairs) {
    size_t k = topo->path(p.pair.client, p.pair.server, path);
    size_t r = 0;
    for (; r < rounds.size(); ++r) {
      if (rounds[r].tests.front() != p.test) continue;
      bool clash = false;
      for (size_t i = 0; i < k && !clash; ++i) clash = taken[r].count(path[i]) > 0;
      if (!clash) break;
    }
    if (r == rounds.size()) {
      rounds.push_back({{}, {p.test}, true});
      taken.emplace_back();
    }
    rounds[r].pairs.push_back(p.pair);
    for (size_t i = 0; i < k; ++i) taken[r].insert(path[i]);
  }
  return rounds;
}

}  // namespace fabperf::cluster
