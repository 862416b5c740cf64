// Reading Slurm's topology.conf and "host group" maps, with Slurm's host range syntax.
#include "cluster/topology_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include "core/file_text.h"

namespace fabperf::cluster {

namespace {

constexpr size_t kMaxFileBytes = 64ull << 20;
constexpr size_t kNamesShown = 12;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One bracket's body "001-016,20" -> the strings it stands for.
Result<std::vector<std::string>> expand_range(std::string_view body, size_t limit) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    if (comma == std::string_view::npos) comma = body.size();
    std::string_view part = trim(body.substr(start, comma - start));
    start = comma + 1;
    size_t dash = part.find('-');
    std::string_view lo = dash == std::string_view::npos ? part : part.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? part : part.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi)) {
      return Status::usage("\"[" + std::string(body) + "]\": \"" + std::string(part) +
                           "\" is not a number or a range N-M");
    }
    long a = std::stol(std::string(lo)), b = std::stol(std::string(hi));
    if (b < a) return Status::usage("\"" + std::string(part) + "\": the range runs backwards");
    if (static_cast<size_t>(b - a) + out.size() >= limit) {
      return Status::usage("\"[" + std::string(body) + "]\" names too many hosts");
    }
    for (long v = a; v <= b; ++v) {
      std::string digits = std::to_string(v);
      if (digits.size() < lo.size()) digits.insert(0, lo.size() - digits.size(), '0');
      out.push_back(std::move(digits));
    }
  }
  return out;
}

// One expression without top-level commas: "r[1-2]-n[01-04]".
Status expand_one(std::string_view expr, size_t limit, std::vector<std::string>& out) {
  std::vector<std::string> partial = {""};
  size_t i = 0;
  while (i < expr.size()) {
    size_t open = expr.find('[', i);
    std::string_view plain =
        expr.substr(i, open == std::string_view::npos ? expr.size() - i : open - i);
    if (plain.find(']') != std::string_view::npos) {
      return Status::usage("\"" + std::string(expr) + "\": a ']' without its '['");
    }
    for (std::string& p : partial) p += plain;
    if (open == std::string_view::npos) break;
    size_t close = expr.find(']', open);
    if (close == std::string_view::npos) {
      return Status::usage("\"" + std::string(expr) + "\": a '[' without its ']'");
    }
    auto values = expand_range(expr.substr(open + 1, close - open - 1), limit);
    if (!values.ok()) return values.status();
    if (partial.size() * values->size() > limit) {
      return Status::usage("\"" + std::string(expr) + "\" names too many hosts");
    }
    std::vector<std::string> next;
    next.reserve(partial.size() * values->size());
    for (const std::string& p : partial) {
      for (const std::string& v : *values) next.push_back(p + v);
    }
    partial.swap(next);
    i = close + 1;
  }
  if (out.size() + partial.size() > limit) return Status::usage("the list names too many hosts");
  for (std::string& p : partial) out.push_back(std::move(p));
  return Status::success();
}

struct SwitchLine {
  std::string name;
  size_t line = 0;
  std::vector<std::string> nodes, children;
};

// Lines of text, '#' comments dropped, '\' at a line's end joining the next; each with its
// first line's number.
std::vector<std::pair<size_t, std::string>> logical_lines(std::string_view text) {
  std::vector<std::pair<size_t, std::string>> out;
  size_t start = 0, number = 0, first = 0;
  std::string pending;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::string_view t = trim(line);
    if (pending.empty()) first = number;
    bool joined = !t.empty() && t.back() == '\\';
    if (joined) t.remove_suffix(1);
    pending += std::string(t) + " ";
    if (joined) continue;
    if (!trim(pending).empty()) out.emplace_back(first, std::string(trim(pending)));
    pending.clear();
  }
  if (!trim(pending).empty()) out.emplace_back(first, std::string(trim(pending)));
  return out;
}

// One line's KEY=VALUE tokens into def; sized: the line has BlockSizes=.
Status read_switch_line(size_t number, const std::string& text, const std::string& origin,
                        SwitchLine& def, bool& sized) {
  auto where = [&, n = number] { return fmt::format("{}: line {}: ", origin, n); };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find_first_of(" \t", pos);
    if (end == std::string::npos) end = text.size();
    std::string_view token = trim(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
    if (token.empty()) continue;
    size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return Status::usage(where() + "\"" + std::string(token) + "\" is not KEY=VALUE");
    }
    std::string key = lower(token.substr(0, eq));
    std::string_view value = token.substr(eq + 1);
    if (value.empty())
      return Status::usage(where() + std::string(token.substr(0, eq)) + "= has no value");
    if (key == "switchname" || key == "blockname") {
      if (value.find_first_of("[],") != std::string_view::npos) {
        return Status::usage(where() +
                             "a switch name is one name, not a list: " + std::string(value));
      }
      def.name = std::string(value);
    } else if (key == "nodes" || key == "switches") {
      auto names = expand_hostlist(value);
      if (!names.ok()) return names.status().prefixed(where() + std::string(token.substr(0, eq)));
      auto& into = key == "nodes" ? def.nodes : def.children;
      into.insert(into.end(), names->begin(), names->end());
    } else if (key == "linkspeed") {
      // Slurm's relative link speed: not used by the verdicts.
    } else if (key == "blocksizes") {
      sized = true;  // topology/block's block sizes: the blocks themselves are the switches
    } else {
      return Status::usage(where() + "unknown key " + std::string(token.substr(0, eq)) +
                           " (expected SwitchName, Switches, Nodes, LinkSpeed, BlockName, "
                           "BlockSizes)");
    }
  }
  return Status::success();
}

// The file's switch definitions into defs, by_name their index by name.
Status read_switch_lines(const std::vector<std::pair<size_t, std::string>>& lines,
                         const std::string& origin, std::vector<SwitchLine>& defs,
                         std::unordered_map<std::string, size_t>& by_name) {
  for (const auto& [number, text] : lines) {
    auto where = [&, n = number] { return fmt::format("{}: line {}: ", origin, n); };
    SwitchLine def;
    def.line = number;
    bool sized = false;
    FP_RETURN_IF_ERROR(read_switch_line(number, text, origin, def, sized));
    if (def.name.empty()) {
      if (sized) continue;
      return Status::usage(where() + "no SwitchName= (or BlockName=)");
    }
    if (def.nodes.empty() && def.children.empty()) {
      return Status::usage(where() + "switch " + def.name + " has neither Nodes= nor Switches=");
    }
    if (by_name.count(def.name) > 0) {
      return Status::usage(where() + "switch " + def.name + " is defined again (first on line " +
                           std::to_string(defs[by_name[def.name]].line) + ")");
    }
    by_name[def.name] = defs.size();
    defs.push_back(std::move(def));
  }
  if (defs.empty()) return Status::usage(origin + ": defines no switch");
  return Status::success();
}

// Each switch's parent index (-1: a root), from Switches=: each switch under at most one, and
// none its own ancestor.
Result<std::vector<int>> switch_parents(const std::vector<SwitchLine>& defs,
                                        const std::unordered_map<std::string, size_t>& by_name,
                                        const std::string& origin) {
  std::vector<int> parent(defs.size(), -1);
  for (size_t i = 0; i < defs.size(); ++i) {
    for (const std::string& child : defs[i].children) {
      auto it = by_name.find(child);
      if (it == by_name.end()) {
        return Status::usage(
            fmt::format("{}: line {}: switch {} is not defined", origin, defs[i].line, child));
      }
      if (it->second == i) {
        return Status::usage(
            fmt::format("{}: line {}: switch {} lists itself", origin, defs[i].line, child));
      }
      if (parent[it->second] >= 0) {
        return Status::usage(fmt::format("{}: line {}: switch {} is already under {} (line {})",
                                         origin, defs[i].line, child,
                                         defs[static_cast<size_t>(parent[it->second])].name,
                                         defs[static_cast<size_t>(parent[it->second])].line));
      }
      parent[it->second] = static_cast<int>(i);
    }
  }
  for (size_t i = 0; i < defs.size(); ++i) {
    size_t steps = 0;
    for (int s = parent[i]; s >= 0; s = parent[static_cast<size_t>(s)]) {
      if (++steps > defs.size()) {
        return Status::usage(fmt::format("{}: line {}: switch {} is its own ancestor (a cycle)",
                                         origin, defs[i].line, defs[i].name));
      }
    }
  }
  return parent;
}

// The tree of the switches and their hosts; a host under two switches is refused.
Result<Topology> switch_tree(const std::vector<SwitchLine>& defs, const std::vector<int>& parent,
                             const std::string& origin) {
  Topology topo(TopologyKind::kTree);
  std::vector<int> group_of_parent(defs.size(), -1);
  for (size_t i = 0; i < defs.size(); ++i) {
    int group = -1;
    if (!defs[i].nodes.empty() && parent[i] >= 0) {
      size_t p = static_cast<size_t>(parent[i]);
      if (group_of_parent[p] < 0) group_of_parent[p] = topo.add_group(defs[p].name);
      group = group_of_parent[p];
    }
    topo.add_switch(defs[i].name, group, parent[i]);
  }
  std::unordered_map<std::string, size_t> host_line;
  for (size_t i = 0; i < defs.size(); ++i) {
    for (const std::string& host : defs[i].nodes) {
      if (!topo.add_host(host, static_cast<int>(i))) {
        return Status::usage(fmt::format("{}: line {}: host {} is already under a switch (line {})",
                                         origin, defs[i].line, host, host_line[host]));
      }
      host_line[host] = defs[i].line;
    }
  }
  return topo;
}

Result<Topology> parse_slurm(const std::vector<std::pair<size_t, std::string>>& lines,
                             const std::string& origin) {
  std::vector<SwitchLine> defs;
  std::unordered_map<std::string, size_t> by_name;
  FP_RETURN_IF_ERROR(read_switch_lines(lines, origin, defs, by_name));
  // Parents from Switches=, each switch at most one; then groups: a leaf's parent.
  Result<std::vector<int>> parent = switch_parents(defs, by_name, origin);
  if (!parent.ok()) return parent.status();
  return switch_tree(defs, *parent, origin);
}

Result<Topology> parse_map(const std::vector<std::pair<size_t, std::string>>& lines,
                           const std::string& origin) {
  Topology topo(TopologyKind::kMap);
  std::unordered_map<std::string, size_t> host_line;
  for (const auto& [number, text] : lines) {
    std::string where = fmt::format("{}: line {}: ", origin, number);
    std::vector<std::string> fields;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t start = text.find_first_not_of(" \t", pos);
      if (start == std::string::npos) break;
      size_t end = text.find_first_of(" \t", start);
      if (end == std::string::npos) end = text.size();
      fields.push_back(text.substr(start, end - start));
      pos = end;
    }
    if (fields.size() != 2) {
      return Status::usage(where +
                           "expected HOST GROUP (two fields), or Slurm's "
                           "SwitchName=... syntax");
    }
    auto hosts = expand_hostlist(fields[0]);
    if (!hosts.ok()) return hosts.status().prefixed(where.substr(0, where.size() - 2));
    int sw = topo.switch_index(fields[1]);
    if (sw < 0) sw = topo.add_switch(fields[1], -1, -1);
    for (const std::string& host : *hosts) {
      if (!topo.add_host(host, sw)) {
        return Status::usage(where + "host " + host + " is listed again (first on line " +
                             std::to_string(host_line[host]) + ")");
      }
      host_line[host] = number;
    }
  }
  if (host_line.empty()) return Status::usage(origin + ": lists no host");
  return topo;
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < std::min(names.size(), kNamesShown); ++i) {
    out += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > kNamesShown) out += fmt::format(" and {} more", names.size() - kNamesShown);
  return out;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view text, size_t limit) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) return Status::usage("\"" + std::string(text) + "\": a ']' without its '['");
    if (depth > 1) return Status::usage("\"" + std::string(text) + "\": nested '['");
    if (c != ',' || depth > 0) continue;
    std::string_view expr = trim(text.substr(start, i - start));
    start = i + 1;
    if (expr.empty()) return Status::usage("\"" + std::string(text) + "\": an empty name");
    Status s = expand_one(expr, limit, out);
    if (!s.ok()) return s;
  }
  if (depth != 0) return Status::usage("\"" + std::string(text) + "\": a '[' without its ']'");
  return out;
}

Result<Topology> parse_topology(std::string_view text, const std::string& origin) {
  auto lines = logical_lines(text);
  if (lines.empty()) return Status::usage(origin + ": the file is empty");
  bool slurm = lines.front().second.find('=') != std::string::npos;
  return slurm ? parse_slurm(lines, origin) : parse_map(lines, origin);
}

Result<Topology> load_topology(const std::string& path) {
  std::string origin = "--topology " + path;
  auto text = read_capped_file(path, kMaxFileBytes, origin);
  if (!text.ok()) return text.status();
  return parse_topology(*text, origin);
}

std::string topology_mismatch(const std::string& origin, const std::vector<std::string>& unused,
                              const std::vector<int>& missing,
                              const std::vector<std::string>& rank_hosts) {
  if (unused.empty() && missing.empty()) return "";
  std::vector<std::string> absent;
  std::set<std::string> seen;
  for (int r : missing) {
    const std::string& h = rank_hosts[static_cast<size_t>(r)];
    if (seen.insert(h).second) absent.push_back(h);
  }
  std::string text = origin + ": ";
  if (!absent.empty()) {
    text += fmt::format("{} host{} of the job not in the file (judged as nodes only): {}",
                        absent.size(), absent.size() == 1 ? "" : "s", listed(absent));
  }
  if (!unused.empty()) {
    text += fmt::format("{}{} host{} of the file not in the job: {}", absent.empty() ? "" : "; ",
                        unused.size(), unused.size() == 1 ? "" : "s", listed(unused));
  }
  return text;
}

}  // namespace fabperf::cluster
