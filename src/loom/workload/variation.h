// Performance variation (MLSynth's "performance wrapper", generalised), applied as a pass over
// a Workload whose compute nodes already have durations (after compute::assign_durations or
// from a trace):
//   random compute slowdowns: each (rank, layer, micro-batch, iteration) group of compute nodes
//     is slowed with probability compute_slowdown_chance by a factor drawn uniformly from
//     [compute_slowdown_min, compute_slowdown_max] (a thermally throttled or ageing GPU);
//   deterministic stragglers: every compute node matching (rank, layer, micro-batch, iteration)
//     -- kNoIndex / kAnyIteration match all -- takes `factor` times as long; several matching
//     stragglers multiply;
//   NIC slowdowns: each rank's NIC is slowed with probability nic_slowdown_chance by a factor
//     drawn from [nic_slowdown_min, nic_slowdown_max]. The workload has no network, so these are
//     returned as (rank, factor) for the caller to apply to the topology (bandwidth / factor;
//     the experiment does, experiment/slow_nics.h).
// Durations are multiplied and rounded to the nearest picosecond. All draws are deterministic
// functions of (seed, rank, layer, micro-batch, iteration), independent of node order and
// thread count.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::workload {

inline constexpr std::uint32_t kAnyIteration = 0xffffffffu;

struct Straggler {
  std::uint32_t rank = 0;
  std::uint16_t layer = kNoIndex;        // kNoIndex: every layer (and nodes without a layer)
  std::uint16_t micro_batch = kNoIndex;  // kNoIndex: every micro-batch
  std::uint32_t iteration = kAnyIteration;
  double factor = 1.0;                   // >= 1 slows down; (0, 1) speeds up
};

struct VariationSpec {
  std::uint64_t seed = 0;
  double compute_slowdown_chance = 0;  // in [0, 1]
  double compute_slowdown_min = 1.0;   // factors, 0 < min <= max
  double compute_slowdown_max = 1.0;
  double nic_slowdown_chance = 0;      // in [0, 1]
  double nic_slowdown_min = 1.0;
  double nic_slowdown_max = 1.0;
  std::vector<Straggler> stragglers;
};

struct NicSlowdown {
  std::uint32_t rank = 0;
  double factor = 1.0;  // the NIC's bandwidth is divided by this
};

struct VariationResult {
  std::vector<NicSlowdown> nic_slowdowns;  // ascending rank
  std::uint64_t slowed_nodes = 0;          // compute nodes whose duration changed factor != 1
  Time added;                              // sum over nodes of (new - old duration)
};

// Why nic_slowdown factors below 1 are refused.
inline constexpr std::string_view kNicSpeedUp =
    "factors must be at least 1 (a factor below 1 would make a NIC faster than its cable)";

// UserError naming the field for chances outside [0, 1], factors <= 0, min > max, NIC slowdowns
// below 1, or a straggler whose rank is outside the workload or which matches no compute node
// (naming the layer, micro-batch or iteration its rank does not have). O(nodes + stragglers · nodes matched).
VariationResult apply_variation(Workload& workload, const VariationSpec& spec);

}  // namespace loom::workload
