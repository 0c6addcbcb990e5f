#include "loom/topology/switch_tiers.h"

namespace loom::topology {

void spread_tiers(const std::vector<std::vector<std::uint32_t>>& next, std::vector<std::uint16_t>& tier,
                  std::vector<std::uint32_t>& queue) {
  for (std::size_t head = 0; head < queue.size(); ++head) {
    for (std::uint32_t y : next[queue[head]]) {
      if (tier[y] != kNoTier) continue;
      tier[y] = static_cast<std::uint16_t>(tier[queue[head]] + 1);
      queue.push_back(y);
    }
  }
}

}  // namespace loom::topology
