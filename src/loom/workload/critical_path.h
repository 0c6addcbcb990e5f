// The critical-path length of a workload at infinite bandwidth: every compute node takes its
// duration, communication takes no time but still synchronises -- a collective completes when
// its last member arrives, a send/receive pair when both sides have (with eager sends,
// PointToPoint::kEager, a send at once and its receive when both have) -- and nodes start as soon
// as their dependencies allow (streams are not serialised; synthesised workloads chain their
// compute nodes, so for them this is the compute-bound iteration time).
//
// Collective instances are matched as the runtime matches them: the k-th collective a rank
// issues on a communicator; sends and receives by (src, dst, tag) in order.
#pragma once

#include <cstdint>
#include <span>

#include "loom/core/time.h"
#include "loom/workload/workload.h"

namespace loom::workload {

// UserError naming a node if the workload cannot finish (a collective member or a send/recv
// partner never arrives). O(nodes + dependencies).
Time critical_path_length(const Workload& workload);
// The same for a workload holding only the nodes of `built_ranks` (empty: every rank): a
// collective completes when its built members have arrived, a send or receive whose peer is not
// built when it is reached. This is the whole workload's length when each rank left out runs as
// a built one does, in step with it (a synthesised plan's ranks of one stage, sampled in
// `loom workload show`).
Time critical_path_length(const Workload& workload, std::span<const std::uint32_t> built_ranks);

}  // namespace loom::workload
