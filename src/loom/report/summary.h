// The run record: `summary.json` (effective configuration, seed, version, `complete` (false for
// a run stopped early on request, whose results end at the stop), per-entry statistics,
// totals, metrics aggregated over ranks — min/mean/max of compute, communication, exposed
// communication per kind, sync wait and idle time —, iteration times, the critical path's
// composition, and the list of other files written with any rows a cap left out) and the entry
// statistics as a short table for a terminal. Per-instance and per-rank detail lives in the CSV
// tables (tables.h).
//
// summary.json holds nothing that varies between identical runs (no wall-clock time, no host
// name), so the same inputs and seed give a byte-identical file.
#pragma once

#include <filesystem>
#include <ostream>

#include <nlohmann/json.hpp>

#include "loom/report/collective_stats.h"
#include "loom/report/output_file.h"
#include "loom/system/metrics.h"

namespace loom::report {

struct RunInfo {
  std::uint64_t seed = 0;
  std::string backend;               // "analytical", ...
  nlohmann::json effective_config;   // what the run actually used, after defaults and overrides
  nlohmann::json network;            // backend-specific results (e.g. hot links), or null
  nlohmann::json memory;             // synthesised training: per-rank memory estimate, or null
  std::vector<std::string> warnings; // what loading the inputs and running warned about (also printed)
  nlohmann::json symmetry;           // the rank-symmetry reduction (experiment/symmetry_choice.h), or null
};

nlohmann::json make_summary(const RunInfo& info, const workload::Workload& workload, const system::RunResult& result,
                            const system::Metrics& metrics, const std::vector<WrittenFile>& files);

// Writes `dir/summary.json`, creating `dir`. UserError naming the path when that fails.
std::filesystem::path write_summary(const std::filesystem::path& dir, const nlohmann::json& summary);

// One line per entry: op, group, size, algorithm, members, instances, mean time, algbw, busbw.
void print_table(std::ostream& out, const std::vector<EntryStats>& entries, const system::RunResult& result);

}  // namespace loom::report
