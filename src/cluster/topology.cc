// The topology's element ids and the paths between ranks.
#include "cluster/topology.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <tuple>

namespace fabperf::cluster {

namespace {

// (i, j), i < j, of the unordered pair with index `index` among n.
std::pair<size_t, size_t> unrank(size_t index, size_t n) {
  size_t i = 0;
  while (i + 1 < n && index >= n - i - 1) {
    index -= n - i - 1;
    ++i;
  }
  return {i, i + 1 + index};
}

}  // namespace

const char* topology_kind_name(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::kFlat:
      return "flat";
    case TopologyKind::kDragonfly:
      return "dragonfly";
    case TopologyKind::kFatTree:
      return "fat_tree";
    case TopologyKind::kTree:
      return "tree";
    case TopologyKind::kMap:
      return "map";
  }
  return "?";
}

const char* path_class_name(PathClass c) {
  switch (c) {
    case PathClass::kSameSwitch:
      return "same_switch";
    case PathClass::kSameGroup:
      return "same_group";
    case PathClass::kOtherGroup:
      return "other_group";
  }
  return "?";
}

int Topology::add_group(std::string name) {
  int index = static_cast<int>(groups_.size());
  group_by_name_.emplace(name, index);
  groups_.push_back(std::move(name));
  group_switches_.emplace_back();
  return index;
}

int Topology::add_switch(std::string name, int group, int parent) {
  int index = static_cast<int>(switches_.size());
  Switch s;
  s.name = name;
  s.group = group;
  s.parent = parent;
  if (group >= 0) {
    auto& list = group_switches_[static_cast<size_t>(group)];
    s.position = static_cast<int>(list.size());
    list.push_back(index);
  }
  switch_by_name_.emplace(std::move(name), index);
  switches_.push_back(std::move(s));
  return index;
}

bool Topology::add_host(std::string name, int sw) {
  auto [it, fresh] = host_switch_.emplace(name, sw);
  if (fresh) host_names_.push_back(std::move(name));
  return fresh;
}

int Topology::switch_index(std::string_view name) const {
  auto it = switch_by_name_.find(std::string(name));
  return it == switch_by_name_.end() ? -1 : it->second;
}

int Topology::group_index(std::string_view name) const {
  auto it = group_by_name_.find(std::string(name));
  return it == group_by_name_.end() ? -1 : it->second;
}

int Topology::host_switch(std::string_view host) const {
  auto it = host_switch_.find(std::string(host));
  return it == host_switch_.end() ? -1 : it->second;
}

std::vector<std::string> Topology::place_ranks(const std::vector<std::string>& rank_hosts,
                                               std::vector<int>* missing) {
  const size_t n = rank_hosts.size();
  rank_switch_.assign(n, -1);
  members_.assign(switches_.size(), {});
  std::unordered_map<std::string, bool> used;
  for (size_t r = 0; r < n; ++r) {
    int sw = host_switch(rank_hosts[r]);
    rank_switch_[r] = sw;
    if (sw >= 0) {
      members_[static_cast<size_t>(sw)].push_back(static_cast<int>(r));
      used[rank_hosts[r]] = true;
    } else if (missing != nullptr) {
      missing->push_back(static_cast<int>(r));
    }
  }
  std::vector<std::string> unused;
  for (const std::string& h : host_names_) {
    if (used.count(h) == 0) unused.push_back(h);
  }
  order_.resize(n);
  for (size_t r = 0; r < n; ++r) order_[r] = static_cast<int>(r);
  auto key = [&](int r) {
    int sw = rank_switch_[static_cast<size_t>(r)];
    int group = sw < 0 ? INT_MAX : switches_[static_cast<size_t>(sw)].group;
    return std::make_tuple(sw < 0 ? 1 : 0, group, sw, r);
  };
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return key(a) < key(b); });
  // Element ids: nodes, switches, local links (dragonfly), uplinks.
  switch_base_ = n;
  local_links_base_ = switch_base_ + switches_.size();
  local_base_.assign(groups_.size() + 1, 0);
  size_t local = 0;
  for (size_t g = 0; g < groups_.size(); ++g) {
    local_base_[g] = local;
    size_t k = group_switches_[g].size();
    if (kind_ == TopologyKind::kDragonfly) local += k * (k - 1) / 2;
  }
  local_base_[groups_.size()] = local;
  uplink_base_ = local_links_base_ + local;
  size_t groups = groups_.size();
  uplink_count_ = kind_ == TopologyKind::kDragonfly ? groups * (groups - 1) / 2 : switches_.size();
  return unused;
}

size_t Topology::tri(size_t i, size_t j, size_t n) const {
  if (i > j) std::swap(i, j);
  return i * (2 * n - i - 1) / 2 + (j - i - 1);
}

int64_t Topology::local_link_id(int s1, int s2) const {
  if (kind_ != TopologyKind::kDragonfly || s1 == s2 || s1 < 0 || s2 < 0) return -1;
  const Switch& a = switches_[static_cast<size_t>(s1)];
  const Switch& b = switches_[static_cast<size_t>(s2)];
  if (a.group != b.group || a.group < 0) return -1;
  size_t k = group_switches_[static_cast<size_t>(a.group)].size();
  return static_cast<int64_t>(
      local_links_base_ + local_base_[static_cast<size_t>(a.group)] +
      tri(static_cast<size_t>(a.position), static_cast<size_t>(b.position), k));
}

int64_t Topology::uplink_id_groups(int g1, int g2) const {
  if (kind_ != TopologyKind::kDragonfly || g1 == g2 || g1 < 0 || g2 < 0) return -1;
  return static_cast<int64_t>(
      uplink_base_ + tri(static_cast<size_t>(g1), static_cast<size_t>(g2), groups_.size()));
}

int64_t Topology::uplink_id_switch(int sw) const {
  if (kind_ == TopologyKind::kDragonfly || sw < 0) return -1;
  return static_cast<int64_t>(uplink_base_ + static_cast<size_t>(sw));
}

PathClass Topology::path_class(int a, int b) const {
  int sa = switch_of(a), sb = switch_of(b);
  if (sa < 0 || sb < 0) return PathClass::kOtherGroup;
  if (sa == sb) return PathClass::kSameSwitch;
  int ga = switches_[static_cast<size_t>(sa)].group, gb = switches_[static_cast<size_t>(sb)].group;
  return ga >= 0 && ga == gb ? PathClass::kSameGroup : PathClass::kOtherGroup;
}

int Topology::depth(int sw) const {
  int d = 0;
  for (int s = switches_[static_cast<size_t>(sw)].parent; s >= 0 && d < 64;
       s = switches_[static_cast<size_t>(s)].parent) {
    ++d;
  }
  return d;
}

// The uplinks from `sw` up to `stop` (exclusive; -1: through the root).
void Topology::climb(int sw, int stop, ElementId* out, size_t* k) const {
  for (int s = sw, guard = 0; s >= 0 && s != stop && guard < 64; ++guard) {
    if (*k < kMaxPathElements) out[(*k)++] = static_cast<ElementId>(uplink_id_switch(s));
    s = switches_[static_cast<size_t>(s)].parent;
  }
}

size_t Topology::path(int a, int b, ElementId* out) const {
  size_t k = 0;
  out[k++] = node_id(a);
  out[k++] = node_id(b);
  int sa = switch_of(a), sb = switch_of(b);
  if (sa >= 0) out[k++] = switch_id(sa);
  if (sb >= 0 && sb != sa) out[k++] = switch_id(sb);
  if (sa < 0 || sb < 0 || sa == sb) return k;
  switch (kind_) {
    case TopologyKind::kFlat:
      break;
    case TopologyKind::kDragonfly: {
      int64_t id = local_link_id(sa, sb);
      if (id < 0)
        id = uplink_id_groups(switches_[static_cast<size_t>(sa)].group,
                              switches_[static_cast<size_t>(sb)].group);
      if (id >= 0) out[k++] = static_cast<ElementId>(id);
      break;
    }
    case TopologyKind::kFatTree:
    case TopologyKind::kMap:
      out[k++] = static_cast<ElementId>(uplink_id_switch(sa));
      out[k++] = static_cast<ElementId>(uplink_id_switch(sb));
      break;
    case TopologyKind::kTree: {
      // Up from both leaves to their lowest common ancestor; through the roots when the two
      // are in separate trees.
      int x = sa, y = sb, dx = depth(sa), dy = depth(sb);
      while (dx > dy) x = switches_[static_cast<size_t>(x)].parent, --dx;
      while (dy > dx) y = switches_[static_cast<size_t>(y)].parent, --dy;
      while (x != y && x >= 0 && y >= 0) {
        x = switches_[static_cast<size_t>(x)].parent;
        y = switches_[static_cast<size_t>(y)].parent;
      }
      int lca = x == y ? x : -1;
      climb(sa, lca, out, &k);
      climb(sb, lca, out, &k);
      break;
    }
  }
  return k;
}

Element Topology::element(ElementId id) const {
  Element e;
  size_t i = id;
  if (i < switch_base_) {
    e.kind = ElementKind::kNode;
    e.a = static_cast<int>(i);
  } else if (i < local_links_base_) {
    e.kind = ElementKind::kSwitch;
    e.a = static_cast<int>(i - switch_base_);
  } else if (i < uplink_base_) {
    e.kind = ElementKind::kLocalLink;
    size_t local = i - local_links_base_;
    size_t g =
        static_cast<size_t>(std::upper_bound(local_base_.begin(), local_base_.end() - 1, local) -
                            local_base_.begin() - 1);
    const std::vector<int>& list = group_switches_[g];
    auto [p, q] = unrank(local - local_base_[g], list.size());
    e.a = list[p];
    e.b = list[q];
  } else {
    e.kind = ElementKind::kUplink;
    size_t u = i - uplink_base_;
    if (kind_ == TopologyKind::kDragonfly) {
      auto [p, q] = unrank(u, groups_.size());
      e.a = static_cast<int>(p);
      e.b = static_cast<int>(q);
    } else {
      e.a = static_cast<int>(u);
    }
  }
  return e;
}

std::string Topology::element_name(ElementId id, const std::vector<std::string>& hosts) const {
  Element e = element(id);
  switch (e.kind) {
    case ElementKind::kNode:
      return static_cast<size_t>(e.a) < hosts.size() ? hosts[static_cast<size_t>(e.a)]
                                                     : "rank " + std::to_string(e.a);
    case ElementKind::kSwitch:
      return switches_[static_cast<size_t>(e.a)].name;
    case ElementKind::kLocalLink:
      return switches_[static_cast<size_t>(e.a)].name + "-" +
             switches_[static_cast<size_t>(e.b)].name;
    case ElementKind::kUplink:
      if (kind_ == TopologyKind::kDragonfly) {
        return groups_[static_cast<size_t>(e.a)] + "-" + groups_[static_cast<size_t>(e.b)];
      }
      return switches_[static_cast<size_t>(e.a)].name + " uplink";
  }
  return "?";
}

}  // namespace fabperf::cluster
