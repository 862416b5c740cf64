// The fabric fit: class baselines, then sweeps of per-element medians of what each pair's
// residual leaves to that element.
#include "cluster/locate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cluster/matrix_run.h"
#include "stats/histogram.h"

namespace fabperf::cluster {

namespace {

// Residual histograms: 0.01 (1%) wide bins from -2 to +4 (e^4: 55x), the ends open.
constexpr double kLo = -2.0;
constexpr double kStep = 0.01;
constexpr size_t kBins = 600;
constexpr int kSweeps = 3;
constexpr double kMinSpread = 0.002;  // a noise-free model still has float rounding
constexpr double kScale = 8;          // as verdicts.cc: values x8 into the histogram

class Medians {
 public:
  void reset(size_t elements) {
    counts_.assign(elements * kBins, 0);
    totals_.assign(elements, 0);
  }
  void add(size_t e, double v) {
    double b = (v - kLo) / kStep;
    size_t bin = b <= 0 ? 0 : b >= kBins - 1 ? kBins - 1 : static_cast<size_t>(b);
    ++counts_[e * kBins + bin];
    ++totals_[e];
  }
  uint32_t count(size_t e) const { return totals_[e]; }
  // The median, interpolated inside its bin.
  double median(size_t e) const {
    uint32_t total = totals_[e];
    if (total == 0) return 0;
    double half = total / 2.0, seen = 0;
    for (size_t b = 0; b < kBins; ++b) {
      uint32_t c = counts_[e * kBins + b];
      if (seen + c >= half && c > 0) {
        return kLo + kStep * (static_cast<double>(b) + (half - seen) / c);
      }
      seen += c;
    }
    return kLo + kStep * kBins;
  }

 private:
  std::vector<uint32_t> counts_;
  std::vector<uint32_t> totals_;
};

// The class baselines moved to the healthy side of the paths' last elements (a dragonfly's
// global or local link, a tree's uplink, the switch of the pairs inside it), each element
// weighed once: where a plan measures most around its suspects (adaptive's localising) the
// class's pairs are mostly theirs, and on a small dragonfly with one group's every global
// link slow (3 of its 6 group pairs) the pairs' own percentile sat on the slow links, so
// those were the baseline and only the slowest of them was named. A quarter of the elements
// may be faster than the healthy ones' median (their medians' spread): the sweeps then take
// the baseline from the clean pairs.
template <typename ValueOf, typename Usable>
void start_by_path(const MatrixRun& run, const FigureMatrix& m, Better better, ValueOf value_of,
                   Usable usable, TestFit& fit) {
  const Topology& topo = *run.topology;
  const size_t first = topo.first_id(ElementKind::kSwitch);
  const size_t count = topo.element_count() - first;
  if (count == 0) return;
  Medians medians;
  medians.reset(count);
  std::vector<int8_t> class_of(count, -1);
  ElementId path[kMaxPathElements];
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (!v || !usable(a, b)) return;
    size_t k = topo.path(a, b, path);
    if (k == 0 || path[k - 1] < first) return;
    int c = static_cast<int>(topo.path_class(a, b));
    class_of[path[k - 1] - first] = static_cast<int8_t>(c);
    medians.add(path[k - 1] - first, log_off(value_of(a, b, *v), fit.base[c], better));
  });
  std::vector<double> levels[kPathClasses];
  for (size_t i = 0; i < count; ++i) {
    if (class_of[i] < 0 || medians.count(i) < kMinElementPairs) continue;
    levels[class_of[i]].push_back(medians.median(i));
  }
  for (int c = 0; c < kPathClasses; ++c) {
    std::vector<double>& l = levels[c];
    if (l.size() < 4) continue;  // too few to weigh
    auto at = l.begin() + static_cast<long>(l.size() / 4);
    std::nth_element(l.begin(), at, l.end());
    fit.base[c] *= better == Better::kLower ? std::exp(*at) : std::exp(-*at);
  }
}

constexpr ElementId kNoNode = std::numeric_limits<ElementId>::max();

// Per element past the nodes (at id - the first switch's id): the node whose pairs could carry
// the element's median, or kNoNode. Swept before the nodes, an element whose pairs are mostly
// one node's takes that node's slowness as its own: a leaf of two hosts in a tree of four (a
// node has 3 of its 5 pairs), or of three judged on its three inside pairs (2 of them). Its
// candidate is its worst member, the node whose own pairs read slowest, raw; it counts where
// that node has a third of the element's pairs or more, never at scale (a node's pairs are a
// sliver of its switch's). `judges(e, a, b)`: whether element e's median takes pair (a, b).
template <typename ValueOf, typename Usable, typename Judges>
std::vector<ElementId> dominant_members(const MatrixRun& run, const FigureMatrix& m,
                                        const TestFit& fit, Better better, ValueOf value_of,
                                        Usable usable, Judges judges) {
  const Topology& topo = *run.topology;
  const size_t first = topo.first_id(ElementKind::kSwitch);
  const size_t count = topo.element_count() - first;
  std::vector<ElementId> worst(count, kNoNode);
  if (count == 0) return worst;
  const size_t nodes = topo.id_count(ElementKind::kNode);
  Medians raw;
  raw.reset(nodes);
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (!v || !usable(a, b)) return;
    double r =
        log_off(value_of(a, b, *v), fit.base[static_cast<int>(topo.path_class(a, b))], better);
    raw.add(static_cast<size_t>(a), r);
    raw.add(static_cast<size_t>(b), r);
  });
  std::vector<double> level(nodes, -std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < nodes; ++i) {
    if (raw.count(i) > 0) level[i] = raw.median(i);
  }
  std::vector<uint32_t> pairs(count, 0), with_worst(count, 0);
  ElementId path[kMaxPathElements];
  auto through = [&](auto&& fn) {
    m.for_each([&](int a, int b, std::optional<double> v) {
      if (!v || !usable(a, b)) return;
      size_t k = topo.path(a, b, path);
      for (size_t i = 0; i < k; ++i) {
        if (path[i] >= first && judges(path[i], a, b)) fn(path[i] - first, a, b);
      }
    });
  };
  through([&](size_t e, int a, int b) {
    ++pairs[e];
    for (int x : {a, b}) {
      if (worst[e] == kNoNode || level[static_cast<size_t>(x)] > level[worst[e]]) {
        worst[e] = static_cast<ElementId>(x);
      }
    }
  });
  through([&](size_t e, int a, int b) {
    with_worst[e] += static_cast<ElementId>(a) == worst[e] || static_cast<ElementId>(b) == worst[e];
  });
  for (size_t e = 0; e < count; ++e) {
    if (with_worst[e] * 3 < pairs[e]) worst[e] = kNoNode;
  }
  return worst;
}

// The classes' starting baselines, from a percentile of each class's pairs. Returns whether
// any class has a usable pair (fit.valid).
template <typename ValueOf, typename Usable>
bool start_by_class(const MatrixRun& run, const FigureMatrix& m, Better better, ValueOf value_of,
                    Usable usable, TestFit& fit) {
  const Topology& topo = *run.topology;
  Histogram classes[kPathClasses];
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (!v || !usable(a, b)) return;
    double value = value_of(a, b, *v);
    double s = value * kScale + 0.5;
    classes[static_cast<int>(topo.path_class(a, b))].record(s <= 0 ? 0
                                                            : s >= 9e18
                                                                ? static_cast<uint64_t>(9e18)
                                                                : static_cast<uint64_t>(s));
  });
  for (int c = 0; c < kPathClasses; ++c) {
    fit.has_class[c] = classes[c].count() > 0;
    if (fit.has_class[c]) {
      // A start on the healthy side: a quarter of the class may be faster than its healthy
      // paths' median (jitter), but most of it may be slow (a small fabric with half its
      // global links bad). The sweeps then take the baseline from the clean pairs' median.
      double q = better == Better::kLower ? 25 : 75;
      fit.base[c] =
          std::max(1e-12, static_cast<double>(classes[c].value_at_percentile(q)) / kScale);
    }
  }
  fit.valid = fit.has_class[0] || fit.has_class[1] || fit.has_class[2];
  return fit.valid;
}

// Per switch: how many usable measured pairs have both their nodes on it.
template <typename Usable>
std::vector<uint32_t> pairs_inside_switches(const Topology& topo, const FigureMatrix& m,
                                            Usable usable) {
  std::vector<uint32_t> intra(topo.switches().size(), 0);
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (v && usable(a, b) && topo.switch_of(a) >= 0 && topo.switch_of(a) == topo.switch_of(b)) {
      ++intra[static_cast<size_t>(topo.switch_of(a))];
    }
  });
  return intra;
}

// A run of element ids the sweeps fit together: the switches, the links, the nodes.
struct ElementRange {
  size_t first, count;
};

// One sweep over one range: each element's factor becomes the median of what its pairs'
// residuals leave to it after the other factors on their path (or the median without its
// dominant member's pairs, where that is lower). `medians` and `without` are scratch.
template <typename ValueOf, typename Usable, typename Judges>
void sweep_range(const MatrixRun& run, const FigureMatrix& m, Better better, ValueOf value_of,
                 Usable usable, Judges judges, const std::vector<ElementId>& dominant,
                 const ElementRange& range, Medians& medians, Medians& without, TestFit& fit) {
  const Topology& topo = *run.topology;
  const size_t switch0 = topo.first_id(ElementKind::kSwitch);
  ElementId path[kMaxPathElements];
  medians.reset(range.count);
  // Whether any element of the range has a dominant member (none at scale).
  const bool nodes = range.first == 0;
  const auto first_dominant = dominant.begin() + (nodes ? 0 : range.first - switch0);
  const bool leave_out = !nodes && std::any_of(first_dominant, first_dominant + range.count,
                                               [](ElementId d) { return d != kNoNode; });
  if (leave_out) without.reset(range.count);
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (!v || !usable(a, b)) return;
    double r =
        log_off(value_of(a, b, *v), fit.base[static_cast<int>(topo.path_class(a, b))], better);
    size_t k = topo.path(a, b, path);
    double total = 0;
    for (size_t i = 0; i < k; ++i) total += fit.factor[path[i]];
    // A switch takes from its inside pairs what its nodes, unless clearly slow, do not:
    // each inside pair has two of its nodes, each pair leaving it one, so noise the
    // nodes took would feed back into the switch sweep after sweep.
    double nodes_noise = 0;
    if (range.first == switch0) {
      for (size_t i = 0; i < 2; ++i) {
        if (fit.factor[path[i]] <= fit.element_threshold) nodes_noise += fit.factor[path[i]];
      }
    }
    for (size_t i = 0; i < k; ++i) {
      size_t e = path[i];
      if (e < range.first || e >= range.first + range.count || !judges(e, a, b)) continue;
      const double left = r - (total - fit.factor[e]) + nodes_noise;
      medians.add(e - range.first, left);
      if (!leave_out) continue;
      const ElementId d = dominant[e - switch0];
      if (d != kNoNode && d != static_cast<ElementId>(a) && d != static_cast<ElementId>(b)) {
        without.add(e - range.first, left);
      }
    }
  });
  for (size_t i = 0; i < range.count; ++i) {
    double x = medians.count(i) > 0 ? medians.median(i) : 0.0;
    if (leave_out && first_dominant[i] != kNoNode && without.count(i) > 0) {
      x = std::min(x, without.median(i));
    }
    fit.pairs[range.first + i] = medians.count(i);
    fit.factor[range.first + i] = static_cast<float>(std::max(0.0, x));
  }
}

// Each class's baseline again, from the pairs whose path the fit finds clean: where the
// plan measured mostly around suspects (adaptive's localising), a plain median of the
// class would sit on the slow pairs.
// Where a class has no clean pairs (a tree of two leaves, one of them slow: every pair
// between the leaves crosses it, and the class's start sat on them), it follows the median
// of its pairs' residuals after every factor instead: left on the slow pairs, the leaf's
// factor made each of them a residual as large, the job's noise with them, and a slow leaf
// of 8 hosts was not named. `medians` is scratch.
template <typename ValueOf, typename Usable>
void rebase_classes(const MatrixRun& run, const FigureMatrix& m, Better better, ValueOf value_of,
                    Usable usable, Medians& medians, TestFit& fit) {
  const Topology& topo = *run.topology;
  ElementId path[kMaxPathElements];
  medians.reset(kPathClasses);
  Medians fitted;  // per class: the pairs' residuals after every factor on their path
  fitted.reset(kPathClasses);
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (!v || !usable(a, b)) return;
    int c = static_cast<int>(topo.path_class(a, b));
    const double raw = log_off(value_of(a, b, *v), fit.base[c], better);
    size_t k = topo.path(a, b, path);
    double total = 0;
    bool clean = true;
    for (size_t i = 0; i < k; ++i) {
      total += fit.factor[path[i]];
      clean = clean && fit.factor[path[i]] <= fit.element_threshold / 2;
    }
    fitted.add(static_cast<size_t>(c), raw - total);
    // Its raw residual: the small factors the fit gives healthy elements are noise, and
    // all of them >= 0: taking them out would push the baseline further each sweep.
    if (clean) medians.add(static_cast<size_t>(c), raw);
  });
  for (int c = 0; c < kPathClasses; ++c) {
    const size_t i = static_cast<size_t>(c);
    const Medians& from = medians.count(i) >= kMinElementPairs ? medians : fitted;
    if (from.count(i) < kMinElementPairs) continue;
    double shift = from.median(i);
    fit.base[c] *= better == Better::kLower ? std::exp(shift) : std::exp(-shift);
  }
}

void fit_test(const MatrixRun& run, size_t t, const std::vector<bool>& up, TestFit& fit) {
  const Topology& topo = *run.topology;
  const FigureMatrix& m = run.tests[t].matrix;
  const Better better = run.tests[t].figure.better;
  // The value a pair counts with: measured alone when it was re-measured, a single run made
  // as good as the best of the passes its peers had.
  const double best_of = std::exp(fit.alone_offset);
  auto value_of = [&](int a, int b, double v) {
    auto alone = m.retest(a, b);
    if (!alone) return v;
    return better == Better::kLower ? *alone / best_of : *alone * best_of;
  };
  const size_t elements = topo.element_count();
  fit.factor.assign(elements, 0.0f);
  fit.pairs.assign(elements, 0);
  auto usable = [&](int a, int b) {
    return up[static_cast<size_t>(a)] && up[static_cast<size_t>(b)];
  };
  if (!start_by_class(run, m, better, value_of, usable, fit)) return;
  start_by_path(run, m, better, value_of, usable, fit);
  // A switch is judged on the pairs inside it when it has a few: its uplinks and its nodes
  // cannot take those.
  const std::vector<uint32_t> intra = pairs_inside_switches(topo, m, usable);
  const size_t switch0 = topo.first_id(ElementKind::kSwitch);
  const size_t link0 = topo.first_id(ElementKind::kLocalLink);
  const size_t node_count = topo.id_count(ElementKind::kNode);
  const ElementRange ranges[3] = {
      {switch0, link0 - switch0}, {link0, elements - link0}, {0, node_count}};
  // Which pairs an element's median takes: a switch with a few pairs inside it those only.
  auto judges = [&](size_t e, int a, int b) {
    return e < switch0 || e >= link0 || topo.switch_of(a) == topo.switch_of(b) ||
           intra[e - switch0] < kMinElementPairs;
  };
  // Where one node's pairs could carry an element's median, the element takes the lower of its
  // median and its median without that node's pairs: a slow switch is slow without any one of
  // its nodes, a slow node's switch is not.
  const std::vector<ElementId> dominant =
      dominant_members(run, m, fit, better, value_of, usable, judges);
  Medians medians, without;
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    for (const ElementRange& range : ranges) {
      if (range.count == 0) continue;
      sweep_range(run, m, better, value_of, usable, judges, dominant, range, medians, without, fit);
    }
    rebase_classes(run, m, better, value_of, usable, medians, fit);
  }
  // What is left: the pairs' own noise.
  medians.reset(1);
  m.for_each([&](int a, int b, std::optional<double> v) {
    if (!v || !usable(a, b)) return;
    medians.add(0, std::fabs(pair_residual(run, fit, t, a, b, value_of(a, b, *v))));
  });
  fit.spread = std::max(kMinSpread, 1.4826 * std::max(0.0, medians.median(0)));
}

}  // namespace

double log_off(double value, double base, Better better) {
  value = std::max(value, 1e-300);
  base = std::max(base, 1e-300);
  return better == Better::kLower ? std::log(value / base) : std::log(base / value);
}

double pair_residual(const MatrixRun& run, const TestFit& fit, size_t test, int a, int b,
                     double value) {
  const Topology& topo = *run.topology;
  ElementId path[kMaxPathElements];
  size_t k = topo.path(a, b, path);
  double r = log_off(value, fit.base[static_cast<int>(topo.path_class(a, b))],
                     run.tests[test].figure.better);
  for (size_t i = 0; i < k; ++i) r -= fit.factor[path[i]];
  return r;
}

double alone_residual(const MatrixRun& run, const TestFit& fit, size_t test, int a, int b,
                      double value) {
  return pair_residual(run, fit, test, a, b, value) - fit.alone_offset;
}

double expected_best_of(uint64_t n) {
  if (n <= 1) return 0;
  // The integral of x n phi(x) Phi(x)^(n-1) over [-8, 8], by the midpoint rule.
  constexpr double kStep = 0.005;
  double sum = 0;
  for (int i = 0; i < 3200; ++i) {
    const double x = -8 + (i + 0.5) * kStep;
    const double phi = std::exp(-x * x / 2) / std::sqrt(2 * M_PI);
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    sum += x * static_cast<double>(n) * phi * std::pow(cdf, static_cast<double>(n - 1)) * kStep;
  }
  return sum;
}

bool element_bad(const TestFit& fit, ElementId id) {
  uint32_t n = fit.pairs[id];
  double x = fit.factor[id];
  if (!fit.valid || n < kMinElementPairs || x <= fit.element_threshold) return false;
  double noise = 1.2533 * fit.spread / std::sqrt(static_cast<double>(n));
  return x / noise >= kElementZ;
}

FabricFit fit_fabric(const MatrixRun& run) {
  FabricFit out;
  out.tests.resize(run.tests.size());
  if (!run.topology) return out;
  std::vector<bool> up = run.alive();
  for (size_t t = 0; t < run.tests.size(); ++t) {
    TestFit& fit = out.tests[t];
    bool lower = run.tests[t].figure.better == Better::kLower;
    fit.link_threshold = std::max(0.01, lower ? std::log(run.tol.lat_ratio)
                                              : std::log(1.0 / std::max(1e-6, run.tol.bw_ratio)));
    fit.element_threshold = fit.link_threshold / 2;
    fit.run_spread = run.tests[t].matrix.run_spread();
    fit.alone_offset = fit.run_spread * expected_best_of(run.passes);
    fit_test(run, t, up, fit);
  }
  return out;
}

}  // namespace fabperf::cluster
