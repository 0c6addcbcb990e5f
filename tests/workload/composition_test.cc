// Composition (composition.h): copies land on the mapped ranks with their communicators and
// peers moved too, chained copies run one after another on each rank, and bad rank maps are
// rejected.
#include <gtest/gtest.h>

#include "../system/dag_builder.h"
#include "loom/core/error.h"
#include "loom/workload/composition.h"

namespace loom::workload {
namespace {

using system::testing::DagBuilder;

// Two ranks: a compute node each, then an all-reduce, then rank 0 sends to rank 1.
Workload two_rank_part() {
  DagBuilder dag(2, "step");
  const CommunicatorId world = dag.communicator({0, 1}, CommunicatorKind::kData, "dp");
  const NodeId c0 = dag.compute(0, Time::us(5));
  const NodeId c1 = dag.compute(1, Time::us(5));
  const NodeId a0 = dag.collective(0, world, 1024, {c0});
  const NodeId a1 = dag.collective(1, world, 1024, {c1});
  dag.send(0, 1, 64, {a0});
  dag.recv(1, 0, 64, {a1});
  return std::move(dag.workload());
}

TEST(Composition, CopiesLandOnMappedRanksWithTheirCommunicatorsAndPeers) {
  const Workload part = two_rank_part();
  Composition composed(8);
  const std::vector<std::uint32_t> map{6, 3};
  const std::vector<NodeRange> ranges = composed.append(part, map, "jobA/");
  const Workload& w = composed.workload();
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0].first, 0u);
  EXPECT_EQ(ranges[0].last, part.node_count());
  ASSERT_EQ(w.communicator_count(), 1u);
  EXPECT_EQ(w.communicator(0).name, "jobA/dp");
  EXPECT_EQ(w.communicator(0).ranks, (std::vector<std::uint32_t>{6, 3}));
  EXPECT_EQ(w.node(0).rank, 6u);
  EXPECT_EQ(w.node(1).rank, 3u);
  EXPECT_EQ(w.node(4).kind, NodeKind::kSend);
  EXPECT_EQ(w.node(4).rank, 6u);
  EXPECT_EQ(w.node(4).peer, 3u);
  EXPECT_EQ(w.label(w.node(0).label), "jobA/step");
  w.validate();
}

TEST(Composition, ChainedCopiesWaitForThePreviousCopysSinksOnTheirRank) {
  const Workload part = two_rank_part();
  Composition composed(2);
  const std::vector<std::uint32_t> map{0, 1};
  const std::vector<NodeRange> ranges = composed.append(part, map, "", 3);
  const Workload& w = composed.workload();
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(w.communicator_count(), 1u);  // copies share the communicators
  for (std::uint32_t k = 1; k < 3; ++k) {
    // The copy's first compute node (rank 0) waits for the previous copy's send, its only sink
    // on rank 0; the rank-1 compute node for the previous receive.
    const NodeId first = ranges[k].first;
    ASSERT_EQ(w.deps(first).size(), 1u);
    EXPECT_EQ(w.deps(first)[0], ranges[k - 1].first + 4);
    ASSERT_EQ(w.deps(first + 1).size(), 1u);
    EXPECT_EQ(w.deps(first + 1)[0], ranges[k - 1].first + 5);
  }
  w.validate();
}

TEST(Composition, DelayRunsBeforeTheNextCopyOnItsRank) {
  const Workload part = two_rank_part();
  Composition composed(2);
  const NodeId wait = composed.delay(1, Time::ms(3), "start");
  const std::vector<std::uint32_t> map{0, 1};
  const NodeRange range = composed.append(part, map, "")[0];
  const Workload& w = composed.workload();
  EXPECT_EQ(w.node(wait).duration, Time::ms(3));
  EXPECT_TRUE(w.deps(range.first).empty());  // rank 0 starts at once
  ASSERT_EQ(w.deps(range.first + 1).size(), 1u);
  EXPECT_EQ(w.deps(range.first + 1)[0], wait);
}

TEST(Composition, RejectsRankMapsThatDoNotFit) {
  const Workload part = two_rank_part();
  Composition composed(4);
  const std::vector<std::uint32_t> too_short{0};
  const std::vector<std::uint32_t> twice{2, 2};
  const std::vector<std::uint32_t> outside{1, 4};
  EXPECT_THROW(composed.append(part, too_short, "a/"), UserError);
  EXPECT_THROW(composed.append(part, twice, "a/"), UserError);
  EXPECT_THROW(composed.append(part, outside, "a/"), UserError);
}

}  // namespace
}  // namespace loom::workload
