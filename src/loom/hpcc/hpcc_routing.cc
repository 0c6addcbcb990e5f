#include "loom/hpcc/hpcc_routing.h"

#include <algorithm>
#include <array>
#include <bit>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/hpcc/hpcc_inputs.h"

namespace loom::hpcc {

using topology::LinkId;
using topology::NodeId;

std::uint32_t murmur3_32(std::span<const std::uint8_t> key, std::uint32_t seed) {
  constexpr std::uint32_t c1 = 0xcc9e2d51u;
  constexpr std::uint32_t c2 = 0x1b873593u;
  std::uint32_t h = seed;
  const std::size_t blocks = key.size() / 4;
  for (std::size_t i = 0; i < blocks; ++i) {
    std::uint32_t k = std::uint32_t{key[4 * i]} | std::uint32_t{key[4 * i + 1]} << 8 |
                      std::uint32_t{key[4 * i + 2]} << 16 | std::uint32_t{key[4 * i + 3]} << 24;
    k = std::rotl(k * c1, 15) * c2;
    h = std::rotl(h ^ k, 13) * 5 + 0xe6546b64u;
  }
  std::uint32_t tail = 0;
  switch (key.size() & 3) {
    case 3:
      tail ^= std::uint32_t{key[4 * blocks + 2]} << 16;
      [[fallthrough]];
    case 2:
      tail ^= std::uint32_t{key[4 * blocks + 1]} << 8;
      [[fallthrough]];
    case 1:
      tail ^= key[4 * blocks];
      h ^= std::rotl(tail * c1, 15) * c2;
      break;
    default:
      break;
  }
  h ^= static_cast<std::uint32_t>(key.size());
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

std::uint32_t hpcc_ecmp_hash(std::uint32_t sip, std::uint32_t dip, std::uint32_t sport,
                             std::uint32_t dport, std::uint32_t seed) {
  const std::array<std::uint32_t, 3> words = {sip, dip, (sport & 0xffffu) | (dport & 0xffffu) << 16};
  std::array<std::uint8_t, 12> key{};
  for (std::size_t w = 0; w < words.size(); ++w) {
    for (std::size_t b = 0; b < 4; ++b) key[4 * w + b] = static_cast<std::uint8_t>(words[w] >> (8 * b));
  }
  return murmur3_32(key, seed);
}

std::uint64_t HpccRouting::order_key(NodeId node) const {
  const bool sw = topology::forwards(topology_.node(node).kind);
  return sw ? (std::uint64_t{1} << 32) | (0xffffffffu - node) : node;
}

HpccRouting::HpccRouting(const topology::Topology& topology)
    : topology_(topology), neighbours_(topology.node_count()), searches_(topology.node_count()) {
  for (NodeId n = 0; n < topology.node_count(); ++n) {
    std::vector<Neighbour>& list = neighbours_[n];
    for (const LinkId l : topology.out_links(n)) {
      const NodeId far = topology.link(l).dst;
      const auto same = std::find_if(list.begin(), list.end(), [&](const Neighbour& x) { return x.node == far; });
      if (same != list.end()) {
        same->link = l;  // a later parallel cable replaces the earlier one, as in ns-3
      } else {
        list.push_back(Neighbour{far, l});
      }
    }
    std::sort(list.begin(), list.end(), [&](const Neighbour& a, const Neighbour& b) { return order_key(a.node) < order_key(b.node); });
  }
}

const HpccRouting::Search& HpccRouting::search(NodeId dst) {
  Search& s = searches_[dst];
  if (!s.distance.empty()) return s;
  s.distance.assign(topology_.node_count(), topology::kNone);
  s.expanded.assign(topology_.node_count(), topology::kNone);
  std::vector<NodeId> queue = {dst};
  s.distance[dst] = 0;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const NodeId now = queue[i];
    s.expanded[now] = static_cast<std::uint32_t>(i);
    for (const Neighbour& next : neighbours_[now]) {
      if (s.distance[next.node] != topology::kNone) continue;
      s.distance[next.node] = s.distance[now] + 1;
      if (topology::forwards(topology_.node(next.node).kind)) queue.push_back(next.node);
    }
  }
  return s;
}

void HpccRouting::route(NodeId src, NodeId dst, std::uint32_t sport, std::uint32_t dport,
                        std::vector<LinkId>& out) {
  const Search& s = search(dst);
  if (s.distance[src] == topology::kNone) {
    throw UserError(fmt::format("no route from {} to {}: expected the topology to connect them",
                                topology_.node(src).name, topology_.node(dst).name));
  }
  const std::uint32_t sip = hpcc_ip(src);
  const std::uint32_t dip = hpcc_ip(dst);
  for (NodeId at = src; at != dst;) {
    candidates_.clear();
    for (const Neighbour& n : neighbours_[at]) {
      if (s.expanded[n.node] != topology::kNone && s.distance[n.node] + 1 == s.distance[at]) {
        candidates_.push_back(n);
      }
    }
    LOOM_ASSERT(!candidates_.empty(), "a node on a shortest path without a next hop");
    std::sort(candidates_.begin(), candidates_.end(),
              [&](const Neighbour& a, const Neighbour& b) { return s.expanded[a.node] < s.expanded[b.node]; });
    const std::uint32_t pick = hpcc_ecmp_hash(sip, dip, sport, dport, at) % candidates_.size();
    out.push_back(candidates_[pick].link);
    at = candidates_[pick].node;
  }
}

}  // namespace loom::hpcc
