// The canonical form of a partition's flow-conflict graph: the key of a memoized transient.
//
// The graph: one vertex per QP (coloured by what of the QP changes its transient: line rate,
// window, class, congestion-control state class), one per port of the partition (coloured by
// rate, latency, ECN thresholds, queued bytes, ...), and one per hop of a path joining a QP to
// a port, coloured by (data or ACK path, hop index) -- the standard way to give a simple
// vertex-coloured graph edge colours. Two QPs sharing k ports are joined through k port
// vertices, so the shared-link counts (and which hops they are) are in the graph.
//
// nauty (sparsenauty, Debian libnauty2-dev) labels the graph canonically: two partitions get
// the same digest exactly when their coloured graphs are isomorphic (up to a 128-bit hash
// collision), and `order` lists the QPs in canonical order, so the i-th QP of one and of the
// other play the same part.
//
// Cost: nauty's, in practice near-linear on these sparse graphs; vertices = QPs + ports +
// path hops.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "loom/topology/topology.h"

namespace loom::network::packet::fastforward {

struct FlowVertex {
  std::uint64_t colour = 0;
  std::span<const topology::LinkId> forward;  // data path
  std::span<const topology::LinkId> reverse;  // ACK path
};

struct CanonicalPattern {
  std::array<std::uint64_t, 2> digest{};
  std::vector<std::uint32_t> order;  // indices into the flows, in canonical order
};

// `port_colours[i]` is the colour of `ports[i]`; every port of a flow's paths must be listed.
CanonicalPattern canonical_pattern(std::span<const FlowVertex> flows, std::span<const topology::LinkId> ports,
                                   std::span<const std::uint64_t> port_colours);

// A 64-bit mix of `value` into `hash` (deterministic across runs and machines).
std::uint64_t mix(std::uint64_t hash, std::uint64_t value);

}  // namespace loom::network::packet::fastforward
