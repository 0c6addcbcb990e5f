// Data-parallel sharding of a synthesised transformer step (parallel_plan.h): per-step DP bytes
// per device are Ψ with plain all-reduce buffers, 2Ψ with ZeRO-1/2 (optimizer) and 3Ψ with
// ZeRO-3/FSDP (full), Ψ = the stage's parameters / t in bytes.
#include <algorithm>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workload/synthesis_testing.h"
#include "loom/core/error.h"
#include "loom/workload/compute/compute_model.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload::synthesis {
namespace {

using collective::CollectiveOp;

// l = 8, h = 512, a = 8, ffn = 4h, V = 1000, s = 256.
using testing::small_gpt;

// tp 2, pp 2, dp 4, bf16 parameters and gradients, `m` micro-batches of one sequence.
ParallelPlan sharded_plan(Sharding sharding, std::uint32_t m) {
  ParallelPlan p;
  p.tp = 2;
  p.pp = 2;
  p.dp = 4;
  p.global_batch = 4 * m;
  p.dtype = DataType::kBf16;
  p.grad_dtype = DataType::kBf16;
  p.sharding = sharding;
  return p;
}

// Ψ of each stage in elements: first stage 4 layers + embeddings, last stage 4 layers + its copy
// of the word embedding; a GPT layer has 12h² + 13h parameters.
constexpr std::uint64_t kLayer = 12 * 512 * 512 + 13 * 512;
constexpr std::uint64_t kPsi[2] = {(4 * kLayer + (1000 + 256) * 512) / 2, (4 * kLayer + 1000 * 512) / 2};

struct DpTraffic {
  Bytes all_reduce = 0, reduce_scatter = 0, all_gather = 0;
  Bytes total() const { return all_reduce + reduce_scatter + all_gather; }
};

DpTraffic dp_traffic(const Workload& w, std::uint32_t rank) {
  DpTraffic t;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank != rank || n.kind != NodeKind::kCollective) continue;
    if (w.communicator(n.communicator).kind != CommunicatorKind::kData) continue;
    if (n.op == CollectiveOp::kAllReduce) t.all_reduce += n.bytes;
    if (n.op == CollectiveOp::kReduceScatter) t.reduce_scatter += n.bytes;
    if (n.op == CollectiveOp::kAllGather) t.all_gather += n.bytes;
  }
  return t;
}

TEST(Sharding, FullMovesThreePsiOptimizerTwoNoneOne) {
  for (std::uint32_t stage : {0u, 1u}) {
    const std::uint32_t rank = stage * 8 + 3;  // tp_index 1, dp_index 1
    const Bytes psi = kPsi[stage] * 2;       // bf16
    const DpTraffic none = dp_traffic(synthesize_training(small_gpt(), sharded_plan(Sharding::kNone, 1)), rank);
    EXPECT_EQ(none.all_reduce, psi);
    EXPECT_EQ(none.total(), psi);
    const DpTraffic zero1 = dp_traffic(synthesize_training(small_gpt(), sharded_plan(Sharding::kOptimizer, 1)), rank);
    EXPECT_EQ(zero1.reduce_scatter, psi);
    EXPECT_EQ(zero1.all_gather, psi);
    EXPECT_EQ(zero1.total(), 2 * psi) << "stage " << stage;
    const DpTraffic zero3 = dp_traffic(synthesize_training(small_gpt(), sharded_plan(Sharding::kFull, 1)), rank);
    EXPECT_EQ(zero3.reduce_scatter, psi);
    EXPECT_EQ(zero3.all_gather, 2 * psi);
    EXPECT_EQ(zero3.total(), 3 * psi) << "stage " << stage;
  }
}

// The distributed_optimizer flag is sharding optimizer.
TEST(Sharding, DistributedOptimizerIsOptimizerSharding) {
  ParallelPlan p = sharded_plan(Sharding::kNone, 1);
  p.distributed_optimizer = true;
  EXPECT_EQ(p.effective_sharding(), Sharding::kOptimizer);
  EXPECT_EQ(dp_traffic(synthesize_training(small_gpt(), p), 0).total(), 2 * kPsi[0] * 2);
}

// Parameters are gathered again in every micro-batch's forward and backward; gradients are
// reduce-scattered once: (2m + 1)Ψ. One unit per layer plus the embedding (first stage) or the
// word-embedding copy (last stage): 5 gathers per pass, 5 reduce-scatters.
TEST(Sharding, FullGathersPerMicroBatchAndReducesOnce) {
  const Workload w = synthesize_training(small_gpt(), sharded_plan(Sharding::kFull, 3));
  for (std::uint32_t rank : {0u, 9u}) {
    const Bytes psi = kPsi[rank / 8] * 2;
    EXPECT_EQ(dp_traffic(w, rank).total(), 7 * psi);
    std::uint32_t gathers = 0, scatters = 0;
    for (NodeId id = 0; id < w.node_count(); ++id) {
      const Node& n = w.node(id);
      if (n.rank != rank || n.kind != NodeKind::kCollective) continue;
      if (w.communicator(n.communicator).kind != CommunicatorKind::kData) continue;
      gathers += n.op == CollectiveOp::kAllGather ? 1 : 0;
      scatters += n.op == CollectiveOp::kReduceScatter ? 1 : 0;
    }
    EXPECT_EQ(gathers, 3u * 2u * 5u);
    EXPECT_EQ(scatters, 5u);
  }
}

// Each rank's optimizer updates its 1/d: 30 bytes per parameter of Ψ / 4.
TEST(Sharding, FullShardsTheOptimizer) {
  const Workload w = synthesize_training(small_gpt(), sharded_plan(Sharding::kFull, 1));
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank == 0 && w.label(n.label) == "optimizer.step") {
      EXPECT_EQ(n.bytes, 30 * kPsi[0] / 4);
    }
  }
}

// Every layer's first forward op waits for its parameters.
TEST(Sharding, LayersWaitForTheirGather) {
  const Workload w = synthesize_training(small_gpt(), sharded_plan(Sharding::kFull, 1));
  std::uint32_t checked = 0;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    if (w.label(w.node(id).label) != "fwd.ln1") continue;
    bool after_gather = false;
    for (NodeId d : w.deps(id)) after_gather |= w.node(d).op == CollectiveOp::kAllGather &&
                                                w.node(d).kind == NodeKind::kCollective;
    EXPECT_TRUE(after_gather) << "node " << id;
    ++checked;
  }
  EXPECT_EQ(checked, 16u * 4u);  // 16 ranks, 4 layers each
}

TEST(Sharding, ParsingAndInvalidPlans) {
  EXPECT_EQ(parse_sharding("full"), Sharding::kFull);
  EXPECT_EQ(to_string(Sharding::kOptimizer), "optimizer");
  try {
    parse_sharding("zero3");
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("unknown sharding 'zero3', expected none, optimizer, gradients or full"));
  }
  const TransformerConfig moe{"tiny-moe", 4, 256, 4, 4, 1024, false, 1000, 128, true, 4, 2, 1.0, 0, 512, 0};
  ParallelPlan p;
  p.dp = 2;
  p.global_batch = 2;
  p.sharding = Sharding::kFull;
  try {
    synthesize_training(moe, p);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("sharding full (ZeRO-3/FSDP) supports dense models only"));
  }
}

// FSDP prefetch: layer L's all-gather is issued before layer L-1's ops (forward) or layer L+1's
// (backward), so none of its dependencies is an op of the neighbouring layer; without prefetch
// it waits for that layer's last op.
TEST(Sharding, PrefetchIssuesTheNextGatherBeforeTheCurrentLayer) {
  for (const bool prefetch : {true, false}) {
    ParallelPlan p;
    p.dp = 2;
    p.global_batch = 2;
    p.sharding = Sharding::kFull;
    p.prefetch = prefetch;
    const Workload w = synthesize_training(small_gpt(), p);
    std::map<std::uint16_t, std::uint32_t> seen;  // layer -> gathers seen (0: forward, 1: backward)
    std::uint32_t checked = 0;
    for (NodeId id = 0; id < w.node_count(); ++id) {
      const Node& n = w.node(id);
      if (n.rank != 0 || n.kind != NodeKind::kCollective || n.op != CollectiveOp::kAllGather) continue;
      if (n.layer == kNoIndex) continue;
      const bool forward = seen[n.layer]++ == 0;
      const int neighbour = forward ? n.layer - 1 : n.layer + 1;
      if (neighbour < 0 || neighbour >= 8) continue;
      bool waits_for_neighbour = false;
      for (NodeId d : w.deps(id)) {
        const Node& dep = w.node(d);
        waits_for_neighbour |= dep.kind == NodeKind::kCompute && dep.layer == neighbour;
      }
      EXPECT_EQ(waits_for_neighbour, !prefetch) << "layer " << n.layer << (forward ? " forward" : " backward");
      // The layer's first op waits for its gather (directly).
      NodeId first_op = id + 1;
      while (w.node(first_op).layer != n.layer || w.node(first_op).kind != NodeKind::kCompute) ++first_op;
      const auto deps = w.deps(first_op);
      EXPECT_NE(std::find(deps.begin(), deps.end(), id), deps.end()) << "layer " << n.layer;
      ++checked;
    }
    EXPECT_EQ(checked, 2u * 7u);
  }
}

// A fully sharded 1F1B step with TP, PP and DP finishes on the runtime: no deadlock, every node
// ran, no sooner than the critical path at infinite bandwidth, in exactly the time this input fixes
// (pinned: a change to the synthesis, the compute model or the runtime shows here).
TEST(Sharding, FullRunsToCompletionOnTheRuntime) {
  ParallelPlan p = sharded_plan(Sharding::kFull, 2);
  p.dp = 2;
  p.global_batch = 4;
  p.recompute = Recompute::kFull;
  p.iterations = 2;
  Workload w = synthesize_training(small_gpt(), p);
  testing::time_on_a100(w);
  EXPECT_EQ(testing::run_on_a_star(w, p.ranks()).makespan, Time::ps(2763664544));
}

}  // namespace
}  // namespace loom::workload::synthesis
