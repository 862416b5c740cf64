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
// The chance that some healthy pair of the job looks flapping: the binomial test's level.
constexpr double kFlapAlpha = 0.01;

// P(X >= k) for X ~ Binomial(m, p), summed in logs (m is small, p may be tiny).
double binomial_tail(uint32_t k, uint32_t m, double p) {
  if (k == 0) return 1;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  double total = 0;
  for (uint32_t i = k; i <= m; ++i) {
    double log_term = std::lgamma(m + 1.0) - std::lgamma(i + 1.0) - std::lgamma(m - i + 1.0) +
                      i * std::log(p) + (m - i) * std::log1p(-p);
    total += std::exp(log_term);
  }
  return std::min(1.0, total);
}

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

// Elements bad in some test, with their retests' verdict.
void element_findings(const MatrixRun& run, const FabricFit& fit, std::vector<Finding>& out) {
  const Topology& topo = *run.topology;
  const size_t elements = topo.element_count();
  std::vector<bool> up = run.alive();
  // Retested pairs through each bad element, and how many of those are still bad alone.
  std::unordered_map<ElementId, std::pair<uint32_t, uint32_t>> retests;
  ElementId path[kMaxPathElements];
  for (size_t t = 0; t < run.tests.size(); ++t) {
    const TestFit& tf = fit.tests[t];
    if (!tf.valid) continue;
    run.tests[t].matrix.for_each_retest([&](int a, int b, double v) {
      if (!up[static_cast<size_t>(a)] || !up[static_cast<size_t>(b)]) return;
      double r = pair_residual(run, tf, t, a, b, v);
      size_t k = topo.path(a, b, path);
      for (size_t i = 0; i < k; ++i) {
        if (!element_bad(tf, path[i])) continue;
        auto& [tried, still] = retests[path[i]];
        ++tried;
        if (r + tf.factor[path[i]] > tf.element_threshold) ++still;
      }
    });
  }
  for (size_t id = 0; id < elements; ++id) {
    ElementId e = static_cast<ElementId>(id);
    ElementKind kind = topo.element_kind(e);
    if (kind == ElementKind::kNode && !up[id]) continue;
    if (kind == ElementKind::kSwitch) {
      // A switch with one rank is that rank's node.
      if (topo.members()[id - topo.first_id(ElementKind::kSwitch)].size() < 2) continue;
    }
    Finding f;
    bool bad = false;
    double worst = 0;
    for (size_t t = 0; t < run.tests.size(); ++t) {
      const TestFit& tf = fit.tests[t];
      if (!element_bad(tf, e)) continue;
      if (!bad) f = element_finding(run, e);
      bad = true;
      f.tests.push_back(t);
      worst = std::max(worst, static_cast<double>(tf.factor[e]));
      f.evidence = std::max(f.evidence, tf.pairs[e]);
      double noise = 1.2533 * tf.spread / std::sqrt(static_cast<double>(tf.pairs[e]));
      if (tf.pairs[e] >= kFirmPairs && tf.factor[e] / noise >= 2 * kElementZ) f.firm = true;
    }
    if (!bad) continue;
    f.severity = std::exp(worst);
    if (auto it = retests.find(e); it != retests.end()) {
      f.retested = it->second.first;
      f.confirmed = it->second.second;
      if (f.confirmed * 2 <= f.retested) continue;  // fine alone: the company it kept
      f.firm = f.evidence >= kMinElementPairs * 2;
    }
    out.push_back(f);
  }
}

struct LinkEvidence {
  Finding finding;
  uint32_t hits = 0, runs = 0;
};

// The links the elements do not explain.
void link_findings(const MatrixRun& run, const FabricFit& fit, std::vector<Finding>& out) {
  const int n = run.size();
  std::vector<bool> up = run.alive();
  std::unordered_map<uint64_t, LinkEvidence> links;
  uint64_t hits_total = 0, runs_total = 0, pairs_total = 0;
  auto slow = [&](const TestFit& tf, size_t t, int a, int b, double v) {
    return pair_residual(run, tf, t, a, b, v) > tf.link_threshold;
  };
  for (size_t t = 0; t < run.tests.size(); ++t) {
    const TestFit& tf = fit.tests[t];
    if (!tf.valid) continue;
    const FigureMatrix& m = run.tests[t].matrix;
    m.for_each([&](int a, int b, std::optional<double> v) {
      if (!up[static_cast<size_t>(a)] || !up[static_cast<size_t>(b)]) return;
      ++pairs_total;
      if (!v) {  // failed while both ranks answered: broken
        LinkEvidence& l = links[pair_key(a, b, n)];
        l.finding.kind = FindingKind::kLink;
        l.finding.a = a;
        l.finding.b = b;
        l.finding.tests.push_back(t);
        l.finding.severity = std::numeric_limits<double>::infinity();
        l.finding.evidence = 1;
        return;
      }
      uint32_t runs = m.measurements(a, b);
      uint32_t hits = 0;
      if (const std::vector<float>* worse = m.worse_values(a, b)) {
        for (float w : *worse) hits += slow(tf, t, a, b, w) ? 1 : 0;
      }
      bool best_slow = slow(tf, t, a, b, *v);
      if (best_slow) hits = runs;  // the best of its runs was slow: every run was
      runs_total += runs;
      hits_total += hits;
      auto alone = m.retest(a, b);
      bool alone_slow = alone && slow(tf, t, a, b, *alone);
      bool persistent = best_slow && (alone ? alone_slow : runs >= 2);
      if (!persistent && hits == 0 && !alone_slow) return;
      LinkEvidence& l = links[pair_key(a, b, n)];
      l.finding.kind = FindingKind::kLink;
      l.finding.a = a;
      l.finding.b = b;
      l.hits += hits;
      l.runs += runs;
      double sev = std::exp(std::max(0.0, pair_residual(run, tf, t, a, b, *v)));
      if (persistent) {
        l.finding.tests.push_back(t);
        l.finding.severity = std::max(l.finding.severity, sev);
        l.finding.evidence = std::max<uint32_t>(l.finding.evidence, runs);
        l.finding.retested += alone ? 1 : 0;
        l.finding.confirmed += alone_slow ? 1 : 0;
        l.finding.firm = l.finding.firm || alone_slow || runs >= 3;
      }
    });
  }
  double p0 = runs_total > 0 ? static_cast<double>(hits_total) / static_cast<double>(runs_total) : 0;
  double level = kFlapAlpha / std::max<double>(1, static_cast<double>(pairs_total));
  for (auto& [key, l] : links) {
    Finding& f = l.finding;
    if (f.tests.empty() && l.runs >= 2 && l.hits > 0 && l.hits < l.runs &&
        binomial_tail(l.hits, l.runs, p0) < level) {
      // Slow in more of its runs than the job's noise explains: flapping.
      for (size_t t = 0; t < run.tests.size(); ++t) f.tests.push_back(t);
      f.firm = true;
      f.evidence = l.runs;
    }
    if (f.tests.empty()) continue;
    f.slow_runs = l.hits;
    f.runs = l.runs;
    if (f.severity == 0) f.severity = 1;
    out.push_back(f);
  }
}

}  // namespace

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
  element_findings(run, fit, out);
  link_findings(run, fit, out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& x, const Finding& y) {
    bool ux = x.kind == FindingKind::kUnreachable, uy = y.kind == FindingKind::kUnreachable;
    if (ux != uy) return ux;
    if (x.severity != y.severity) return x.severity > y.severity;
    return std::tie(x.kind, x.a, x.b) < std::tie(y.kind, y.a, y.b);
  });
  return out;
}

}  // namespace fabperf::cluster
