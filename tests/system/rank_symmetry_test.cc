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
  EXPECT_EQ(s.image(4, 1), 1u);
  EXPECT_EQ(s.counterpart(1, 0, 2), 7u);
  EXPECT_TRUE(s.is_mirrored(1));
  EXPECT_FALSE(s.is_mirrored(3));
  EXPECT_EQ(s.mirrored_nodes(), 6u);
}

// The same four programs with the ranks' nodes interleaved in id order (step by step across
// ranks, node p * 4 + r) instead of rank by rank (r * 3 + p): the classes hold each rank's
// nodes and positions explicitly (rank_programs.h) and must map every position, image and
// counterpart as the contiguous layout does; the reduced run still equals the full one.
TEST(RankSymmetry, InterleavedRanksMapPositionsAsContiguousOnes) {
  DagBuilder interleaved(4);
  const auto world = interleaved.communicator({0, 1, 2, 3});
  std::vector<workload::NodeId> first(4), reduce(4);
  for (std::uint32_t r = 0; r < 4; ++r) first[r] = interleaved.compute(r, Time::us(r == 3 ? 20 : 10));
  for (std::uint32_t r = 0; r < 4; ++r) reduce[r] = interleaved.collective(r, world, 1 << 20, {first[r]});
  for (std::uint32_t r = 0; r < 4; ++r) interleaved.compute(r, Time::us(5), {reduce[r]});
  DagBuilder contiguous = four_ranks();
  const RankSymmetry a = RankSymmetry::find(contiguous.workload());
  const RankSymmetry b = RankSymmetry::find(interleaved.workload());
  EXPECT_TRUE(a.programs()->contiguous());
  EXPECT_FALSE(b.programs()->contiguous());
  ASSERT_EQ(b.class_count(), a.class_count());
  EXPECT_EQ(b.mirrored_nodes(), a.mirrored_nodes());
  const auto as_interleaved = [](workload::NodeId id) { return id % 3 * 4 + id / 3; };
  for (std::uint32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(b.representative(r), a.representative(r));
    ASSERT_EQ(b.program(r).size(), 3u);
    for (std::uint32_t p = 0; p < 3; ++p) {
      const workload::NodeId ida = a.program(r)[p], idb = b.program(r)[p];
      EXPECT_EQ(ida, r * 3 + p);
      EXPECT_EQ(idb, as_interleaved(ida));
      EXPECT_EQ(b.position(idb, r), p);
      EXPECT_EQ(a.position(ida, r), p);
      EXPECT_EQ(b.image(idb, r), as_interleaved(a.image(ida, r)));
      for (std::uint32_t other = 0; other < 4; ++other) {
        EXPECT_EQ(b.counterpart(idb, r, other), as_interleaved(a.counterpart(ida, r, other)));
      }
    }
  }
  const auto program = b.program(2);
  EXPECT_EQ(std::vector<workload::NodeId>(program.begin(), program.end()), (std::vector<workload::NodeId>{2, 6, 10}));
  const StarFabric fabric(4);
  testing::expect_same_run(testing::run_reduced(fabric.topology, fabric.routing, interleaved.workload(), b),
                           testing::run_analytical(fabric.topology, fabric.routing, interleaved.workload()));
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
