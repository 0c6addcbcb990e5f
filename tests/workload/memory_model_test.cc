// Per-rank memory (memory_model.h): ZeRO's model-state figures, Korthikanti's activation
// formula, and the micro-batches a pipeline schedule keeps in flight.
#include <gtest/gtest.h>

#include "workload/synthesis_testing.h"
#include "loom/workload/synthesis/memory_model.h"

namespace loom::workload::synthesis {
namespace {

// ZeRO paper, Figure 1: a 7.5B-parameter model on N_d = 64 GPUs with K = 12:
// baseline (2 + 2 + K)Ψ = 120 GB; P_os 2Ψ + 2Ψ + KΨ/N = 31.4 GB; P_os+g 2Ψ + (2 + K)Ψ/N =
// 16.6 GB; P_os+g+p (2 + 2 + K)Ψ/N = 1.9 GB.
TEST(MemoryModel, ZeroPaperFigureOne) {
  constexpr std::uint64_t kPsi = 7'500'000'000;
  EXPECT_EQ(model_state_bytes(kPsi, 64, Sharding::kNone).total(), 120'000'000'000u);
  EXPECT_EQ(model_state_bytes(kPsi, 64, Sharding::kOptimizer).total(), 31'406'250'000u);
  EXPECT_EQ(model_state_bytes(kPsi, 64, Sharding::kGradients).total(), 16'640'625'000u);
  EXPECT_EQ(model_state_bytes(kPsi, 64, Sharding::kFull).total(), 1'875'000'000u);
  // As the paper rounds them.
  auto gb = [](Bytes b) { return static_cast<double>(b) / 1e9; };
  EXPECT_NEAR(gb(model_state_bytes(kPsi, 64, Sharding::kOptimizer).total()), 31.4, 0.05);
  EXPECT_NEAR(gb(model_state_bytes(kPsi, 64, Sharding::kGradients).total()), 16.6, 0.05);
  EXPECT_NEAR(gb(model_state_bytes(kPsi, 64, Sharding::kFull).total()), 1.9, 0.05);
  // ZeRO-2 differs from ZeRO-1 only in the gradients.
  const ModelStateBytes z1 = model_state_bytes(kPsi, 64, Sharding::kOptimizer);
  const ModelStateBytes z2 = model_state_bytes(kPsi, 64, Sharding::kGradients);
  EXPECT_EQ(z1.parameters, z2.parameters);
  EXPECT_EQ(z1.optimizer, z2.optimizer);
  EXPECT_EQ(z1.gradients, 2 * kPsi);
  EXPECT_EQ(z2.gradients, 2 * kPsi / 64);
}

// l = 8, h = 512, a = 8, V = 1000, s = 256.
using testing::small_gpt;

TEST(MemoryModel, KorthikantiActivationsPerLayer) {
  const TransformerConfig m = small_gpt();
  ParallelPlan p;
  p.micro_batch = 2;
  const std::uint64_t sbh = 256 * 2 * 512;
  // No parallelism: s·b·h·(34 + 5·a·s/h) = sbh·(34 + 5·8·256/512) = sbh·54.
  EXPECT_EQ(layer_activation_bytes(m, p), sbh * 54);
  p.tp = 4;  // s·b·h·(10 + 24/t + 5·a·s/(h·t)) = sbh·(10 + 6 + 5)
  EXPECT_EQ(layer_activation_bytes(m, p), sbh * 21);
  p.sequence_parallel = true;  // sbh·(34/t + 5as/(ht)) = sbh·(8.5 + 5)
  EXPECT_EQ(layer_activation_bytes(m, p), sbh * 27 / 2);
  p.recompute = Recompute::kSelective;  // sbh·34/t
  EXPECT_EQ(layer_activation_bytes(m, p), sbh * 34 / 4);
  p.recompute = Recompute::kFull;  // the input only, 2·sbh/t
  EXPECT_EQ(layer_activation_bytes(m, p), 2 * sbh / 4);
  p = ParallelPlan{};
  p.micro_batch = 2;
  p.cp = 2;  // s' = 128 tokens attending to 256 keys: 34·s'bh + 5·a·s'·s·b
  EXPECT_EQ(layer_activation_bytes(m, p), 34 * sbh / 2 + 5ull * 8 * 128 * 256 * 2);
}

// 1F1B keeps p - stage micro-batches in flight (at most m), GPipe all m.
TEST(MemoryModel, ActivationsInFlightFollowTheSchedule) {
  const TransformerConfig m = small_gpt();
  ParallelPlan p;
  p.pp = 4;
  p.global_batch = 8;  // m = 8
  const Bytes layer = layer_activation_bytes(m, p);
  for (std::uint32_t stage = 0; stage < 4; ++stage) {
    const MemoryEstimate e = estimate_memory(m, p, stage);
    EXPECT_EQ(e.chunks_in_flight, 4 - stage);
    EXPECT_EQ(e.activations_per_micro_batch, 2 * layer);
    EXPECT_EQ(e.activations, (4 - stage) * 2 * layer);
  }
  p.schedule = PipelineSchedule::kGpipe;
  EXPECT_EQ(estimate_memory(m, p, 3).chunks_in_flight, 8u);
}

// The rank's Ψ: first stage 4 layers + embeddings over t = 2; states sharded over dp·cp = 4.
TEST(MemoryModel, EstimateUsesTheStageShareAndTheShardingGroup) {
  const TransformerConfig m = small_gpt();
  ParallelPlan p;
  p.tp = 2;
  p.pp = 2;
  p.dp = 2;
  p.cp = 2;
  p.global_batch = 4;
  p.sharding = Sharding::kGradients;
  constexpr std::uint64_t kLayer = 12 * 512 * 512 + 13 * 512;
  constexpr std::uint64_t kPsi0 = (4 * kLayer + (1000 + 256) * 512) / 2;
  constexpr std::uint64_t kPsi1 = (4 * kLayer + 1000 * 512) / 2;
  const MemoryEstimate first = estimate_memory(m, p, 0);
  EXPECT_EQ(first.parameters, kPsi0);
  EXPECT_EQ(first.model_states.parameters, 2 * kPsi0);
  EXPECT_EQ(first.model_states.gradients, 2 * kPsi0 / 4);
  EXPECT_EQ(first.model_states.optimizer, 12 * kPsi0 / 4);
  EXPECT_EQ(estimate_memory(m, p, 1).parameters, kPsi1);
  EXPECT_EQ(peak_memory(m, p).stage, 0u);
  p.sharding = Sharding::kFull;
  EXPECT_EQ(estimate_memory(m, p, 0).model_states.total(), 16 * kPsi0 / 4);
}

TEST(MemoryModel, HbmFitComparesTheTotalWithTheCapacity) {
  MemoryEstimate e;
  e.model_states = model_state_bytes(7'500'000'000, 64, Sharding::kOptimizer);  // 31.41 GB
  EXPECT_EQ(hbm_fit(e, "H100", 80'000'000'000), "fits in H100's 80 GB of HBM (39% used)");
  e.activations = 60'000'000'000;  // 91.41 GB in all: 11.41 GB = 10.6 GiB too many
  EXPECT_EQ(hbm_fit(e, "H100", 80'000'000'000), "exceeds H100's 80 GB of HBM by 10.6 GiB");
  EXPECT_EQ(hbm_fit(e, "H200", 141'000'000'000), "fits in H200's 141 GB of HBM (65% used)");
}

}  // namespace
}  // namespace loom::workload::synthesis
