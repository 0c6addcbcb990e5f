#include "loom/topology/routing.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "loom/core/error.h"

namespace loom::topology {

namespace {

constexpr std::uint8_t kUnreachable = 0xff;
constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

// splitmix64's finaliser: a bijective 64-bit mix with good avalanche.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// Breadth-first search from dst over reversed links; only forwarding nodes (and dst) pass
// their distance on. `dist` has one entry per node and is overwritten.
void search(const Topology& topology, NodeId dst, std::span<std::uint8_t> dist,
            std::vector<NodeId>& queue) {
  std::fill(dist.begin(), dist.end(), kUnreachable);
  queue.clear();
  dist[dst] = 0;
  queue.push_back(dst);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId v = queue[head];
    if (v != dst && !forwards(topology.node(v).kind)) continue;
    const std::uint8_t next = static_cast<std::uint8_t>(dist[v] + 1);
    for (LinkId l : topology.out_links(v)) {
      const NodeId u = topology.link(l).dst;
      if (dist[u] != kUnreachable) continue;
      if (next == kUnreachable) {
        throw UserError(fmt::format(
            "a shortest path from '{}' to '{}' has more than {} hops; "
            "routing supports at most {}",
            topology.node(u).name, topology.node(dst).name, kUnreachable - 1, kUnreachable - 1));
      }
      dist[u] = next;
      queue.push_back(u);
    }
  }
}

}  // namespace

Routing::Routing(const Topology& topology)
    : topology_(&topology), node_count_(topology.node_count()) {
  const std::size_t n = node_count_;
  distance_.resize(static_cast<std::size_t>(topology.gpu_count()) * n);
  std::vector<NodeId> queue;
  queue.reserve(n);
  for (std::uint32_t rank = 0; rank < topology.gpu_count(); ++rank) {
    search(topology, topology.gpu_node(rank), std::span(distance_).subspan(rank * n, n), queue);
  }
}

std::span<const std::uint8_t> Routing::distances_to(NodeId dst,
                                                    std::vector<std::uint8_t>& scratch) const {
  LOOM_ASSERT(dst < node_count_, fmt::format("destination node id {} out of range", dst));
  const std::size_t n = node_count_;
  if (const std::uint32_t rank = topology_->rank_of_node(dst); rank != kNone) {
    return std::span(distance_).subspan(rank * n, n);
  }
  scratch.resize(n);
  std::vector<NodeId> queue;
  search(*topology_, dst, scratch, queue);
  return scratch;
}

bool Routing::advances(LinkId l, NodeId dst, std::uint8_t hops,
                       std::span<const std::uint8_t> dist) const {
  const NodeId next = topology_->link(l).dst;
  if (next == dst) return hops == 1;
  return dist[next] + 1 == hops && forwards(topology_->node(next).kind);
}

void Routing::route(NodeId src, NodeId dst, std::uint64_t flow_hash,
                    std::vector<LinkId>& out) const {
  LOOM_ASSERT(src < node_count_, fmt::format("source node id {} out of range", src));
  std::vector<std::uint8_t> scratch;
  const std::span<const std::uint8_t> dist = distances_to(dst, scratch);
  if (dist[src] == kUnreachable) {
    throw UserError(
        fmt::format("no path from '{}' to '{}': GPUs never forward traffic, so the "
                    "two need a direct link or a path through switches and NICs",
                    topology_->node(src).name, topology_->node(dst).name));
  }
  const std::uint64_t flow_key = mix(mix((std::uint64_t{src} << 32) | dst) ^ flow_hash);
  NodeId at = src;
  while (at != dst) {
    const std::uint8_t hops = dist[at];
    const std::span<const LinkId> links = topology_->out_links(at);
    std::uint32_t choices = 0;
    for (LinkId l : links) choices += advances(l, dst, hops, dist) ? 1 : 0;
    LOOM_ASSERT(choices > 0, fmt::format("no next hop at '{}' towards '{}'",
                                         topology_->node(at).name, topology_->node(dst).name));
    std::uint64_t pick = mix(flow_key ^ (std::uint64_t{at} * 0x9e3779b97f4a7c15ull)) % choices;
    for (LinkId l : links) {
      if (!advances(l, dst, hops, dist)) continue;
      if (pick-- == 0) {
        out.push_back(l);
        at = topology_->link(l).dst;
        break;
      }
    }
  }
}

std::uint32_t Routing::hop_count(NodeId src, NodeId dst) const {
  LOOM_ASSERT(src < node_count_, fmt::format("source node id {} out of range", src));
  std::vector<std::uint8_t> scratch;
  const std::uint8_t hops = distances_to(dst, scratch)[src];
  return hops == kUnreachable ? kNone : hops;
}

std::uint64_t Routing::path_count(NodeId src, NodeId dst) const {
  LOOM_ASSERT(src < node_count_, fmt::format("source node id {} out of range", src));
  std::vector<std::uint8_t> scratch;
  const std::span<const std::uint8_t> dist = distances_to(dst, scratch);
  if (dist[src] == kUnreachable) return 0;
  // Paths from each node, filled in order of increasing distance to dst so that every node's
  // successors are done first; nodes farther than src are never needed.
  std::vector<std::vector<NodeId>> by_distance(dist[src] + 1u);
  for (NodeId v = 0; v < node_count_; ++v) {
    if (dist[v] <= dist[src]) by_distance[dist[v]].push_back(v);
  }
  std::vector<std::uint64_t> paths(node_count_, 0);
  paths[dst] = 1;
  for (std::uint32_t hops = 1; hops <= dist[src]; ++hops) {
    for (NodeId v : by_distance[hops]) {
      std::uint64_t total = 0;
      for (LinkId l : topology_->out_links(v)) {
        if (!advances(l, dst, static_cast<std::uint8_t>(hops), dist)) continue;
        const std::uint64_t more = paths[topology_->link(l).dst];
        total = more > kSaturated - total ? kSaturated : total + more;
      }
      paths[v] = total;
    }
  }
  return paths[src];
}

}  // namespace loom::topology
