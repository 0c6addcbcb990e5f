#include "loom/topology/node_classes.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "loom/core/random.h"

namespace loom::topology {

namespace {

// Renumbers hashes densely in order of first appearance; returns the number of classes.
std::uint32_t densify(const std::vector<std::uint64_t>& hashes, std::vector<std::uint32_t>& ids) {
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  ids.resize(hashes.size());
  for (std::size_t n = 0; n < hashes.size(); ++n) {
    ids[n] = index.try_emplace(hashes[n], static_cast<std::uint32_t>(index.size())).first->second;
  }
  return static_cast<std::uint32_t>(index.size());
}

std::uint64_t combine(std::uint64_t seed, std::uint64_t value) { return mix64(seed ^ (value + kGoldenGamma)); }

}  // namespace

std::vector<std::uint32_t> node_classes(const Topology& topology) {
  const std::uint32_t nodes = topology.node_count();
  std::vector<std::uint64_t> hashes(nodes);
  for (NodeId n = 0; n < nodes; ++n) {
    const Node& node = topology.node(n);
    std::uint64_t h = combine(static_cast<std::uint64_t>(node.kind), node.tier);
    hashes[n] = combine(h, static_cast<std::uint64_t>(node.forwarding_latency.picoseconds()));
  }
  std::vector<std::uint32_t> ids;
  std::uint32_t classes = densify(hashes, ids);
  std::vector<std::uint64_t> around;
  // Each round can only split classes, so at most `nodes` rounds grow the count.
  for (std::uint32_t round = 0; round < nodes; ++round) {
    for (NodeId n = 0; n < nodes; ++n) {
      around.clear();
      for (const LinkId l : topology.out_links(n)) {
        const Link& link = topology.link(l);
        std::uint64_t h = combine(static_cast<std::uint64_t>(link.bandwidth.bps()), ids[link.dst]);
        h = combine(h, static_cast<std::uint64_t>(link.latency.picoseconds()));
        around.push_back(combine(h, std::bit_cast<std::uint32_t>(link.error_rate)));
      }
      std::sort(around.begin(), around.end());
      std::uint64_t h = combine(0, ids[n]);
      for (const std::uint64_t a : around) h = combine(h, a);
      hashes[n] = h;
    }
    std::vector<std::uint32_t> next;
    const std::uint32_t refined = densify(hashes, next);
    ids = std::move(next);
    if (refined == classes) break;
    classes = refined;
  }
  return ids;
}

}  // namespace loom::topology
