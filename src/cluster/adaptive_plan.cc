// The adaptive plan's three steps: the screen's rounds, localising around the suspects, and the
// retests alone.
#include "cluster/adaptive_plan.h"

#include <algorithm>
#include <unordered_set>

#include "cluster/locate.h"
#include "cluster/matrix_run.h"
#include "cluster/retest.h"

namespace fabperf::cluster {

namespace {

constexpr size_t kAttempts = 24;      // draws per wanted pair before giving up on an element
constexpr size_t kRoundsPerStep = 3;  // a guess at a localise or retest step's rounds

uint64_t unordered_key(int a, int b) {
  return (static_cast<uint64_t>(std::min(a, b)) << 32) | static_cast<uint32_t>(std::max(a, b));
}

}  // namespace

AdaptivePlan::AdaptivePlan(std::shared_ptr<const Topology> topology, uint64_t seed, bool randomize)
    : topo_(std::move(topology)), rng_(seed ^ 0x5deece66dull), randomize_(randomize) {
  const Topology& t = *topo_;
  under_.assign(t.switches().size(), {});
  for (size_t s = 0; s < t.switches().size(); ++s) {
    for (int r : t.members()[s]) {
      // A rank is under its switch and every switch above it.
      for (int up = static_cast<int>(s), guard = 0; up >= 0 && guard < 64; ++guard) {
        under_[static_cast<size_t>(up)].push_back(r);
        up = t.switches()[static_cast<size_t>(up)].parent;
      }
    }
  }
  group_ranks_.assign(t.groups().size(), {});
  for (int r = 0; r < t.ranks(); ++r) {
    if (t.group_of(r) >= 0) group_ranks_[static_cast<size_t>(t.group_of(r))].push_back(r);
    if (t.switch_of(r) < 0) unplaced_.push_back(r);
  }
  caps_.assign(t.element_count(), 0);
  for (size_t id = t.first_id(ElementKind::kLocalLink); id < t.element_count(); ++id) {
    if (t.kind() == TopologyKind::kDragonfly) {
      caps_[id] = 1;  // one pair a round on a dragonfly link: it may be a single cable
    } else {
      Element e = t.element(static_cast<ElementId>(id));
      caps_[id] = static_cast<uint8_t>(std::clamp<size_t>(under(e.a).size() / 4, 1, 255));
    }
  }
  build_screen();
}

bool AdaptivePlan::fresh(int a, int b) {
  return a != b && seen_.insert(unordered_key(a, b)).second;
}

int AdaptivePlan::random_rank(const std::vector<int>& from) {
  return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng_)];
}

void AdaptivePlan::intra_rounds() {
  const Topology& t = *topo_;
  std::vector<std::vector<Pair>> rounds;
  for (size_t s = 0; s < t.switches().size(); ++s) {
    std::vector<int> members = t.members()[s];
    if (members.size() < 2) continue;
    if (randomize_) std::shuffle(members.begin(), members.end(), rng_);
    auto schedule = Schedule::make(PatternSpec{}, static_cast<int>(members.size()), false, 1);
    if (!schedule.ok()) continue;
    size_t count = std::min(kIntraRounds, schedule->rounds());
    if (rounds.size() < count) rounds.resize(count);
    for (size_t k = 0; k < count; ++k) {
      for (const Pair& p : schedule->round(k)) {
        int a = members[static_cast<size_t>(p.client)], b = members[static_cast<size_t>(p.server)];
        if (fresh(a, b)) rounds[k].push_back({a, b});
      }
    }
  }
  for (std::vector<Pair>& pairs : rounds) {
    screen_pairs_ += pairs.size();
    queue_.push_back({std::move(pairs), {}, false});
  }
}

void AdaptivePlan::demands_through(ElementId id, size_t count, const std::vector<bool>& avoid,
                                   const MatrixRun* run, std::vector<Pair>& out) {
  const Topology& t = *topo_;
  Element e = t.element(id);
  std::unordered_set<int> used;  // spread the pairs over distinct ranks where it can
  auto ok = [&](int r) { return avoid.empty() || !avoid[static_cast<size_t>(r)]; };
  size_t got = 0;
  for (size_t attempt = 0; attempt < kAttempts * count && got < count; ++attempt) {
    int a = -1, b = -1;
    switch (e.kind) {
      case ElementKind::kNode: {
        a = e.a;
        b = static_cast<int>(std::uniform_int_distribution<int>(0, t.ranks() - 1)(rng_));
        if (t.switch_of(b) >= 0 && t.switch_of(b) == t.switch_of(a) && t.has_levels()) b = -1;
        break;
      }
      case ElementKind::kSwitch:
        if (under(e.a).size() < 2) return;
        a = random_rank(under(e.a));
        b = random_rank(under(e.a));
        break;
      case ElementKind::kLocalLink:
        if (t.members()[static_cast<size_t>(e.a)].empty() ||
            t.members()[static_cast<size_t>(e.b)].empty()) {
          return;
        }
        a = random_rank(t.members()[static_cast<size_t>(e.a)]);
        b = random_rank(t.members()[static_cast<size_t>(e.b)]);
        break;
      case ElementKind::kUplink:
        if (t.kind() == TopologyKind::kDragonfly) {
          if (group_ranks_[static_cast<size_t>(e.a)].empty() ||
              group_ranks_[static_cast<size_t>(e.b)].empty()) {
            return;
          }
          a = random_rank(group_ranks_[static_cast<size_t>(e.a)]);
          b = random_rank(group_ranks_[static_cast<size_t>(e.b)]);
        } else {
          if (under(e.a).empty()) return;
          a = random_rank(under(e.a));
          b = static_cast<int>(std::uniform_int_distribution<int>(0, t.ranks() - 1)(rng_));
          ElementId path[kMaxPathElements];
          size_t k = t.path(a, b, path);
          if (std::find(path, path + k, id) == path + k) b = -1;  // not through this uplink
        }
        break;
    }
    if (a < 0 || b < 0 || a == b || !ok(b) || (e.kind != ElementKind::kNode && !ok(a))) continue;
    // Distinct ranks first; after half the attempts, any.
    bool spread = used.count(a) == 0 && used.count(b) == 0;
    if (!spread && attempt < kAttempts * count / 2 && e.kind != ElementKind::kNode) continue;
    if (run != nullptr && run->tests.front().matrix.measured(a, b)) continue;
    if (!fresh(a, b)) continue;
    used.insert(a);
    used.insert(b);
    out.push_back({a, b});
    ++got;
  }
}

std::vector<Pair> AdaptivePlan::link_demands() {
  const Topology& t = *topo_;
  std::vector<Pair> out;
  const std::vector<bool> none;
  if (t.kind() == TopologyKind::kDragonfly) {
    for (size_t g = 0; g < t.groups().size(); ++g) {
      const std::vector<int>& sw = t.group_switches(static_cast<int>(g));
      for (size_t p = 0; p < sw.size(); ++p) {
        for (size_t q = p + 1; q < sw.size(); ++q) {
          demands_through(static_cast<ElementId>(t.local_link_id(sw[p], sw[q])), kPairsPerLink,
                          none, nullptr, out);
        }
      }
    }
    for (size_t g1 = 0; g1 < t.groups().size(); ++g1) {
      for (size_t g2 = g1 + 1; g2 < t.groups().size(); ++g2) {
        demands_through(
            static_cast<ElementId>(t.uplink_id_groups(static_cast<int>(g1), static_cast<int>(g2))),
            kPairsPerLink, none, nullptr, out);
      }
    }
  } else if (t.kind() != TopologyKind::kFlat) {
    size_t roots = 0;
    for (size_t s = 0; s < t.switches().size(); ++s) {
      roots += t.switches()[s].parent < 0 && !under(static_cast<int>(s)).empty();
    }
    for (size_t s = 0; s < t.switches().size(); ++s) {
      bool has_uplink = t.switches()[s].parent >= 0 || roots > 1;
      if (!has_uplink || under(static_cast<int>(s)).empty()) continue;
      demands_through(static_cast<ElementId>(t.uplink_id_switch(static_cast<int>(s))),
                      kPairsPerLink, none, nullptr, out);
    }
  }
  for (int r : unplaced_) demands_through(t.node_id(r), kPairsPerLink, none, nullptr, out);
  return out;
}

std::vector<PlannedRound> AdaptivePlan::pack(const std::vector<Pair>& demands) const {
  const Topology& t = *topo_;
  std::vector<PlannedRound> rounds;
  std::vector<std::vector<uint8_t>> busy, flows;
  ElementId path[kMaxPathElements];
  for (const Pair& p : demands) {
    size_t k = t.path(p.client, p.server, path);
    size_t r = 0;
    for (; r < rounds.size(); ++r) {
      if (busy[r][static_cast<size_t>(p.client)] || busy[r][static_cast<size_t>(p.server)]) {
        continue;
      }
      bool full = false;
      for (size_t i = 2; i < k && !full; ++i)
        full = caps_[path[i]] > 0 && flows[r][path[i]] >= caps_[path[i]];
      if (!full) break;
    }
    if (r == rounds.size()) {
      rounds.push_back({{}, {}, false});
      busy.emplace_back(static_cast<size_t>(t.ranks()), 0);
      flows.emplace_back(t.element_count(), 0);
    }
    rounds[r].pairs.push_back(p);
    busy[r][static_cast<size_t>(p.client)] = busy[r][static_cast<size_t>(p.server)] = 1;
    for (size_t i = 2; i < k; ++i) {
      if (caps_[path[i]] > 0) ++flows[r][path[i]];
    }
  }
  return rounds;
}

void AdaptivePlan::build_screen() {
  intra_rounds();
  std::vector<Pair> demands = link_demands();
  std::shuffle(demands.begin(), demands.end(), rng_);
  for (PlannedRound& r : pack(demands)) {
    screen_pairs_ += r.pairs.size();
    queue_.push_back(std::move(r));
  }
}

std::vector<PlannedRound> AdaptivePlan::localise(const MatrixRun& run) {
  const Topology& t = *topo_;
  FabricFit fit = fit_fabric(run);
  std::vector<bool> up = run.alive();
  // What looks slow (half the threshold) or stands on too few pairs; and who to keep away from.
  std::vector<uint32_t> need(t.element_count(), 0);
  std::vector<bool> avoid(static_cast<size_t>(t.ranks()), false);
  for (size_t r = 0; r < up.size(); ++r) avoid[r] = !up[r];
  for (const TestFit& tf : fit.tests) {
    if (!tf.valid) continue;
    for (size_t id = 0; id < t.element_count(); ++id) {
      ElementKind kind = t.element_kind(static_cast<ElementId>(id));
      if (kind == ElementKind::kNode && !up[id]) continue;
      uint32_t have = tf.pairs[id];
      bool suspect = tf.factor[id] > tf.element_threshold / 2 && have < 2 * kTargetPairs;
      bool thin =
          have < kMinElementPairs && (kind != ElementKind::kSwitch ||
                                      under(static_cast<int>(id - t.first_id(kind))).size() > 1);
      if (!suspect && !thin) continue;
      need[id] =
          std::max(need[id], std::max<uint32_t>(4, kTargetPairs > have ? kTargetPairs - have : 0));
      if (!suspect) continue;
      Element e = t.element(static_cast<ElementId>(id));
      if (kind == ElementKind::kNode) avoid[static_cast<size_t>(e.a)] = true;
      if (kind == ElementKind::kSwitch) {
        for (int r : under(e.a)) avoid[static_cast<size_t>(r)] = true;
      }
    }
  }
  std::vector<bool> dead(avoid.size(), false);
  for (size_t r = 0; r < up.size(); ++r) dead[r] = !up[r];
  std::vector<Pair> demands;
  for (size_t id = 0; id < need.size(); ++id) {
    if (need[id] == 0) continue;
    ElementKind kind = t.element_kind(static_cast<ElementId>(id));
    // Partners away from the other suspects; the element's own ranks may be suspects.
    std::vector<bool> partners = avoid;
    if (kind == ElementKind::kNode) partners[id] = false;
    if (kind == ElementKind::kSwitch) {
      for (int r : under(static_cast<int>(id - t.first_id(kind)))) {
        partners[static_cast<size_t>(r)] = !up[static_cast<size_t>(r)];
      }
    }
    size_t before = demands.size();
    demands_through(static_cast<ElementId>(id), need[id], partners, &run, demands);
    size_t got = demands.size() - before;
    if (got < need[id]) {  // too many suspects about: any live partner
      demands_through(static_cast<ElementId>(id), need[id] - got, dead, &run, demands);
    }
  }
  std::shuffle(demands.begin(), demands.end(), rng_);
  return pack(demands);
}

std::vector<PlannedRound> AdaptivePlan::retest(const MatrixRun& run) {
  FabricFit fit = fit_fabric(run);
  return pack_alone(retest_candidates(run, &fit, kMaxRetests), topo_.get());
}

std::optional<PlannedRound> AdaptivePlan::next(const MatrixRun& run) {
  while (queue_.empty()) {
    switch (phase_) {
      case Phase::kScreen:
        phase_ = Phase::kLocalise;
        break;
      case Phase::kLocalise:
        if (localise_done_ >= kLocaliseSteps) {
          phase_ = Phase::kRetest;
          break;
        }
        ++localise_done_;
        for (PlannedRound& r : localise(run)) queue_.push_back(std::move(r));
        if (queue_.empty()) phase_ = Phase::kRetest;
        break;
      case Phase::kRetest:
        // Waves, as the coordinator's: a link still slow alone is measured alone again.
        if (retest_waves_ >= kPairRetests) {
          phase_ = Phase::kDone;
          break;
        }
        ++retest_waves_;
        for (PlannedRound& r : retest(run)) queue_.push_back(std::move(r));
        if (queue_.empty()) phase_ = Phase::kDone;
        break;
      case Phase::kDone:
        return std::nullopt;
    }
  }
  PlannedRound r = std::move(queue_.front());
  queue_.pop_front();
  return r;
}

size_t AdaptivePlan::rounds_left() const {
  size_t guess = 0;
  switch (phase_) {
    case Phase::kScreen:
      guess = (kLocaliseSteps + 1) * kRoundsPerStep;
      break;
    case Phase::kLocalise:
      guess = (kLocaliseSteps - localise_done_ + 1) * kRoundsPerStep;
      break;
    case Phase::kRetest:
    case Phase::kDone:
      break;
  }
  return queue_.size() + guess;
}

}  // namespace fabperf::cluster
