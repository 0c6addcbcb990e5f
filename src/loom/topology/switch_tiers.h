// Tiers of fabric switches for importers that are given only cables: the switches hosts
// attach to are tier 0, and every other switch is one tier above the nearest lower one.
#pragma once

#include <cstdint>
#include <vector>

namespace loom::topology {

inline constexpr std::uint16_t kNoTier = 0xffff;

// Breadth-first from `queue` (the tier-0 switches, already marked 0 in `tier`; every other
// entry kNoTier) over `next` (switch-to-switch adjacency). Switches never reached keep
// kNoTier. O(switches + cables).
void spread_tiers(const std::vector<std::vector<std::uint32_t>>& next, std::vector<std::uint16_t>& tier,
                  std::vector<std::uint32_t>& queue);

}  // namespace loom::topology
