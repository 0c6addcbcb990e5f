// Structural classes of a topology's nodes by colour refinement (1-dimensional
// Weisfeiler-Leman): nodes start coloured by kind, tier and forwarding latency, and each round
// recolours a node by its colour and the multiset of (bandwidth, latency, colour of the far
// end) of its links, until the number of colours stops growing.
//
// Nodes that some symmetry of the fabric maps onto each other always share a class; nodes in
// different classes are never interchangeable (a leaf with fewer uplinks, the hosts below it,
// a partly filled rail segment). Sharing a class is necessary for two nodes to be symmetric,
// not sufficient in general. Links that are down are not seen: classes describe the built
// fabric.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/topology/topology.h"

namespace loom::topology {

// One class id per node (dense, 0 .. classes - 1, numbered in order of first appearance by
// node id, so equal topologies give equal ids).
std::vector<std::uint32_t> node_classes(const Topology& topology);

}  // namespace loom::topology
