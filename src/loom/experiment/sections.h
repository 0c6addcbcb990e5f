// Readers for the experiment file's sections, one per layer, so that each layer's keys,
// defaults and checks are in one place.
#pragma once

#include <filesystem>

#include "loom/config/document.h"
#include "loom/core/memory_budget.h"
#include "loom/system/runtime.h"
#include "loom/topology/topology.h"
#include "loom/workload/workload.h"

namespace loom::experiment {

// A blueprint and its parameters, or `file:` (relative to `base_dir`) with an optional `format:`.
topology::Topology read_topology(config::Reader section, const std::filesystem::path& base_dir,
                                 const MemoryBudget& budget);
// A microbenchmark workload section (its `type` already read). `gpu_count` bounds the ranks;
// `ranks` (default: every GPU) may use fewer.
// A UserError at `key` of `section` when a workload of `counts` stored as `storage` would not fit
// in `budget` (system::Runtime::estimated_bytes), naming the estimate and the limit.
void check_fits(config::Reader& section, std::string_view key, const workload::WorkloadCounts& counts,
                const MemoryBudget& budget, workload::NodeStorage storage = workload::NodeStorage::kPerNode);
// Refuses, at `collectives`, a benchmark whose nodes would not fit in `budget`.
workload::Workload read_microbenchmark(config::Reader& section, std::uint32_t gpu_count, const MemoryBudget& budget);
// `plans` (imported MSCCL++/MSCCL files) are read relative to `base_dir`.
system::RuntimeOptions read_collective(config::Reader section, const std::filesystem::path& base_dir);
// output.report (default false): write the HTML report after the run; an error at the key when
// this build has no plotting libraries (report/html/plotting_library.h).
bool read_output_report(config::Reader& output);

}  // namespace loom::experiment
