// Logical processes placed on threads by their load (events), for the windowed executor's
// threads and the window profiler's prediction of them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace loom::network::packet::parallel {

// Longest processing time first: each LP, heaviest first (ties: lower LP first), on the least
// loaded thread (ties: the one with fewer LPs, then the lower). Returns the thread of each LP.
// Deterministic.
std::vector<std::uint32_t> place_by_load(std::span<const std::uint64_t> load, std::uint32_t threads);

// The busiest thread's load over the mean thread's under `thread_of` (1: even; 1 without load).
double placement_imbalance(std::span<const std::uint64_t> load, std::span<const std::uint32_t> thread_of,
                           std::uint32_t threads);

}  // namespace loom::network::packet::parallel
