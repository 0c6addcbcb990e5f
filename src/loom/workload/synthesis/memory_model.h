// Per-rank memory of a training step: model states under ZeRO sharding and activations.
//
// Model states (Rajbhandari et al., ZeRO, SC'20, §3 and Figure 1): mixed-precision Adam keeps
// per parameter 2 bytes of fp16/bf16 weights, 2 of gradients and K = 12 of optimizer states
// (fp32 master weights, momentum and variance), 16 in all. With Ψ the parameters a rank holds
// and N the ranks that shard them:
//   none       (2 + 2 + K)·Ψ
//   optimizer  2Ψ + 2Ψ + K·Ψ/N            ZeRO-1 (P_os), Megatron's distributed optimizer
//   gradients  2Ψ + (2 + K)·Ψ/N           ZeRO-2 (P_os+g)
//   full       (2 + 2 + K)·Ψ/N            ZeRO-3 / FSDP (P_os+g+p)
// e.g. Ψ = 7.5·10^9, N = 64: 120 GB, 31.4 GB, 16.6 GB, 1.9 GB (the paper's Figure 1). Buffers
// for gathered parameters and communication are not counted.
//
// In a synthesised plan Ψ is the rank's share of its pipeline stage: the stage's layers / t
// (first stage: the embeddings too; last stage with p > 1: its copy of the word embedding),
// plus routed experts / ep. Dense parameters are sharded over the cp·dp replicas, expert
// parameters over the tp·cp·dp/ep ranks of the expert-data-parallel group.
//
// Activations (Korthikanti et al. 2022, §4, 2-byte activations with dropout masks): one layer
// and one micro-batch of b sequences keeps s·b·h·(34 + 5·a·s/h) bytes with no parallelism. With
// the rank's s' = s/cp tokens (its queries attend to all s keys) and TP size t:
//   tensor parallel        s'·b·h·(10 + 24/t) + 5·a·s'·s·b/t
//   + sequence parallel    s'·b·h·34/t + 5·a·s'·s·b/t
//   selective recompute    the 5·a·s'·s·b/t attention term is not kept
//   full recompute         only the layer input, 2·s'·b·h (÷t with sequence parallelism)
// Embedding and logits activations are not counted. A stage keeps the activations of every
// micro-batch whose forward has run and whose backward has not: the most in flight in its
// schedule (pipeline_schedule.h: 1F1B on the first stage p micro-batches, GPipe m), each
// micro-batch of a model chunk holding the chunk's layers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "loom/core/units.h"
#include "loom/workload/synthesis/parallel_plan.h"
#include "loom/workload/synthesis/transformer_config.h"

namespace loom::workload::synthesis {

// Bytes per parameter of mixed-precision Adam (ZeRO's 2 + 2 + K with K = 12).
inline constexpr Bytes kWeightBytes = 2;
inline constexpr Bytes kGradientBytes = 2;
inline constexpr Bytes kOptimizerStateBytes = 12;

struct ModelStateBytes {
  Bytes parameters = 0;
  Bytes gradients = 0;
  Bytes optimizer = 0;
  Bytes total() const { return parameters + gradients + optimizer; }
};

// The table above for `parameters` (Ψ) sharded over `shards` (N >= 1) ranks. Exact when N
// divides the byte counts, else rounded up per term.
ModelStateBytes model_state_bytes(std::uint64_t parameters, std::uint32_t shards, Sharding sharding);

struct MemoryEstimate {
  std::uint32_t stage = 0;             // the pipeline stage estimated
  std::uint64_t parameters = 0;        // Ψ of a rank of that stage (dense + expert)
  ModelStateBytes model_states;
  Bytes activations_per_micro_batch = 0;  // all the stage's layers, one micro-batch
  // Peak count of (micro-batch, model chunk) pairs whose forward has run and backward has not
  // (micro-batches when v = 1); each holds one chunk of the stage's layers.
  std::uint32_t chunks_in_flight = 0;
  Bytes activations = 0;               // what the stage holds at that peak
  Bytes total() const { return model_states.total() + activations; }
};

// One layer, one micro-batch, one rank (the activation formulas above).
Bytes layer_activation_bytes(const TransformerConfig& model, const ParallelPlan& plan);

// A rank of `stage`. validate(plan, model) first (UserError); stage < pp (LOOM_ASSERT).
// O(layers + micro-batches · v).
MemoryEstimate estimate_memory(const TransformerConfig& model, const ParallelPlan& plan, std::uint32_t stage);
// The stage with the largest total (the first, under 1F1B).
MemoryEstimate peak_memory(const TransformerConfig& model, const ParallelPlan& plan);

// The estimate against a GPU's HBM capacity (`hbm` bytes, > 0), for people: "fits in H100's
// 80 GB of HBM (34% used)" or "exceeds H100's 80 GB of HBM by 12.3 GiB".
std::string hbm_fit(const MemoryEstimate& estimate, std::string_view gpu, Bytes hbm);

}  // namespace loom::workload::synthesis
