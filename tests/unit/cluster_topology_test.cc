// Tests of --topology (cluster/topology_file.h) and the paths and element ids of a topology
// (cluster/topology.h): Slurm's host ranges, topology.conf trees and host-group maps, every
// malformed file named by its line, the one mismatch warning, and what a path crosses.
#include <gtest/gtest.h>

#include <algorithm>

#include "cluster/topology.h"
#include "cluster/topology_file.h"

namespace fabperf::cluster {
namespace {

std::vector<std::string> expand(const std::string& text) {
  auto r = expand_hostlist(text);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : std::vector<std::string>{};
}

TEST(ClusterTopology, HostRangesExpandLikeSlurm) {
  EXPECT_EQ(expand("n[001-003]"), (std::vector<std::string>{"n001", "n002", "n003"}));
  EXPECT_EQ(expand("n[1-2,7]"), (std::vector<std::string>{"n1", "n2", "n7"}));
  EXPECT_EQ(expand("a1,b[08-10]"), (std::vector<std::string>{"a1", "b08", "b09", "b10"}));
  EXPECT_EQ(expand("r[1-2]-n[1-2]"),
            (std::vector<std::string>{"r1-n1", "r1-n2", "r2-n1", "r2-n2"}));
  EXPECT_EQ(expand("plain"), (std::vector<std::string>{"plain"}));
  for (const char* bad : {"n[1-", "n1-3]", "n[3-1]", "n[a-b]", "n[[1]]", "a,,b", "n[]"}) {
    auto r = expand_hostlist(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  EXPECT_FALSE(expand_hostlist("n[1-100000]", 1000).ok());
}

TEST(ClusterTopology, SlurmTreeGivesSwitchesGroupsAndParents) {
  auto t = parse_topology(
      "# a two-level tree\n"
      "SwitchName=leaf1 Nodes=n[01-04] LinkSpeed=100\n"
      "SwitchName=leaf2 Nodes=n[05-08]\n"
      "switchname=spine Switches=leaf[1-2]\n",
      "topo.conf");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->kind(), TopologyKind::kTree);
  ASSERT_EQ(t->switches().size(), 3u);
  EXPECT_EQ(t->host_switch("n03"), t->switch_index("leaf1"));
  EXPECT_EQ(t->host_switch("n08"), t->switch_index("leaf2"));
  EXPECT_EQ(t->switches()[0].parent, t->switch_index("spine"));
  ASSERT_EQ(t->groups().size(), 1u);
  EXPECT_EQ(t->groups()[0], "spine");  // a leaf's group: its parent
  EXPECT_EQ(t->switches()[0].group, t->switches()[1].group);
}

TEST(ClusterTopology, TwoColumnMap) {
  auto t = parse_topology("n1 rackA\nn2 rackA   # same rack\n\nn[3-4] rackB\n", "map.txt");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->kind(), TopologyKind::kMap);
  EXPECT_EQ(t->switches().size(), 2u);
  EXPECT_EQ(t->host_switch("n4"), t->switch_index("rackB"));
}

TEST(ClusterTopology, MalformedFilesNameTheLine) {
  struct Case {
    const char* text;
    const char* want;
  };
  for (const Case& c : {
           Case{"SwitchName=s1 Nodes=n1\nSwitchName=s2 Nodez=n2\n",
                "topo: line 2: unknown key Nodez"},
           Case{"SwitchName=s1 Nodes=n1\nSwitchName=top Switches=s[1-2]\n",
                "topo: line 2: switch s2 is not defined"},
           Case{"SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n2\n",
                "topo: line 2: host n2 is already under a switch (line 1)"},
           Case{"SwitchName=s1 Nodes=n1\nSwitchName=s1 Nodes=n2\n",
                "topo: line 2: switch s1 is defined again (first on line 1)"},
           Case{"SwitchName=a Switches=b\nSwitchName=b Switches=a\nSwitchName=c Nodes=n1\n",
                "is its own ancestor"},
           Case{"SwitchName=s1 Nodes=n[3-1]\n", "topo: line 1: Nodes"},
           Case{"Nodes=n1\n", "topo: line 1: no SwitchName"},
           Case{"SwitchName=s1\n", "topo: line 1: switch s1 has neither Nodes= nor Switches="},
           Case{"n1 g1\nn2\n", "topo: line 2: expected HOST GROUP"},
           Case{"n1 g1\nn1 g2\n", "topo: line 2: host n1 is listed again (first on line 1)"},
           Case{"# nothing\n\n", "topo: the file is empty"},
       }) {
    auto t = parse_topology(c.text, "topo");
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_EQ(t.status().code(), Code::kUsage);
    EXPECT_NE(t.status().message().find(c.want), std::string::npos)
        << c.text << " -> " << t.status().message();
  }
  auto missing = load_topology("/nonexistent/topo.conf");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--topology /nonexistent/topo.conf: cannot read"),
            std::string::npos);
}

TEST(ClusterTopology, MismatchIsOneWarningListingBothSides) {
  auto t = parse_topology("n1 g1\nn2 g1\nn3 g2\nn9 g2\n", "--topology map");
  ASSERT_TRUE(t.ok());
  std::vector<std::string> hosts = {"n1", "n2", "n3", "x7", "x7"};
  std::vector<int> missing;
  std::vector<std::string> unused = t->place_ranks(hosts, &missing);
  EXPECT_EQ(missing, (std::vector<int>{3, 4}));
  EXPECT_EQ(unused, (std::vector<std::string>{"n9"}));
  std::string w = topology_mismatch("--topology map", unused, missing, hosts);
  EXPECT_EQ(w,
            "--topology map: 1 host of the job not in the file (judged as nodes only): x7; 1 host "
            "of the file not in the job: n9");
  EXPECT_EQ(topology_mismatch("x", {}, {}, hosts), "");
  // Ranks for display: by switch, the unplaced last.
  EXPECT_EQ(t->order(), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(t->switch_of(3), -1);
}

Topology small_dragonfly() {
  Topology t(TopologyKind::kDragonfly);
  for (int g = 0; g < 3; ++g) {
    t.add_group("g" + std::to_string(g));
    for (int s = 0; s < 2; ++s)
      t.add_switch("g" + std::to_string(g) + "s" + std::to_string(s), g, -1);
  }
  std::vector<std::string> hosts;
  for (int h = 0; h < 12; ++h) {
    hosts.push_back("h" + std::to_string(h));
    t.add_host(hosts.back(), h / 2);
  }
  t.place_ranks(hosts, nullptr);
  return t;
}

std::vector<Element> path_of(const Topology& t, int a, int b) {
  ElementId ids[kMaxPathElements];
  size_t k = t.path(a, b, ids);
  std::vector<Element> out;
  for (size_t i = 0; i < k; ++i) out.push_back(t.element(ids[i]));
  return out;
}

TEST(ClusterTopology, DragonflyPathsCrossTheirSwitchesAndOneLink) {
  Topology t = small_dragonfly();
  EXPECT_EQ(t.path_class(0, 1), PathClass::kSameSwitch);
  EXPECT_EQ(t.path_class(0, 2), PathClass::kSameGroup);
  EXPECT_EQ(t.path_class(0, 4), PathClass::kOtherGroup);
  auto same = path_of(t, 0, 1);
  ASSERT_EQ(same.size(), 3u);  // two nodes, one switch
  EXPECT_EQ(same[2].kind, ElementKind::kSwitch);
  auto local = path_of(t, 1, 3);
  ASSERT_EQ(local.size(), 5u);
  EXPECT_EQ(local[4].kind, ElementKind::kLocalLink);
  EXPECT_EQ(std::make_pair(local[4].a, local[4].b), std::make_pair(0, 1));
  auto global = path_of(t, 0, 11);
  ASSERT_EQ(global.size(), 5u);
  EXPECT_EQ(global[4].kind, ElementKind::kUplink);
  EXPECT_EQ(std::make_pair(global[4].a, global[4].b), std::make_pair(0, 2));
  // Every id decodes to the element it encodes.
  for (size_t id = 0; id < t.element_count(); ++id) {
    Element e = t.element(static_cast<ElementId>(id));
    EXPECT_EQ(e.kind, t.element_kind(static_cast<ElementId>(id)));
    if (e.kind == ElementKind::kLocalLink) {
      EXPECT_EQ(t.local_link_id(e.a, e.b), static_cast<int64_t>(id));
    }
    if (e.kind == ElementKind::kUplink) {
      EXPECT_EQ(t.uplink_id_groups(e.a, e.b), static_cast<int64_t>(id));
    }
  }
  EXPECT_EQ(t.element_name(static_cast<ElementId>(t.local_link_id(2, 3)), {}), "g1s0-g1s1");
}

TEST(ClusterTopology, TreePathsClimbToTheCommonSwitch) {
  auto t = parse_topology(
      "SwitchName=l1 Nodes=a[1-2]\nSwitchName=l2 Nodes=b[1-2]\nSwitchName=l3 Nodes=c[1-2]\n"
      "SwitchName=p1 Switches=l[1-2]\nSwitchName=p2 Switches=l3\nSwitchName=top Switches=p[1-2]\n",
      "t");
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::vector<std::string> hosts = {"a1", "a2", "b1", "b2", "c1", "c2"};
  t->place_ranks(hosts, nullptr);
  auto uplinks = [&](int a, int b) {
    std::vector<std::string> out;
    for (const Element& e : path_of(*t, a, b)) {
      if (e.kind == ElementKind::kUplink)
        out.push_back(t->switches()[static_cast<size_t>(e.a)].name);
    }
    return out;
  };
  EXPECT_TRUE(uplinks(0, 1).empty());
  EXPECT_EQ(uplinks(0, 2), (std::vector<std::string>{"l1", "l2"}));
  EXPECT_EQ(uplinks(0, 4), (std::vector<std::string>{"l1", "p1", "l3", "p2"}));
  EXPECT_EQ(t->path_class(0, 2), PathClass::kSameGroup);
  EXPECT_EQ(t->path_class(0, 4), PathClass::kOtherGroup);
}

}  // namespace
}  // namespace fabperf::cluster
