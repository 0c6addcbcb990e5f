// DLRM synthesis: node counts, all-to-all and all-reduce sizes and MLP FLOPs against the closed
// forms of dlrm.h (FACTS §4), invalid parameters, and a run on the system runtime.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workload/synthesis_testing.h"
#include "loom/core/error.h"
#include "loom/workload/compute/compute_model.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/synthesis/dlrm.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload::synthesis {
namespace {

using collective::CollectiveOp;

DlrmPlan plan(std::uint32_t ranks, DataType dtype = DataType::kFp32) {
  DlrmPlan p;
  p.ranks = ranks;
  p.dtype = dtype;
  return p;
}

std::uint32_t nodes_of(const Workload& w, std::uint32_t rank) {
  std::uint32_t count = 0;
  for (NodeId id = 0; id < w.node_count(); ++id) count += w.node(id).rank == rank ? 1 : 0;
  return count;
}

// The node of `rank` labelled `label` in iteration 0 (test failure if there is none).
Node find(const Workload& w, std::uint32_t rank, std::string_view label) {
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node n = w.node(id);
    if (n.rank == rank && n.iteration == 0 && w.label(n.label) == label) return n;
  }
  ADD_FAILURE() << "no node " << label << " on rank " << rank;
  return Node{};
}

TEST(DlrmConfig, MlperfShapes) {
  const DlrmConfig m = mlperf_dlrm();
  EXPECT_EQ(m.top_input(), 128u + 27u * 26u / 2u);  // 479
  const std::uint64_t bottom = (13 * 512 + 512) + (512 * 256 + 256) + (256 * 128 + 128);
  const std::uint64_t top = (479 * 1024 + 1024) + (1024 * 1024 + 1024) + (1024 * 512 + 512) + (512 * 256 + 256) +
                            (256 * 1 + 1);
  EXPECT_EQ(m.mlp_parameters(), bottom + top);
  EXPECT_EQ(m.mlp_parameters(), 2'368'897u);
}

// Per rank: bottom 3 + embedding + all-to-all + interaction + top 5 forward; top 5 +
// interaction + all-to-all + bottom 3 + all-reduce + embedding update + optimizer backward.
TEST(Dlrm, NodeCounts) {
  const Workload two = synthesize_dlrm(mlperf_dlrm(), plan(2));
  EXPECT_EQ(two.node_count(), 2u * 24u);
  EXPECT_EQ(nodes_of(two, 1), 24u);
  EXPECT_EQ(two.communicator_count(), 2u);
  // One rank: no collectives.
  EXPECT_EQ(synthesize_dlrm(mlperf_dlrm(), plan(1)).node_count(), 21u);
  // 32 ranks, 26 tables: ranks 26..31 hold none, so no lookup and no update.
  const Workload wide = synthesize_dlrm(mlperf_dlrm(), plan(32));
  EXPECT_EQ(nodes_of(wide, 25), 24u);
  EXPECT_EQ(nodes_of(wide, 26), 22u);
  EXPECT_EQ(wide.node_count(), 26u * 24u + 6u * 22u);
  DlrmPlan three = plan(2);
  three.iterations = 3;
  EXPECT_EQ(synthesize_dlrm(mlperf_dlrm(), three).node_count(), 3u * 2u * 24u);
}

// All-to-all send buffer per rank: B·T_max·D·e, forward and backward alike.
TEST(Dlrm, AllToAllSizeIsBatchTimesLocalTablesTimesDimension) {
  const Workload two = synthesize_dlrm(mlperf_dlrm(), plan(2));
  for (std::uint32_t r : {0u, 1u}) {
    for (std::string_view label : {"fwd.alltoall", "bwd.alltoall"}) {
      const Node& n = find(two, r, label);
      EXPECT_EQ(n.kind, NodeKind::kCollective);
      EXPECT_EQ(n.op, CollectiveOp::kAllToAll);
      EXPECT_EQ(n.bytes, 2048u * 13u * 128u * 4u) << label;
      EXPECT_EQ(n.stream, Streams::kTensor);
      EXPECT_EQ(n.dtype, DataType::kFp32);
    }
  }
  DlrmPlan thirteen_ranks = plan(13, DataType::kBf16);
  thirteen_ranks.global_batch = 13 * 128;
  const Workload thirteen = synthesize_dlrm(mlperf_dlrm(), thirteen_ranks);
  EXPECT_EQ(find(thirteen, 12, "fwd.alltoall").bytes, 1664u * 2u * 128u * 2u);
  // 26 tables on 4 ranks: 7, 7, 6, 6; every part padded to the largest shard.
  const Workload four = synthesize_dlrm(mlperf_dlrm(), plan(4));
  EXPECT_EQ(find(four, 3, "fwd.alltoall").bytes, 2048u * 7u * 128u * 4u);
  EXPECT_EQ(find(four, 0, "fwd.embedding").bytes, 2048u * 7u * 2u * 128u * 4u);
  EXPECT_EQ(find(four, 3, "fwd.embedding").bytes, 2048u * 6u * 2u * 128u * 4u);
  EXPECT_EQ(find(four, 3, "fwd.embedding").flops, 2048u * 6u * 128u);
}

TEST(Dlrm, DenseAllReduceCarriesEveryMlpGradient) {
  DlrmPlan p = plan(4);
  p.grad_dtype = DataType::kBf16;
  const Workload w = synthesize_dlrm(mlperf_dlrm(), p);
  for (std::uint32_t r = 0; r < 4; ++r) {
    const Node& n = find(w, r, "dp.allreduce_grads");
    EXPECT_EQ(n.op, CollectiveOp::kAllReduce);
    EXPECT_EQ(n.bytes, 2'368'897u * 2u);
    EXPECT_EQ(n.stream, Streams::kData);
    EXPECT_EQ(w.communicator(n.communicator).kind, CommunicatorKind::kData);
    EXPECT_EQ(w.communicator(n.communicator).ranks.size(), 4u);
  }
}

// 2·n·in·out per layer forward, 4·n·in·out backward, n = 2048 / 4 = 512 samples per rank.
TEST(Dlrm, MlpFlops) {
  const Workload w = synthesize_dlrm(mlperf_dlrm(), plan(4));
  const std::uint64_t n = 512;
  const std::pair<std::uint64_t, std::uint64_t> bottom[] = {{13, 512}, {512, 256}, {256, 128}};
  const std::pair<std::uint64_t, std::uint64_t> top[] = {{479, 1024}, {1024, 1024}, {1024, 512}, {512, 256}, {256, 1}};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(find(w, 2, "fwd.bottom_mlp." + std::to_string(i)).flops, 2 * n * bottom[i].first * bottom[i].second);
    EXPECT_EQ(find(w, 2, "bwd.bottom_mlp." + std::to_string(i)).flops, 4 * n * bottom[i].first * bottom[i].second);
  }
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(find(w, 2, "fwd.top_mlp." + std::to_string(i)).flops, 2 * n * top[i].first * top[i].second);
    EXPECT_EQ(find(w, 2, "bwd.top_mlp." + std::to_string(i)).flops, 4 * n * top[i].first * top[i].second);
  }
  EXPECT_EQ(find(w, 2, "fwd.interaction").flops, 2 * n * 27 * 27 * 128);
  EXPECT_EQ(find(w, 2, "bwd.interaction").flops, 4 * n * 27 * 27 * 128);
}

// The interaction waits for the pooled embeddings; the bottom MLP does not.
TEST(Dlrm, InteractionWaitsForTheAllToAll) {
  const Workload w = synthesize_dlrm(mlperf_dlrm(), plan(2));
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const std::string_view label = w.label(w.node(id).label);
    std::vector<std::string_view> deps;
    for (NodeId d : w.deps(id)) deps.push_back(w.label(w.node(d).label));
    if (label == "fwd.interaction") {
      EXPECT_THAT(deps, ::testing::UnorderedElementsAre("fwd.bottom_mlp.2", "fwd.alltoall"));
    } else if (label == "fwd.bottom_mlp.0") {
      EXPECT_THAT(deps, ::testing::ElementsAre("fwd.embedding"));
    } else if (label == "bwd.embedding") {
      EXPECT_THAT(deps, ::testing::UnorderedElementsAre("bwd.bottom_mlp.0", "bwd.alltoall"));
    }
  }
}

void expect_error(DlrmConfig m, DlrmPlan p, const std::string& fragment) {
  try {
    synthesize_dlrm(m, p);
    ADD_FAILURE() << "no error for " << fragment;
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr(fragment));
  }
}

TEST(Dlrm, InvalidParameters) {
  DlrmConfig m = mlperf_dlrm();
  m.tables = 0;
  expect_error(m, plan(2), "tables must be positive");
  m = mlperf_dlrm();
  m.bottom_mlp = {512, 256, 64};
  expect_error(m, plan(2), "last bottom_mlp width 64 must equal embedding_dim 128");
  m = mlperf_dlrm();
  m.top_mlp.clear();
  expect_error(m, plan(2), "top_mlp needs at least one layer");
  m = mlperf_dlrm();
  m.top_mlp[1] = 0;
  expect_error(m, plan(2), "top_mlp layer 1 has width 0");
  expect_error(mlperf_dlrm(), plan(3), "global_batch 2048 is not divisible by ranks 3");
  expect_error(mlperf_dlrm(), plan(0), "ranks must be positive");
  expect_error(mlperf_dlrm(), plan(2, DataType::kUnknown), "dtype and grad_dtype must be set");
}

// Two iterations on 8 GPUs at 400 Gbit/s with A100 compute: every node runs, no sooner than the
// critical path at infinite bandwidth, in exactly the time this input fixes (pinned: a change to the
// synthesis, the compute model or the runtime shows here).
TEST(Dlrm, RunsToCompletionOnTheRuntime) {
  DlrmPlan p = plan(8);
  p.iterations = 2;
  Workload w = synthesize_dlrm(mlperf_dlrm(), p);
  testing::time_on_a100(w);
  EXPECT_EQ(testing::run_on_a_star(w, 8).makespan, Time::ps(1030741870));
}

}  // namespace
}  // namespace loom::workload::synthesis
