// `loom`: the command-line front end. Parses arguments, dispatches to a subcommand, and turns
// errors into one line on stderr: exit code 2 for the user's mistakes (bad arguments, bad input
// files), 3 for an internal error (a Loom bug).
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "collective_command.h"
#include "commands.h"
#include "hpcc_command.h"
#include "topo_command.h"
#include "workload_command.h"
#include "loom/core/error.h"

namespace {

constexpr const char* kExamples = R"(Examples:
  loom run                                   run the built-in default experiment
  loom run examples/default.yaml --out results/mine
  loom run exp.yaml --set network.mode=analytical --set topology.hosts=16 --seed 7
  loom list                                  blueprints, parameters, defaults and model names
  loom run examples/cluster_jobs.yaml        a cluster experiment: jobs, scheduler, failures
  loom collective explain --op all-reduce --size 64MiB --ranks 8 --gpu h100
  loom topo generate clos --hosts 4096 --gpus-per-host 8 --tiers 3 --nic-bandwidth 400Gbps -o clos.yaml
  loom topo show clos.yaml
  loom workload generate --model gpt-175b --tp 8 --pp 8 --dp 16 -o gpt175b
  loom hpcc mix/config.txt                   run an HPCC/ns-3 experiment as it is (fct.txt, pfc.txt)
  loom version

Exit codes: 0 success, 2 bad arguments or input (one line on stderr), 3 internal error.)";

int report_error(const std::string& message, int code) {
  std::cerr << "loom: " << message << '\n';
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Loom: a simulator of AI-training clusters.", "loom"};
  app.footer(kExamples);
  app.require_subcommand(1);

  loom::app::RunArguments run_args;
  CLI::App* run = app.add_subcommand("run", "Run an experiment and write its results.");
  run->add_option("experiment", run_args.experiment_file,
                  "Experiment YAML file (default: the built-in default experiment)");
  run->add_option("--out", run_args.out_dir, "Output directory (overrides output.dir)");
  run->add_option("--set", run_args.overrides, "Override a key: --set a.b.c=value (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--seed", run_args.seed, "Experiment seed (overrides seed)");
  CLI::App* list = app.add_subcommand("list", "List blueprints, their parameters and defaults, and model names.");
  CLI::App* version = app.add_subcommand("version", "Print Loom's version and git revision.");
  const loom::app::CollectiveCommand collective(app);
  loom::app::TopoArguments topo_args;
  CLI::App* topo = loom::app::add_topo_command(app, topo_args);
  const auto workload = loom::app::add_workload_command(app);
  loom::app::HpccArguments hpcc_args;
  CLI::App* hpcc = loom::app::add_hpcc_command(app, hpcc_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return report_error(fmt::format("{} (see 'loom --help')", e.what()), 2);
  }

  try {
    if (run->parsed()) return loom::app::run_command(run_args);
    if (list->parsed()) return loom::app::list_command();
    if (version->parsed()) return loom::app::version_command();
    if (collective.parsed()) return collective.run();
    if (topo->parsed()) return loom::app::topo_command(topo_args);
    if (workload->parsed()) return workload->run();
    if (hpcc->parsed()) return loom::app::hpcc_command(hpcc_args, std::cout);
  } catch (const loom::UserError& e) {
    return report_error(e.what(), 2);
  } catch (const loom::InternalError& e) {
    return report_error(e.what(), 3);
  } catch (const std::exception& e) {
    return report_error(fmt::format("internal error (a Loom bug): {}", e.what()), 3);
  }
  return 0;
}
