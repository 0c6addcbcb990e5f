// How a training step is parallelised (Megatron-LM terms), and the rank layout it implies.
//
// Ranks: Megatron's default order tp-cp-dp-pp (TP fastest, then CP, then DP, then PP):
//   rank = tp_index + t · (cp_index + c · (dp_index + d · stage))
// The CP and DP indices together form the replica index r = cp_index + c · dp_index in
// [0, c · d), which rank(tp_index, r, stage) takes. Micro-batches per iteration
// m = global_batch / (micro_batch · d): the c ranks of a CP group share a micro-batch.
//
// Context parallelism (Megatron CP, ring attention): each rank holds s/c of every sequence, so
// every per-token op (GEMMs, norms, TP and PP messages) works on s/c tokens, and the attention
// core on s/c queries against all s keys (4·b·(s/c)·s·h/t FLOPs, 1/c of the whole). The K and
// V blocks travel around the CP ring in c - 1 steps (layer_program.h). Gradients are reduced
// over the c · d ranks of a stage with the same tp_index (Megatron's data-parallel group with
// context parallelism), and ZeRO shards over those c · d ranks.
//
// Expert parallelism (MoE models) splits the replica dimension, as Megatron-Core builds its
// expert groups from the ranks after TP: r = ep_index + ep · outer. An EP group is the ep ranks
// of one (tp_index, outer, stage); each rank holds experts / ep whole experts (expert weights are
// not TP-sharded), and each TP rank routes its own sequence-parallel share of the tokens (so
// tp > 1 needs sequence_parallel). Routed-expert gradients are reduced over the tp · c · d / ep
// ranks of a stage that hold the same experts.
//
// Data-parallel sharding (Ψ = a stage's parameters / t):
//   none       gradients all-reduced in buckets, every rank updates every parameter
//   optimizer  ZeRO-1, Megatron's distributed optimizer (the same as distributed_optimizer =
//              true): buckets reduce-scattered, each rank updates its 1/d, the updated parameters
//              all-gathered per bucket: 2Ψ elements per device per step
//   gradients  ZeRO-2: the same messages as optimizer; each rank keeps only its 1/d of the
//              reduced gradients, which changes memory (memory_model.h), not traffic
//   full       ZeRO-3 / FSDP, one unit per layer (and the embedding, and the last stage's copy of
//              the word embedding when p > 1; with p = 1 the logits use the embedding's weights
//              as gathered): the unit's parameters are all-gathered (dtype) on the DP group
//              before its forward and again before its backward, in every micro-batch; with
//              prefetch (the default) unit i+1's all-gather is issued before unit i's ops, so
//              it overlaps them (FSDP's forward and backward prefetch), without prefetch right
//              before unit i+1's ops, after unit i's; its gradients, accumulated over the
//              micro-batches, are reduce-scattered (grad_dtype) after its last backward; each
//              rank updates its 1/d. With one micro-batch: 3Ψ elements per device per step.
//              Dense models only.
#pragma once

#include <cstdint>
#include <string_view>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/workload/synthesis/transformer_config.h"
#include "loom/workload/workload.h"

namespace loom::workload::synthesis {

enum class PipelineSchedule : std::uint8_t { kGpipe, kOneFOneB, kInterleaved };
enum class Recompute : std::uint8_t { kNone, kSelective, kFull };
std::string_view to_string(PipelineSchedule schedule);  // "gpipe", "1f1b", "interleaved"
std::string_view to_string(Recompute recompute);        // "none", "selective", "full"
PipelineSchedule parse_pipeline_schedule(std::string_view text);
Recompute parse_recompute(std::string_view text);

enum class Sharding : std::uint8_t { kNone, kOptimizer, kGradients, kFull };
std::string_view to_string(Sharding sharding);  // "none", "optimizer", "gradients", "full"
Sharding parse_sharding(std::string_view text);

// Reading the training data from storage before the first iteration (Arcadia §5.2: when the
// data is not on the GPU hosts, a transfer stage precedes training). Every rank reads
// bytes_per_rank; with `shared` the storage's `bandwidth` is split evenly among all ranks, else
// each rank reads at `bandwidth`:
//   duration = latency + bytes_per_rank · (shared ? ranks : 1) · 8 / bandwidth
// emitted as a "data.load" node of that fixed duration (ComputeKind::kOther, no FLOPs or bytes,
// so the compute model keeps it) that every rank's first op waits for. bytes_per_rank = 0: none.
struct DataLoading {
  Bytes bytes_per_rank = 0;
  Bandwidth bandwidth;
  bool shared = false;
  Time latency;
  Time duration(std::uint32_t ranks) const {
    return latency + serialization_time(bytes_per_rank * (shared ? ranks : 1), bandwidth);
  }
};

struct ParallelPlan {
  std::uint32_t tp = 1;                 // tensor parallel size t
  std::uint32_t pp = 1;                 // pipeline stages p
  std::uint32_t dp = 1;                 // data-parallel replicas d
  std::uint32_t cp = 1;                 // context-parallel size c (sequence split s/c)
  std::uint32_t ep = 1;                 // expert-parallel size (divides dp; MoE models only)
  bool sequence_parallel = false;       // TP all-reduces become all-gather + reduce-scatter
  PipelineSchedule schedule = PipelineSchedule::kOneFOneB;
  std::uint32_t virtual_stages = 1;     // v: model chunks per stage (interleaved only)
  // Uneven pipelines (Megatron's decoder_first/last_pipeline_num_layers; Llama 3 405B runs 126
  // layers on 16 stages with 7 on the first and the last): layers on the first and on the last
  // stage, 0 for an even share; the other stages split the rest evenly. With v > 1 each stage
  // splits its layers evenly over its chunks, the first (last) stage's lighter chunks first (last).
  std::uint32_t first_stage_layers = 0;
  std::uint32_t last_stage_layers = 0;
  std::uint32_t micro_batch = 1;        // b, sequences per micro-batch
  std::uint32_t global_batch = 1;       // B, sequences per iteration
  Recompute recompute = Recompute::kNone;
  DataType dtype = DataType::kBf16;     // activations, weights and their messages
  DataType grad_dtype = DataType::kFp32;  // gradient reduction messages (Megatron's main grads)
  bool distributed_optimizer = false;   // reduce-scatter grads, all-gather params (ZeRO-1)
  Sharding sharding = Sharding::kNone;  // ZeRO level (above); full includes the optimizer's
  bool prefetch = true;                 // full sharding: gather the next unit one unit ahead
  Bytes dp_bucket_bytes = 40ull << 20;  // gradient bucket size (DP messages per bucket)
  bool overlap_grad_reduce = true;      // bucket reductions start during backward
  std::uint32_t iterations = 1;
  DataLoading data_loading;             // before the first iteration (none by default)

  std::uint32_t ranks() const { return tp * cp * dp * pp; }
  std::uint32_t replicas() const { return cp * dp; }  // ranks of a stage per tp_index
  std::uint32_t micro_batches() const { return global_batch / (micro_batch * dp); }
  // `replica` = cp_index + cp · dp_index, in [0, cp · dp).
  std::uint32_t rank(std::uint32_t tp_index, std::uint32_t replica, std::uint32_t stage) const {
    return tp_index + tp * (replica + replicas() * stage);
  }
  std::uint32_t stage_of(std::uint32_t rank) const { return rank / (tp * replicas()); }
  // `sharding`, raised to kOptimizer by distributed_optimizer.
  Sharding effective_sharding() const {
    return sharding == Sharding::kNone && distributed_optimizer ? Sharding::kOptimizer : sharding;
  }
};

// The layers [first, first + count) of virtual stage `vs` (chunk · pp + stage) of a model of
// `layers` layers under a validated plan.
struct LayerRange {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
};
LayerRange layers_of_vstage(const ParallelPlan& plan, std::uint32_t layers, std::uint32_t vs);

// UserError naming the parameter when the plan does not fit the model: sizes of zero; heads,
// kv_heads or ffn_hidden not divisible by tp; layers not divisible by pp · virtual_stages (or,
// with first/last_stage_layers, the rest not divisible by the other stages, a middle stage's
// layers not divisible by virtual_stages, or a stage or chunk left without layers);
// global_batch not a multiple of micro_batch · dp; virtual_stages > 1 without the interleaved
// schedule; interleaved with micro-batches not a multiple of pp; a sequence not divisible by cp;
// sequence_parallel with s/cp not divisible by tp; more than 65534 micro-batches; ep not
// dividing cp · dp or the experts, ep > 1 for a dense model, a MoE model with tp > 1 without sequence_parallel, or
// sharding full for a MoE model.
void validate(const ParallelPlan& plan, const TransformerConfig& model);

}  // namespace loom::workload::synthesis
