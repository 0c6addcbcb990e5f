// The sections of a report, one function each. A function adds its section to the report when
// its input file is there, and otherwise a line to Report::absent naming the file; inputs come
// from a results folder (`dir`) and its parsed summary.json.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "loom/report/html/csv_reader.h"
#include "loom/report/html/section.h"

namespace loom::report::html {

// The table `file` of `dir`, or nothing (and report.absent gets "<file> absent: no <what>").
std::optional<CsvReader> open_table(const std::filesystem::path& dir, std::string_view file, std::string_view what,
                                    Report& report);

// A run (loom run): headline numbers, warnings, iteration times, the effective configuration.
void add_run_overview(const nlohmann::json& summary, Report& report);
// Per rank: compute, exposed communication per communicator kind and idle time (ranks.csv).
void add_rank_breakdown(const std::filesystem::path& dir, Report& report);
// Bus bandwidth against size per operation (collectives.csv).
void add_collectives(const std::filesystem::path& dir, Report& report);
// Flow completion times and slowdowns as CDFs (flows.csv).
void add_flows(const std::filesystem::path& dir, const nlohmann::json& summary, Report& report);
// Link utilisation over time as a heatmap of the busiest links (links.csv), and the summary's
// hot links.
void add_links(const std::filesystem::path& dir, const nlohmann::json& summary, Report& report);

// A cluster run: headline numbers and the effective configuration.
void add_cluster_overview(const nlohmann::json& summary, Report& report);
// GPU states, queued and running jobs over time (cluster.csv).
void add_cluster_timeline(const std::filesystem::path& dir, Report& report);
// Job completion time and wait distributions (jobs.csv).
void add_job_distributions(const std::filesystem::path& dir, Report& report);

// A sweep folder: each headline metric against each swept key (sweep.csv; format in sweep_table.h).
void add_sweep(const std::filesystem::path& dir, Report& report);

}  // namespace loom::report::html
