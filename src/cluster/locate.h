// Fitting the fabric to the measurements: each measured pair's figure, relative to the baseline
// of its path class (same switch, same group, other group), is explained as the product of a
// factor per element it crosses (its two nodes, their switches, the local link or uplinks
// between). The factors are fitted to all pairs at once, switch by switch, link by link, node by
// node, a few sweeps of medians (robust to the odd outlier), in that order: a switch is decided
// on the pairs that stay inside it, before its nodes can take the blame (NetBouncer's "devices
// before links"). Memory: a histogram per element, never per pair.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/figure_matrix.h"
#include "cluster/topology.h"
#include "cluster/verdicts.h"

namespace fabperf::cluster {

struct MatrixRun;

// One test's fit. Factors are logs: 0 healthy, ln 2 twice as slow (in the figure's bad
// direction), whatever the figure.
struct TestFit {
  bool valid = false;
  double base[kPathClasses] = {0, 0, 0};  // each path class's baseline (figure units)
  bool has_class[kPathClasses] = {false, false, false};
  double spread = 0;             // robust deviation of a pair's residual after the fit
  std::vector<float> factor;     // per element id
  std::vector<uint32_t> pairs;   // per element id: measured pairs through it that count
  double element_threshold = 0;  // an element is bad beyond this factor (log) ...
  double link_threshold = 0;     // ... a pair beyond this residual (log)
  // A single run's spread (log) about its pair's level (FigureMatrix::run_spread), and how
  // much worse a single run is on average than the best of the test's --passes runs, the
  // figure every pair and baseline is: what a run alone is judged with (alone_residual).
  double run_spread = 0;
  double alone_offset = 0;
};

struct FabricFit {
  std::vector<TestFit> tests;
};

// A pair must be this many robust deviations off for an element's median to count as beyond
// noise, on the number of pairs through it.
inline constexpr double kElementZ = 5.0;
inline constexpr uint32_t kMinElementPairs = 3;

// A pair is slow only this many of its test's robust deviations off too: where contention
// makes a test's spread wide, only pairs far off stand out of it.
inline constexpr double kLinkNoise = 4.0;

FabricFit fit_fabric(const MatrixRun& run);

// The residual beyond which a pair is slow in a test.
inline double link_limit(const TestFit& fit) {
  return fit.link_threshold > kLinkNoise * fit.spread ? fit.link_threshold
                                                      : kLinkNoise * fit.spread;
}

// The log of how much worse `value` is than `base` (figure's direction); <0 better.
double log_off(double value, double base, Better better);
// A pair's residual in a test: its value off its class's baseline, less every fitted factor
// on its path. `value`: the measured value, or its retest.
double pair_residual(const MatrixRun& run, const TestFit& fit, size_t test, int a, int b,
                     double value);
// A run alone's residual: a single run, judged as the best of the test's passes would be
// (pair_residual less the fit's alone_offset).
double alone_residual(const MatrixRun& run, const TestFit& fit, size_t test, int a, int b,
                      double value);
// The mean of the largest of n standard normal draws (0 for one draw, 1.54 for ten).
double expected_best_of(uint64_t n);
// True when element `id` is beyond the threshold and the noise in this test.
bool element_bad(const TestFit& fit, ElementId id);

}  // namespace fabperf::cluster
