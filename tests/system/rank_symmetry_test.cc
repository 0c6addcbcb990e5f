// RankSymmetry (classes of ranks with identical programs) and the runtime's mirrored ranks.
#include "loom/system/rank_symmetry.h"

#include <gtest/gtest.h>

#include "loom/system/runtime.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"
#include "system/same_run.h"

namespace loom::system {
namespace {

using testing::DagBuilder;
using testing::StarFabric;

// Four ranks: compute, an all-reduce over all, compute; rank 3 computes twice as long first.
DagBuilder four_ranks(collective::CollectiveOp op = collective::CollectiveOp::kAllReduce) {
  DagBuilder dag(4);
  const auto world = dag.communicator({0, 1, 2, 3});
  for (std::uint32_t r = 0; r < 4; ++r) {
    const auto first = dag.compute(r, Time::us(r == 3 ? 20 : 10));
    const auto reduce = dag.collective(r, world, 1 << 20, {first}, 0, op);
    dag.compute(r, Time::us(5), {reduce});
  }
  return dag;
}

TEST(RankSymmetry, RanksWithTheSameProgramShareAClass) {
  DagBuilder dag = four_ranks();
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  ASSERT_TRUE(s.declined().empty());
  EXPECT_TRUE(s.reduces());
  ASSERT_EQ(s.class_count(), 2u);
  EXPECT_EQ(std::vector<std::uint32_t>(s.members(0).begin(), s.members(0).end()), (std::vector<std::uint32_t>{0, 1, 2}));
  EXPECT_EQ(s.representative(2), 0u);
  EXPECT_EQ(s.representative(3), 3u);
  // Rank 1's nodes are 3, 4, 5: images of rank 0's 0, 1, 2.
  EXPECT_EQ(s.image(4), 1u);
  EXPECT_EQ(s.counterpart(1, 2), 7u);
  EXPECT_FALSE(s.is_mirror(9));
  EXPECT_EQ(s.mirrored_nodes(), 6u);
}

// Refining keeps (class, key) pairs apart exactly: class 0 with key 2 and class 1 with key 3
// stay two classes (a combination of the two numbers by XOR would make them one).
TEST(RankSymmetry, RefiningNeverMergesClasses) {
  DagBuilder dag = four_ranks();
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  ASSERT_EQ(s.class_count(), 2u);
  const RankSymmetry same = s.refined({2, 2, 2, 3});
  EXPECT_EQ(same.class_count(), 2u);
  EXPECT_EQ(same.representative(2), 0u);
  EXPECT_EQ(same.representative(3), 3u);
  const RankSymmetry split = s.refined({1, 0, 1, 0});
  EXPECT_EQ(split.class_count(), 3u);
  EXPECT_EQ(split.representative(1), 1u);
  EXPECT_EQ(split.representative(2), 0u);
  EXPECT_EQ(split.representative(3), 3u);
}

TEST(RankSymmetry, AReducedRunHasEveryNodesTimingOfTheFullRun) {
  const StarFabric fabric(4);
  DagBuilder dag = four_ranks();
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  const RunResult reduced = testing::run_reduced(fabric.topology, fabric.routing, dag.workload(), s);
  EXPECT_TRUE(reduced.symmetry_mismatch.empty()) << reduced.symmetry_mismatch;
  // Mirrored ranks 1 and 2 hold no record for their two compute nodes each: those read as rank
  // 0's, with enablers mapped to their own ranks (compared with the full run's below).
  EXPECT_EQ(reduced.nodes.held_count(), 12u - 4u);
  EXPECT_FALSE(reduced.nodes.is_held(5));
  EXPECT_TRUE(reduced.nodes.is_held(4));
  testing::expect_same_run(reduced, testing::run_analytical(fabric.topology, fabric.routing, dag.workload()));
}

// A ring broadcast reaches its members one after another: ranks with one program end it at
// different times, the run says which, and refining by that splits them.
TEST(RankSymmetry, MembersEndingAtOtherTimesAreFoundAndSplitOff) {
  const StarFabric fabric(4);
  DagBuilder dag = four_ranks(collective::CollectiveOp::kBroadcast);
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  RuntimeOptions options;
  options.default_algorithm = collective::Algorithm::kRing;
  options.symmetry = &s;
  options.refine_classes = false;  // the run's own check is under test
  const RunResult reduced = testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
  ASSERT_FALSE(reduced.symmetry_mismatch.empty());
  EXPECT_NE(reduced.symmetry_mismatch.find("representative rank 0"), std::string::npos) << reduced.symmetry_mismatch;
  ASSERT_EQ(reduced.symmetry_split.size(), 4u);
  EXPECT_EQ(reduced.symmetry_split[0], 0u);
  EXPECT_NE(reduced.symmetry_split[2], 0u);
  EXPECT_NE(reduced.symmetry_split[1], reduced.symmetry_split[2]);
  const RankSymmetry split = s.refined(reduced.symmetry_split);
  EXPECT_GE(split.class_count(), 3u);
  EXPECT_NE(split.representative(2), 0u);
  // With the split classes the run agrees with itself and with the full run.
  options.symmetry = &split;
  const RunResult again = testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
  EXPECT_TRUE(again.symmetry_mismatch.empty()) << again.symmetry_mismatch;
  options.symmetry = nullptr;
  const RunResult full = testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
  for (workload::NodeId id = 0; id < full.nodes.size(); ++id) EXPECT_EQ(again.nodes[id].end, full.nodes[id].end) << id;
}

TEST(RankSymmetry, ADependencyAcrossRanksDeclines) {
  DagBuilder dag(2);
  const auto a = dag.compute(0, Time::us(1));
  dag.compute(1, Time::us(1), {a});
  dag.compute(0, Time::us(1));
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  EXPECT_NE(s.declined().find("depends on a node of rank 0"), std::string::npos) << s.declined();
  EXPECT_FALSE(s.reduces());
}

}  // namespace
}  // namespace loom::system
