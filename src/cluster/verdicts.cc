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
    if (!links.empty()) node_medians.push_back(static_cast<float>(median_of(links)));
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
  // The ratio is the rule; a wide distribution (contention) may relax it, at most twofold, so
  // that noise is not named while a link far off is, however noisy the job.
  double widen = tol.outlier_mads * d.spread;
  if (better == Better::kLower) {
    d.threshold =
        std::clamp(d.baseline + widen, d.baseline * tol.lat_ratio, d.baseline * tol.lat_ratio * 2);
  } else {
    d.threshold =
        std::clamp(d.baseline - widen, d.baseline * tol.bw_ratio / 2, d.baseline * tol.bw_ratio);
  }
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
      s.severity =
          v ? severity_of(*v, d.baseline, better) : std::numeric_limits<double>::infinity();
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
    t.bad_node[r] = t.links[r] > 0 && t.bad[r] > 0 &&
                    static_cast<double>(t.bad[r]) >= tol.node_fraction * t.links[r] - 1e-9;
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
