// The table of a sweep (`sweep.csv`, `sweep.json`): one row per variant in grid (or file) order,
// whatever order the variants finished in: its name, the swept keys' values, its status (`ran`,
// `reused`: a complete summary.json of the same effective settings was already there, `failed`),
// the error line of a failed variant, and headline metrics from its summary.json:
//   a run        makespan_us, iteration_us (mean over iterations), busbw_GBps (mean over
//                collective instances), compute_us, exposed_comm_us (mean over ranks),
//                collectives, transfers, events
//   a cluster    jobs, finished, wait_mean_s, wait_p99_s, jct_mean_s, jct_p99_s, makespan_s,
//                utilisation, goodput, events
// A metric the summary lacks (no collectives, no finished job) is empty in the CSV, null in JSON.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/experiment/sweep.h"

namespace loom::experiment {

struct VariantOutcome {
  std::string status;      // "ran", "reused" or "failed"
  std::string error;       // failed: the variant's error line
  nlohmann::json summary;  // its summary.json; null when it failed
};

using HeadlineMetrics = std::vector<std::pair<std::string, nlohmann::json>>;

// The metrics above of a run's or a cluster run's summary.json.
HeadlineMetrics headline_metrics(const nlohmann::json& summary);
// Whether `summary` is a whole run record (one a run wrote to the end).
bool complete_summary(const nlohmann::json& summary);

// Writes dir/sweep.csv and dir/sweep.json (`experiment`: the file swept, recorded in the JSON).
// UserError naming the file when writing fails.
void write_sweep_table(const std::filesystem::path& dir, const std::string& experiment,
                       const std::vector<SweepVariant>& variants, const std::vector<VariantOutcome>& outcomes);

}  // namespace loom::experiment
