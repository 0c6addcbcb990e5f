#include "collective_command.h"

#include <fmt/format.h>

#include "collective_probe.h"
#include "loom/collective/explain.h"
#include "loom/collective/msccl/describe.h"
#include "loom/collective/msccl/plan_checker.h"
#include "loom/collective/msccl/plan_reader.h"
#include "loom/collective/msccl/program.h"
#include "loom/core/error.h"
#include "loom/core/units.h"
#include "loom/topology/topology_io.h"

namespace loom::app {

int collective_explain_command(const ExplainArguments& args) {
  collective::TunerQuery query;
  query.op = collective::parse_collective_op(args.op);
  query.size = parse_size(args.size);
  query.members = args.ranks;
  query.hosts = args.hosts;
  query.gpu = &collective::gpu_model(args.gpu);
  query.all_algorithms = args.all_algorithms;
  if (args.topology.empty()) {
    fmt::print("{}", collective::explain(query, args.top));
    return 0;
  }
  const topology::Topology topo = topology::load_topology(args.topology);
  ProbeRequest probe{&topo, parse_rank_list(args.rank_list, topo.gpu_count()), query.op, query.size,
                     network::parse_network_mode(args.mode)};
  query.members = static_cast<std::uint32_t>(probe.ranks.size());
  query.hosts = even_host_count(topo, probe.ranks);
  query.in_switch = nvls_possible(topo, probe.ranks);
  fmt::print("{}", collective::explain(query, args.top));
  fmt::print("simulated on {} ({} mode, {} ranks on {} hosts):\n", args.topology, args.mode, query.members,
             query.hosts);
  fmt::print("  {:<17} {:<9} {:>8} {:>7} {:>12} {:>11} {:>11} {:>12} {:>12} {:>7} {:>12}\n", "algorithm", "protocol",
             "channels", "chunks", "modelled", "base", "hops", "bytes", "simulated", "ratio", "busbw");
  // Same units as the tuner's table above.
  const auto us = [](double seconds) { return fmt::format("{:.1f} us", seconds * 1e6); };
  const double factor = collective::bus_bandwidth_factor(query.op, query.members);
  const auto candidates = collective::tuner_candidates(query);
  for (std::size_t i = 0; i < candidates.size() && i < args.top; ++i) {
    const collective::TunerChoice& c = candidates[i];
    const collective::TunerTerms terms = collective::tuner_terms(query, c);
    const Time simulated = simulate_choice(probe, c);
    const double busbw = simulated > Time::zero() ? query.size / simulated.seconds() * factor / 1e9 : 0.0;
    fmt::print("  {:<17} {:<9} {:>8} {:>7} {:>12} {:>11} {:>11} {:>12} {:>12} {:>7.2f} {:>7.1f} GB/s\n",
               collective::to_string(c.algorithm), collective::to_string(c.protocol), c.channels, c.chunks,
               us(c.seconds), us(terms.base), us(terms.latency), us(terms.bandwidth), us(simulated.seconds()),
               c.seconds > 0 ? simulated.seconds() / c.seconds : 0.0, busbw);
  }
  const collective::GpuModel& gpu = *query.gpu;
  fmt::print(
      "modelled = base + hops + bytes. base: NCCL's per-call latency, which the simulation does not add. hops: the\n"
      "protocol's per-hop latency, which the simulation adds to every transfer as well (plus the path's own\n"
      "latency). bytes: sizes over the GPU model's achievable rates ({}: NVLink {:.0f} GB/s, NIC {:.0f} GB/s per GPU,\n"
      "at most {:.0f} GB/s per channel); the simulation runs the topology's links at line rate, with no per-channel\n"
      "limit, and its algorithms share links where their schedules put several transfers at once (tree inner\n"
      "nodes: two children on one NIC); `ratio` = simulated / modelled.\n",
      gpu.name, gpu.nvlink_bytes_per_s / 1e9, gpu.nic_bytes_per_s / 1e9, gpu.channel_bytes_per_s / 1e9);
  return 0;
}

int collective_plan_command(const PlanArguments& args) {
  using namespace collective::msccl;
  const Bytes size = parse_size(args.size);
  Plan plan = read_plan_file(args.file);
  fmt::print("{}", describe(plan, size));
  if (args.check == 0) return 0;
  const auto program = std::make_shared<const Program>(std::move(plan));
  for (std::uint32_t seed = 1; seed <= args.check; ++seed) {
    const PlanCheckResult result = check_plan(program, size, seed);
    if (!result.checkable) {
      throw UserError(fmt::format("{}: cannot --check this plan: {}", args.file, result.description));
    }
    if (!result.ok) {
      fmt::print("check FAILED in completion order {}: {}\n", seed, result.description);
      return 1;
    }
  }
  fmt::print("check: the postcondition holds in {} random completion orders\n", args.check);
  return 0;
}

CollectiveCommand::CollectiveCommand(CLI::App& app) {
  collective_ = app.add_subcommand("collective", "Inspect the collective engine (algorithm choice, modelled time).");
  collective_->require_subcommand(1);
  explain_ = collective_->add_subcommand("explain", "Print the tuner's algorithm, protocol and channel choice.");
  explain_->add_option("--op", explain_args_.op, "Operation: all-reduce, all-gather, reduce-scatter, ...")
      ->capture_default_str();
  explain_->add_option("--size", explain_args_.size, "Per-rank buffer size, nccl-tests convention (e.g. 64MiB)")
      ->capture_default_str();
  explain_->add_option("--ranks", explain_args_.ranks, "Ranks in the communicator")->capture_default_str();
  explain_->add_option("--hosts", explain_args_.hosts, "Hosts the ranks are spread over evenly")
      ->capture_default_str();
  explain_->add_option("--gpu", explain_args_.gpu, "GPU generation: a100, h100, b200")->capture_default_str();
  explain_->add_option("--top", explain_args_.top, "Candidates to list")->capture_default_str();
  explain_->add_flag("--all-algorithms", explain_args_.all_algorithms,
                     "Also consider halving-doubling and hierarchical (not in NCCL)");
  auto* topology = explain_->add_option("--topology", explain_args_.topology,
                                        "Topology file: take ranks and hosts from it and simulate the candidates");
  explain_->add_option("--rank-list", explain_args_.rank_list, "With --topology: members, e.g. 0-7,16 (default all)")
      ->needs(topology);
  explain_->add_option("--mode", explain_args_.mode, "With --topology: analytical, flow or packet")
      ->needs(topology)
      ->capture_default_str();
  plan_ = add_plan(*collective_);
}

CLI::App* CollectiveCommand::add_plan(CLI::App& collective) {
  CLI::App* plan = collective.add_subcommand("plan", "Describe (and prove) an MSCCL++ JSON plan or MSCCL XML algorithm.");
  plan->add_option("file", plan_args_.file, "The plan file (.json or .xml)")->required();
  plan->add_option("--size", plan_args_.size, "Per-rank buffer size for byte counts")->capture_default_str();
  plan->add_option("--check", plan_args_.check, "Prove the postcondition over this many completion orders")
      ->capture_default_str();
  return plan;
}

bool CollectiveCommand::parsed() const { return collective_->parsed(); }

int CollectiveCommand::run() const {
  if (explain_->parsed()) return collective_explain_command(explain_args_);
  if (plan_->parsed()) return collective_plan_command(plan_args_);
  return 2;
}

}  // namespace loom::app
