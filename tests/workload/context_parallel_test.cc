// Context parallelism (parallel_plan.h, layer_program.h): the rank layout tp-cp-dp-pp, each
// rank's FLOPs 1/cp of the model's, the K/V ring exchange on the CP group per layer, and the
// gradient reduction over dp·cp ranks.
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workload/synthesis_testing.h"
#include "loom/core/error.h"
#include "loom/workload/compute/compute_model.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/synthesis/training_step.h"
#include "loom/workload/workload_validation.h"

namespace loom::workload::synthesis {
namespace {

using collective::CollectiveOp;

// l = 4, h = 512, a = 8, ffn = 4h, V = 1000, s = 1024.
TransformerConfig small_gpt() { return testing::small_gpt(4, 1024); }

ParallelPlan plan(std::uint32_t cp, std::uint32_t dp = 1) {
  ParallelPlan p;
  p.tp = 2;
  p.cp = cp;
  p.dp = dp;
  p.global_batch = dp;
  return p;
}

// FLOPs of rank 0's nodes by label (one micro-batch, so one node per label and layer).
std::map<std::string, std::uint64_t> flops_by_label(const Workload& w) {
  std::map<std::string, std::uint64_t> out;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank == 0 && n.layer == 0 && n.kind == NodeKind::kCompute) out[std::string(w.label(n.label))] = n.flops;
  }
  return out;
}

TEST(ContextParallel, RankOrderIsTpCpDpPp) {
  ParallelPlan p = plan(2, 2);
  p.pp = 2;
  EXPECT_EQ(p.ranks(), 16u);
  // tp_index 1, cp_index 1, dp_index 1, stage 1: 1 + 2·(1 + 2·(1 + 2·1)) = 15.
  EXPECT_EQ(p.rank(1, 1 + 2 * 1, 1), 15u);
  EXPECT_EQ(p.rank(0, 1, 0), 2u);  // the CP neighbour of rank 0 comes right after its TP group
  EXPECT_EQ(p.stage_of(8), 1u);
}

// b = 1, s = 1024, h = 512, t = 2: the linear parts and the attention core both halve at cp 2.
TEST(ContextParallel, FlopsPerRankScaleOneOverCp) {
  const auto one = flops_by_label(synthesize_training(small_gpt(), plan(1)));
  const auto two = flops_by_label(synthesize_training(small_gpt(), plan(2)));
  EXPECT_EQ(one.at("fwd.qkv"), 2ull * 1024 * 512 * 1536 / 2);
  EXPECT_EQ(two.at("fwd.qkv"), 2ull * 512 * 512 * 1536 / 2);
  EXPECT_EQ(two.at("fwd.proj"), 2ull * 512 * 512 * 512 / 2);
  EXPECT_EQ(two.at("fwd.mlp"), 2ull * 512 * 512 * 2048 * 2 / 2);
  // 4·b·(s/cp)·s·h/t: the rank's 512 queries against all 1024 keys.
  EXPECT_EQ(two.at("fwd.attention"), 4ull * 512 * 1024 * 512 / 2);
  for (const char* label : {"fwd.qkv", "fwd.proj", "fwd.mlp", "fwd.attention", "bwd.qkv", "bwd.mlp"}) {
    EXPECT_EQ(two.at(label) * 2, one.at(label)) << label;
  }
}

TEST(ContextParallel, WholeJobFlopsDoNotChange) {
  auto total = [](const Workload& w) {
    std::uint64_t f = 0;
    for (NodeId id = 0; id < w.node_count(); ++id) f += w.node(id).flops;
    return f;
  };
  EXPECT_EQ(total(synthesize_training(small_gpt(), plan(4))), total(synthesize_training(small_gpt(), plan(1))));
}

// Per layer and micro-batch: forward one all-gather of K and V, b·s·2kv·e/t = 1·1024·1024·2/2
// bytes (nccl-tests output size; each rank sends (cp-1)/cp of it, cp-1 blocks of
// b·(s/cp)·2kv·e/t); backward an all-gather of K, V and a reduce-scatter of dK, dV of the same
// size.
TEST(ContextParallel, KvRingBytesPerLayerEqualTheFormula) {
  for (const std::uint32_t cp : {2u, 4u}) {
    const Workload w = synthesize_training(small_gpt(), plan(cp));
    constexpr Bytes kKv = 1ull * 1024 * 2 * 512 * 2 / 2;
    std::map<std::string, std::pair<CollectiveOp, Bytes>> cp_ops;
    std::uint32_t count = 0;
    for (NodeId id = 0; id < w.node_count(); ++id) {
      const Node& n = w.node(id);
      if (n.rank != 0 || n.kind != NodeKind::kCollective) continue;
      if (w.communicator(n.communicator).kind != CommunicatorKind::kContext) continue;
      EXPECT_EQ(w.communicator(n.communicator).ranks.size(), cp);
      cp_ops[std::string(w.label(n.label))] = {n.op, n.bytes};
      ++count;
    }
    EXPECT_EQ(count, 3u * 4u);  // three per layer, four layers
    EXPECT_EQ(cp_ops.at("fwd.cp_kv"), std::make_pair(CollectiveOp::kAllGather, kKv));
    EXPECT_EQ(cp_ops.at("bwd.cp_kv_gather"), std::make_pair(CollectiveOp::kAllGather, kKv));
    EXPECT_EQ(cp_ops.at("bwd.cp_dkv"), std::make_pair(CollectiveOp::kReduceScatter, kKv));
    // What one rank sends in the forward ring: cp - 1 blocks of b·(s/cp)·2kv·e/t.
    EXPECT_EQ(kKv * (cp - 1) / cp, (cp - 1) * (1ull * (1024 / cp) * 2 * 512 * 2 / 2));
  }
}

TEST(ContextParallel, NoCpTrafficWithoutCp) {
  const Workload w = synthesize_training(small_gpt(), plan(1));
  for (CommunicatorId c = 0; c < w.communicator_count(); ++c) {
    EXPECT_NE(w.communicator(c).kind, CommunicatorKind::kContext);
  }
}

// Gradients are reduced over the 4 ranks with the same tp_index (dp 2 × cp 2); the CP group is
// the cp ranks of one (tp_index, dp_index).
TEST(ContextParallel, GradientsReduceOverDpTimesCp) {
  ParallelPlan p = plan(2, 2);
  p.sharding = Sharding::kOptimizer;
  const Workload w = synthesize_training(small_gpt(), p);
  bool saw_dp = false, saw_cp = false;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank != 0 || n.kind != NodeKind::kCollective) continue;
    const Communicator& c = w.communicator(n.communicator);
    if (c.kind == CommunicatorKind::kData) {
      EXPECT_EQ(c.ranks, (std::vector<std::uint32_t>{0, 2, 4, 6}));
      saw_dp = true;
    }
    if (c.kind == CommunicatorKind::kContext) {
      EXPECT_EQ(c.ranks, (std::vector<std::uint32_t>{0, 2}));
      saw_cp = true;
    }
  }
  EXPECT_TRUE(saw_dp);
  EXPECT_TRUE(saw_cp);
  // Pipeline messages and TP collectives carry the rank's s/cp tokens: b·(s/2)·h·e.
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.kind == NodeKind::kCollective && w.communicator(n.communicator).kind == CommunicatorKind::kTensor) {
      EXPECT_EQ(n.bytes, 512u * 512u * 2u) << w.label(n.label);
    }
  }
}

TEST(ContextParallel, InvalidPlansNameTheParameter) {
  ParallelPlan p = plan(3);
  try {
    synthesize_training(small_gpt(), p);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("sequence 1024 is not divisible by cp 3"));
  }
  p = plan(0);
  EXPECT_THROW(synthesize_training(small_gpt(), p), UserError);
}

// TP, CP, PP and DP with sequence parallelism and selective recompute: the DAG validates and
// finishes on the runtime, in exactly the time this input fixes (pinned: a change to the synthesis,
// the compute model or the runtime shows here).
TEST(ContextParallel, RunsToCompletionOnTheRuntime) {
  ParallelPlan p = plan(2, 2);
  p.pp = 2;
  p.global_batch = 4;
  p.sequence_parallel = true;
  p.recompute = Recompute::kSelective;
  Workload w = synthesize_training(small_gpt(), p);
  EXPECT_NO_THROW(validate(w));
  testing::time_on_a100(w);
  EXPECT_EQ(testing::run_on_a_star(w, p.ranks()).makespan, Time::ps(1516541922));
}

}  // namespace
}  // namespace loom::workload::synthesis
