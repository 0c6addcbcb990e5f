// Scaling down for quick studies: one factor f in (0, 1] multiplies every node's FLOPs, bytes
// (compute bytes touched and message sizes alike) and fixed duration, so a run keeps its
// shape -- the same DAG, the same ratios of compute to communication on an alpha-free network
// -- at a fraction of the cost. Values are rounded to nearest, but a non-zero value stays at
// least 1 (byte, FLOP or picosecond) so no message or kernel disappears.
#pragma once

#include "loom/workload/workload.h"

namespace loom::workload {

// UserError unless 0 < factor <= 1. O(nodes).
void scale_workload(Workload& workload, double factor);

}  // namespace loom::workload
