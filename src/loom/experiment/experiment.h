// An experiment: the YAML file that says which topology, workload, collective choices and
// network fidelity to simulate, turned into ready-to-run objects; and running it.
//
// Sections (see README.md at the project root for every key and default):
//   seed        the experiment seed (default 1); every random stream derives from it
//   topology    a blueprint and its parameters
//   workload    what the ranks run: microbenchmark, training (synthesised) or trace (a file)
//   collective  default algorithm and its options
//   system      comm_streams per rank; stream_weights (flow sharing) and stream_classes (packet);
//               watchdog (wall time the simulated clock may stand still)
//   network     mode: analytical | flow | packet; flow / packet: that backend's parameters;
//               pxn; link_changes (network_section.h)
//   output      dir, and which files to write (collectives, flows, ranks, timeline, max_rows,
//               report: the HTML report)
// Every key is read through config::Reader, so an unknown key, a wrong type, a missing key or a
// bad unit is a UserError at file:line:col, and the effective configuration (after defaults and
// --set overrides) is recorded for the run record.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/config/document.h"
#include "loom/core/memory_budget.h"
#include "loom/experiment/network_section.h"
#include "loom/experiment/slow_nics.h"
#include "loom/report/collective_stats.h"
#include "loom/report/output_file.h"
#include "loom/system/metrics.h"
#include "loom/system/run_result.h"
#include "loom/system/runtime.h"
#include "loom/topology/topology.h"
#include "loom/workload/synthesis/memory_model.h"
#include "loom/workload/workload.h"

namespace loom::experiment {

// Which result files to write besides summary.json (report/tables.h, report/timeline.h).
struct OutputOptions {
  std::filesystem::path dir = "results";
  bool collectives = true;
  bool flows = true;
  bool ranks = true;
  bool timeline = true;
  bool links = true;                   // flow mode: links.csv and hot links in the summary
  Time link_interval = Time::us(100);  // links.csv sampling interval
  std::uint32_t hot_links = 10;        // links listed in the summary
  std::uint64_t max_rows = 1'000'000;  // per file
  bool report = false;                 // write report.html (report/html/report.h) after the run
};

struct Experiment {
  std::uint64_t seed = 1;
  topology::Topology topology;
  workload::Workload workload{1};
  system::RuntimeOptions runtime;
  NetworkSection network;
  OutputOptions output;
  nlohmann::json effective_config;
  std::vector<std::string> warnings;  // from loading inputs (e.g. a real trace's oddities)
  // Training workloads: per-rank memory of the most loaded stage (workload/synthesis/memory_model.h).
  std::optional<workload::synthesis::MemoryEstimate> memory;
  // The rate changes of NIC slowdowns with a time window (slow_nics.h), scheduled on the backend
  // before the run; `rate_changes_from` is the first windowed slow_nics entry (for errors).
  std::vector<LinkRateChange> link_rate_changes;
  SourceLocation rate_changes_from;
  // system.symmetry: step one representative per class of ranks with identical programs where
  // that is proven to change no result (symmetry_choice.h). Off by default: finding classes and
  // twins rebuilds every node a few times, more than the skipped steps and operations save so
  // far, and each refinement costs a run (system/README.md).
  bool symmetry = false;
};

// Reads every section of `document` (overrides already applied) and checks for unknown keys. An
// input whose workload would not fit in `budget` is refused before it is built.
Experiment load(config::Document& document, const MemoryBudget& budget = MemoryBudget::of_machine());

struct Outcome {
  system::RunResult result;
  system::Metrics metrics;
  std::vector<report::EntryStats> entries;
  std::filesystem::path summary_path;
  std::vector<report::WrittenFile> files;  // the other files written
  std::vector<std::string> warnings;        // the experiment's warnings
  std::vector<std::string> run_warnings;    // the run's: files cut short by a row cap (also in the summary)
  nlohmann::json summary;                   // the run record (summary.json's content)
};

// kInMemory simulates the same run but writes no file: the Outcome's summary lists none, and the
// tables are the caller's to print (in_memory.h).
enum class RunMode { kWriteFiles, kInMemory };

// Simulates the experiment and writes its results into its output directory, first removing
// the files a previous run listed there once the simulation has succeeded (a folder of other
// files, not a Loom result, is refused before the run; report/output_file.h). `watcher` sees
// the run's progress and may stop it (system::Runtime::run): the results so far are written
// then, with Outcome::result.complete false and summary.json's "complete" false.
// With `ranks` (MPI ranks; network/models/backend_factory.h, check_rank_run), the packet
// simulation is split over them: every rank runs the workload alike and gets the same Outcome;
// the caller lets one of them write (the others run kInMemory). `watcher` must then answer
// alike on every rank: it is called at the same events everywhere.
Outcome run(const Experiment& experiment, const system::RunWatcher& watcher = {},
            RunMode mode = RunMode::kWriteFiles, network::packet::parallel::RankExchange* ranks = nullptr);

}  // namespace loom::experiment
