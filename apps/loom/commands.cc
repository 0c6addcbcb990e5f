#include "commands.h"

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "default_experiment.h"
#include "loom/config/document.h"
#include "loom/core/build_info.h"
#include "loom/experiment/experiment.h"
#include "loom/report/summary.h"
#include "loom/topology/blueprint_catalog.h"

namespace loom::app {

int run_command(const RunArguments& args) {
  config::Document document = [&] {
    if (args.experiment_file) return config::Document::load_file(*args.experiment_file);
    fmt::print("loom: no experiment file given; running the built-in default experiment ({})\n",
               kDefaultExperimentName);
    return config::Document::parse(kDefaultExperiment, kDefaultExperimentName);
  }();
  for (const std::string& assignment : args.overrides) document.apply_override(assignment);
  if (args.seed) document.apply_override(fmt::format("seed={}", *args.seed));
  // A JSON string is a valid YAML scalar, so any path survives the round trip.
  if (args.out_dir) document.apply_override("output.dir=" + nlohmann::json(*args.out_dir).dump());

  const experiment::Experiment loaded = experiment::load(document);
  const experiment::Outcome outcome = experiment::run(loaded);
  report::print_table(std::cout, outcome.entries, outcome.result);
  fmt::print("wrote {}\n", outcome.summary_path.string());
  return 0;
}

int version_command() {
  fmt::print("loom {} ({})\n", kVersion, kGitSha);
  return 0;
}

int list_command() {
  fmt::print("Topology blueprints (topology.blueprint):\n");
  for (const topology::BlueprintInfo& blueprint : topology::blueprint_catalog()) {
    fmt::print("\n  {} — {}\n", blueprint.name, blueprint.doc);
    for (const topology::ParameterInfo& p : blueprint.parameters) {
      fmt::print("    {:<22} {:<10} {:>9}  {}\n", p.name, p.unit, p.default_value, p.doc);
    }
  }
  fmt::print("\nWorkload types (workload.type): microbenchmark\n");
  fmt::print("Collective operations (op): all-reduce, all-gather, reduce-scatter, all-to-all\n");
  fmt::print("Collective algorithms (collective.algorithm, algorithm): ring, direct\n");
  fmt::print("Network modes (network.mode): analytical, flow\n");
  return 0;
}

}  // namespace loom::app
