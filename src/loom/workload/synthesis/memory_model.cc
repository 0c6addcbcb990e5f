#include "loom/workload/synthesis/memory_model.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/workload/synthesis/pipeline_schedule.h"

namespace loom::workload::synthesis {
namespace {

Bytes shard(Bytes bytes, std::uint32_t shards) { return (bytes + shards - 1) / shards; }

}  // namespace

ModelStateBytes model_state_bytes(std::uint64_t parameters, std::uint32_t shards, Sharding sharding) {
  LOOM_ASSERT(shards >= 1, "model_state_bytes: at least one shard");
  const Bytes weights = kWeightBytes * parameters;
  const Bytes gradients = kGradientBytes * parameters;
  const Bytes optimizer = kOptimizerStateBytes * parameters;
  switch (sharding) {
    case Sharding::kNone: return {weights, gradients, optimizer};
    case Sharding::kOptimizer: return {weights, gradients, shard(optimizer, shards)};
    case Sharding::kGradients: return {weights, shard(gradients, shards), shard(optimizer, shards)};
    case Sharding::kFull: return {shard(weights, shards), shard(gradients, shards), shard(optimizer, shards)};
  }
  return {};
}

Bytes layer_activation_bytes(const TransformerConfig& m, const ParallelPlan& p) {
  const std::uint64_t s_full = m.sequence, s = m.sequence / p.cp, b = p.micro_batch, h = m.hidden, a = m.heads;
  const std::uint64_t t = p.tp;
  const bool sp = p.sequence_parallel && t > 1;
  if (p.recompute == Recompute::kFull) return 2 * s * b * h / (sp ? t : 1);
  // Korthikanti's per-layer terms: 34·s·b·h of which 24 split by TP and 10 (norms, dropout,
  // residual inputs) split only by sequence parallelism; 5·a·s²·b for the attention scores.
  const Bytes linear = sp ? 34 * s * b * h / t : 10 * s * b * h + 24 * s * b * h / t;
  const Bytes attention = p.recompute == Recompute::kSelective ? 0 : 5 * a * s * s_full * b / t;
  return linear + attention;
}

MemoryEstimate estimate_memory(const TransformerConfig& m, const ParallelPlan& p, std::uint32_t stage) {
  validate(p, m);
  LOOM_ASSERT(stage < p.pp, "estimate_memory: stage out of range");
  MemoryEstimate e;
  e.stage = stage;
  // The stage's layers: chunk c of stage `stage` is virtual stage c·p + stage.
  std::uint64_t dense = 0, experts = 0;
  std::uint32_t stage_layers = 0;
  for (std::uint32_t c = 0; c < p.virtual_stages; ++c) {
    const LayerRange chunk = layers_of_vstage(p, m.layers, c * p.pp + stage);
    stage_layers += chunk.count;
    for (std::uint32_t l = chunk.first; l < chunk.first + chunk.count; ++l) {
      dense += m.layer_parameters(l);
      experts += m.expert_parameters(l);
    }
  }
  if (stage == 0) dense += m.embedding_parameters();
  if (stage + 1 == p.pp && p.pp > 1) dense += m.vocab * m.hidden;
  dense /= p.tp;
  experts /= p.ep;
  e.parameters = dense + experts;
  const Sharding sharding = p.effective_sharding();
  const ModelStateBytes d = model_state_bytes(dense, p.replicas(), sharding);
  const ModelStateBytes x = model_state_bytes(experts, p.tp * p.replicas() / p.ep, sharding);
  e.model_states = {d.parameters + x.parameters, d.gradients + x.gradients, d.optimizer + x.optimizer};

  const Bytes per_layer = layer_activation_bytes(m, p);
  e.activations_per_micro_batch = per_layer * stage_layers;
  std::uint32_t live = 0;
  for (const PipelineStep& step : pipeline_order(p.schedule, p.pp, stage, p.micro_batches(), p.virtual_stages)) {
    if (step.forward) {
      e.chunks_in_flight = std::max(e.chunks_in_flight, ++live);
    } else {
      --live;
    }
  }
  // Each chunk in flight holds its layers' activations; with an uneven first or last stage the
  // chunks differ by one layer, and the larger one bounds the peak.
  const std::uint32_t chunk_layers = (stage_layers + p.virtual_stages - 1) / p.virtual_stages;
  e.activations = per_layer * chunk_layers * e.chunks_in_flight;
  return e;
}

MemoryEstimate peak_memory(const TransformerConfig& m, const ParallelPlan& p) {
  MemoryEstimate best = estimate_memory(m, p, 0);
  for (std::uint32_t s = 1; s < p.pp; ++s) {
    MemoryEstimate e = estimate_memory(m, p, s);
    if (e.total() > best.total()) best = e;
  }
  return best;
}

std::string hbm_fit(const MemoryEstimate& estimate, std::string_view gpu, Bytes hbm) {
  LOOM_ASSERT(hbm > 0, "a GPU without HBM capacity");
  const std::string capacity = fmt::format("{}'s {:g} GB of HBM", gpu, static_cast<double>(hbm) / 1e9);
  if (estimate.total() <= hbm) {
    return fmt::format("fits in {} ({:.0f}% used)", capacity,
                       100.0 * static_cast<double>(estimate.total()) / static_cast<double>(hbm));
  }
  return fmt::format("exceeds {} by {:.1f} GiB", capacity,
                     static_cast<double>(estimate.total() - hbm) / static_cast<double>(1ull << 30));
}

}  // namespace loom::workload::synthesis
