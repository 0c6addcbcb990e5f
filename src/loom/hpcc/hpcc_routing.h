// The routes HPCC's ns-3 simulator (scratch/third.cc + SwitchNode) gives a flow, so that Loom's
// run of an ns-3 experiment puts every flow on the path ns-3 puts it on.
//
// ns-3's rule, restated from its behaviour:
//  - Next hops. For every destination host H a breadth-first search starts at H; a node's
//    neighbours are visited in ascending node id (ns-3 keeps them in a map ordered by node
//    pointer, which follows creation order = node id), and only switches are expanded (hosts
//    never carry transit traffic). The next hops of node N towards H are the expanded nodes M
//    one hop closer to H than N with a link M-N, in the order M was expanded.
//  - Choice. A packet at N with 5-tuple (sip, dip, sport, dport) leaves through next hop
//      index = MurmurHash3_x86_32(key, 12 bytes, seed = N) mod (number of next hops),
//    key = the 32-bit words sip, dip, sport | dport << 16 in little-endian byte order.
//    A data packet carries (sender ip, receiver ip, QP source port, flow destination port);
//    its ACKs carry (receiver ip, sender ip, destination port, source port).
//  - Hosts apply the same rule to their own cables (ns-3 picks a host's NIC by the QP's hash;
//    the two agree whenever a host has one cable, as in every HPCC topology file).
//  - Parallel cables between two nodes: ns-3 keeps one interface per neighbour (the cable
//    listed last); so does this class.
// Host addresses are hpcc_ip(node id).
//
// Cost: the first route towards a destination runs its search, O(nodes + links), and keeps
// 8 bytes per node for it; a route is then O(path length x node degree).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/topology/topology.h"

namespace loom::hpcc {

// MurmurHash3_x86_32 of `key` (Austin Appleby's public-domain function), as ns-3's
// SwitchNode::EcmpHash computes it.
std::uint32_t murmur3_32(std::span<const std::uint8_t> key, std::uint32_t seed);

// The 12-byte ECMP key of a packet: sip, dip, sport | dport << 16, little endian.
std::uint32_t hpcc_ecmp_hash(std::uint32_t sip, std::uint32_t dip, std::uint32_t sport,
                             std::uint32_t dport, std::uint32_t seed);

class HpccRouting {
 public:
  explicit HpccRouting(const topology::Topology& topology);

  // Appends the links from host `src` to host `dst` of a packet with ports (sport, dport)
  // travelling from src to dst. Throws UserError naming both when dst cannot be reached.
  void route(topology::NodeId src, topology::NodeId dst, std::uint32_t sport, std::uint32_t dport,
             std::vector<topology::LinkId>& out);

 private:
  struct Neighbour {
    topology::NodeId node;
    topology::LinkId link;  // from the node to this neighbour
  };
  struct Search {
    std::vector<std::uint32_t> distance;  // hops to the destination, kNone if unreachable
    std::vector<std::uint32_t> expanded;  // position in the expansion order, kNone if never
  };
  const Search& search(topology::NodeId dst);
  std::uint64_t order_key(topology::NodeId node) const;

  const topology::Topology& topology_;
  std::vector<std::vector<Neighbour>> neighbours_;  // by node, ascending neighbour id
  std::vector<Search> searches_;                    // by destination node, filled lazily
  std::vector<Neighbour> candidates_;               // scratch
};

}  // namespace loom::hpcc
