// MatrixRun's own logic: who is alive, and judging every test once the measurements are in.
#include "cluster/matrix_run.h"

#include <algorithm>
#include <set>

namespace fabperf::cluster {

std::vector<bool> MatrixRun::alive() const {
  std::vector<bool> out(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) out[i] = ranks[i].alive;
  return out;
}

void MatrixRun::judge() {
  std::vector<bool> up = alive();
  std::vector<TestJudgement> judgements;
  for (TestColumn& t : tests) {
    t.judgement = judge_links(t.matrix, t.figure.better, tol, up);
    settle(t.judgement, t.matrix, t.figure.better, tol);
    judgements.push_back(t.judgement);
  }
  nodes = judge_nodes(judgements, up);
}

std::vector<RetestCandidate> retest_candidates(const MatrixRun& run, const std::vector<bool>& alive,
                                               size_t limit) {
  auto up = [&](int rank) { return rank >= 0 && static_cast<size_t>(rank) < alive.size() &&
                                   alive[static_cast<size_t>(rank)]; };
  std::vector<RetestCandidate> all;
  for (size_t t = 0; t < run.tests.size(); ++t) {
    const FigureMatrix& m = run.tests[t].matrix;
    std::set<std::pair<int, int>> listed;
    for (const Suspect& s : run.tests[t].judgement.suspects) {
      if (!up(s.client) || !up(s.server)) continue;
      all.push_back({t, s, m.noisy(s.client, s.server)});
      listed.insert({s.client, s.server});
    }
    // A pair measured under host noise is retested too, suspect or not: its figure says
    // little about its link.
    std::vector<std::pair<int, int>> noisy;
    for (uint64_t cell : m.noisy_cells()) noisy.push_back(m.pair_of(cell));
    std::sort(noisy.begin(), noisy.end());
    for (const auto& [client, server] : noisy) {
      if (listed.count({client, server}) > 0 || !up(client) || !up(server)) continue;
      Suspect s;
      s.client = client;
      s.server = server;
      s.value = m.get(client, server);
      all.push_back({t, s, true});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const RetestCandidate& a, const RetestCandidate& b) {
    if (a.noisy != b.noisy) return a.noisy;
    return a.suspect.severity > b.suspect.severity;
  });
  if (all.size() > limit) all.resize(limit);
  return all;
}

size_t MatrixRun::host_count() const {
  std::set<std::string> hosts;
  for (const RankStatus& r : ranks) {
    if (r.host != "?") hosts.insert(r.host);  // "?": a rank that never said
  }
  return hosts.size();
}

}  // namespace fabperf::cluster
