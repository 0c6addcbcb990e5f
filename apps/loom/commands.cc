#include "commands.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cluster_command.h"
#include "default_experiment.h"
#include "interrupt.h"
#include "mpi_world.h"
#include "progress.h"
#include "loom/config/document.h"
#include "loom/core/build_info.h"
#include "loom/experiment/cluster_experiment.h"
#include "loom/experiment/experiment.h"
#include "loom/experiment/system_section.h"
#include "loom/network/packet/parallel/mpi_rank_exchange.h"
#include "loom/report/output_file.h"
#include "loom/report/summary.h"
#include "loom/collective/gpu_model.h"
#include "loom/collective/protocol.h"
#include "loom/topology/blueprint_catalog.h"
#include "loom/workload/compute/gpu_spec.h"
#include "loom/workload/synthesis/transformer_config.h"

namespace loom::app {

config::Document experiment_document(const RunArguments& args) {
  config::Document document = args.experiment_file
                                  ? config::Document::load_file(*args.experiment_file)
                                  : config::Document::parse(kDefaultExperiment, kDefaultExperimentName);
  for (const std::string& assignment : args.overrides) document.apply_override(assignment);
  if (args.seed) document.apply_override(fmt::format("seed={}", *args.seed));
  // A JSON string is a valid YAML scalar, so any path survives the round trip.
  if (args.out_dir) document.apply_override("output.dir=" + nlohmann::json(*args.out_dir).dump());
  return document;
}

namespace {

// --memo DIR: packet fast-forward reads its memoized transients from DIR and merges its own in.
void use_memo(experiment::Experiment& e, const std::string& dir) {
  network::packet::fastforward::FastForwardParams& ff = e.network.params.packet.fast_forward;
  if (e.network.params.mode != network::NetworkMode::kPacket || !ff.enabled || !ff.memo) {
    throw UserError("--memo: needs network.mode packet with network.packet.fast_forward.enabled and "
                    "network.packet.fast_forward.memo true (the memo holds packet fast-forward's transients)");
  }
  if (dir.empty()) throw UserError("--memo: expected a directory, got an empty path");
  ff.memo_dir = dir;
}

}  // namespace

MemoryBudget memory_budget(const RunArguments& args) {
  if (!args.max_memory) return MemoryBudget::of_machine();
  Bytes bytes = 0;
  try {
    bytes = parse_size(*args.max_memory);
  } catch (const UserError& e) {
    throw UserError("--max-memory: " + e.message());
  }
  if (bytes == 0) throw UserError("--max-memory: must be positive");
  return MemoryBudget(bytes, "--max-memory " + *args.max_memory);
}

namespace {

// Whether every rank goes on: the watcher is called at the same event on every rank (each runs
// the runtime alike), so a stop asked on any rank stops all of them there.
bool all_go_on(network::packet::parallel::RankExchange& ranks, bool go_on) {
  bool all = true;
  for (const std::string& answer : ranks.all_gather(std::string(1, go_on ? '1' : '0'))) all = all && answer == "1";
  return all;
}

// Under mpirun with several ranks: the packet simulation's LPs split over them
// (network/packet/parallel/README.md, "loom run over MPI ranks"). Every rank checks the same
// inputs here, so that a refusal is every rank's, before the run.
std::unique_ptr<network::packet::parallel::RankExchange> join_ranks(const MpiWorld& world, experiment::Experiment& e) {
  if (world.size() == 1) return nullptr;
  network::check_rank_run(e.network.params, e.topology, static_cast<std::uint32_t>(world.size()));
  report::check_output_dir(e.output.dir);
  std::unique_ptr<network::packet::parallel::RankExchange> ranks = network::packet::parallel::make_mpi_rank_exchange();
  // Every rank checks its watchdog at the same event; a stall seen by any rank stops them all there.
  e.runtime.stall_agreement = [exchange = ranks.get()](bool stalled_here) {
    return !all_go_on(*exchange, !stalled_here);
  };
  return ranks;
}

int run_experiment(const RunArguments& args, MpiWorld& world, bool& running) {
  const bool lead = world.rank() == 0;
  if (!args.experiment_file && lead) {
    fmt::print("loom: no experiment file given; running the built-in default experiment ({})\n",
               kDefaultExperimentName);
  }
  config::Document document = experiment_document(args);
  const MemoryBudget budget = memory_budget(args);
  if (experiment::is_cluster_experiment(document)) {
    if (world.size() > 1) {
      throw UserError(fmt::format("a cluster experiment over {} MPI ranks: cluster runs are not split over ranks; "
                                  "run it as one process", world.size()));
    }
    if (args.memo) throw UserError("--memo: cluster experiments do not run packet fast-forward's memo");
    return run_cluster_command(document, args.quiet, budget);
  }
  // From here on, a Ctrl-C (even while loading) stops the run at its first check.
  const InterruptGuard interrupt;
  experiment::Experiment loaded = experiment::load(document, budget);
  if (args.memo) use_memo(loaded, *args.memo);
  std::unique_ptr<network::packet::parallel::RankExchange> ranks = join_ranks(world, loaded);
  if (lead) {
    for (const std::string& warning : loaded.warnings) fmt::print(stderr, "loom: warning: {}\n", warning);
  }
  running = true;
  ProgressLine progress(stderr, isatty(fileno(stderr)) != 0,
                        args.progress ? std::chrono::seconds(0) : std::chrono::seconds(2),
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(args.progress_every)));
  const bool show_progress = !args.quiet && lead;
  const experiment::Outcome outcome = experiment::run(
      loaded,
      [&](const system::RunProgress& p) {
        if (show_progress) progress.update(p);
        const bool go_on = !InterruptGuard::requested();
        return ranks ? all_go_on(*ranks, go_on) : go_on;
      },
      lead ? experiment::RunMode::kWriteFiles : experiment::RunMode::kInMemory, ranks.get());
  ranks.reset();
  world.leave();
  const bool by_watchdog = !outcome.result.complete && outcome.result.stop_reason != "interrupted";
  const int exit_code = outcome.result.complete ? 0 : by_watchdog ? kStalledExitCode : kInterruptedExitCode;
  if (!lead) return exit_code;
  if (show_progress) progress.finish(outcome.result, loaded.workload.node_count());
  for (const std::string& warning : outcome.run_warnings) fmt::print(stderr, "loom: warning: {}\n", warning);
  report::print_table(std::cout, outcome.entries, outcome.result);
  fmt::print("wrote {}\n", outcome.summary_path.string());
  if (!outcome.result.complete) {
    fmt::print(stderr, "loom: {} at {} simulated: the results so far are in {}, and summary.json says \"complete\": false\n",
               by_watchdog ? outcome.result.stop_reason : "interrupted (Ctrl-C)", outcome.result.makespan,
               loaded.output.dir.string());
  }
  return exit_code;
}

}  // namespace

int run_command(const RunArguments& args) {
  // Under mpirun, a packet run split over the ranks (rank 0 writes and prints).
  MpiWorld world;
  return run_on_ranks(world, [&](bool& running) { return run_experiment(args, world, running); });
}

std::string version_text() { return fmt::format("loom {} ({})", kVersion, kGitSha); }

int version_command() {
  fmt::print("{}\n", version_text());
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
  fmt::print("\nWorkload types (workload.type): microbenchmark, training, dlrm, trace\n");
  std::vector<std::string_view> models, compute_gpus;
  for (const auto& model : workload::synthesis::transformer_presets()) models.push_back(model.name);
  for (const auto& gpu : workload::compute::gpu_catalog()) compute_gpus.push_back(gpu.name);
  fmt::print("Training models (workload.model): {}\n", fmt::join(models, ", "));
  fmt::print("DLRM models (workload.model): mlperf\n");
  fmt::print("GPU models for compute (workload.compute.gpu): {}\n", fmt::join(compute_gpus, ", "));
  std::vector<std::string_view> ops, algorithms, protocols, gpus;
  for (collective::CollectiveOp op : collective::all_collective_ops()) ops.push_back(collective::to_string(op));
  for (collective::Algorithm a : collective::all_algorithms()) algorithms.push_back(collective::to_string(a));
  for (collective::Protocol p : collective::all_protocols()) protocols.push_back(collective::to_string(p));
  for (const collective::GpuModel& g : collective::all_gpu_models()) gpus.push_back(g.name);
  fmt::print("Collective operations (op): {}\n", fmt::join(ops, ", "));
  fmt::print("Collective algorithms (collective.algorithm, algorithm): auto (the tuner), {}\n", fmt::join(algorithms, ", "));
  fmt::print("Collective protocols (collective.protocol): {}\n", fmt::join(protocols, ", "));
  fmt::print("GPU models for the tuner (collective.gpu): {}\n", fmt::join(gpus, ", "));
  fmt::print("Network modes (network.mode): analytical, flow, packet\n");
  for (const network::NetworkMode mode : {network::NetworkMode::kFlow, network::NetworkMode::kPacket}) {
    fmt::print("\nNetwork parameters of {} mode (network.{}.*):\n", network::to_string(mode), network::to_string(mode));
    for (const ParamEntry& p : experiment::network_parameter_catalog(mode)) {
      if (p.unit == "group" || p.unit == "list") {
        fmt::print("    {:<40} {:<9} {}\n", p.key, p.unit, p.doc);
      } else {
        fmt::print("    {:<40} {:<9} {:>9}  {}; {}\n", p.key, p.unit, p.value, p.range, p.doc);
      }
    }
  }
  fmt::print("    {:<40} {:<9} {:>9}  one of loom, simai; start from SimAI's SimAI.conf settings, then apply "
             "the keys above\n    {:<40} {:<9} {:>9}  with profile simai: read this SimAI.conf instead of "
             "SimAI's shipped one\n",
             "profile", "choice", "loom", "simai_conf", "file", "");
  fmt::print("\nSystem parameters (system.*):\n");
  for (const ParamEntry& p : experiment::system_parameter_catalog()) {
    fmt::print("    {:<40} {:<9} {:>9}  {}; {}\n", p.key, p.unit, p.value, p.range, p.doc);
  }
  list_cluster_models();
  return 0;
}

}  // namespace loom::app
