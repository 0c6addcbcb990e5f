// Test helpers: node lookup by name and the names a routed path visits.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "loom/topology/routing.h"
#include "loom/topology/topology.h"

namespace loom::topology::testing {

inline NodeId id(const Topology& t, std::string_view name) {
  const auto found = t.find(name);
  EXPECT_TRUE(found.has_value()) << name;
  return found.value_or(kNone);
}

// The names of the nodes a path visits, src first.
inline std::vector<std::string> visited(const Topology& t, const std::vector<LinkId>& path) {
  std::vector<std::string> names;
  if (path.empty()) return names;
  names.push_back(t.node(t.link(path.front()).src).name);
  for (LinkId l : path) names.push_back(t.node(t.link(l).dst).name);
  return names;
}

inline std::vector<LinkId> route_of(const Routing& r, NodeId src, NodeId dst, std::uint64_t hash) {
  std::vector<LinkId> path;
  r.route(src, dst, hash, path);
  return path;
}

// Cables (directed links / 2) between nodes whose names start with the two prefixes.
inline std::size_t cables_between(const Topology& t, std::string_view a, std::string_view b) {
  std::size_t count = 0;
  for (LinkId l = 0; l < t.link_count(); l += 2) {
    const std::string& x = t.node(t.link(l).src).name;
    const std::string& y = t.node(t.link(l).dst).name;
    if ((x.starts_with(a) && y.starts_with(b)) || (x.starts_with(b) && y.starts_with(a))) ++count;
  }
  return count;
}

// Nodes whose names start with `prefix`.
inline std::size_t nodes_named(const Topology& t, std::string_view prefix) {
  std::size_t count = 0;
  for (NodeId v = 0; v < t.node_count(); ++v) count += t.node(v).name.starts_with(prefix) ? 1 : 0;
  return count;
}

}  // namespace loom::topology::testing
