// MatrixRun's own logic: who is alive, and judging every test once the measurements are in.
#include "cluster/matrix_run.h"

#include <algorithm>
#include <set>

#include "cluster/fabric_findings.h"

namespace fabperf::cluster {

std::vector<bool> MatrixRun::alive() const {
  std::vector<bool> out(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) out[i] = ranks[i].alive;
  return out;
}

void MatrixRun::judge(Judge what) {
  std::vector<bool> up = alive();
  std::vector<TestJudgement> judgements;
  for (TestColumn& t : tests) {
    t.judgement = judge_links(t.matrix, t.figure.better, tol, up);
    settle(t.judgement, t.matrix, t.figure.better, tol);
    judgements.push_back(t.judgement);
  }
  nodes = judge_nodes(judgements, up);
  if (topology && topology->has_levels()) {
    fit = fit_fabric(*this);
    if (what == Judge::kFull) findings = fabric_findings(*this, fit);
  } else {
    fit = FabricFit();
    if (what == Judge::kFull) findings = plain_findings(*this);
  }
}

std::vector<std::string> MatrixRun::hosts() const {
  std::vector<std::string> out;
  out.reserve(ranks.size());
  for (const RankStatus& r : ranks) out.push_back(r.host);
  return out;
}

size_t MatrixRun::host_count() const {
  std::set<std::string> hosts;
  for (const RankStatus& r : ranks) {
    if (r.host != "?") hosts.insert(r.host);  // "?": a rank that never said
  }
  return hosts.size();
}

}  // namespace fabperf::cluster
