#include "loom/experiment/workload_sections.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "loom/config/param_reader.h"
#include "loom/core/error.h"
#include "loom/experiment/sections.h"
#include "loom/workload/compute/compute_model.h"
#include "loom/workload/synthesis/dlrm.h"
#include "loom/workload/synthesis/memory_model.h"
#include "loom/workload/synthesis/training_step.h"
#include "loom/workload/scaling.h"
#include "loom/workload/variation.h"
#include "loom/workload/workload_files.h"
#include "loom/workload/workload_validation.h"

namespace loom::experiment {

namespace {

namespace synthesis = workload::synthesis;
namespace compute = workload::compute;

std::uint32_t count(config::Reader& s, std::string_view key, std::uint32_t fallback) {
  const std::uint64_t value = s.optional<std::uint64_t>(key, fallback);
  if (value < 1 || value > 1'000'000) s.fail(key, fmt::format("must be between 1 and 1000000, got {}", value));
  return static_cast<std::uint32_t>(value);
}

double fraction(config::Reader& s, std::string_view key, double fallback) {
  const double value = s.optional<double>(key, fallback);
  if (!(value > 0 && value <= 1)) s.fail(key, fmt::format("must be in (0, 1], got {}", value));
  return value;
}

template <class Parse>
auto parsed(config::Reader& s, std::string_view key, Parse parse, std::string_view fallback) {
  const std::string text = s.optional<std::string>(key, std::string(fallback));
  try {
    return parse(text);
  } catch (const UserError& e) {
    s.fail(key, e.message());
  }
}

struct ComputeSection {
  compute::Params params;
  std::optional<compute::KernelTable> kernel_table;  // measured times by node label
  // Sets every compute node's duration (compute::assign_durations).
  void assign(workload::Workload& w) const { compute::assign_durations(w, params, kernel_table ? &*kernel_table : nullptr); }
};

ComputeSection read_compute(config::Reader s, const std::filesystem::path& base_dir) {
  ComputeSection section;
  compute::Params& p = section.params;
  p.gpu = parsed(s, "gpu", [](const std::string& name) { return compute::find_gpu(name); }, p.gpu.name);
  p.gemm_efficiency = fraction(s, "gemm_efficiency", p.gemm_efficiency);
  p.attention_efficiency = fraction(s, "attention_efficiency", p.attention_efficiency);
  p.elementwise_efficiency = fraction(s, "elementwise_efficiency", p.elementwise_efficiency);
  p.other_efficiency = fraction(s, "other_efficiency", p.other_efficiency);
  p.memory_efficiency = fraction(s, "memory_efficiency", p.memory_efficiency);
  p.kernel_overhead = s.optional<Time>("kernel_overhead", p.kernel_overhead);
  p.overwrite = s.optional<bool>("overwrite", p.overwrite);
  if (s.has("kernel_table")) {
    std::filesystem::path path = s.required<std::string>("kernel_table");
    if (path.is_relative()) path = base_dir / path;
    try {
      section.kernel_table = compute::KernelTable::read(path.string());
    } catch (const UserError& e) {
      if (e.where().known()) throw;
      s.fail("kernel_table", e.message());
    }
  }
  s.finish();
  return section;
}

// workload.model: a preset's name, or a map giving the shape (transformer_config.h), optionally
// starting from a preset (`base`).
synthesis::TransformerConfig read_model(config::Reader& s) {
  if (!s.has_map("model")) {
    return parsed(s, "model", [](const std::string& name) { return synthesis::find_transformer(name); }, "gpt-7b");
  }
  config::Reader m = s.child("model");
  synthesis::TransformerConfig model;
  if (m.has("base")) {
    model = parsed(m, "base", [](const std::string& name) { return synthesis::find_transformer(name); }, "");
  }
  model.name = m.optional<std::string>("name", model.name.empty() ? "custom" : model.name + "-custom");
  config::ParamReader reader(m);
  synthesis::visit_parameters(model, reader);
  m.finish();
  try {
    synthesis::validate(model);
  } catch (const UserError& e) {
    throw e.located(m.location());
  }
  return model;
}

std::uint32_t streams_used(const workload::Workload& w) {
  std::uint32_t streams = 1;
  for (workload::NodeId id = 0; id < w.node_count(); ++id) {
    const workload::Node& n = w.node(id);
    if (n.kind != workload::NodeKind::kCompute) streams = std::max<std::uint32_t>(streams, n.stream + 1u);
  }
  return streams;
}

LoadedWorkloadSection read_training(config::Reader& s, std::uint32_t gpu_count, const std::filesystem::path& base_dir,
                                    workload::NodeStorage storage,
                                    const MemoryBudget& budget) {
  const synthesis::TransformerConfig model = read_model(s);
  synthesis::ParallelPlan plan;
  plan.tp = count(s, "tp", plan.tp);
  plan.pp = count(s, "pp", plan.pp);
  plan.dp = count(s, "dp", plan.dp);
  plan.cp = count(s, "cp", plan.cp);
  plan.ep = count(s, "ep", plan.ep);
  plan.sequence_parallel = s.optional<bool>("sequence_parallel", plan.sequence_parallel);
  plan.schedule = parsed(s, "schedule", synthesis::parse_pipeline_schedule, synthesis::to_string(plan.schedule));
  plan.virtual_stages = count(s, "virtual_stages", plan.virtual_stages);
  for (auto [key, layers] : {std::pair{"first_stage_layers", &plan.first_stage_layers},
                             std::pair{"last_stage_layers", &plan.last_stage_layers}}) {
    const std::uint64_t value = s.optional<std::uint64_t>(key, 0);
    if (value > model.layers) s.fail(key, fmt::format("must be at most the model's {} layers, got {}", model.layers, value));
    *layers = static_cast<std::uint32_t>(value);
  }
  plan.micro_batch = count(s, "micro_batch", plan.micro_batch);
  plan.global_batch = count(s, "global_batch", plan.micro_batch * plan.dp * plan.pp);
  plan.recompute = parsed(s, "recompute", synthesis::parse_recompute, synthesis::to_string(plan.recompute));
  plan.dtype = parsed(s, "dtype", workload::parse_data_type, workload::to_string(plan.dtype));
  plan.grad_dtype = parsed(s, "grad_dtype", workload::parse_data_type, workload::to_string(plan.grad_dtype));
  plan.distributed_optimizer = s.optional<bool>("distributed_optimizer", plan.distributed_optimizer);
  plan.sharding = parsed(s, "sharding", synthesis::parse_sharding, synthesis::to_string(plan.sharding));
  plan.prefetch = s.optional<bool>("prefetch", plan.prefetch);
  plan.dp_bucket_bytes = s.optional<config::Size>("dp_bucket", plan.dp_bucket_bytes);
  plan.overlap_grad_reduce = s.optional<bool>("overlap_grad_reduce", plan.overlap_grad_reduce);
  plan.iterations = count(s, "iterations", plan.iterations);
  if (auto data = s.optional_child("data_loading")) {
    synthesis::DataLoading& d = plan.data_loading;
    d.bytes_per_rank = data->required<config::Size>("bytes_per_rank");
    d.bandwidth = data->required<Bandwidth>("bandwidth");
    if (d.bandwidth.is_zero()) data->fail("bandwidth", "must be positive");
    d.shared = data->optional<bool>("shared", d.shared);
    d.latency = data->optional<Time>("latency", d.latency);
    if (d.latency < Time::zero()) data->fail("latency", "must not be negative");
    data->finish();
  }
  if (plan.ranks() > gpu_count) {
    s.fail("", fmt::format("tp x cp x dp x pp = {} ranks, but the topology has only {} GPUs", plan.ranks(), gpu_count));
  }
  const ComputeSection compute = read_compute(s.child_or_empty("compute"), base_dir);
  s.finish();
  const workload::WorkloadCounts counts = [&] {
    try {
      return synthesis::count_training(model, plan);
    } catch (const UserError& e) {
      if (e.where().known()) throw;
      throw e.located(s.location());
    }
  }();
  check_fits(s, "", counts, budget, storage);
  try {
    LoadedWorkloadSection out;
    out.workload = synthesis::synthesize_training(model, plan, storage);
    compute.assign(out.workload);
    out.memory = synthesis::peak_memory(model, plan);
    const Bytes hbm = compute.params.gpu.memory_capacity();
    if (hbm > 0 && out.memory->total() > hbm) {
      out.warnings.push_back(fmt::format("workload: the estimated memory of a stage-{} rank, {:.1f} GiB, {}",
                                         out.memory->stage, static_cast<double>(out.memory->total()) / (1ull << 30),
                                         synthesis::hbm_fit(*out.memory, compute.params.gpu.name, hbm)));
    }
    return out;
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw e.located(s.location());
  }
}

workload::Workload read_dlrm(config::Reader& s, std::uint32_t gpu_count, const std::filesystem::path& base_dir,
                            const MemoryBudget& budget) {
  const synthesis::DlrmConfig model = synthesis::mlperf_dlrm();
  s.choice("model", {"mlperf"}, "mlperf");
  synthesis::DlrmPlan plan;
  plan.ranks = count(s, "ranks", gpu_count);
  if (plan.ranks > gpu_count) s.fail("ranks", fmt::format("{} ranks, but the topology has only {} GPUs", plan.ranks, gpu_count));
  plan.global_batch = count(s, "global_batch", plan.global_batch);
  plan.dtype = parsed(s, "dtype", workload::parse_data_type, workload::to_string(plan.dtype));
  plan.grad_dtype = parsed(s, "grad_dtype", workload::parse_data_type, workload::to_string(plan.grad_dtype));
  plan.iterations = count(s, "iterations", plan.iterations);
  const ComputeSection compute = read_compute(s.child_or_empty("compute"), base_dir);
  s.finish();
  try {
    synthesis::validate(model, plan);
    // Iterations add the same nodes each: two small builds give the count of any number.
    synthesis::DlrmPlan probe = plan;
    probe.iterations = 1;
    const workload::Workload one = synthesis::synthesize_dlrm(model, probe);
    probe.iterations = 2;
    const workload::Workload two = synthesis::synthesize_dlrm(model, probe);
    const std::uint64_t more = plan.iterations - 1;
    check_fits(s, "iterations",
               {one.node_count() + more * (two.node_count() - one.node_count()),
                one.dependency_count() + more * (two.dependency_count() - one.dependency_count()), plan.ranks},
               budget);
    workload::Workload w = synthesis::synthesize_dlrm(model, plan);
    compute.assign(w);
    return w;
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw e.located(s.location());
  }
}

LoadedWorkloadSection read_trace(config::Reader& s, std::uint32_t gpu_count, const std::filesystem::path& base_dir,
                                 workload::NodeStorage storage, const MemoryBudget& budget) {
  std::filesystem::path path = s.required<std::string>("file");
  if (path.is_relative()) path = base_dir / path;
  workload::LoadOptions options;
  options.storage = storage;
  options.format = parsed(s, "format", workload::parse_file_format, "auto");
  if (s.has("ranks")) options.simai_ranks = count(s, "ranks", 1);
  const double scale = s.optional<double>("scale", 1.0);
  if (!(scale > 0 && scale <= 1)) s.fail("scale", fmt::format("must be in (0, 1], got {}", scale));
  // Chakra traces default to eager sends (as ASTRA-sim runs them), SimAI files to rendezvous.
  std::optional<workload::PointToPoint> point_to_point;
  if (s.has("point_to_point")) point_to_point = parsed(s, "point_to_point", workload::parse_point_to_point, "");
  const ComputeSection compute = read_compute(s.child_or_empty("compute"), base_dir);
  s.finish();
  LoadedWorkloadSection out;
  try {
    // Counted before it is built: a SimAI file exactly, a Chakra trace by one pass over its files.
    const workload::FileCounts counted = workload::count_workload(path.string(), options);
    check_fits(s, "file", counted.counts, budget, counted.storage);
    workload::LoadedWorkload loaded = workload::load_workload(path.string(), options);
    compute.assign(loaded.workload);
    if (scale != 1.0) workload::scale_workload(loaded.workload, scale);
    if (point_to_point) loaded.workload.set_point_to_point(*point_to_point);
    for (const auto& w : loaded.warnings) out.warnings.push_back(workload::to_string(w));
    out.workload = std::move(loaded.workload);
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw e.located(s.location_of("file"));
  }
  if (out.workload.rank_count() > gpu_count) {
    s.fail("file", fmt::format("the trace has {} ranks, but the topology has only {} GPUs", out.workload.rank_count(),
                               gpu_count));
  }
  return out;
}

std::pair<double, double> factor_range(config::Reader& v, std::string_view key) {
  if (!v.has(key)) return {1.0, 1.0};
  const std::vector<double> range = v.list<double>(key);
  if (range.size() != 2 || !(range[0] > 0) || !(range[0] <= range[1])) {
    v.fail(key, "expected [min, max] factors with 0 < min <= max");
  }
  return {range[0], range[1]};
}

// variation.slow_nics: NICs slowed by a given factor, whatever the random draws, for the whole
// run or, with `from` and/or `until`, during [from, until).
std::vector<SlowNic> read_slow_nics(config::Reader& v, std::uint32_t gpu_count) {
  std::vector<SlowNic> slow;
  if (!v.has("slow_nics")) return slow;
  for (config::Reader n : v.list_of_maps("slow_nics")) {
    const std::uint64_t rank = n.required<std::uint64_t>("rank");
    if (rank >= gpu_count) n.fail("rank", fmt::format("rank {} is not a GPU of the topology (ranks 0..{})", rank, gpu_count - 1));
    const double factor = n.required<double>("factor");
    if (!(factor >= 1)) n.fail("factor", fmt::format("must be at least 1 (the NIC's bandwidth is divided by it), got {}", factor));
    SlowNic entry{{static_cast<std::uint32_t>(rank), factor}, std::nullopt, n.location()};
    if (n.has("from") || n.has("until")) {
      TimeWindow window;
      window.from = n.optional<Time>("from", Time::zero());
      window.until = n.optional<Time>("until", Time::max());
      if (!(window.until > window.from)) {
        n.fail("until", fmt::format("must be after from ({}), got {}", window.from, window.until));
      }
      entry.window = window;
    }
    n.finish();
    slow.push_back(entry);
  }
  return slow;
}

workload::VariationSpec read_variation(config::Reader v, std::uint64_t seed, std::uint32_t gpu_count,
                                       std::vector<SlowNic>& slow_nics) {
  slow_nics = read_slow_nics(v, gpu_count);
  workload::VariationSpec spec;
  spec.seed = seed;
  auto chance = [&](std::string_view key) {
    const double c = v.optional<double>(key, 0.0);
    if (!(c >= 0 && c <= 1)) v.fail(key, fmt::format("must be a probability in [0, 1], got {}", c));
    return c;
  };
  spec.compute_slowdown_chance = chance("compute_slowdown_chance");
  std::tie(spec.compute_slowdown_min, spec.compute_slowdown_max) = factor_range(v, "compute_slowdown");
  spec.nic_slowdown_chance = chance("nic_slowdown_chance");
  std::tie(spec.nic_slowdown_min, spec.nic_slowdown_max) = factor_range(v, "nic_slowdown");
  if (spec.nic_slowdown_min < 1) v.fail("nic_slowdown", workload::kNicSpeedUp);
  if (v.has("stragglers")) {
    for (config::Reader g : v.list_of_maps("stragglers")) {
      workload::Straggler st;
      const std::uint64_t rank = g.required<std::uint64_t>("rank");
      if (rank > 0xfffffffeu) g.fail("rank", fmt::format("rank {} is too large", rank));
      st.rank = static_cast<std::uint32_t>(rank);
      auto index = [&](std::string_view key) -> std::uint16_t {
        if (!g.has(key)) return workload::kNoIndex;
        const std::uint64_t value = g.required<std::uint64_t>(key);
        if (value >= workload::kNoIndex) g.fail(key, fmt::format("must be below {}, got {}", workload::kNoIndex, value));
        return static_cast<std::uint16_t>(value);
      };
      st.layer = index("layer");
      st.micro_batch = index("micro_batch");
      if (g.has("iteration")) {
        const std::uint64_t it = g.required<std::uint64_t>("iteration");
        if (it >= workload::kAnyIteration) g.fail("iteration", fmt::format("iteration {} is too large", it));
        st.iteration = static_cast<std::uint32_t>(it);
      }
      st.factor = g.required<double>("factor");
      if (!(st.factor > 0)) g.fail("factor", fmt::format("must be positive, got {}", st.factor));
      g.finish();
      spec.stragglers.push_back(st);
    }
  }
  v.finish();
  return spec;
}

}  // namespace

LoadedWorkloadSection read_workload_section(config::Reader s, std::uint32_t gpu_count,
                                            const std::filesystem::path& base_dir, std::uint64_t seed,
                                            const MemoryBudget& budget, workload::NodeStorage storage) {
  const std::string type = s.choice("type", {"microbenchmark", "training", "dlrm", "trace"}, "microbenchmark");
  std::optional<workload::VariationSpec> variation;
  std::optional<SourceLocation> variation_at;
  std::vector<SlowNic> slow_nics;
  if (auto v = s.optional_child("variation")) {
    variation_at = v->location();
    variation = read_variation(*v, seed, gpu_count, slow_nics);
  }
  LoadedWorkloadSection out;
  if (type == "microbenchmark") {
    out.workload = read_microbenchmark(s, gpu_count, budget);
  } else if (type == "training") {
    out = read_training(s, gpu_count, base_dir, storage, budget);
  } else if (type == "dlrm") {
    out.workload = read_dlrm(s, gpu_count, base_dir, budget);
  } else {
    out = read_trace(s, gpu_count, base_dir, storage, budget);
  }
  // Collective members agree, sends meet receives: reject a broken DAG before running it.
  try {
    workload::validate(out.workload);
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw e.located(s.location());
  }
  if (variation) {
    try {
      for (const workload::NicSlowdown& drawn : workload::apply_variation(out.workload, *variation).nic_slowdowns) {
        out.nic_slowdowns.push_back({drawn, std::nullopt, *variation_at});
      }
      out.nic_slowdowns.insert(out.nic_slowdowns.end(), slow_nics.begin(), slow_nics.end());
    } catch (const UserError& e) {
      if (e.where().known()) throw;
      throw e.located(*variation_at);
    }
  }
  out.comm_streams_needed = streams_used(out.workload);
  return out;
}

}  // namespace loom::experiment
