#include "collective_command.h"

#include <fmt/format.h>

#include "loom/collective/explain.h"
#include "loom/core/units.h"

namespace loom::app {

int collective_explain_command(const ExplainArguments& args) {
  collective::TunerQuery query;
  query.op = collective::parse_collective_op(args.op);
  query.size = parse_size(args.size);
  query.members = args.ranks;
  query.hosts = args.hosts;
  query.gpu = &collective::gpu_model(args.gpu);
  query.all_algorithms = args.all_algorithms;
  fmt::print("{}", collective::explain(query, args.top));
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
}

bool CollectiveCommand::parsed() const { return collective_->parsed(); }

int CollectiveCommand::run() const {
  if (explain_->parsed()) return collective_explain_command(explain_args_);
  return 2;
}

}  // namespace loom::app
