// Shortest-path routing with per-flow ECMP over a Topology.
//
// Path length is the number of links (hops); bandwidth and latency do not weigh in, as in a
// fabric that runs ECMP over equal-cost shortest paths. GPUs are endpoints: a path may start
// and end at a GPU but never passes through one, so two GPUs of one host talk over their
// scale-up switch and GPUs of different hosts over their NICs and the fabric. Every other
// node kind forwards.
//
// Tables. For every GPU destination the constructor runs one breadth-first search over the
// reversed links (all links are duplex, so the reverse of node v's out-link v->u is u->v);
// a node's distance propagates further only if the node forwards. The result is one byte per
// (GPU, node): the hop count to that GPU, or "unreachable". Distances must stay below 255
// hops; a longer shortest path is a UserError.
//
// Cost and limit of this layout: memory = GPUs x nodes bytes and construction time
// O(GPUs x (nodes + links)). A two-tier fabric with 8 GPUs and 8 NICs per host has about 2.1
// nodes per GPU, so 1,024 GPUs need ~2 MB, 8,192 GPUs ~140 MB and 32,768 GPUs ~2.3 GB (too
// much): this layout is meant for clusters up to about 8K GPUs. Destinations that are not
// GPUs (a NIC, a switch) have no table; queries towards them run one search on the spot,
// O(nodes + links) each.
//
// ECMP. At every node on the way, the next hop is one of the out-links whose far end is one
// hop closer to dst (and is dst itself or a forwarding node). Parallel links count as
// separate choices. A deterministic hash of (src, dst, flow_hash, current node) picks among
// them, so one flow always takes the same path and different flow_hash values spread over
// all shortest paths. Choices at different nodes are independent.
//
// Thread-safety: immutable after construction; concurrent queries are safe. The Topology must
// outlive the Routing and must not change after the Routing is built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "loom/topology/topology.h"

namespace loom::topology {

class Routing {
 public:
  // Builds the distance table of every GPU destination. Throws UserError if a shortest path
  // would exceed 254 hops.
  explicit Routing(const Topology& topology);

  // Appends to `out` the links of one shortest path from src to dst (nothing when src ==
  // dst): out's new links are contiguous (each starts where the previous one ends), the
  // first starts at src and the last ends at dst. O(path length x node degree) for GPU
  // destinations. Throws UserError naming both nodes when dst cannot be reached from src.
  void route(NodeId src, NodeId dst, std::uint64_t flow_hash, std::vector<LinkId>& out) const;
  // Links on a shortest path from src to dst (0 when src == dst); kNone if unreachable. O(1)
  // for GPU destinations.
  std::uint32_t hop_count(NodeId src, NodeId dst) const;
  // Number of distinct shortest paths (as link sequences, so parallel links multiply the
  // count); 0 if unreachable, saturating at 2^64 - 1. O(nodes + links) per call.
  std::uint64_t path_count(NodeId src, NodeId dst) const;

  // Bytes held by the distance tables.
  std::size_t table_bytes() const { return distance_.size(); }

 private:
  // Hop counts to dst for every node: a row of the table, or `scratch` filled on the spot.
  std::span<const std::uint8_t> distances_to(NodeId dst, std::vector<std::uint8_t>& scratch) const;
  // True if link l, taken at a node `hops` away from dst, moves one hop closer on a legal path.
  bool advances(LinkId l, NodeId dst, std::uint8_t hops, std::span<const std::uint8_t> dist) const;

  const Topology* topology_;
  std::uint32_t node_count_;
  std::vector<std::uint8_t> distance_;  // [rank * node_count_ + node]
};

}  // namespace loom::topology
