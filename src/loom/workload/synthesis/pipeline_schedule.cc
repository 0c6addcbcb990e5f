#include "loom/workload/synthesis/pipeline_schedule.h"

#include <algorithm>

#include "loom/core/error.h"

namespace loom::workload::synthesis {

std::vector<PipelineStep> pipeline_order(PipelineSchedule schedule, std::uint32_t p, std::uint32_t s,
                                         std::uint32_t m, std::uint32_t v) {
  LOOM_ASSERT(p >= 1 && s < p && m >= 1 && v >= 1, "pipeline_order: invalid stage or counts");
  std::vector<PipelineStep> steps;
  steps.reserve(2ull * m * v);
  if (schedule == PipelineSchedule::kGpipe) {
    for (std::uint32_t i = 0; i < m; ++i) steps.push_back({true, i, 0});
    for (std::uint32_t i = 0; i < m; ++i) steps.push_back({false, i, 0});
    return steps;
  }
  const bool interleaved = schedule == PipelineSchedule::kInterleaved;
  LOOM_ASSERT(!interleaved || m % p == 0, "interleaved schedule needs micro-batches divisible by stages");
  const std::uint32_t chunks = interleaved ? v : 1;
  const std::uint32_t total = m * chunks;
  auto unit = [&](std::uint32_t k, bool forward) {
    if (!interleaved) return PipelineStep{forward, k, 0};
    const std::uint32_t group = k / (p * chunks);
    const std::uint32_t chunk = (k / p) % chunks;
    return PipelineStep{forward, group * p + k % p, forward ? chunk : chunks - 1 - chunk};
  };
  std::uint32_t warmup = 0;
  if (interleaved) {
    warmup = m == p ? total : std::min(total, (p - s - 1) * 2 + (chunks - 1) * p);
  } else {
    warmup = std::min(m, p - s - 1);
  }
  for (std::uint32_t k = 0; k < warmup; ++k) steps.push_back(unit(k, true));
  for (std::uint32_t i = 0; i + warmup < total; ++i) {
    steps.push_back(unit(warmup + i, true));
    steps.push_back(unit(i, false));
  }
  for (std::uint32_t i = total - warmup; i < total; ++i) steps.push_back(unit(i, false));
  return steps;
}

}  // namespace loom::workload::synthesis
