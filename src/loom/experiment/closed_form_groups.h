#pragma once

#include <span>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::experiment {

// Flow mode with closed-form timing (system::RuntimeOptions::flow_closed_form): a run in which a
// flow met an operation timed in closed form stops and is repeated with that operation's
// communicator group sent transfer by transfer. Returns `skips` (closed-form skips by
// communicator) with every communicator of the groups of `conflicts` added.
std::vector<bool> skip_groups_of(const workload::Workload& workload, std::span<const workload::CommunicatorId> conflicts,
                                 std::vector<bool> skips);

}  // namespace loom::experiment
