#include "loom/network/packet/parallel/lp_partition.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/network/packet/parallel/lp_placement.h"

namespace loom::network::packet::parallel {

namespace {

using topology::LinkId;
using topology::NodeId;

// Union-find over node ids, path halving and union by size.
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n), size_(n, 1) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
  }

 private:
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint32_t> size_;
};

// Renumbers `group` (any id per node) as LPs in order of their lowest node, then measures the
// cables between LPs.
LpPartition finish(const topology::Topology& topology, std::vector<std::uint32_t> group, std::string rule) {
  LpPartition p;
  p.rule = std::move(rule);
  p.lp_of_node.resize(topology.node_count());
  std::unordered_map<std::uint32_t, LpId> number;
  for (NodeId n = 0; n < topology.node_count(); ++n) {
    const auto [it, added] = number.try_emplace(group[n], p.lp_count);
    if (added) ++p.lp_count;
    p.lp_of_node[n] = it->second;
  }
  for (LinkId l = 0; l < topology.link_count(); l += 2) {  // a cable is links l and l + 1
    const topology::Link& link = topology.link(l);
    if (p.lp_of_node[link.src] == p.lp_of_node[link.dst]) continue;
    const Time delay = std::min(link.latency, topology.link(link.reverse).latency);  // either way
    if (delay <= Time::zero()) {
      throw UserError(fmt::format(
          "LP partition ({}): the cable {} <-> {} has zero delay but joins two LPs, which leaves no "
          "lookahead; put both ends in one LP (a threshold above zero does)",
          p.rule, topology.node(link.src).name, topology.node(link.dst).name));
    }
    ++p.cross_cables;
    p.lookahead = std::min(p.lookahead, delay);
  }
  return p;
}

}  // namespace

std::vector<std::vector<topology::NodeId>> LpPartition::members() const {
  std::vector<std::vector<topology::NodeId>> lps(lp_count);
  for (NodeId n = 0; n < lp_of_node.size(); ++n) lps[lp_of_node[n]].push_back(n);
  return lps;
}

LpPartition partition_by_delay(const topology::Topology& topology, Time threshold) {
  if (threshold < Time::zero()) {
    throw UserError(fmt::format("LP delay threshold {}: expected a delay >= 0", to_string(threshold)));
  }
  DisjointSets sets(topology.node_count());
  for (LinkId l = 0; l < topology.link_count(); l += 2) {
    const topology::Link& link = topology.link(l);
    if (link.latency < threshold) sets.unite(link.src, link.dst);
  }
  std::vector<std::uint32_t> group(topology.node_count());
  for (NodeId n = 0; n < topology.node_count(); ++n) group[n] = sets.find(n);
  return finish(topology, std::move(group), "delay < " + to_string(threshold));
}

LpPartition join_racks(const topology::Topology& topology, const LpPartition& partition) {
  // only[lp]: the one LP its cables lead to, kNone before any, kSeveral after two.
  constexpr LpId kNone = ~0u, kSeveral = ~0u - 1;
  std::vector<LpId> only(partition.lp_count, kNone);
  const auto note = [&](LpId from, LpId to) {
    if (only[from] == kNone || only[from] == to) {
      only[from] = to;
    } else {
      only[from] = kSeveral;
    }
  };
  for (LinkId l = 0; l < topology.link_count(); l += 2) {
    const topology::Link& link = topology.link(l);
    const LpId a = partition.lp_of_node[link.src], b = partition.lp_of_node[link.dst];
    if (a == b) continue;
    note(a, b);
    note(b, a);
  }
  DisjointSets sets(partition.lp_count);
  for (LpId lp = 0; lp < partition.lp_count; ++lp) {
    if (only[lp] < kSeveral) sets.unite(lp, only[lp]);
  }
  std::vector<std::uint32_t> group(topology.node_count());
  for (NodeId n = 0; n < topology.node_count(); ++n) group[n] = sets.find(partition.lp_of_node[n]);
  return finish(topology, std::move(group), partition.rule + ", racks joined");
}

LpPartition group_lps(const topology::Topology& topology, const LpPartition& partition, std::uint32_t groups) {
  LOOM_ASSERT(groups >= 1, "LPs in no group");
  std::vector<std::uint64_t> nodes(partition.lp_count, 0);
  for (const LpId lp : partition.lp_of_node) ++nodes[lp];
  const std::vector<std::uint32_t> group_of = place_by_load(nodes, groups);
  std::vector<std::uint32_t> group(topology.node_count());
  for (NodeId n = 0; n < topology.node_count(); ++n) group[n] = group_of[partition.lp_of_node[n]];
  return finish(topology, std::move(group), fmt::format("{}, LPs in {} groups", partition.rule, groups));
}

LpPartition partition_for(const topology::Topology& topology, Time threshold, bool racks, std::uint32_t groups) {
  LpPartition lps = partition_by_delay(topology, threshold);
  if (racks) lps = join_racks(topology, lps);
  return groups > 0 ? group_lps(topology, lps, groups) : lps;
}

LpPartition partition_explicitly(const topology::Topology& topology, std::span<const std::uint32_t> lp_of_node) {
  if (lp_of_node.size() != topology.node_count()) {
    throw UserError(fmt::format("explicit LP partition: {} entries for {} nodes; expected one LP per node",
                                lp_of_node.size(), topology.node_count()));
  }
  return finish(topology, std::vector<std::uint32_t>(lp_of_node.begin(), lp_of_node.end()), "explicit");
}

void print_partition(const LpPartition& partition, const topology::Topology& topology, std::ostream& out,
                     std::size_t max_lps) {
  const std::vector<std::vector<NodeId>> lps = partition.members();
  std::size_t smallest = topology.node_count(), largest = 0;
  for (const std::vector<NodeId>& lp : lps) {
    smallest = std::min(smallest, lp.size());
    largest = std::max(largest, lp.size());
  }
  out << fmt::format("LP partition ({}): {} LPs of {} to {} nodes; lookahead {}; {} cables between LPs\n",
                     partition.rule, partition.lp_count, smallest, largest,
                     partition.lookahead == Time::max() ? std::string("none (one LP)") : to_string(partition.lookahead),
                     partition.cross_cables);
  for (std::size_t i = 0; i < lps.size() && i < max_lps; ++i) {
    const std::string& first = topology.node(lps[i].front()).name;
    out << (lps[i].size() == 1 ? fmt::format("  LP {}: {}\n", i, first)
                               : fmt::format("  LP {}: {} nodes, {} .. {}\n", i, lps[i].size(), first,
                                             topology.node(lps[i].back()).name));
  }
  if (lps.size() > max_lps) out << fmt::format("  ... {} more LPs\n", lps.size() - max_lps);
}

}  // namespace loom::network::packet::parallel
