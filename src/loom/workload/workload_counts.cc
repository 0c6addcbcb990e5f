#include "loom/workload/workload_counts.h"

#include <cmath>

namespace loom::workload {

void StageCounts::add(const RankCount& one, const RankCount& two, std::uint32_t iterations, std::uint64_t ranks) {
  const std::uint64_t more = iterations > 1 ? iterations - 1 : 0;
  total_.nodes += (one.nodes + (two.nodes - one.nodes) * more) * ranks;
  total_.dependencies += (one.dependencies + (two.dependencies - one.dependencies) * more) * ranks;
  collectives_ += (one.collective_share + (two.collective_share - one.collective_share) * static_cast<double>(more)) *
                  static_cast<double>(ranks);
}

WorkloadCounts StageCounts::total() const {
  WorkloadCounts out = total_;
  out.collectives = static_cast<std::uint64_t>(std::llround(collectives_));
  return out;
}

}  // namespace loom::workload
