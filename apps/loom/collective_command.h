// `loom collective explain`: what the collective tuner would pick, and why.
//
//   loom collective explain --op all-reduce --size 64MiB --ranks 8 --gpu h100
//   loom collective explain --op all-gather --size 1GiB --ranks 64 --hosts 8 --gpu a100 --top 5
//   loom collective explain --size 4KiB --ranks 64 --hosts 8 --all-algorithms
//   loom collective explain --size 1GiB --topology fabric.yaml --rank-list 0-7,64-71 --mode flow
//   loom collective plan allreduce.json --size 1MiB --check 20
//
// With --topology the members and hosts come from the topology and the rank list (default:
// every GPU), and the listed candidates are also simulated on that topology (collective_probe.h).
//
// Wiring (main.cc): construct a CollectiveCommand on the top-level CLI::App before parsing;
// after parsing, `if (command.parsed()) return command.run();`. run() prints to stdout and
// throws loom::UserError for bad values (main reports them with exit code 2).
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace loom::app {

struct ExplainArguments {
  std::string op = "all-reduce";
  std::string size = "64MiB";
  std::uint32_t ranks = 8;
  std::uint32_t hosts = 1;
  std::string gpu = "h100";
  std::uint32_t top = 8;
  bool all_algorithms = false;  // also halving-doubling and hierarchical, which NCCL lacks
  std::string topology;         // a topology file (any format load_topology reads); empty = none
  std::string rank_list;        // with topology: e.g. "0-7,16"; empty = every GPU
  std::string mode = "flow";    // with topology: the backend simulating the candidates
};

struct PlanArguments {
  std::string file;             // an MSCCL++ JSON plan or an MSCCL XML algorithm
  std::string size = "1MiB";    // per-rank buffer size for the byte counts
  std::uint32_t check = 0;      // random completion orders to prove the postcondition over
};

// Prints what the plan does (collective/msccl/describe.h) and, with check > 0, runs the
// symbolic checker over that many completion orders; returns 0, or 1 when a check fails.
int collective_plan_command(const PlanArguments& args);

// Prints the tuner's explanation for `args` (see collective/explain.h); returns exit code 0.
int collective_explain_command(const ExplainArguments& args);

class CollectiveCommand {
 public:
  // Adds `collective` with its `explain` subcommand to `app`.
  explicit CollectiveCommand(CLI::App& app);
  CollectiveCommand(const CollectiveCommand&) = delete;
  CollectiveCommand& operator=(const CollectiveCommand&) = delete;

  bool parsed() const;
  // Runs the subcommand that was parsed.
  int run() const;

 private:
  CLI::App* add_plan(CLI::App& collective);

  CLI::App* collective_ = nullptr;
  CLI::App* explain_ = nullptr;
  CLI::App* plan_ = nullptr;
  ExplainArguments explain_args_;
  PlanArguments plan_args_;
};

}  // namespace loom::app
