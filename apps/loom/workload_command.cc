#include "workload_command.h"

#include <fstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/core/memory_budget.h"
#include "loom/core/units.h"
#include "loom/workload/chakra/chakra_writer.h"
#include "loom/workload/compute/compute_model.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/json_export.h"
#include "loom/workload/scaling.h"
#include "loom/workload/synthesis/memory_model.h"
#include "loom/workload/synthesis/training_step.h"
#include "loom/workload/workload_files.h"
#include "loom/workload/workload_summary.h"

namespace loom::app {
namespace {

using workload::Workload;

void write_output(const Workload& w, const std::string& output, const std::string& format) {
  if (format == "chakra") {
    const auto files = workload::chakra::write_chakra(w, output);
    fmt::print("wrote {} Chakra trace files {}.0.et .. {}.{}.et\n", files.size(), output, output, files.size() - 1);
  } else if (format == "json") {
    std::ofstream out(output);
    if (!out) throw UserError(fmt::format("{}: cannot write the JSON file", output));
    workload::write_json(w, out);
    fmt::print("wrote {}\n", output);
  } else {
    throw UserError(fmt::format("unknown output format '{}', expected chakra or json", format));
  }
}

std::string flops_text(double flops) {
  if (flops >= 1e15) return fmt::format("{:.2f} PFLOP", flops / 1e15);
  if (flops >= 1e12) return fmt::format("{:.2f} TFLOP", flops / 1e12);
  return fmt::format("{:.3g} FLOP", flops);
}

void print_rank(std::uint32_t rank, const workload::RankSummary& r) {
  std::string traffic;
  for (std::size_t k = 0; k < workload::kTrafficKinds; ++k) {
    if (r.bytes[k] == 0) continue;
    const std::string_view kind = k + 1 == workload::kTrafficKinds
                                      ? std::string_view("p2p")
                                      : workload::to_string(static_cast<workload::CommunicatorKind>(k));
    traffic += fmt::format(" {}={}", kind, format_size(r.bytes[k]));
  }
  fmt::print("  rank {:>5}: {} compute, {} collective, {} send, {} recv; {}, compute {}{}\n", rank, r.nodes[0],
             r.nodes[1], r.nodes[2], r.nodes[3], flops_text(static_cast<double>(r.flops)), r.compute_time, traffic);
}

// What `show` prints of a workload of which `built` ranks' nodes are in `w` (ranks
// 0 .. per_rank_rows - 1 among them), with the whole workload's `counts`.
void show(const Workload& w, const workload::WorkloadCounts& counts, std::span<const std::uint32_t> built,
          std::uint32_t per_rank_rows) {
  const workload::WorkloadSummary s = workload::summarize(w);
  fmt::print("{} ranks, {} nodes, {} dependencies, {} communicators, {} collective operations, {:.1f} bytes per node "
             "in memory\n",
             w.rank_count(), counts.nodes, counts.dependencies, w.communicator_count(), counts.collectives,
             counts.nodes == 0 ? 0.0 : static_cast<double>(w.memory_bytes_holding(counts)) / counts.nodes);
  for (std::uint32_t r = 0; r < w.rank_count() && r < per_rank_rows; ++r) print_rank(r, s.ranks[r]);
  if (w.rank_count() > per_rank_rows) fmt::print("  ... {} more ranks\n", w.rank_count() - per_rank_rows);
  fmt::print("critical path at infinite bandwidth: {}\n", workload::critical_path_length(w, built));
}

workload::LoadedWorkload load(const std::string& file, const std::string& format, std::optional<std::uint32_t> ranks,
                              std::optional<std::uint32_t> sample = std::nullopt) {
  workload::LoadOptions options;
  options.format = workload::parse_file_format(format);
  options.simai_ranks = ranks;
  options.sample = sample;
  workload::LoadedWorkload loaded = workload::load_workload(file, options);
  for (const workload::ImportWarning& warning : loaded.warnings) {
    fmt::print(stderr, "warning: {}\n", workload::to_string(warning));
  }
  return loaded;
}

workload::synthesis::ParallelPlan plan_of(const WorkloadGenerateArguments& a) {
  namespace syn = workload::synthesis;
  syn::ParallelPlan plan;
  plan.tp = a.tp;
  plan.pp = a.pp;
  plan.dp = a.dp;
  plan.cp = a.cp;
  plan.ep = a.ep;
  plan.sequence_parallel = a.sequence_parallel;
  plan.schedule = syn::parse_pipeline_schedule(a.schedule);
  plan.virtual_stages = a.virtual_stages;
  plan.first_stage_layers = a.first_stage_layers;
  plan.last_stage_layers = a.last_stage_layers;
  plan.micro_batch = a.micro_batch;
  plan.global_batch = a.global_batch.value_or(a.micro_batch * a.dp * a.pp);
  plan.recompute = syn::parse_recompute(a.recompute);
  plan.dtype = workload::parse_data_type(a.dtype);
  plan.grad_dtype = workload::parse_data_type(a.grad_dtype);
  plan.distributed_optimizer = a.distributed_optimizer;
  plan.sharding = syn::parse_sharding(a.sharding);
  plan.prefetch = !a.no_prefetch;
  plan.overlap_grad_reduce = !a.no_overlap;
  plan.dp_bucket_bytes = parse_size(a.bucket);
  plan.iterations = a.iterations;
  return plan;
}

// Compute durations and --scale, then the one-line description of the plan.
void time_and_describe(Workload& w, const WorkloadGenerateArguments& a, const workload::synthesis::ParallelPlan& plan,
                       std::uint64_t nodes) {
  workload::compute::Params params;
  params.gpu = workload::compute::find_gpu(a.gpu);
  params.dtype = plan.dtype;
  workload::compute::assign_durations(w, params);
  if (a.scale != 1.0) workload::scale_workload(w, a.scale);
  fmt::print("{}: tp {} cp {} pp {} dp {}, {} micro-batches of {}, {} schedule, {} ranks, {} nodes\n", a.model,
             plan.tp, plan.cp, plan.pp, plan.dp, plan.micro_batches(), plan.micro_batch,
             workload::synthesis::to_string(plan.schedule), plan.ranks(), nodes);
}

void print_memory(const WorkloadGenerateArguments& a, const workload::synthesis::ParallelPlan& plan) {
  namespace syn = workload::synthesis;
  const syn::MemoryEstimate m = syn::peak_memory(syn::find_transformer(a.model), plan);
  auto gib = [](Bytes b) { return fmt::format("{:.2f} GiB", static_cast<double>(b) / (1ull << 30)); };
  fmt::print("memory per rank (stage {}, sharding {}): {} = weights {} + gradients {} + optimizer {} + activations {} "
             "({} per micro-batch x {} in flight, recompute {})\n",
             m.stage, syn::to_string(plan.effective_sharding()), gib(m.total()), gib(m.model_states.parameters),
             gib(m.model_states.gradients), gib(m.model_states.optimizer), gib(m.activations),
             gib(m.activations_per_micro_batch), m.chunks_in_flight, syn::to_string(plan.recompute));
  const workload::compute::GpuSpec& gpu = workload::compute::find_gpu(a.gpu);
  fmt::print("  {}\n", syn::hbm_fit(m, gpu.name, gpu.memory_capacity()));
}

}  // namespace

int workload_generate_command(const WorkloadGenerateArguments& a) {
  if (a.output.empty()) throw UserError("workload generate: give the output with -o PREFIX");
  const workload::synthesis::ParallelPlan plan = plan_of(a);
  Workload w = workload::synthesis::synthesize_training(workload::synthesis::find_transformer(a.model), plan);
  time_and_describe(w, a, plan, w.node_count());
  print_memory(a, plan);
  fmt::print("simulate with at least {} communication streams per rank\n", workload::synthesis::kCommStreams);
  write_output(w, a.output, a.format);
  return 0;
}

int workload_show_command(const WorkloadShowArguments& a) {
  if (a.file.empty()) {
    // Only the ranks shown and one rank per stage are built: the others run a built rank's
    // program (training_step.h), so the counts and the critical path need no more.
    const workload::synthesis::ParallelPlan plan = plan_of(a.plan);
    workload::synthesis::TrainingSample sample =
        workload::synthesis::sample_training(workload::synthesis::find_transformer(a.plan.model), plan, a.per_rank_rows);
    time_and_describe(sample.workload, a.plan, plan, sample.counts.nodes);
    show(sample.workload, sample.counts, sample.built_ranks, a.per_rank_rows);
    print_memory(a.plan, plan);
    return 0;
  }
  const workload::LoadedWorkload loaded = load(a.file, a.format, a.ranks, a.per_rank_rows);
  fmt::print("{} ({})\n", a.file, loaded.format);
  show(loaded.workload, loaded.counts, loaded.built_ranks, a.per_rank_rows);
  if (loaded.format == "chakra" && loaded.counts.nodes > 0) {
    fmt::print("read one rank file at a time: at most about {} held besides the workload ({:.1f} bytes per node)\n",
               readable_bytes(static_cast<double>(loaded.reader_peak_bytes)),
               static_cast<double>(loaded.reader_peak_bytes) / static_cast<double>(loaded.counts.nodes));
  }
  return 0;
}

int workload_convert_command(const WorkloadConvertArguments& a) {
  const workload::LoadedWorkload loaded = load(a.input, a.format, a.ranks);
  write_output(loaded.workload, a.output, a.to);
  return 0;
}

namespace {

// The model and parallel-plan options `generate` and `show` share.
void add_plan_options(CLI::App& app, WorkloadGenerateArguments& g) {
  app.add_option("--model", g.model, "Model preset (gpt-7b, gpt-13b, gpt-175b, llama-7b, llama-13b, llama-70b, "
                                     "llama-405b, mixtral-8x7b, deepseek-v3)")->capture_default_str();
  app.add_option("--tp", g.tp, "Tensor-parallel size")->capture_default_str();
  app.add_option("--pp", g.pp, "Pipeline stages")->capture_default_str();
  app.add_option("--dp", g.dp, "Data-parallel replicas")->capture_default_str();
  app.add_option("--cp", g.cp, "Context-parallel size (sequence split s/cp, ring attention)")->capture_default_str();
  app.add_option("--ep", g.ep, "Expert-parallel size (MoE models; divides cp * dp)")->capture_default_str();
  app.add_flag("--sp", g.sequence_parallel, "Sequence parallelism");
  app.add_option("--schedule", g.schedule, "Pipeline schedule: gpipe, 1f1b, interleaved")->capture_default_str();
  app.add_option("--vpp", g.virtual_stages, "Virtual stages per pipeline stage (interleaved)")->capture_default_str();
  app.add_option("--first-stage-layers", g.first_stage_layers, "Layers on the first pipeline stage (0: an even share)")
      ->capture_default_str();
  app.add_option("--last-stage-layers", g.last_stage_layers, "Layers on the last pipeline stage (0: an even share)")
      ->capture_default_str();
  app.add_option("--micro-batch", g.micro_batch, "Sequences per micro-batch")->capture_default_str();
  app.add_option("--global-batch", g.global_batch, "Sequences per iteration (default micro-batch * dp * pp)");
  app.add_option("--recompute", g.recompute, "Activation recomputation: none, selective, full")->capture_default_str();
  app.add_option("--dtype", g.dtype, "Activation and weight type: fp32, bf16, fp16, fp8")->capture_default_str();
  app.add_option("--grad-dtype", g.grad_dtype, "Gradient reduction type")->capture_default_str();
  app.add_flag("--distributed-optimizer", g.distributed_optimizer, "Reduce-scatter gradients, all-gather parameters");
  app.add_option("--sharding", g.sharding,
                 "Data-parallel sharding: none, optimizer (ZeRO-1), gradients (ZeRO-2), full (ZeRO-3/FSDP)")
      ->capture_default_str();
  app.add_flag("--no-prefetch", g.no_prefetch, "Full sharding: gather each layer right before use, not one ahead");
  app.add_flag("--no-overlap", g.no_overlap, "Reduce gradients after the whole backward pass");
  app.add_option("--bucket", g.bucket, "Gradient bucket size, e.g. 40MiB")->capture_default_str();
  app.add_option("--iterations", g.iterations, "Training iterations")->capture_default_str();
  app.add_option("--gpu", g.gpu, "GPU for compute durations: A100, H100, H200, B200, MI300X")->capture_default_str();
  app.add_option("--scale", g.scale, "Scale FLOPs, bytes and durations by this factor in (0, 1]")->capture_default_str();
}

}  // namespace

bool WorkloadCommand::parsed() const { return workload_->parsed(); }

int WorkloadCommand::run() const {
  if (generate_->parsed()) return workload_generate_command(generate_args_);
  if (show_->parsed()) return workload_show_command(show_args_);
  return workload_convert_command(convert_args_);
}

std::unique_ptr<WorkloadCommand> add_workload_command(CLI::App& app) {
  auto cmd = std::make_unique<WorkloadCommand>();
  cmd->workload_ = app.add_subcommand("workload", "Generate, inspect and convert training workloads.");
  cmd->workload_->require_subcommand(1);

  WorkloadGenerateArguments& g = cmd->generate_args_;
  CLI::App* gen = cmd->workload_->add_subcommand("generate", "Synthesise training steps of a transformer (dense or MoE).");
  add_plan_options(*gen, g);
  gen->add_option("-o,--output", g.output, "Output prefix (chakra: PREFIX.<rank>.et) or file (json)")->required();
  gen->add_option("--format", g.format, "Output format: chakra or json")->capture_default_str();
  cmd->generate_ = gen;

  WorkloadShowArguments& s = cmd->show_args_;
  CLI::App* sh = cmd->workload_->add_subcommand("show", "Summarise a workload file (Chakra prefix or .et, SimAI .txt).");
  sh->add_option("file", s.file, "Workload file or Chakra prefix (none: synthesise from the plan options)");
  add_plan_options(*sh, s.plan);
  sh->add_option("--format", s.format, "auto, chakra or simai")->capture_default_str();
  sh->add_option("--ranks", s.ranks, "SimAI text: number of ranks (overrides all_gpus)");
  sh->add_option("--rows", s.per_rank_rows, "Ranks listed one per line")->capture_default_str();
  cmd->show_ = sh;

  WorkloadConvertArguments& c = cmd->convert_args_;
  CLI::App* cv = cmd->workload_->add_subcommand("convert", "Convert a workload file to Chakra traces or JSON.");
  cv->add_option("input", c.input, "Workload file or Chakra prefix")->required();
  cv->add_option("output,-o,--output", c.output, "Output prefix (chakra) or file (json)")->required();
  cv->add_option("--to", c.to, "chakra or json")->capture_default_str();
  cv->add_option("--format", c.format, "Input format: auto, chakra or simai")->capture_default_str();
  cv->add_option("--ranks", c.ranks, "SimAI text: number of ranks (overrides all_gpus)");
  cmd->convert_ = cv;
  return cmd;
}

}  // namespace loom::app
