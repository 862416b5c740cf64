// Tests of the --matrix pairing patterns (cluster/schedule.h): every pair exactly once, rounds
// of disjoint pairs, up to 10,000 ranks, and the file pattern's errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <vector>

#include "cluster/schedule.h"

namespace fabperf::cluster {
namespace {

struct Coverage {
  uint64_t pairs = 0;
  bool ok = true;
};

// Walks every round: no rank twice in a round as client, nor twice as server, nor (unordered
// patterns) twice at all; every pair (ordered: every (a,b); unordered: every {a,b}) once.
Coverage check(const Schedule& s, int n) {
  Coverage c;
  std::vector<bool> seen(static_cast<size_t>(n) * static_cast<size_t>(n), false);
  std::vector<size_t> as_client(static_cast<size_t>(n), SIZE_MAX), as_server(as_client);
  for (size_t k = 0; k < s.rounds(); ++k) {
    for (const Pair& p : s.round(k)) {
      if (p.client < 0 || p.client >= n || p.server < 0 || p.server >= n || p.client == p.server) {
        ADD_FAILURE() << "round " << k << ": bad pair " << p.client << " " << p.server;
        c.ok = false;
        return c;
      }
      size_t a = static_cast<size_t>(p.client), b = static_cast<size_t>(p.server);
      bool clash = as_client[a] == k || as_server[b] == k;
      if (!s.ordered()) clash = clash || as_server[a] == k || as_client[b] == k;
      if (clash) {
        ADD_FAILURE() << "round " << k << ": rank in two pairs (" << a << ", " << b << ")";
        c.ok = false;
        return c;
      }
      as_client[a] = k;
      as_server[b] = k;
      size_t key = s.ordered() ? a * n + b : std::min(a, b) * n + std::max(a, b);
      if (seen[key]) {
        ADD_FAILURE() << "pair " << a << " " << b << " measured twice";
        c.ok = false;
        return c;
      }
      seen[key] = true;
      ++c.pairs;
    }
  }
  return c;
}

uint64_t all_pairs(int n, bool ordered) {
  uint64_t m = static_cast<uint64_t>(n);
  return ordered ? m * (m - 1) : m * (m - 1) / 2;
}

Schedule make(PatternKind kind, int n, bool randomize = false, uint64_t seed = 7) {
  PatternSpec spec;
  spec.kind = kind;
  auto s = Schedule::make(spec, n, randomize, seed);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(*s);
}

TEST(ClusterSchedule, AllPairsEveryPairOnceInDisjointRounds) {
  for (int n = 2; n <= 40; ++n) {
    for (bool randomize : {false, true}) {
      Schedule s = make(PatternKind::kAll, n, randomize, 1000 + n);
      EXPECT_EQ(s.rounds(), static_cast<size_t>(n % 2 == 0 ? n - 1 : n)) << n;
      Coverage c = check(s, n);
      EXPECT_TRUE(c.ok) << n;
      EXPECT_EQ(c.pairs, all_pairs(n, false)) << n;
      EXPECT_EQ(s.pair_count(), all_pairs(n, false));
      // N/2 pairs a round (one rank sits out a round when N is odd).
      for (size_t k = 0; k < s.rounds(); ++k)
        EXPECT_EQ(s.round(k).size(), static_cast<size_t>(n / 2));
    }
  }
}

TEST(ClusterSchedule, ShiftEveryOrderedPairOnceEveryRankSendsAndReceives) {
  for (int n = 2; n <= 30; ++n) {
    Schedule s = make(PatternKind::kShift, n, n % 2 == 0);
    EXPECT_TRUE(s.ordered());
    EXPECT_EQ(s.rounds(), static_cast<size_t>(n - 1));
    Coverage c = check(s, n);
    EXPECT_TRUE(c.ok) << n;
    EXPECT_EQ(c.pairs, all_pairs(n, true)) << n;
    for (size_t k = 0; k < s.rounds(); ++k) EXPECT_EQ(s.round(k).size(), static_cast<size_t>(n));
  }
}

TEST(ClusterSchedule, SerialOnePairARound) {
  for (int n : {2, 3, 4, 7, 150}) {
    for (bool randomize : {false, true}) {
      Schedule s = make(PatternKind::kSerial, n, randomize);
      EXPECT_EQ(s.rounds(), all_pairs(n, false));
      Coverage c = check(s, n);
      EXPECT_TRUE(c.ok) << n;
      EXPECT_EQ(c.pairs, all_pairs(n, false));
    }
  }
}

TEST(ClusterSchedule, RandomizeChangesWhichPairsShareARound) {
  Schedule plain = make(PatternKind::kAll, 16, false);
  Schedule shuffled = make(PatternKind::kAll, 16, true, 42);
  Schedule again = make(PatternKind::kAll, 16, true, 42);
  EXPECT_NE(plain.round(0), shuffled.round(0));
  for (size_t k = 0; k < shuffled.rounds(); ++k) EXPECT_EQ(shuffled.round(k), again.round(k));
}

TEST(ClusterSchedule, IndexPermutationIsABijection) {
  for (uint64_t size : {1u, 2u, 3u, 5u, 64u, 65u, 1000u, 4097u}) {
    IndexPermutation p(size, 99, false);
    std::set<uint64_t> images;
    for (uint64_t i = 0; i < size; ++i) {
      uint64_t v = p(i);
      EXPECT_LT(v, size);
      images.insert(v);
    }
    EXPECT_EQ(images.size(), size);
  }
}

// The scale: 10,000 ranks, 9,999 rounds of 5,000 pairs, randomized, checked in full.
TEST(ClusterSchedule, TenThousandRanksAllPairs) {
  const int n = 10000;
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  Schedule s = make(PatternKind::kAll, n, true, 2024);
  uint64_t generated = 0;
  for (size_t k = 0; k < s.rounds(); ++k) generated += s.round(k).size();
  double generate_s = std::chrono::duration<double>(Clock::now() - start).count();
  start = Clock::now();
  Coverage c = check(s, n);
  double check_s = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(s.rounds(), 9999u);
  EXPECT_EQ(generated, all_pairs(n, false));
  EXPECT_EQ(c.pairs, all_pairs(n, false));
  std::printf(
      "[ schedule ] all, N=%d, randomized: %zu rounds, %llu pairs generated in %.2f s "
      "(%.0f us a round), checked in %.2f s\n",
      n, s.rounds(), static_cast<unsigned long long>(generated), generate_s,
      generate_s / static_cast<double>(s.rounds()) * 1e6, check_s);
}

TEST(ClusterSchedule, TenThousandRanksSerialRoundsAreValid) {
  const int n = 10000;
  Schedule s = make(PatternKind::kSerial, n, true, 5);
  EXPECT_EQ(s.rounds(), all_pairs(n, false));
  std::set<std::pair<int, int>> seen;
  for (size_t k : {size_t{0}, size_t{1}, s.rounds() / 2, s.rounds() - 2, s.rounds() - 1}) {
    auto round = s.round(k);
    ASSERT_EQ(round.size(), 1u);
    Pair p = round[0];
    EXPECT_NE(p.client, p.server);
    EXPECT_TRUE(seen.insert({std::min(p.client, p.server), std::max(p.client, p.server)}).second);
  }
}

Result<Schedule> from_text(const std::string& text, int n, bool randomize = false) {
  return Schedule::from_pairs_text(text, n, randomize, 3, "pairs.txt");
}

TEST(ClusterSchedule, FilePairsArePackedInOrder) {
  auto s = from_text("# a comment\n0 1\n2 3\n1 2   # trailing comment\n\n3 0\n", 4);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->ordered());
  ASSERT_EQ(s->rounds(), 2u);
  EXPECT_EQ(s->round(0), (std::vector<Pair>{{0, 1}, {2, 3}}));
  EXPECT_EQ(s->round(1), (std::vector<Pair>{{1, 2}, {3, 0}}));
  Coverage c = check(*s, 4);
  EXPECT_EQ(c.pairs, 4u);
}

TEST(ClusterSchedule, FileRoundsAsGiven) {
  auto s = from_text("5 0 1\n5 2 3\n9 0 2\n", 4);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->rounds(), 2u);
  EXPECT_EQ(s->round(0).size(), 2u);
  EXPECT_EQ(s->round(1), (std::vector<Pair>{{0, 2}}));
}

TEST(ClusterSchedule, FileErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"0 1\n0 9\n", "line 2: rank 9 is not in the job (4 ranks: 0 to 3)"},
           {"1 1\n", "line 1: a rank cannot measure itself"},
           {"0 1\n0 1\n", "line 2: pair 0 1 is listed twice"},
           {"0 1\n1 0 2\n", "line 2: mixes lines with and without a round number"},
           {"0 x\n", "line 1: \"x\" is not a rank number"},
           {"0 -1\n", "line 1: \"-1\" is not a rank number"},
           {"0\n", "line 1: expected CLIENT SERVER or ROUND CLIENT SERVER"},
           {"1 0 1\n1 1 2\n", "line 2: rank 1 is already in round 1 (line 1)"},
           {"# nothing\n", "lists no pairs"},
       }) {
    auto s = from_text(c.text, 4);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), Code::kUsage);
    EXPECT_NE(s.status().message().find(c.says), std::string::npos) << s.status().message();
    EXPECT_EQ(s.status().message().rfind("pairs.txt", 0), 0u) << s.status().message();
  }
}

TEST(ClusterSchedule, PatternNames) {
  EXPECT_EQ(parse_pattern("all")->kind, PatternKind::kAll);
  EXPECT_EQ(parse_pattern("shift")->kind, PatternKind::kShift);
  EXPECT_EQ(parse_pattern("serial")->kind, PatternKind::kSerial);
  EXPECT_EQ(parse_pattern("adaptive")->kind, PatternKind::kAdaptive);
  EXPECT_EQ(parse_pattern("adaptive")->name(), "adaptive");
  auto file = parse_pattern("file:/tmp/p.txt");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->path, "/tmp/p.txt");
  EXPECT_EQ(file->name(), "file:/tmp/p.txt");
  for (const char* bad : {"ring", "file:", "", "ALL"}) {
    auto p = parse_pattern(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find("expected all, shift, serial, adaptive or file:PAIRS"),
              std::string::npos);
  }
  PatternSpec missing{PatternKind::kFile, "/nonexistent/pairs"};
  auto s = Schedule::make(missing, 4, false, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cannot read"), std::string::npos);
  auto one = Schedule::make(PatternSpec{}, 1, false, 1);
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("at least 2 ranks"), std::string::npos);
}

}  // namespace
}  // namespace fabperf::cluster
