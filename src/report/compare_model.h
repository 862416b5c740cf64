// `fabperf compare`'s data step: saved runs side by side, row by row (test, size, stream or
// direction), each run's median and p99 with a confidence interval and each difference from
// the first run with its significance, the way benchstat compares Go benchmarks. The result
// is one JSON document that the terminal text, --json and --html all render.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "report/run_document.h"

namespace fabperf::report {

// What counts as a difference, and as a regression.
struct CompareOptions {
  double alpha = 0.05;       // significant when p < alpha
  double threshold_pct = 5;  // a significant change worse than this is a regression
  double confidence = 0.95;  // level of the intervals
};

// Version of the comparison document (--json).
inline constexpr int kCompareSchema = 1;

// The comparison of runs[1..] against runs[0]. Document:
// {"tool": "fabperf", "kind": "compare", "schema", "version", "alpha", "threshold_pct",
//  "confidence", "runs": [{"label", "started", "version", "client", "server"}],
//  "parameters": [{"name", "values": [text per run]}]   (only those that differ),
//  "tables": [{"metric", "title", "unit" (the JSON's: "ns", "Bps", "msgs/s"), "better"
//    ("lower"|"higher"), "quantile" (50, 99; 0 for rates), "rows": [{"key", "test",
//    "basis" ("repetitions"|"samples"|"single"), "why" (only where the row cannot be
//    compared), "cells": [{"value", "lo", "hi", "confidence", "n", "note"} or {"why"}],
//    "deltas": [{"run", "delta_pct", "p", "method", "verdict", "regressed"} or {"run",
//    "verdict": "?", "why"}]}], "geomean": {"values": [..], "deltas_pct": [..]}}],
//  "regressions": [{"table", "key", "run", "delta_pct", "p"}],
//  "notes": [text: failed tests with no row to show them]}
// "verdict": "~" (not significant), "better", "worse", "?" (no test possible: "why").
// Fails naming the run where a document is a cluster matrix (compared with --baseline).
Result<nlohmann::json> build_comparison(const std::vector<RunDocument>& runs,
                                        const CompareOptions& options);

// The parameters whose values differ between runs (against the first), as "parameters"
// above: effective test parameters (all results' values, the swept ones left out), the
// provider, hosts and fabperf version. Shared by compare and the report's multi-run page.
nlohmann::json parameter_differences(const std::vector<RunDocument>& runs);

// The comparison as terminal text: differing parameters first, one table per statistic
// (one unit per column, from its bulk), `~` for no significant difference, footnotes, and
// the regressions past the threshold last.
std::string comparison_text(const nlohmann::json& comparison);

// "+12.3%" / "-0.51%": a delta as the tables print it (3 significant digits).
std::string delta_text(double pct);

// A cell's interval as the tables print it: its wider side in % of the figure, "± 0.12%",
// "± 3.4%", "± 250%"; "" for a figure of 0.
std::string interval_text(const nlohmann::json& cell);

}  // namespace fabperf::report
