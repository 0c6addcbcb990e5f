// The order in which one pipeline stage runs its forward and backward passes (Megatron-LM):
//
//   gpipe        every forward (micro-batch 0..m-1), then every backward (0..m-1)
//   1f1b         min(p-s-1, m) warm-up forwards, then alternating one forward / one backward,
//                then the remaining backwards
//   interleaved  v model chunks per stage; unit k (0..m·v-1) is micro-batch
//                (k / (p·v))·p + k % p of chunk (k / p) % v (backward: chunk v-1-(k / p) % v);
//                warm-up (p-s-1)·2 + (v-1)·p forwards (all m·v when m == p), then 1F1B
//
// With zero communication cost and per-micro-batch stage times t_f, t_b, an iteration takes
// (m + p - 1)·(t_f + t_b) for gpipe and 1f1b, a bubble of (p-1)/m, and (p-1)/(m·v) interleaved.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/workload/synthesis/parallel_plan.h"

namespace loom::workload::synthesis {

struct PipelineStep {
  bool forward = true;
  std::uint32_t micro_batch = 0;
  std::uint32_t chunk = 0;  // model chunk (virtual stage index within the stage), 0 unless interleaved

  bool operator==(const PipelineStep&) const = default;
};

// The 2·m·v steps of stage `stage` (0..stages-1). Requires m >= 1, v >= 1, and for interleaved
// m a multiple of `stages` (validate(ParallelPlan) checks this). O(m·v).
std::vector<PipelineStep> pipeline_order(PipelineSchedule schedule, std::uint32_t stages, std::uint32_t stage,
                                         std::uint32_t micro_batches, std::uint32_t virtual_stages);

}  // namespace loom::workload::synthesis
