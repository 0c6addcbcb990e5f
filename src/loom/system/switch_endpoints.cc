#include "loom/system/switch_endpoints.h"

#include <algorithm>
#include <deque>
#include <iterator>

#include <fmt/format.h>

namespace loom::system {

std::vector<std::vector<topology::NodeId>> shared_scale_up_switches(const topology::Topology& topology,
                                                                    const std::vector<std::uint32_t>& ranks,
                                                                    const collective::GroupLayout& layout,
                                                                    std::string& problem) {
  const std::uint32_t hosts = ranks.empty() ? 0 : *std::max_element(layout.host.begin(), layout.host.end()) + 1;
  std::vector<std::vector<topology::NodeId>> shared(hosts);
  std::vector<bool> seen(hosts, false);
  std::vector<std::uint32_t> members(hosts, 0);
  for (std::size_t m = 0; m < ranks.size(); ++m) {
    std::vector<topology::NodeId> adjacent;
    for (const topology::LinkId l : topology.out_links(topology.gpu_node(ranks[m]))) {
      const topology::NodeId peer = topology.link(l).dst;
      if (topology.node(peer).kind == topology::NodeKind::kScaleUpSwitch) adjacent.push_back(peer);
    }
    std::sort(adjacent.begin(), adjacent.end());
    adjacent.erase(std::unique(adjacent.begin(), adjacent.end()), adjacent.end());
    const std::uint32_t h = layout.host[m];
    ++members[h];
    if (!seen[h]) {
      shared[h] = std::move(adjacent);
      seen[h] = true;
      continue;
    }
    std::vector<topology::NodeId> both;
    std::set_intersection(shared[h].begin(), shared[h].end(), adjacent.begin(), adjacent.end(),
                          std::back_inserter(both));
    shared[h] = std::move(both);
  }
  for (std::uint32_t h = 0; h < hosts && problem.empty(); ++h) {
    if (members[h] > 1 && shared[h].empty()) {
      const auto first = std::find(layout.host.begin(), layout.host.end(), h) - layout.host.begin();
      problem = fmt::format("the GPUs of host {} (rank {} and others) share no scale-up switch; expected every GPU "
                            "of a host cabled to the same NVSwitch (host.scale_up: switch)",
                            topology.host_of_rank(ranks[first]), ranks[first]);
    }
  }
  return shared;
}

AggregationTree aggregation_tree(const topology::Topology& topology, const std::vector<std::uint32_t>& ranks,
                                 std::string& problem) {
  using topology::NodeKind;
  std::vector<topology::NodeId> leaf(ranks.size(), topology::kNone);
  for (std::size_t m = 0; m < ranks.size() && problem.empty(); ++m) {
    const topology::NodeId nic = topology.nic_of_rank(ranks[m]);
    if (nic != topology::kNone) {
      for (const topology::LinkId l : topology.out_links(nic)) {
        const topology::NodeId peer = topology.link(l).dst;
        if (topology.node(peer).kind == NodeKind::kSwitch) {
          leaf[m] = peer;
          break;
        }
      }
    }
    if (leaf[m] == topology::kNone) {
      problem = fmt::format("rank {} has no NIC cabled to a fabric switch; expected a scale-out fabric to reduce in",
                            ranks[m]);
    }
  }
  if (!problem.empty()) return {};
  topology::NodeId root = topology::kNone;
  for (topology::NodeId v = 0; v < topology.node_count(); ++v) {
    const topology::Node& node = topology.node(v);
    if (node.kind == NodeKind::kSwitch && (root == topology::kNone || node.tier > topology.node(root).tier)) root = v;
  }
  // Parent of each fabric switch on a shortest switch-only path to the root.
  std::vector<topology::NodeId> up(topology.node_count(), topology::kNone);
  std::vector<bool> reached(topology.node_count(), false);
  std::deque<topology::NodeId> queue{root};
  reached[root] = true;
  while (!queue.empty()) {
    const topology::NodeId v = queue.front();
    queue.pop_front();
    for (const topology::LinkId l : topology.out_links(v)) {
      const topology::NodeId w = topology.link(l).dst;
      if (reached[w] || topology.node(w).kind != NodeKind::kSwitch) continue;
      reached[w] = true;
      up[w] = v;
      queue.push_back(w);
    }
  }
  // Switches in the tree get dense indices in the order members first reach them.
  std::vector<std::uint32_t> index(topology.node_count(), collective::kNoSwitch);
  std::vector<topology::NodeId> nodes;
  std::vector<std::uint32_t> children;  // per tree switch: members and switches below it
  auto tree = std::make_shared<collective::SwitchTree>();
  const auto add = [&](topology::NodeId v) {
    index[v] = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back(v);
    tree->parent.push_back(collective::kNoSwitch);
    children.push_back(0);
  };
  for (std::size_t m = 0; m < ranks.size(); ++m) {
    if (!reached[leaf[m]]) {
      problem = fmt::format("rank {}'s switch {} cannot reach the top switch {} over fabric switches", ranks[m],
                            topology.node(leaf[m]).name, topology.node(root).name);
      return {};
    }
    if (index[leaf[m]] == collective::kNoSwitch) add(leaf[m]);
    tree->leaf.push_back(index[leaf[m]]);
    ++children[index[leaf[m]]];
    for (topology::NodeId v = leaf[m]; up[v] != topology::kNone; v = up[v]) {
      const bool known = index[up[v]] != collective::kNoSwitch;
      if (!known) add(up[v]);
      if (tree->parent[index[v]] != collective::kNoSwitch) break;
      tree->parent[index[v]] = index[up[v]];
      ++children[index[up[v]]];
      if (known) break;
    }
  }
  // Cut the top down to the lowest switch that joins everything.
  std::uint32_t top = index[root];
  while (children[top] == 1 && std::find(tree->leaf.begin(), tree->leaf.end(), top) == tree->leaf.end()) {
    const auto below = std::find(tree->parent.begin(), tree->parent.end(), top) - tree->parent.begin();
    tree->parent[below] = collective::kNoSwitch;
    children[top] = 0;
    top = static_cast<std::uint32_t>(below);
  }
  // Renumber without the cut switches (those left with no children).
  std::vector<std::uint32_t> kept(nodes.size(), collective::kNoSwitch);
  AggregationTree result;
  auto pruned = std::make_shared<collective::SwitchTree>();
  for (std::uint32_t s = 0; s < nodes.size(); ++s) {
    if (children[s] == 0) continue;
    kept[s] = static_cast<std::uint32_t>(result.nodes.size());
    result.nodes.push_back(nodes[s]);
  }
  for (std::uint32_t s = 0; s < nodes.size(); ++s) {
    if (kept[s] != collective::kNoSwitch) {
      pruned->parent.push_back(tree->parent[s] == collective::kNoSwitch ? collective::kNoSwitch : kept[tree->parent[s]]);
    }
  }
  for (const std::uint32_t l : tree->leaf) pruned->leaf.push_back(kept[l]);
  result.tree = std::move(pruned);
  return result;
}

}  // namespace loom::system
