// Applying the NIC slowdowns of performance variation (workload/variation.h) to a topology.
//
// A slowed rank's NIC (Topology::nic_of_rank) has the bandwidth of every cable attached to it,
// both directions, divided by the factor: the GPU-NIC link and the NIC's fabric links. Ranks
// that share a NIC slow it by the largest of their factors. A rank without a NIC (a single
// host) has no scale-out traffic to slow and is skipped. Everything else (nodes and their ids,
// link ids, latencies, error rates, rails, ports, NIC attachments) is kept, so routes and
// results stay comparable with the unmodified topology. Bandwidths are rounded to whole bits
// per second (at least 1).
//
// The topology offers no way to change a link once added, so this builds a copy: O(nodes +
// links).
#pragma once

#include <span>

#include "loom/topology/topology.h"
#include "loom/workload/variation.h"

namespace loom::experiment {

// UserError naming the rank if a factor is not positive or a rank is not a GPU of `topology`.
topology::Topology with_slow_nics(const topology::Topology& topology, std::span<const workload::NicSlowdown> slow);

}  // namespace loom::experiment
