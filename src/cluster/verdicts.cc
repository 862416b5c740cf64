// Robust statistics of a figure matrix and the link and node verdicts drawn from them.
#include "cluster/verdicts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "stats/histogram.h"

namespace fabperf::cluster {

namespace {

// Values go into the histogram x8, so message rates of a few per second keep some precision;
// the top bucket still holds 1 TB/s.
constexpr double kScale = 8;

uint64_t scaled(double v) {
  double s = v * kScale + 0.5;
  return s <= 0 ? 0 : s >= 9e18 ? static_cast<uint64_t>(9e18) : static_cast<uint64_t>(s);
}

double percentile(const Histogram& h, double p) {
  return static_cast<double>(h.value_at_percentile(p)) / kScale;
}

// Median of `values` (reordered); 0 when empty.
double median_of(std::vector<float>& values) {
  if (values.empty()) return 0;
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<ptrdiff_t>(mid), values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + static_cast<ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

double severity_of(double value, double baseline, Better better) {
  if (better == Better::kLower) return baseline > 0 ? value / baseline : value;
  return value > 0 ? baseline / value : std::numeric_limits<double>::infinity();
}

// The threshold beyond which a value is off `baseline`: the ratio is the rule; a wide
// distribution (contention) may relax it, at most twofold, so that noise is not named while a
// value far off is, however noisy the job.
double threshold_of(double baseline, double spread, Better better, const Tolerances& tol) {
  double widen = tol.outlier_mads * spread;
  if (better == Better::kLower) {
    return std::clamp(baseline + widen, baseline * tol.lat_ratio, baseline * tol.lat_ratio * 2);
  }
  return std::clamp(baseline - widen, baseline * tol.bw_ratio / 2, baseline * tol.bw_ratio);
}

// The median of sorted `s` without its element at index `k`.
double median_without(const std::vector<double>& s, size_t k) {
  const size_t m = s.size() - 1;
  auto at = [&](size_t p) { return s[p < k ? p : p + 1]; };
  return m % 2 == 1 ? at(m / 2) : (at(m / 2 - 1) + at(m / 2)) / 2;
}

// Fewest other nodes the leave-one-out rule judges a node against.
constexpr size_t kMinOtherNodes = 3;
// Up to this many ranks the other nodes' medians leave out their links to the judged node too
// (O(N^3), 2 million steps at 128); beyond, one link among N-1 barely moves a median.
constexpr int kExactLeaveOneOut = 128;

// Rank r's median link (both directions), leaving out its links with `skip` and, of three
// or more, its worst one: one bad link must not make a bad node (a median of 4 links moves a
// long way when one of them is far off). 0 when it has none.
double median_link(const FigureMatrix& m, int r, int skip, Better better,
                   std::vector<float>& scratch) {
  scratch.clear();
  for (int j = 0; j < m.ranks(); ++j) {
    if (j == skip || j == r) continue;
    for (auto v : {m.get(r, j), m.get(j, r)}) {
      if (v) scratch.push_back(static_cast<float>(*v));
    }
  }
  if (scratch.size() >= 3) {
    auto worst = better == Better::kLower ? std::max_element(scratch.begin(), scratch.end())
                                          : std::min_element(scratch.begin(), scratch.end());
    scratch.erase(worst);
  }
  return median_of(scratch);
}

// A node is slow when its median link is this many times worse than the other nodes' (twice
// the latency, half the bandwidth or message rate), or more where the others are spread wide.
constexpr double kNodeSlowdown = 2;

void judge_node(size_t r, double own, double base, double spread, Better better,
                const Tolerances& tol, TestJudgement& out) {
  if (base <= 0) return;
  // As for links, the others' robust spread may raise the bar, at most twofold.
  const double bar =
      std::clamp(1 + tol.outlier_mads * spread / base, kNodeSlowdown, 2 * kNodeSlowdown);
  out.slowdown[r] = severity_of(own, base, better);
  out.slow_node[r] = out.slowdown[r] > bar;
}

// The rule in a large job, O(N log N): the other nodes' medians as they are (each holds one
// link to the judged node among N-1), and the job's spread of links (the judged node's are 2
// in N of them). Removing one value moves a sorted median by at most one place.
void judge_large_job_nodes(const std::vector<double>& median, const std::vector<size_t>& judged,
                           double spread, Better better, const Tolerances& tol,
                           TestJudgement& out) {
  std::vector<double> sorted;
  for (size_t r : judged) sorted.push_back(median[r]);
  std::sort(sorted.begin(), sorted.end());
  for (size_t r : judged) {
    size_t k = static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), median[r]) -
                                   sorted.begin());
    judge_node(r, median[r], median_without(sorted, k), spread, better, tol, out);
  }
}

// The leave-one-out node rule: each node's median link (its worst left out) against the median
// of the other nodes' median links (their links with it left out, and their worst), beyond a
// bar raised by the robust spread of the links among those others alone, so a slow node's own
// links neither set its baseline nor widen its bar. `median[r]` is rank r's median link, 0 for
// ranks not judged (unreachable, or nothing measured); `job_spread` the spread of all links.
void judge_nodes_alone(const FigureMatrix& m, const std::vector<double>& median, double job_spread,
                       Better better, const Tolerances& tol, TestJudgement& out) {
  std::vector<size_t> judged;
  for (size_t r = 0; r < median.size(); ++r) {
    if (median[r] > 0) judged.push_back(r);
  }
  if (judged.size() < kMinOtherNodes + 1) return;
  if (m.ranks() > kExactLeaveOneOut) {
    return judge_large_job_nodes(median, judged, job_spread, better, tol, out);
  }
  std::vector<float> scratch, others, deviations;
  for (size_t r : judged) {
    others.clear();
    for (size_t j : judged) {
      if (j == r) continue;
      const double v = median_link(m, static_cast<int>(j), static_cast<int>(r), better, scratch);
      if (v > 0) others.push_back(static_cast<float>(v));
    }
    if (others.size() < kMinOtherNodes) continue;
    const double own = median_link(m, static_cast<int>(r), -1, better, scratch);
    const double base = median_of(others);
    deviations.clear();
    for (size_t a : judged) {
      for (size_t b : judged) {
        if (a == r || b == r || a == b) continue;
        auto v = m.get(static_cast<int>(a), static_cast<int>(b));
        if (v) deviations.push_back(static_cast<float>(std::fabs(*v - base)));
      }
    }
    judge_node(r, own, base, 1.4826 * median_of(deviations), better, tol, out);
  }
}

struct WorseFirst {  // for a heap whose top is the mildest suspect kept
  bool operator()(const Suspect& a, const Suspect& b) const { return a.severity > b.severity; }
};

}  // namespace

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kBadLink:
      return "bad_link";
    case Verdict::kContention:
      return "contention";
    case Verdict::kBadNode:
      return "bad_node";
  }
  return "?";
}

const char* node_state_name(NodeState state) {
  switch (state) {
    case NodeState::kOk:
      return "ok";
    case NodeState::kBad:
      return "bad";
    case NodeState::kUnreachable:
      return "unreachable";
  }
  return "?";
}

bool beyond(double value, const Distribution& dist, Better better) {
  return better == Better::kLower ? value > dist.threshold : value < dist.threshold;
}

TestJudgement judge_links(const FigureMatrix& m, Better better, const Tolerances& tol,
                          const std::vector<bool>& alive) {
  const int n = m.ranks();
  TestJudgement out;
  out.links.assign(static_cast<size_t>(n), 0);
  out.bad.assign(static_cast<size_t>(n), 0);
  out.bad_node.assign(static_cast<size_t>(n), false);
  out.slowdown.assign(static_cast<size_t>(n), 0);
  out.slow_node.assign(static_cast<size_t>(n), false);
  std::vector<double> alive_median(static_cast<size_t>(n), 0);
  Distribution& d = out.dist;
  // The baseline: each rank's median link, then the median of those. A slow rank spoils all
  // of its own links but only one of each other rank's, so the baseline stays where the
  // healthy links are even when a quarter of all links are slow.
  Histogram all;
  std::vector<float> node_medians, links;
  d.min = std::numeric_limits<double>::infinity();
  d.max = 0;
  for (int i = 0; i < n; ++i) {
    links.clear();
    m.for_each_of(i, [&](int, int, std::optional<double> v) {
      if (v) links.push_back(static_cast<float>(*v));
    });
    if (links.empty()) continue;
    node_medians.push_back(static_cast<float>(median_of(links)));
    if (alive[static_cast<size_t>(i)]) alive_median[static_cast<size_t>(i)] = node_medians.back();
  }
  m.for_each([&](int, int, std::optional<double> v) {
    if (!v) return;
    all.record(scaled(*v));
    d.min = std::min(d.min, *v);
    d.max = std::max(d.max, *v);
  });
  d.count = all.count();
  if (d.count == 0) {
    d.min = 0;
  } else {
    d.p10 = percentile(all, 10);
    d.median = percentile(all, 50);
    d.p90 = percentile(all, 90);
  }
  d.baseline = median_of(node_medians);
  Histogram deviations;
  m.for_each([&](int, int, std::optional<double> v) {
    if (v) deviations.record(scaled(std::fabs(*v - d.baseline)));
  });
  d.spread = deviations.count() > 0 ? 1.4826 * percentile(deviations, 50) : 0;
  d.threshold = threshold_of(d.baseline, d.spread, better, tol);
  judge_nodes_alone(m, alive_median, d.spread, better, tol, out);
  std::priority_queue<Suspect, std::vector<Suspect>, WorseFirst> kept;
  m.for_each([&](int i, int j, std::optional<double> v) {
    if (!alive[static_cast<size_t>(i)] || !alive[static_cast<size_t>(j)]) return;
    ++out.links[static_cast<size_t>(i)];
    ++out.links[static_cast<size_t>(j)];
    if (v && !beyond(*v, d, better)) return;
    Suspect s;
    s.client = i;
    s.server = j;
    s.value = v;
    s.severity = v ? severity_of(*v, d.baseline, better) : std::numeric_limits<double>::infinity();
    ++out.suspect_count;
    ++out.bad[static_cast<size_t>(i)];
    ++out.bad[static_cast<size_t>(j)];
    if (kept.size() < TestJudgement::kMaxListedSuspects) {
      kept.push(s);
    } else if (s.severity > kept.top().severity) {
      kept.pop();
      kept.push(s);
    }
  });
  while (!kept.empty()) {
    out.suspects.push_back(kept.top());
    kept.pop();
  }
  std::reverse(out.suspects.begin(), out.suspects.end());
  return out;
}

void settle(TestJudgement& t, const FigureMatrix& m, Better better, const Tolerances& tol) {
  for (Suspect& s : t.suspects) {
    s.retest = m.retest(s.client, s.server);
    if (s.retest && !beyond(*s.retest, t.dist, better) && s.verdict != Verdict::kContention) {
      s.verdict = Verdict::kContention;  // fine alone: it was the company it kept
      --t.bad[static_cast<size_t>(s.client)];
      --t.bad[static_cast<size_t>(s.server)];
    }
  }
  for (size_t r = 0; r < t.links.size(); ++r) {
    t.bad_node[r] =
        t.slow_node[r] || (t.links[r] > 0 && t.bad[r] > 0 &&
                           static_cast<double>(t.bad[r]) >= tol.node_fraction * t.links[r] - 1e-9);
  }
  for (Suspect& s : t.suspects) {
    if (s.verdict == Verdict::kContention) continue;
    bool node =
        t.bad_node[static_cast<size_t>(s.client)] || t.bad_node[static_cast<size_t>(s.server)];
    s.verdict = node ? Verdict::kBadNode : Verdict::kBadLink;
  }
}

std::vector<NodeJudgement> judge_nodes(const std::vector<TestJudgement>& tests,
                                       const std::vector<bool>& alive) {
  std::vector<NodeJudgement> out(alive.size());
  for (size_t r = 0; r < alive.size(); ++r) {
    NodeJudgement& node = out[r];
    node.rank = static_cast<int>(r);
    if (!alive[r]) {
      node.state = NodeState::kUnreachable;
      continue;
    }
    double worst = -1;
    for (size_t t = 0; t < tests.size(); ++t) {
      const TestJudgement& tj = tests[t];
      if (tj.bad_node[r]) node.bad_in.push_back(t);
      if (tj.slow_node[r]) node.slowdown = std::max(node.slowdown, tj.slowdown[r]);
      double fraction = tj.links[r] > 0 ? static_cast<double>(tj.bad[r]) / tj.links[r] : 0;
      if (fraction > worst) {
        worst = fraction;
        node.links = tj.links[r];
        node.bad_links = tj.bad[r];
      }
    }
    node.state = node.bad_in.empty() ? NodeState::kOk : NodeState::kBad;
  }
  return out;
}

}  // namespace fabperf::cluster
