// A run's results kept in memory instead of written (the Python module's): each table's CSV text
// exactly as its file would hold it, for the tables the experiment's `output` section switches on,
// with the same row cap; and the run record's parts that scripts ask for on their own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/experiment/cluster_experiment.h"
#include "loom/experiment/experiment.h"

namespace loom::experiment {

struct TableText {
  std::string name;                 // "collectives", "flows", "ranks"; cluster runs: "jobs", "cluster"
  std::string csv;                  // header line, then one line per row
  std::uint64_t rows_left_out = 0;  // by output.max_rows
};

// summary.json's "memory": the per-rank estimate of the most loaded pipeline stage, in bytes.
nlohmann::json memory_json(const workload::synthesis::MemoryEstimate& memory);

// The tables of `outcome`, a run of `experiment` (in either RunMode).
std::vector<TableText> table_texts(const Experiment& experiment, const Outcome& outcome);

// A cluster run's tables: "jobs", "cluster" (the samples).
std::vector<TableText> table_texts(const ClusterExperiment& experiment, const ClusterOutcome& outcome);

}  // namespace loom::experiment
