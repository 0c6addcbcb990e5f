#include "loom/experiment/closed_form_groups.h"

namespace loom::experiment {

std::vector<bool> skip_groups_of(const workload::Workload& workload, std::span<const workload::CommunicatorId> conflicts,
                                 std::vector<bool> skips) {
  skips.resize(workload.communicator_count(), false);
  for (const workload::CommunicatorId c : conflicts) {
    const std::string& group = workload.communicator(c).group;
    for (workload::CommunicatorId other = 0; other < workload.communicator_count(); ++other) {
      if (workload.communicator(other).group == group) skips[other] = true;
    }
  }
  return skips;
}

}  // namespace loom::experiment
