// Mixture-of-experts layers with expert parallelism: all-to-all sizes, expert gradient groups,
// FLOPs and parameter counts against closed forms (FACTS §4).
#include <map>

#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload::synthesis {
namespace {

using collective::CollectiveOp;

// l = 4 (layer 0 dense), h = 256, s = 128, V = 1000; E = 4 routed experts of width f = 512, top-2,
// capacity factor 1.25, one shared expert.
TransformerConfig small_moe() {
  return {"small-moe", 4, 256, 4, 4, 1024, false, 1000, 128, true, 4, 2, 1.25, 1, 512, 1};
}

ParallelPlan moe_plan() {
  ParallelPlan p;
  p.tp = 2;
  p.sequence_parallel = true;
  p.dp = 4;
  p.ep = 2;
  p.global_batch = 8;  // m = 2
  return p;
}

TEST(MixtureOfExperts, PublishedParameterCounts) {
  EXPECT_NEAR(static_cast<double>(find_transformer("mixtral-8x7b").parameters()) / 1e9, 46.7, 0.2);
  EXPECT_NEAR(static_cast<double>(find_transformer("deepseek-v3").parameters()) / 1e9, 671.0, 2.0);
}

TEST(MixtureOfExperts, FourAllToAllsPerLayerAndMicroBatch) {
  const Workload w = synthesize_training(small_moe(), moe_plan());
  std::map<std::string, std::pair<int, Bytes>> by_group;  // group -> (count, bytes) on rank 0
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank != 0 || n.kind != NodeKind::kCollective) continue;
    auto& entry = by_group[w.communicator(n.communicator).group + "/" + std::string(collective::to_string(n.op))];
    ++entry.first;
    entry.second += n.bytes;
  }
  // 3 MoE layers x 2 micro-batches x (dispatch, combine) x (forward, backward); each moves the
  // rank's T = b·s/t = 64 tokens x k = 2 x h = 256 x 2 bytes x C = 1.25.
  const Bytes per_a2a = 64 * 2 * 256 * 2 * 5 / 4;
  EXPECT_EQ(by_group["ep/all-to-all"], std::make_pair(24, 24 * per_a2a));
  // Routed experts: E/ep = 2 experts of 2·h·f parameters per MoE layer, fp32 gradients, reduced
  // over the tp·dp/ep = 4 ranks holding the same experts.
  EXPECT_EQ(by_group["expert_dp/all-reduce"].second, 3u * 2 * 2 * 256 * 512 * 4);
  // The expert-data-parallel group of rank 0: TP ranks 0, 1 at EP position 0 of both outer groups.
  std::map<std::string, std::vector<std::uint32_t>> groups;
  for (CommunicatorId c = 0; c < w.communicator_count(); ++c) groups[w.communicator(c).name] = w.communicator(c).ranks;
  EXPECT_EQ(groups["expert_dp.0"], (std::vector<std::uint32_t>{0, 1, 4, 5}));
  EXPECT_EQ(groups["ep.0"], (std::vector<std::uint32_t>{0, 2}));
  EXPECT_NO_THROW(w.validate());
}

TEST(MixtureOfExperts, FlopsMatchTheClosedForm) {
  const Workload w = synthesize_training(small_moe(), moe_plan());
  std::uint64_t total = 0;
  for (NodeId id = 0; id < w.node_count(); ++id) total += w.node(id).flops;
  const std::uint64_t B = 8, s = 128, h = 256, V = 1000, f = 512, ffn = 1024, E = 4;
  const std::uint64_t attention = 8 * B * s * h * h + 4 * B * s * s * h;  // per layer forward
  const std::uint64_t dense_mlp = 4 * B * s * h * ffn;
  // router 2·B·s·h·E; routed experts 4·B·s·(k·C = 2.5)·h·f; shared expert 4·B·s·h·f
  const std::uint64_t moe_mlp = 2 * B * s * h * E + 10 * B * s * h * f + 4 * B * s * h * f;
  const std::uint64_t forward = 4 * attention + dense_mlp + 3 * moe_mlp + 2 * B * s * h * V;
  EXPECT_EQ(total, 3 * forward);
}

TEST(MixtureOfExperts, InvalidExpertPlans) {
  auto expect_error = [](const TransformerConfig& m, ParallelPlan p, const char* message) {
    try {
      synthesize_training(m, p);
      FAIL() << message;
    } catch (const UserError& e) {
      EXPECT_STREQ(e.what(), message);
    }
  };
  ParallelPlan p = moe_plan();
  p.sequence_parallel = false;
  expect_error(small_moe(), p,
               "parallel plan for 'small-moe': a mixture of experts with tp > 1 needs sequence_parallel (each TP rank "
               "routes its share of the tokens)");
  p = moe_plan();
  p.ep = 3;
  expect_error(small_moe(), p, "parallel plan for 'small-moe': dp 4 is not divisible by ep 3");
  TransformerConfig dense = small_moe();
  dense.experts = 0;
  expect_error(dense, moe_plan(), "parallel plan: ep 2 needs a mixture-of-experts model, 'small-moe' is dense");
}

}  // namespace
}  // namespace loom::workload::synthesis
