// Synthesised training steps: FLOPs, parameters and message sizes against the Megatron-LM
// formulas (FACTS §4), written out in closed form.
#include <map>

#include <gtest/gtest.h>

#include "workload/synthesis_testing.h"
#include "loom/core/error.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload::synthesis {
namespace {

using collective::CollectiveOp;

// A small GPT: l = 8, h = 512, a = 8, ffn = 4h, V = 1000, s = 256.
using testing::small_gpt;

using testing::plan;

std::uint64_t total_flops(const Workload& w) {
  std::uint64_t total = 0;
  for (NodeId id = 0; id < w.node_count(); ++id) total += w.node(id).flops;
  return total;
}

TEST(TransformerConfig, Gpt175bParametersMatchTheFormula) {
  const TransformerConfig& m = find_transformer("gpt-175b");
  // P = 12·l·h² + 13·l·h + (V + s)·h
  const std::uint64_t l = 96, h = 12288, V = 51200, s = 2048;
  EXPECT_EQ(m.parameters(), 12 * l * h * h + 13 * l * h + (V + s) * h);
  EXPECT_NEAR(static_cast<double>(m.parameters()) / 1e9, 174.6, 0.1);
  EXPECT_THROW(find_transformer("gpt-4"), UserError);
}

// Model FLOPs per iteration: 72·B·s·l·h² + 12·B·s²·l·h + 6·B·s·h·V (= 72·B·s·l·h²·(1 + s/(6h) +
// V/(12·h·l))), summed over every rank, whatever the split.
TEST(TrainingFlops, NoRecomputeMatchesModelFlops) {
  const std::uint64_t B = 16, s = 256, l = 8, h = 512, V = 1000;
  const std::uint64_t expected = 72 * B * s * l * h * h + 12 * B * s * s * l * h + 6 * B * s * h * V;
  for (const auto& p : {plan(1, 1, 1, 16), plan(2, 2, 2, 16), plan(4, 1, 2, 16), plan(1, 4, 1, 16)}) {
    EXPECT_EQ(total_flops(synthesize_training(small_gpt(), p)), expected) << p.tp << " " << p.pp << " " << p.dp;
  }
}

// Full recompute adds one forward of every layer: 96·B·s·l·h² + 16·B·s²·l·h + 6·B·s·h·V.
TEST(TrainingFlops, FullRecomputeMatchesTheNinetySixForm) {
  const std::uint64_t B = 16, s = 256, l = 8, h = 512, V = 1000;
  ParallelPlan p = plan(2, 2, 2, 16);
  p.recompute = Recompute::kFull;
  EXPECT_EQ(total_flops(synthesize_training(small_gpt(), p)),
            96 * B * s * l * h * h + 16 * B * s * s * l * h + 6 * B * s * h * V);
  // Selective recompute adds only the attention core: 4·B·s²·l·h.
  p.recompute = Recompute::kSelective;
  EXPECT_EQ(total_flops(synthesize_training(small_gpt(), p)),
            72 * B * s * l * h * h + 16 * B * s * s * l * h + 6 * B * s * h * V);
}

struct Traffic {
  std::map<std::pair<std::string, CollectiveOp>, Bytes> bytes;  // (group, op) -> total on one rank
  std::map<std::pair<std::string, CollectiveOp>, int> count;
  Bytes sent = 0;
  int sends = 0;
};
Traffic traffic_of(const Workload& w, std::uint32_t rank) {
  Traffic t;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank != rank) continue;
    if (n.kind == NodeKind::kCollective) {
      const auto key = std::make_pair(w.communicator(n.communicator).group, n.op);
      t.bytes[key] += n.bytes;
      ++t.count[key];
    }
    if (n.kind == NodeKind::kSend) {
      t.sent += n.bytes;
      ++t.sends;
    }
  }
  return t;
}

// Rank 2 of TP2·PP2·DP2 (B = 8, b = 1: m = 4) is stage 0, TP index 0, DP index 1.
TEST(TrainingBytes, TensorPipelineAndDataParallelMessages) {
  const Workload w = synthesize_training(small_gpt(), plan(2, 2, 2, 8));
  const Traffic t = traffic_of(w, 2);
  const Bytes act = 1 * 256 * 512 * 2;  // b·s·h bf16
  // 4 layers on the stage, 4 micro-batches; 2 forward + 2 backward all-reduces per layer, plus
  // the embedding's forward all-reduce on stage 0.
  EXPECT_EQ(t.count.at({"tp", CollectiveOp::kAllReduce}), 4 * 4 * 4 + 4);
  EXPECT_EQ(t.bytes.at({"tp", CollectiveOp::kAllReduce}), (4u * 4 * 4 + 4) * act);
  // One activation send per micro-batch to stage 1.
  EXPECT_EQ(t.sends, 4);
  EXPECT_EQ(t.sent, 4 * act);
  // DP: the stage's parameters / t in fp32: 4 layers + embeddings.
  const TransformerConfig m = small_gpt();
  EXPECT_EQ(t.bytes.at({"dp", CollectiveOp::kAllReduce}), (4 * m.layer_parameters() + m.embedding_parameters()) / 2 * 4);
  // Tied embeddings: V·h/t fp32 between the first and last stage.
  EXPECT_EQ(t.bytes.at({"embedding", CollectiveOp::kAllReduce}), 1000u * 512 / 2 * 4);
  // The last stage (rank 4 = stage 1) reduces its 4 layers plus its copy of the word embedding.
  EXPECT_EQ(traffic_of(w, 4).bytes.at({"dp", CollectiveOp::kAllReduce}), (4 * m.layer_parameters() + 1000 * 512) / 2 * 4);
  EXPECT_NO_THROW(w.validate());
}

TEST(TrainingBytes, SequenceParallelSplitsEachAllReduce) {
  ParallelPlan p = plan(2, 1, 1, 2);
  p.sequence_parallel = true;
  const Traffic t = traffic_of(synthesize_training(small_gpt(), p), 0);
  const Bytes act = 256 * 512 * 2;
  // Per layer and micro-batch: 2 all-gathers and 2 reduce-scatters forward, the same backward
  // (8 layers, 2 micro-batches); embedding (RS), logits (AG forward, RS backward).
  EXPECT_EQ(t.count.count({"tp", CollectiveOp::kAllReduce}), 0u);
  EXPECT_EQ(t.count.at({"tp", CollectiveOp::kAllGather}), 8 * 2 * 4 + 2);
  EXPECT_EQ(t.count.at({"tp", CollectiveOp::kReduceScatter}), 8 * 2 * 4 + 2 * 2);
  EXPECT_EQ(t.bytes.at({"tp", CollectiveOp::kAllGather}), (8u * 2 * 4 + 2) * act);
}

TEST(TrainingBytes, DistributedOptimizerReduceScattersAndGathers) {
  ParallelPlan p = plan(1, 1, 4, 4);
  p.distributed_optimizer = true;
  p.dp_bucket_bytes = 4 << 20;
  const Traffic t = traffic_of(synthesize_training(small_gpt(), p), 0);
  const TransformerConfig m = small_gpt();
  EXPECT_EQ(t.bytes.at({"dp", CollectiveOp::kReduceScatter}), m.parameters() * 4);  // fp32 gradients
  EXPECT_EQ(t.bytes.at({"dp", CollectiveOp::kAllGather}), m.parameters() * 2);      // bf16 parameters
  // 4 MiB buckets of fp32 gradients: each layer (3.15M parameters = 12.6 MB) closes one.
  EXPECT_EQ(t.count.at({"dp", CollectiveOp::kReduceScatter}), 9);
}

TEST(TrainingPlan, InvalidPlansNameTheParameter) {
  auto expect_error = [](ParallelPlan p, const char* message) {
    try {
      synthesize_training(small_gpt(), p);
      FAIL() << message;
    } catch (const UserError& e) {
      EXPECT_STREQ(e.what(), message);
    }
  };
  expect_error(plan(3, 1, 1, 1), "parallel plan for 'small-gpt': heads 8 is not divisible by tp 3");
  expect_error(plan(1, 3, 1, 3), "parallel plan for 'small-gpt': layers 8 is not divisible by pp * virtual_stages 3; "
                                 "first_stage_layers and last_stage_layers give uneven stages");
  expect_error(plan(1, 1, 2, 3), "parallel plan for 'small-gpt': global_batch 3 is not divisible by micro_batch * dp 2");
  ParallelPlan v = plan(1, 2, 1, 4);
  v.virtual_stages = 2;
  expect_error(v, "parallel plan: virtual_stages > 1 needs the interleaved schedule");
  v.schedule = PipelineSchedule::kInterleaved;
  v.global_batch = 3;
  expect_error(v, "parallel plan for 'small-gpt': micro-batches 3 is not divisible by pp (interleaved) 2");
  expect_error(plan(0, 1, 1, 1), "parallel plan: tp must be positive");
}

}  // namespace
}  // namespace loom::workload::synthesis
