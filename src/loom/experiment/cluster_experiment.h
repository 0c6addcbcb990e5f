// A cluster experiment: an experiment file with a `cluster:` section (jobs, scheduler,
// placement, failures; src/loom/cluster/README.md). The machines come from the `topology:`
// section (hosts, leaves and pods of any blueprint or topology file) or from
// `cluster.machines` (an imported machine list), not both. Also read: `seed`, and `output:`
// with `dir`, `jobs`, `cluster`, `timeline` (write that file, default true), `max_rows` and
// `report` (the HTML report, default false).
// In job mode jobs are opaque durations and the collective, system and network sections are
// refused (they would do nothing); the network modes (cluster_fidelity.h) need the topology
// section and `cluster.workloads`, and read the collective, system and network sections.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/cluster/cluster_config.h"
#include "loom/cluster/job_mode.h"
#include "loom/cluster/machines.h"
#include "loom/config/document.h"
#include "loom/experiment/cluster_fidelity.h"
#include "loom/experiment/experiment.h"
#include "loom/report/output_file.h"

namespace loom::experiment {

struct ClusterOutputOptions {
  std::filesystem::path dir = "results";
  bool jobs = true;
  bool cluster = true;
  bool timeline = true;
  std::uint64_t max_rows = 1'000'000;
  bool report = false;  // write report.html (report/html/report.h) after the run
};

struct ClusterExperiment {
  std::uint64_t seed = 1;
  cluster::Machines machines;
  cluster::ClusterSettings settings;
  ClusterOutputOptions output;
  nlohmann::json effective_config;
  std::vector<std::string> warnings;  // importing machines and jobs
  std::optional<ClusterNetwork> network;  // the network modes
};

// Whether the document is a cluster experiment (has a `cluster:` section).
bool is_cluster_experiment(config::Document& document);
// Reads the experiment (overrides already applied) and checks for unknown keys; a topology file
// or a workload larger than `budget` allows is refused at its key.
ClusterExperiment load_cluster(config::Document& document, const MemoryBudget& budget = MemoryBudget::of_machine());

struct ClusterOutcome {
  std::vector<cluster::Job> jobs;  // as run: the network modes set durations from iteration times
  cluster::JobModeResult result;
  nlohmann::json summary;
  std::filesystem::path summary_path;
  std::vector<report::WrittenFile> files;
};

// RunMode::kInMemory writes no file (the summary lists none).
ClusterOutcome run_cluster(const ClusterExperiment& experiment, const cluster::ProgressReporter& progress = {},
                           RunMode mode = RunMode::kWriteFiles);

}  // namespace loom::experiment
