// `loom`: the command-line front end. Parses arguments, dispatches to a subcommand, and turns
// errors into one line on stderr: exit code 2 for the user's mistakes (bad arguments, bad input
// files, an input too large for the machine's memory), 3 for an internal error (a Loom bug).
#include <algorithm>
#include <exception>
#include <iostream>
#include <new>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "collective_command.h"
#include "commands.h"
#include "hpcc_command.h"
#include "sweep_command.h"
#include "report_command.h"
#include "topo_command.h"
#include "workload_command.h"
#include "loom/config/closest_match.h"
#include "loom/core/error.h"

namespace {

constexpr const char* kExamples = R"(Examples:
  loom run                                   run the built-in default experiment
  loom run examples/default.yaml --out results/mine
  loom run exp.yaml --set network.mode=analytical --set topology.hosts=16 --seed 7
  loom list                                  blueprints, parameters, defaults and model names
  loom run examples/cluster_jobs.yaml        a cluster experiment: jobs, scheduler, failures
  loom sweep exp.yaml --vary topology.hosts=2,4 --vary network.mode=analytical,flow -j 2 --out results/sweep
  loom collective explain --op all-reduce --size 64MiB --ranks 8 --gpu h100
  loom topo generate clos --hosts 4096 --gpus-per-host 8 --tiers 3 --nic-bandwidth 400Gbps -o clos.yaml
  loom topo show clos.yaml
  loom workload generate --model gpt-13b --tp 2 --pp 2 --dp 4 -o gpt13b
  loom hpcc mix/config.txt                   run an HPCC/ns-3 experiment as it is (fct.txt, pfc.txt)
  loom report results/mine                   an HTML report (charts) of a results or sweep folder
  loom version

Progress: a run longer than 2 s shows a progress line on stderr (live on a terminal, one final line
otherwise, and a line every S seconds with --progress-every S; --quiet silences it). Ctrl-C stops a run: the results so far are written, summary.json says
"complete": false, and the exit code is 130; a second Ctrl-C (a second or two later) kills at once. A run whose simulated clock
stands still for system.watchdog (300 s) of wall time stops the same way, with exit code 2.

Exit codes: 0 success, 1 a plan check found a violation, 2 bad arguments or input, or out of memory
(one line on stderr), 3 internal error, 130 a run stopped by Ctrl-C.)";

int report_error(const std::string& message, int code) {
  std::cerr << "loom: " << message << '\n';
  return code;
}

// CLI11 says "The following argument was not expected: rn" of a misspelled command (or
// subcommand); name it and suggest the closest. Empty when the leading words name commands.
std::string unknown_command(CLI::App& app, int argc, char** argv) {
  const CLI::App* current = &app;
  std::string path;
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    const std::vector<const CLI::App*> commands = current->get_subcommands([](const CLI::App*) { return true; });
    if (commands.empty()) return {};
    const auto named = std::find_if(commands.begin(), commands.end(),
                                    [&](const CLI::App* c) { return c->get_name() == argv[i]; });
    if (named == commands.end()) {
      std::vector<std::string_view> names;
      for (const CLI::App* c : commands) names.push_back(c->get_name());
      std::string message = fmt::format("unknown command '{}{}'", path, argv[i]);
      if (const auto close = loom::config::closest_match(argv[i], names)) {
        message += fmt::format("; did you mean '{}{}'?", path, *close);
      }
      return message + " (see 'loom " + path + "--help')";
    }
    current = *named;
    path += current->get_name() + " ";
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Loom: a simulator of AI-training clusters.", "loom"};
  app.footer(kExamples);
  app.require_subcommand(1);
  app.set_version_flag("--version", loom::app::version_text(), "Print Loom's version and git revision");

  loom::app::RunArguments run_args;
  CLI::App* run = app.add_subcommand("run", "Run an experiment and write its results.");
  run->add_option("experiment", run_args.experiment_file,
                  "Experiment YAML file (default: the built-in default experiment)");
  run->add_option("--out", run_args.out_dir, "Output directory (overrides output.dir)");
  run->add_option("--set", run_args.overrides, "Override a key: --set a.b.c=value (repeatable)")
      ->allow_extra_args(false);
  // Without the check CLI11 reads -1 as 2^64 - 1.
  const CLI::Validator non_negative(
      [](const std::string& text) {
        return text.starts_with('-') ? fmt::format("expected a non-negative integer, got '{}'", text) : std::string();
      },
      "NON-NEGATIVE");
  run->add_option("--seed", run_args.seed, "Experiment seed (overrides seed)")->check(non_negative);
  run->add_option("--max-memory", run_args.max_memory,
                  "Memory budget (e.g. 8GiB): larger inputs are refused before they are built (default: 80% of RAM)");
  run->add_option("--memo", run_args.memo,
                  "Directory of packet fast-forward's memoized transients, read before and merged into after the run");
  run->add_flag("-q,--quiet", run_args.quiet, "No progress line on stderr");
  run->add_flag("--progress", run_args.progress, "Show progress from the start (default: runs longer than 2 s)");
  run->add_option("--progress-every", run_args.progress_every,
                  "Off a terminal (a pipe, a log file), also write a progress line every this many seconds "
                  "(default: only the final line)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            double seconds = 0;
            if (!CLI::detail::lexical_cast(text, seconds) || !(seconds >= 0.1 && seconds <= 86400)) {
              return "expected seconds from 0.1 to 86400 (a day), not " + text;
            }
            return {};
          },
          "SECONDS"));
  CLI::App* list = app.add_subcommand("list", "List blueprints, their parameters and defaults, and model names.");
  CLI::App* version = app.add_subcommand("version", "Print Loom's version and git revision.");
  const loom::app::CollectiveCommand collective(app);
  loom::app::TopoArguments topo_args;
  CLI::App* topo = loom::app::add_topo_command(app, topo_args);
  const auto workload = loom::app::add_workload_command(app);
  loom::app::HpccArguments hpcc_args;
  CLI::App* hpcc = loom::app::add_hpcc_command(app, hpcc_args);
  loom::app::SweepArguments sweep_args;
  CLI::App* sweep = loom::app::add_sweep_command(app, sweep_args);
  loom::app::ReportArguments report_args;
  CLI::App* report = loom::app::add_report_command(app, report_args);

  if (const std::string unknown = unknown_command(app, argc, argv); !unknown.empty()) return report_error(unknown, 2);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
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
    if (sweep->parsed()) return loom::app::sweep_command(sweep_args);
    if (report->parsed()) return loom::app::report_command(report_args);
  } catch (const loom::UserError& e) {
    return report_error(e.what(), 2);
  } catch (const std::bad_alloc&) {
    return report_error("out of memory: the input asks for more than this machine can hold; make it smaller "
                        "(hosts, ranks, repeat, iterations, global_batch, ...)", 2);
  } catch (const loom::InternalError& e) {
    return report_error(e.what(), 3);
  } catch (const std::exception& e) {
    return report_error(fmt::format("internal error (a Loom bug): {}", e.what()), 3);
  }
  return 0;
}
