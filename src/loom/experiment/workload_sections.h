// Reading the experiment file's `workload:` section: which workload the ranks run.
//
//   type: microbenchmark   collectives on named rank groups (sections.h: read_microbenchmark)
//   type: training         a transformer training step synthesised from model x parallelism
//                          (model: a preset's name or a map of its shape; tp, pp, dp, ep,
//                          schedule, batches, recompute, ...)
//   type: dlrm             DLRM (MLPerf preset): model-parallel embeddings, data-parallel MLPs
//   type: trace            a workload file: Chakra ET prefix or SimAI/AICB text (`file:`),
//                          optionally scaled down (`scale:` in (0, 1])
//   variation:             (any type) compute_slowdown_chance, compute_slowdown: [min, max],
//                          nic_slowdown_chance, nic_slowdown: [min, max], stragglers: [{rank,
//                          layer, micro_batch, iteration, factor}], slow_nics: [{rank, factor,
//                          from, until}] (from/until: a time window, slow_nics.h)
// Training, DLRM and trace workloads get compute durations from the roofline compute model
// (`compute:` gpu and efficiencies) for nodes that have FLOPs but no measured duration, or from
// a measured kernel table (`compute.kernel_table:`, a CSV label,time) for the labels it lists.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "loom/config/document.h"
#include "loom/core/memory_budget.h"
#include "loom/experiment/slow_nics.h"
#include "loom/workload/synthesis/memory_model.h"
#include "loom/workload/variation.h"
#include "loom/workload/workload.h"

namespace loom::experiment {

struct LoadedWorkloadSection {
  workload::Workload workload{1};
  // Training: the per-rank memory estimate of the most loaded pipeline stage.
  std::optional<workload::synthesis::MemoryEstimate> memory;
  std::uint32_t comm_streams_needed = 1;  // streams the workload's nodes use
  std::vector<std::string> warnings;      // from importing a trace
  // From `variation:`: NICs to slow down, for the whole run or a window (experiment/slow_nics.h):
  // the random draws first, then the slow_nics entries in file order.
  std::vector<SlowNic> nic_slowdowns;
};

// `gpu_count` bounds the ranks; relative trace paths are resolved against `base_dir`; `seed`
// seeds the variation draws. The workload is validated (workload_validation.h), then the
// optional `variation:` (compute slowdowns, stragglers, NIC slowdowns; workload/variation.h)
// applied to it. A workload whose nodes would not fit in `budget` is refused before it is built
// (microbenchmark and training from their counts, SimAI text from its header). `storage` is how
// synthesised training and SimAI text hold their nodes (system.compact; the other types store
// theirs per node).
LoadedWorkloadSection read_workload_section(config::Reader section, std::uint32_t gpu_count,
                                            const std::filesystem::path& base_dir, std::uint64_t seed,
                                            const MemoryBudget& budget,
                                            workload::NodeStorage storage = workload::NodeStorage::kSharedPrograms);

}  // namespace loom::experiment
