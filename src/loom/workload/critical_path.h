// The critical-path length of a workload at infinite bandwidth: every compute node takes its
// duration, communication takes no time but still synchronises -- a collective completes when
// its last member arrives, a send/receive pair when both sides have -- and nodes start as soon
// as their dependencies allow (streams are not serialised; synthesised workloads chain their
// compute nodes, so for them this is the compute-bound iteration time).
//
// Collective instances are matched as the runtime matches them: the k-th collective a rank
// issues on a communicator; sends and receives by (src, dst, tag) in order.
#pragma once

#include "loom/core/time.h"
#include "loom/workload/workload.h"

namespace loom::workload {

// UserError naming a node if the workload cannot finish (a collective member or a send/recv
// partner never arrives). O(nodes + dependencies).
Time critical_path_length(const Workload& workload);

}  // namespace loom::workload
