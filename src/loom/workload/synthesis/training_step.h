// The orchestrator: builds the per-rank DAG of `plan.iterations` training iterations of a dense
// or mixture-of-experts transformer under TP/SP, CP, PP (gpipe, 1f1b, interleaved), DP and EP, from
// the layer programs (layer_program.h) and the pipeline order (pipeline_schedule.h).
//
// Per rank, in program order (each compute node and each TP collective depends on the one
// before it, so the compute stream follows the schedule exactly):
//   [data.load: the training data read from storage, when plan.data_loading has bytes]
//   for each pipeline step: [recv activation or gradient] → the chunk's embedding / layers /
//   logits ops for that micro-batch (backward: recompute ops before each layer) → [send]
//   gradient buckets: the chunk's gradients, in backward layer order, are cut into buckets of at
//   least dp_bucket_bytes; with overlap_grad_reduce a bucket's DP reduction is issued as soon as
//   the chunk's last backward has produced it, else all after the last backward
//   embedding gradients: all-reduced between the first and last stage (tied embeddings, p > 1)
//   optimizer step: an elementwise node over the rank's parameters (30 bytes per parameter:
//   fp32 master, Adam moments and gradient read and written, bf16 weight written; divided by
//   dp with the distributed optimizer), after every reduction
//   distributed optimizer: an all-gather of the updated bf16 parameters per bucket
// The next iteration starts after the optimizer (and the parameter all-gathers).
//
// Gradient messages: DP all-reduce (distributed optimizer: reduce-scatter) of the bucket's
// gradients in grad_dtype; the stage's buckets sum to its parameters / t (first stage:
// embeddings included; last stage with p > 1: its copy of the V·h word embedding too). Routed
// expert gradients (experts / ep per rank, not divided by t) fill their own buckets, reduced
// over the expert-data-parallel group (parallel_plan.h).
//
// Streams (RuntimeOptions::comm_streams must be at least kCommStreams): TP collectives, CP K/V
// exchanges and EP all-to-alls on 0, activations received on 1 and gradients on 2, activations sent on 3 and
// gradients on 4, DP and embedding reductions on 5. Each point-to-point stream carries one FIFO
// channel, and receives are chained in the order the schedule consumes them, so the pipeline
// cannot deadlock.
//
// Compute nodes carry flops and bytes, not durations: run compute::assign_durations before
// simulating. Node::layer is the model layer (kNoIndex for embedding, logits and optimizer),
// Node::micro_batch the micro-batch.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/workload/synthesis/parallel_plan.h"
#include "loom/workload/synthesis/transformer_config.h"
#include "loom/workload/workload.h"
#include "loom/workload/workload_counts.h"

namespace loom::workload::synthesis {

struct Streams {
  static constexpr std::uint8_t kTensor = 0;
  static constexpr std::uint8_t kRecvActivation = 1;
  static constexpr std::uint8_t kRecvGradient = 2;
  static constexpr std::uint8_t kSendActivation = 3;
  static constexpr std::uint8_t kSendGradient = 4;
  static constexpr std::uint8_t kData = 5;
};
inline constexpr std::uint32_t kCommStreams = 6;

// Validates (validate(plan, model)) and builds. O(nodes) time; with shared programs (the
// default), memory for one program per pipeline stage (a stage's ranks share it) and a few
// words per rank.
Workload synthesize_training(const TransformerConfig& model, const ParallelPlan& plan,
                             NodeStorage storage = NodeStorage::kSharedPrograms);
// The nodes and dependencies synthesize_training would build, exactly, without building them:
// one rank per pipeline stage, one and two iterations. Validates as synthesize_training does.
// O(nodes of two iterations of pp ranks) time; memory for the communicators only.
WorkloadCounts count_training(const TransformerConfig& model, const ParallelPlan& plan);

// The plan described without building every rank (`loom workload show` at any size): the exact
// counts of the whole, and a workload with every communicator but only the nodes of the first
// rank of each stage and of ranks 0 .. first - 1. The ranks of a stage run the same program in
// their own groups and with their own peers. O(nodes of the built ranks).
struct TrainingSample {
  Workload workload;
  WorkloadCounts counts;
  std::vector<std::uint32_t> built_ranks;  // ascending
};
TrainingSample sample_training(const TransformerConfig& model, const ParallelPlan& plan, std::uint32_t first);

}  // namespace loom::workload::synthesis
