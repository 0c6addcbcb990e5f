// Logical processes (LPs) of a parallel packet simulation: which nodes' events one LP owns, and
// the lookahead of conservative synchronisation between LPs.
//
// By propagation delay (Arcadia, NSDI'26 §6.4): two nodes joined by a cable whose delay is below
// the threshold ζ share an LP (transitively: the LPs are the connected components of the graph
// of short cables, found by union-find). Short cables (inside a host, NIC to ToR in a rack) stay
// inside LPs; long ones (ToR to spine in another room) join LPs, so that the lookahead, the
// smallest delay of a cable between two LPs, is large. ζ = 0 makes every node its own LP.
// Or explicitly: the caller says which LP each node is in.
//
// A packet sent over a cable at time t arrives no earlier than t + its delay, and a PFC frame
// takes at least the delay too, so an LP's events before T + lookahead cannot be affected by
// another LP's events at or after T: a window of `lookahead` can run every LP independently.
// A cable of zero delay between two LPs leaves no lookahead and is refused.
//
// LPs are numbered in order of their lowest node id, so the numbering depends only on the
// topology and the rule, never on how the partition was computed. O(nodes + links).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "loom/core/time.h"
#include "loom/topology/topology.h"

namespace loom::network::packet::parallel {

using LpId = std::uint32_t;

struct LpPartition {
  std::vector<LpId> lp_of_node;      // by node id
  std::uint32_t lp_count = 0;
  // The smallest delay of a cable between two LPs; Time::max() when no cable crosses LPs.
  Time lookahead = Time::max();
  std::uint64_t cross_cables = 0;    // cables whose ends are in different LPs
  std::string rule;                  // "delay < 300ns" or "explicit", for reports

  // Nodes of each LP, in node order.
  std::vector<std::vector<topology::NodeId>> members() const;
};

// Nodes joined by cables of delay < `threshold` share an LP. UserError when `threshold` is
// negative or a zero-delay cable ends up between LPs (threshold 0), naming its nodes.
LpPartition partition_by_delay(const topology::Topology& topology, Time threshold);

// Racks from `partition`: an LP whose cables to other LPs all lead to one LP joins it (a host
// joins its ToR; a ToR cabled to several aggregation switches stays), once, not repeated on the
// result. On HPCC topologies, where every fabric cable has one delay, ζ = 1 ps then gives a ToR
// and its hosts per LP instead of an LP per node. UserError as partition_explicitly.
LpPartition join_racks(const topology::Topology& topology, const LpPartition& partition);

// Groups of `partition`'s LPs: `groups` (>= 1) LPs placed by longest processing time first on
// their node counts (lp_placement.h), each group one LP. A thread then runs a few large LPs
// instead of many small ones (each LP has an event queue, cold when its turn comes). The
// lookahead can only grow. Fewer than `groups` when there are fewer LPs.
LpPartition group_lps(const topology::Topology& topology, const LpPartition& partition, std::uint32_t groups);

// partition_by_delay, then join_racks when `racks`, then group_lps when `groups` > 0.
LpPartition partition_for(const topology::Topology& topology, Time threshold, bool racks, std::uint32_t groups = 0);

// The partition that puts node n in LP `lp_of_node[n]` (any ids; renumbered as above). UserError
// when the list does not have one entry per node, or a zero-delay cable joins two LPs.
LpPartition partition_explicitly(const topology::Topology& topology, std::span<const std::uint32_t> lp_of_node);

// A few lines for people: the rule, LP count, sizes, lookahead, cables between LPs, then one
// line per LP (its size and first and last node) up to `max_lps` LPs.
void print_partition(const LpPartition& partition, const topology::Topology& topology, std::ostream& out,
                     std::size_t max_lps = 32);

}  // namespace loom::network::packet::parallel
