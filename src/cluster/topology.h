// The fabric's shape as the verdicts, the adaptive plan and the reports see it: which switch each
// rank hangs off, how switches group (dragonfly groups, a tree's parent switches), and which
// shared elements (switches, local links, uplinks) a path between two ranks crosses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fabperf::cluster {

enum class TopologyKind {
  kFlat,       // one switch: every pair is same_switch
  kDragonfly,  // groups of switches joined all to all by local links, groups by global links
  kFatTree,    // leaves under spines that are not modelled one by one (a leaf's uplinks: one unit)
  kTree,       // Slurm's topology.conf: switches under parent switches, any depth
  kMap,        // a two-column "host group" file: each group one switch, no hierarchy
};
const char* topology_kind_name(TopologyKind kind);

// The path classes a fabric model gives a latency and a bandwidth each.
enum class PathClass { kSameSwitch = 0, kSameGroup = 1, kOtherGroup = 2 };
inline constexpr int kPathClasses = 3;
const char* path_class_name(PathClass c);

// What a verdict can name. Uplink: a dragonfly's global link between two groups, or the
// uplinks of one switch of a tree to its parent (a fat tree's leaf: all of them, one unit).
enum class ElementKind { kNode, kSwitch, kLocalLink, kUplink };

struct Element {
  ElementKind kind = ElementKind::kNode;
  int a =
      -1;  // node: rank; switch: switch; local link: switch; uplink: group (dragonfly) or switch
  int b = -1;  // local link: the other switch; dragonfly uplink: the other group
};

// Element ids are dense: nodes [0, N), then switches, local links, uplinks.
using ElementId = uint32_t;
inline constexpr size_t kMaxPathElements = 40;

class Topology {
 public:
  struct Switch {
    std::string name;
    int group = -1;    // index into groups(); -1: none
    int parent = -1;   // kTree: the parent switch; -1: a root
    int position = 0;  // kDragonfly: its index inside its group
  };

  // Builders: switches first, then hosts by name (add_host), then finish().
  explicit Topology(TopologyKind kind) : kind_(kind) {}
  int add_group(std::string name);
  int add_switch(std::string name, int group, int parent);
  // A host on leaf switch `sw`; false when the host is already placed.
  bool add_host(std::string name, int sw);
  // Places the job's ranks by host name (ranks whose host is absent get switch -1) and lays
  // out the element ids. Returns the hosts of the topology that no rank has, and fills
  // `missing` with the ranks whose host the topology lacks.
  std::vector<std::string> place_ranks(const std::vector<std::string>& rank_hosts,
                                       std::vector<int>* missing);

  TopologyKind kind() const { return kind_; }
  int ranks() const { return static_cast<int>(rank_switch_.size()); }
  const std::vector<Switch>& switches() const { return switches_; }
  const std::vector<std::string>& groups() const { return groups_; }
  const std::vector<std::string>& hosts() const { return host_names_; }
  int switch_of(int rank) const { return rank_switch_[static_cast<size_t>(rank)]; }
  int group_of(int rank) const {
    int s = switch_of(rank);
    return s < 0 ? -1 : switches_[static_cast<size_t>(s)].group;
  }
  int switch_index(std::string_view name) const;
  int group_index(std::string_view name) const;
  int host_switch(std::string_view host) const;  // -1: not in the topology
  // The switches of group g (dragonfly: in position order).
  const std::vector<int>& group_switches(int g) const {
    return group_switches_[static_cast<size_t>(g)];
  }
  // Ranks on each switch (leaf), in rank order.
  const std::vector<std::vector<int>>& members() const { return members_; }
  // Ranks grouped for display: by group, then switch, then rank; ranks the topology lacks last.
  const std::vector<int>& order() const { return order_; }
  // More than one switch: there is something above the nodes to name.
  bool has_levels() const { return switches_.size() > 1; }

  PathClass path_class(int a, int b) const;
  // The shared elements the path a<->b crosses, the two nodes first; returns how many.
  size_t path(int a, int b, ElementId* out) const;

  size_t element_count() const { return uplink_base_ + uplink_count_; }
  Element element(ElementId id) const;
  ElementKind element_kind(ElementId id) const {
    return id < switch_base_        ? ElementKind::kNode
           : id < local_links_base_ ? ElementKind::kSwitch
           : id < uplink_base_      ? ElementKind::kLocalLink
                                    : ElementKind::kUplink;
  }
  // The ids of one kind: [first_id, first_id + id_count). Local links and uplinks together
  // are the links between switches.
  size_t first_id(ElementKind kind) const {
    return kind == ElementKind::kNode        ? 0
           : kind == ElementKind::kSwitch    ? switch_base_
           : kind == ElementKind::kLocalLink ? local_links_base_
                                             : uplink_base_;
  }
  size_t id_count(ElementKind kind) const {
    return kind == ElementKind::kNode        ? switch_base_
           : kind == ElementKind::kSwitch    ? local_links_base_ - switch_base_
           : kind == ElementKind::kLocalLink ? uplink_base_ - local_links_base_
                                             : uplink_count_;
  }
  ElementId node_id(int rank) const { return static_cast<ElementId>(rank); }
  ElementId switch_id(int sw) const { return static_cast<ElementId>(switch_base_ + sw); }
  // -1 when the two switches are not joined by a local link of this kind of fabric.
  int64_t local_link_id(int s1, int s2) const;
  int64_t uplink_id_groups(int g1, int g2) const;  // dragonfly
  int64_t uplink_id_switch(int sw) const;          // trees, fat trees, maps
  // "g03s07", "g05s01-g05s09", "g03-g11", "leaf004 uplink", a rank's host.
  std::string element_name(ElementId id, const std::vector<std::string>& rank_hosts) const;

 private:
  size_t tri(size_t i, size_t j, size_t n) const;  // index of unordered pair i<j among n
  void climb(int sw, int stop, ElementId* out, size_t* k) const;
  int depth(int sw) const;

  TopologyKind kind_;
  std::vector<Switch> switches_;
  std::vector<std::string> groups_;
  std::vector<std::vector<int>> group_switches_;
  std::vector<std::string> host_names_;
  std::unordered_map<std::string, int> host_switch_;
  std::unordered_map<std::string, int> switch_by_name_, group_by_name_;
  std::vector<int> rank_switch_;
  std::vector<std::vector<int>> members_;
  std::vector<int> order_;
  std::vector<size_t> local_base_;  // per group: first local link id of that group
  size_t switch_base_ = 0, local_links_base_ = 0, uplink_base_ = 0, uplink_count_ = 0;
};

}  // namespace fabperf::cluster
