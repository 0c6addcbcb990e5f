#include "loom/workload/synthesis/parallel_plan.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload::synthesis {

std::string_view to_string(PipelineSchedule schedule) {
  switch (schedule) {
    case PipelineSchedule::kGpipe: return "gpipe";
    case PipelineSchedule::kOneFOneB: return "1f1b";
    case PipelineSchedule::kInterleaved: return "interleaved";
  }
  return "?";
}

std::string_view to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "?";
}

PipelineSchedule parse_pipeline_schedule(std::string_view text) {
  for (auto s : {PipelineSchedule::kGpipe, PipelineSchedule::kOneFOneB, PipelineSchedule::kInterleaved}) {
    if (to_string(s) == text) return s;
  }
  throw UserError(fmt::format("unknown pipeline schedule '{}', expected gpipe, 1f1b or interleaved", text));
}

Recompute parse_recompute(std::string_view text) {
  for (auto r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (to_string(r) == text) return r;
  }
  throw UserError(fmt::format("unknown recompute '{}', expected none, selective or full", text));
}

std::string_view to_string(Sharding sharding) {
  switch (sharding) {
    case Sharding::kNone: return "none";
    case Sharding::kOptimizer: return "optimizer";
    case Sharding::kGradients: return "gradients";
    case Sharding::kFull: return "full";
  }
  return "?";
}

Sharding parse_sharding(std::string_view text) {
  for (auto s : {Sharding::kNone, Sharding::kOptimizer, Sharding::kGradients, Sharding::kFull}) {
    if (to_string(s) == text) return s;
  }
  throw UserError(fmt::format("unknown sharding '{}', expected none, optimizer, gradients or full", text));
}

namespace {

bool uneven(const ParallelPlan& p) { return p.first_stage_layers > 0 || p.last_stage_layers > 0; }

// Stages that take the even share of the layers left by the uneven first and last ones.
std::uint32_t even_stages(const ParallelPlan& p) {
  return p.pp - (p.first_stage_layers > 0 ? 1 : 0) - (p.last_stage_layers > 0 ? 1 : 0);
}

void validate_stage_layers(const ParallelPlan& p, const TransformerConfig& m) {
  if (!uneven(p)) {
    if (m.layers % (std::uint64_t{p.pp} * p.virtual_stages) != 0) {
      throw UserError(fmt::format(
          "parallel plan for '{}': layers {} is not divisible by pp * virtual_stages {}{}", m.name, m.layers,
          std::uint64_t{p.pp} * p.virtual_stages,
          p.virtual_stages == 1 && p.pp > 1 ? "; first_stage_layers and last_stage_layers give uneven stages" : ""));
    }
    return;
  }
  if (p.pp < 2) throw UserError("parallel plan: first_stage_layers and last_stage_layers need pp of 2 or more");
  const std::uint64_t given = std::uint64_t{p.first_stage_layers} + p.last_stage_layers;
  const std::uint32_t rest_stages = even_stages(p);
  if (given > m.layers || (rest_stages > 0 && given == m.layers) || (rest_stages == 0 && given != m.layers)) {
    throw UserError(fmt::format("parallel plan for '{}': first_stage_layers {} and last_stage_layers {} leave {} "
                                "of the {} layers for the {} other stage(s); expected at least one layer each",
                                m.name, p.first_stage_layers, p.last_stage_layers,
                                given > m.layers ? 0 : m.layers - given, m.layers, rest_stages));
  }
  if (rest_stages > 0 && (m.layers - given) % rest_stages != 0) {
    throw UserError(fmt::format("parallel plan for '{}': the {} layers left by first_stage_layers {} and "
                                "last_stage_layers {} are not divisible by the {} other stages",
                                m.name, m.layers - given, p.first_stage_layers, p.last_stage_layers, rest_stages));
  }
  const std::uint32_t v = p.virtual_stages;
  if (v == 1) return;
  const std::uint32_t even = rest_stages == 0 ? 0 : (m.layers - given) / rest_stages;
  if (even % v != 0) {
    throw UserError(fmt::format("parallel plan for '{}': the {} layers of each middle stage are not divisible by "
                                "virtual_stages {} (only the first and last stage may split unevenly)",
                                m.name, even, v));
  }
  for (auto [key, layers] : {std::pair{"first_stage_layers", p.first_stage_layers},
                             std::pair{"last_stage_layers", p.last_stage_layers}}) {
    if (layers > 0 && layers < v) {
      throw UserError(fmt::format("parallel plan: {} {} leaves a model chunk without layers; expected at least "
                                  "virtual_stages {}", key, layers, v));
    }
  }
}

// Layers of model chunk `chunk` on `stage`. A stage's layers split evenly over its chunks; where
// the first (last) stage's count does not divide, its earlier (later) chunks take one layer fewer,
// so the chunk holding the embedding (the output layer) is the lighter one.
std::uint32_t chunk_layers(const ParallelPlan& p, std::uint32_t layers, std::uint32_t stage, std::uint32_t chunk) {
  const std::uint32_t v = p.virtual_stages;
  const std::uint32_t rest = even_stages(p);
  const std::uint32_t even = rest == 0 ? 0 : (layers - p.first_stage_layers - p.last_stage_layers) / rest;
  std::uint32_t total = even;
  if (stage == 0 && p.first_stage_layers > 0) total = p.first_stage_layers;
  if (stage + 1 == p.pp && p.last_stage_layers > 0) total = p.last_stage_layers;
  const std::uint32_t base = total / v;
  const std::uint32_t extra = total % v;  // chunks that take base + 1
  if (stage == 0) return chunk >= v - extra ? base + 1 : base;
  return chunk < extra ? base + 1 : base;
}

}  // namespace

LayerRange layers_of_vstage(const ParallelPlan& p, std::uint32_t layers, std::uint32_t vs) {
  if (!uneven(p)) {
    const std::uint32_t per_chunk = layers / (p.pp * p.virtual_stages);
    return {vs * per_chunk, per_chunk};
  }
  // Layers run in virtual-stage order (vs = chunk · pp + stage): sum those before `vs`.
  std::uint32_t first = 0;
  for (std::uint32_t before = 0; before < vs; ++before) {
    first += chunk_layers(p, layers, before % p.pp, before / p.pp);
  }
  return {first, chunk_layers(p, layers, vs % p.pp, vs / p.pp)};
}

void validate(const ParallelPlan& p, const TransformerConfig& m) {
  validate(m);
  const std::pair<const char*, std::uint64_t> sizes[] = {
      {"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"cp", p.cp}, {"ep", p.ep}, {"virtual_stages", p.virtual_stages},
      {"micro_batch", p.micro_batch}, {"global_batch", p.global_batch}, {"iterations", p.iterations},
      {"dp_bucket_bytes", p.dp_bucket_bytes}};
  for (const auto& [name, value] : sizes) {
    if (value == 0) throw UserError(fmt::format("parallel plan: {} must be positive", name));
  }
  auto divides = [&](std::uint64_t value, std::uint64_t by, const char* what, const char* by_name) {
    if (value % by != 0) {
      throw UserError(fmt::format("parallel plan for '{}': {} {} is not divisible by {} {}", m.name, what, value,
                                  by_name, by));
    }
  };
  divides(m.heads, p.tp, "heads", "tp");
  divides(m.kv_heads, p.tp, "kv_heads", "tp");
  divides(m.ffn_hidden, p.tp, "ffn_hidden", "tp");
  validate_stage_layers(p, m);
  divides(p.global_batch, static_cast<std::uint64_t>(p.micro_batch) * p.dp, "global_batch", "micro_batch * dp");
  divides(m.sequence, p.cp, "sequence", "cp");
  const bool cp = p.cp > 1;
  if (p.sequence_parallel) {
    divides(m.sequence / p.cp, p.tp, cp ? "sequence / cp" : "sequence", "tp (sequence parallelism)");
  }
  divides(p.replicas(), p.ep, cp ? "cp * dp" : "dp", "ep");
  if (m.experts > 0) divides(m.experts, p.ep, "experts", "ep");
  if (m.experts == 0 && p.ep > 1) {
    throw UserError(fmt::format("parallel plan: ep {} needs a mixture-of-experts model, '{}' is dense", p.ep, m.name));
  }
  if (m.experts > 0 && p.tp > 1 && !p.sequence_parallel) {
    throw UserError(fmt::format("parallel plan for '{}': a mixture of experts with tp > 1 needs sequence_parallel "
                                "(each TP rank routes its share of the tokens)",
                                m.name));
  }
  if (m.experts > 0 && p.sharding == Sharding::kFull) {
    throw UserError(fmt::format("parallel plan for '{}': sharding full (ZeRO-3/FSDP) supports dense models only, "
                                "use sharding optimizer for a mixture of experts",
                                m.name));
  }
  if (p.virtual_stages > 1 && p.schedule != PipelineSchedule::kInterleaved) {
    throw UserError("parallel plan: virtual_stages > 1 needs the interleaved schedule");
  }
  if (p.schedule == PipelineSchedule::kInterleaved) divides(p.micro_batches(), p.pp, "micro-batches", "pp (interleaved)");
  if (p.micro_batches() > 0xfffe) {
    throw UserError(fmt::format("parallel plan: {} micro-batches, at most 65534 are supported", p.micro_batches()));
  }
  if (p.data_loading.bytes_per_rank > 0 && p.data_loading.bandwidth.is_zero()) {
    throw UserError("parallel plan: data loading of bytes_per_rank > 0 needs a storage bandwidth");
  }
  if (p.data_loading.latency < Time::zero()) throw UserError("parallel plan: data loading latency must be >= 0");
  if (p.dtype == DataType::kUnknown || p.grad_dtype == DataType::kUnknown) {
    throw UserError("parallel plan: dtype and grad_dtype must be set");
  }
}

}  // namespace loom::workload::synthesis
