// The findings of a run whose topology has switch levels, from the fabric fit: elements beyond
// their threshold and the noise (a switch, not its nodes, when the pairs inside it are slow),
// then the links their elements do not explain: slow alone, slow in every run, or slow in
// more of their runs than the job's noise allows (flapping).
#include "cluster/fabric_findings.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

#include "cluster/matrix_run.h"

namespace fabperf::cluster {

namespace {

// An element firm without retests stands on this many pairs and twice the noise margin.
constexpr uint32_t kFirmPairs = 16;
// A run alone confirms an element when what it shows of it is this many single runs'
// spreads off at least (one healthy run in 740 is).
constexpr double kAloneZ = 3.0;

uint64_t pair_key(int a, int b, int n) {
  return static_cast<uint64_t>(std::min(a, b)) * static_cast<uint64_t>(n) +
         static_cast<uint64_t>(std::max(a, b));
}

Finding element_finding(const MatrixRun& run, ElementId id) {
  const Topology& topo = *run.topology;
  Element e = topo.element(id);
  Finding f;
  f.a = e.a;
  f.b = e.b;
  switch (e.kind) {
    case ElementKind::kNode:
      f.kind = FindingKind::kNode;
      break;
    case ElementKind::kSwitch:
      f.kind = FindingKind::kSwitch;
      break;
    case ElementKind::kLocalLink:
      f.kind = FindingKind::kLocalLink;
      break;
    case ElementKind::kUplink:
      f.kind = FindingKind::kUplink;
      break;
  }
  return f;
}

// Per test, the elements bad in it: beyond the threshold and the noise, and not cleared by
// their pairs re-measured alone in that test (most of them fine alone: the company they kept).
struct BadElements {
  std::vector<std::vector<bool>> bad;            // [test][element]
  std::vector<std::vector<uint32_t>> retested;   // [test][element]
  std::vector<std::vector<uint32_t>> confirmed;  // [test][element]
  std::vector<float> explained;  // per element: its largest factor over the tests it is bad in
};

BadElements bad_elements(const MatrixRun& run, const FabricFit& fit) {
  const Topology& topo = *run.topology;
  const size_t elements = topo.element_count(), tests = run.tests.size();
  std::vector<bool> up = run.alive();
  BadElements out;
  out.bad.assign(tests, std::vector<bool>(elements, false));
  out.retested.assign(tests, std::vector<uint32_t>(elements, 0));
  out.confirmed.assign(tests, std::vector<uint32_t>(elements, 0));
  out.explained.assign(elements, 0.0f);
  ElementId path[kMaxPathElements];
  for (size_t t = 0; t < tests; ++t) {
    const TestFit& tf = fit.tests[t];
    if (!tf.valid) continue;
    for (size_t id = 0; id < elements; ++id) {
      ElementId e = static_cast<ElementId>(id);
      ElementKind kind = topo.element_kind(e);
      if (kind == ElementKind::kNode && !up[id]) continue;
      // A switch with one rank is that rank's node.
      if (kind == ElementKind::kSwitch &&
          topo.members()[id - topo.first_id(ElementKind::kSwitch)].size() < 2) {
        continue;
      }
      out.bad[t][id] = element_bad(tf, e);
    }
    // Alone, an element shows beyond its threshold and beyond a single run's own noise: a
    // run alone is one draw, where each pair and baseline of the fit is the best of --passes.
    const double shown = std::max(tf.element_threshold, kAloneZ * tf.run_spread);
    run.tests[t].matrix.for_each_retest([&](int a, int b, double v) {
      if (!up[static_cast<size_t>(a)] || !up[static_cast<size_t>(b)]) return;
      double r = alone_residual(run, tf, t, a, b, v);
      size_t k = topo.path(a, b, path);
      for (size_t i = 0; i < k; ++i) {
        if (!out.bad[t][path[i]]) continue;
        ++out.retested[t][path[i]];
        if (r + tf.factor[path[i]] > shown) ++out.confirmed[t][path[i]];
      }
    });
    for (size_t id = 0; id < elements; ++id) {
      if (!out.bad[t][id]) continue;
      if (out.retested[t][id] > 0 && out.confirmed[t][id] * 2 <= out.retested[t][id]) {
        out.bad[t][id] = false;
        continue;
      }
      out.explained[id] = std::max(out.explained[id], tf.factor[id]);
    }
  }
  return out;
}

void element_findings(const MatrixRun& run, const FabricFit& fit, const BadElements& bad,
                      std::vector<Finding>& out) {
  const size_t elements = run.topology->element_count();
  for (size_t id = 0; id < elements; ++id) {
    ElementId e = static_cast<ElementId>(id);
    Finding f;
    bool any = false;
    double worst = 0;
    for (size_t t = 0; t < run.tests.size(); ++t) {
      if (!bad.bad[t][id]) continue;
      const TestFit& tf = fit.tests[t];
      if (!any) f = element_finding(run, e);
      any = true;
      f.tests.push_back(t);
      worst = std::max(worst, static_cast<double>(tf.factor[e]));
      f.evidence = std::max(f.evidence, tf.pairs[e]);
      f.retested += bad.retested[t][id];
      f.confirmed += bad.confirmed[t][id];
      double noise = 1.2533 * tf.spread / std::sqrt(static_cast<double>(tf.pairs[e]));
      if (tf.pairs[e] >= kFirmPairs && tf.factor[e] / noise >= 2 * kElementZ) f.firm = true;
      if (bad.retested[t][id] > 0 && tf.pairs[e] >= 2 * kMinElementPairs) f.firm = true;
    }
    if (!any) continue;
    f.severity = std::exp(worst);
    out.push_back(f);
  }
}

struct LinkEvidence {
  Finding finding;
  // Per test, its rounds at [2t] and its runs alone at [2t + 1]: the runs at least
  // kFlapFactor off, of its runs.
  std::vector<uint32_t> hits, runs;
  double worst = 0;  // the largest residual among those
};

// What one pair's runs in one test say: its rounds (the best kept, the worse remembered) and
// its re-measurements alone.
struct PairRuns {
  uint32_t runs = 0;   // rounds and retests
  uint32_t slow = 0;   // beyond the link limit
  uint32_t flaps = 0;  // beyond the flap limit
  uint32_t alone = 0, alone_slow = 0, alone_flaps = 0;
  bool best_slow = false;
  double residual = 0;  // of the best
  double worst = 0;     // the largest residual among the flaps
};

// What one pair's runs in one test say, where its best is `v`; `left(a, b, value, alone)` is
// what a value leaves to the link once the elements are taken out.
template <typename Left>
PairRuns pair_runs(const FigureMatrix& m, int a, int b, double v, double limit, double flap_limit,
                   Left left) {
  PairRuns p;
  uint32_t rounds = m.measurements(a, b);
  p.runs = rounds;
  p.residual = left(a, b, v, false);
  p.best_slow = p.residual > limit;
  m.for_each_worse(a, b, [&](float w) {
    double r = left(a, b, w, false);
    p.slow += r > limit;
    if (r > flap_limit) {
      ++p.flaps;
      p.worst = std::max(p.worst, r);
    }
  });
  if (p.best_slow) p.slow = rounds;  // the best of its rounds was slow: every one was
  if (p.residual > flap_limit) {
    p.flaps = rounds;
    p.worst = std::max(p.worst, p.residual);
  }
  if (const std::vector<float>* alone = m.retests(a, b)) {
    for (float w : *alone) {
      double r = left(a, b, w, true);
      ++p.runs;
      ++p.alone;
      p.alone_slow += r > limit;
      p.slow += r > limit;
      p.flaps += r > flap_limit;
      p.alone_flaps += r > flap_limit;
    }
  }
  return p;
}

// The job's pairs' runs gathered over the tests: the suspect links, and the counts the noise
// rates come from.
struct LinkTally {
  explicit LinkTally(size_t tests)
      : runs_total(tests, 0),
        slow_total(tests, 0),
        flap_runs(2 * tests, 0),
        flaps_total(2 * tests, 0) {}
  std::unordered_map<uint64_t, LinkEvidence> links;
  std::vector<uint64_t> runs_total, slow_total;
  std::vector<uint64_t> flap_runs, flaps_total;  // as LinkEvidence
  uint64_t pairs_total = 0;
  std::unordered_map<uint64_t, PairRuns> persistent;  // key * tests + t
};

// Adds test t's pairs to the tally: a failed pair is a broken link, a pair with flaps or slow
// in every run a suspect.
void tally_test(const MatrixRun& run, const TestFit& tf, const BadElements& bad, size_t t,
                const std::vector<bool>& up, LinkTally& tally) {
  const int n = run.size();
  const Topology& topo = *run.topology;
  const size_t tests = run.tests.size();
  ElementId path[kMaxPathElements];
  const double limit = link_limit(tf);
  // A slow run of a flapping link: a flap is at least kFlapFactor off, well out of the
  // jitter of single runs around a baseline drawn from their best.
  const double flap_limit = std::max(limit, std::log(kFlapFactor));
  const FigureMatrix& m = run.tests[t].matrix;
  auto left = [&](int a, int b, double v, bool alone) {
    double r = alone ? alone_residual(run, tf, t, a, b, v) : pair_residual(run, tf, t, a, b, v);
    size_t k = topo.path(a, b, path);
    for (size_t i = 0; i < k; ++i) r -= std::max(0.0f, bad.explained[path[i]] - tf.factor[path[i]]);
    return r;
  };
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (!up[static_cast<size_t>(a)] || !up[static_cast<size_t>(b)]) return;
    ++tally.pairs_total;
    if (!v) {  // failed while both ranks answered: broken
      LinkEvidence& l = tally.links[pair_key(a, b, n)];
      l.finding.kind = FindingKind::kLink;
      l.finding.a = a;
      l.finding.b = b;
      l.finding.tests.push_back(t);
      l.finding.severity = std::numeric_limits<double>::infinity();
      l.finding.evidence = 1;
      return;
    }
    const PairRuns p = pair_runs(m, a, b, *v, limit, flap_limit, left);
    tally.runs_total[t] += p.runs;
    tally.slow_total[t] += p.slow;
    tally.flap_runs[2 * t] += p.runs - p.alone;
    tally.flap_runs[2 * t + 1] += p.alone;
    tally.flaps_total[2 * t] += p.flaps - p.alone_flaps;
    tally.flaps_total[2 * t + 1] += p.alone_flaps;
    if (p.flaps == 0 && !(p.best_slow && p.alone_slow == p.alone)) return;
    LinkEvidence& l = tally.links[pair_key(a, b, n)];
    l.finding.kind = FindingKind::kLink;
    l.finding.a = a;
    l.finding.b = b;
    l.hits.resize(2 * tests, 0);
    l.hits[2 * t] += p.flaps - p.alone_flaps;
    l.hits[2 * t + 1] += p.alone_flaps;
    l.worst = std::max(l.worst, p.worst);
    if (p.best_slow && p.alone_slow == p.alone) {
      tally.persistent[pair_key(a, b, n) * tests + t] = p;
    }
  });
}

// The job's noise: the level a pair's runs must be less likely than, and each test's rates of
// slow runs and of flaps.
struct NoiseRates {
  double level = 0;
  std::vector<double> p_slow, p_flap;  // [t], [2t] rounds and [2t + 1] alone
};

NoiseRates noise_rates(const LinkTally& tally, size_t tests) {
  NoiseRates out;
  out.level = kFlapAlpha / std::max<double>(1, static_cast<double>(tally.pairs_total));
  // Each test's rates of slow runs over the whole job (at least one run in all of them); of
  // flaps in its rounds, and alone (at least the rounds' rate: the runs alone are few).
  std::vector<double>& p_slow = out.p_slow;
  std::vector<double>& p_flap = out.p_flap;
  p_slow.assign(tests, 0.0);
  p_flap.assign(2 * tests, 0.0);
  for (size_t t = 0; t < tests; ++t) {
    double runs = std::max<double>(1, static_cast<double>(tally.runs_total[t]));
    p_slow[t] = std::max(1.0, static_cast<double>(tally.slow_total[t])) / runs;
    p_flap[2 * t] = std::max(1.0, static_cast<double>(tally.flaps_total[2 * t])) /
                    std::max<double>(1, static_cast<double>(tally.flap_runs[2 * t]));
    p_flap[2 * t + 1] = std::max(
        p_flap[2 * t], static_cast<double>(tally.flaps_total[2 * t + 1]) /
                           std::max<double>(1, static_cast<double>(tally.flap_runs[2 * t + 1])));
  }
  return out;
}

// The pairs slow in every run, where that many slow runs in a row are unlikely noise, as their
// links' findings in that test.
void add_persistent(LinkTally& tally, const NoiseRates& noise, size_t tests) {
  for (const auto& [key, p] : tally.persistent) {
    size_t t = key % tests;
    if (std::pow(noise.p_slow[t], p.runs) >= noise.level) continue;  // as likely noise as not
    Finding& f = tally.links[key / tests].finding;
    f.tests.push_back(t);
    f.severity = std::max(f.severity, std::exp(p.residual));
    f.evidence = std::max(f.evidence, p.runs);
    f.retested += p.alone;
    f.confirmed += p.alone_slow;
    f.firm = true;
  }
}

// Finishes one suspect link: its runs counted, flapping where its slow runs are unlikely noise;
// appended to out where any test found it.
void finish_link(const MatrixRun& run, const NoiseRates& noise, LinkEvidence& l,
                 std::vector<Finding>& out) {
  const size_t tests = run.tests.size();
  const std::vector<double>& p_flap = noise.p_flap;
  Finding& f = l.finding;
  uint32_t runs = 0, hits = 0;
  l.runs.assign(2 * tests, 0);  // every run of the pair, in the tests where none was slow too
  l.hits.resize(2 * tests, 0);
  for (size_t t = 0; t < tests; ++t) {
    const FigureMatrix& m = run.tests[t].matrix;
    l.runs[2 * t] = m.pair_measurements(f.a, f.b);
    for (auto* alone : {m.retests(f.a, f.b), m.retests(f.b, f.a)}) {
      l.runs[2 * t + 1] += alone != nullptr ? static_cast<uint32_t>(alone->size()) : 0;
    }
    runs += l.runs[2 * t] + l.runs[2 * t + 1];
    hits += l.hits[2 * t] + l.hits[2 * t + 1];
  }
  bool flapping = false;
  if (f.tests.empty() && hits > 0) {
    // Slow in more of its runs in a test than the job's noise explains: flapping. Test by
    // test, as the retests gather them: a test whose rounds hide the flaps (contention
    // capping the bandwidth) does not water down another's.
    for (size_t t = 0; t < tests; ++t) {
      const uint32_t h = l.hits[2 * t] + l.hits[2 * t + 1];
      const uint32_t r = l.runs[2 * t] + l.runs[2 * t + 1];
      if (h == 0 || r < 2 || h >= r) continue;
      if (binomial_tail(h, {l.runs[2 * t], l.runs[2 * t + 1]}, {p_flap[2 * t], p_flap[2 * t + 1]}) <
          noise.level) {
        f.tests.push_back(t);
        flapping = true;
      }
    }
  }
  if (flapping) {
    f.firm = true;
    f.evidence = runs;
    f.severity = std::exp(l.worst);
  }
  if (f.tests.empty()) return;
  std::sort(f.tests.begin(), f.tests.end());
  f.slow_runs = hits;
  f.runs = runs;
  if (f.severity == 0) f.severity = 1;
  out.push_back(f);
}

// The links the elements do not explain. Each pair's runs -- rounds, passes, retests alone --
// are tested against the job's own rate of slow runs in that test (the noise, since faults are
// few): a pair slow in every run is a link when that many slow runs in a row are unlikely
// for any healthy pair of the job (the rate to the power of its runs, below kFlapAlpha over
// the pairs); a pair slow in some of its runs (at least kFlapFactor off) is flapping when its
// count is as unlikely (a binomial tail; runs alone at their own rate, a test's rounds at
// theirs: contention may hide a flap in the rounds, never alone). What is left of a pair is its
// value off its class, less every element on its path -- an element bad in another test at its
// factor there: a node that contention hides in one test is still that node -- judged beyond the
// link threshold and the test's own noise.
void link_findings(const MatrixRun& run, const FabricFit& fit, const BadElements& bad,
                   std::vector<Finding>& out) {
  const size_t tests = run.tests.size();
  std::vector<bool> up = run.alive();
  LinkTally tally(tests);
  for (size_t t = 0; t < tests; ++t) {
    const TestFit& tf = fit.tests[t];
    if (!tf.valid) continue;
    tally_test(run, tf, bad, t, up, tally);
  }
  const NoiseRates noise = noise_rates(tally, tests);
  add_persistent(tally, noise, tests);
  for (auto& [key, l] : tally.links) finish_link(run, noise, l, out);
}

}  // namespace

double binomial_tail(uint32_t k, const std::vector<uint32_t>& m, const std::vector<double>& p) {
  std::vector<double> dist = {1.0};  // P(X = j) so far
  for (size_t i = 0; i < m.size(); ++i) {
    double q = std::clamp(p[i], 0.0, 1.0);
    for (uint32_t run = 0; run < m[i]; ++run) {
      dist.push_back(0.0);
      for (size_t j = dist.size() - 1; j > 0; --j) dist[j] = dist[j] * (1 - q) + dist[j - 1] * q;
      dist[0] *= 1 - q;
    }
  }
  double tail = 0;
  for (size_t j = k; j < dist.size(); ++j) tail += dist[j];
  return std::min(1.0, tail);
}

double binomial_at_most(uint32_t k, uint32_t n, double p) {
  if (k >= n) return 1.0;
  return 1.0 - binomial_tail(k + 1, {n}, {p});
}

std::vector<Finding> fabric_findings(const MatrixRun& run, const FabricFit& fit) {
  std::vector<Finding> out;
  for (const RankStatus& r : run.ranks) {
    if (r.alive) continue;
    Finding f;
    f.kind = FindingKind::kUnreachable;
    f.a = r.rank;
    f.reason = r.reason;
    f.firm = true;
    out.push_back(f);
  }
  BadElements bad = bad_elements(run, fit);
  element_findings(run, fit, bad, out);
  link_findings(run, fit, bad, out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& x, const Finding& y) {
    bool ux = x.kind == FindingKind::kUnreachable, uy = y.kind == FindingKind::kUnreachable;
    if (ux != uy) return ux;
    if (x.severity != y.severity) return x.severity > y.severity;
    return std::tie(x.kind, x.a, x.b) < std::tie(y.kind, y.a, y.b);
  });
  return out;
}

}  // namespace fabperf::cluster
