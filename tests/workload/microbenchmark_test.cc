#include "loom/workload/microbenchmark.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"

namespace loom::workload {
namespace {

using collective::CollectiveOp;
using namespace unit_literals;

std::vector<std::vector<std::uint32_t>> ranks_of(const std::vector<Communicator>& comms) {
  std::vector<std::vector<std::uint32_t>> out;
  for (const auto& c : comms) out.push_back(c.ranks);
  return out;
}

TEST(MicrobenchmarkGroups, ShapesPartitionTheRanks) {
  using Shape = GroupSpec::Shape;
  EXPECT_EQ(ranks_of(make_group({"tp", Shape::kBlock, 4, {}}, 8)),
            (std::vector<std::vector<std::uint32_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(ranks_of(make_group({"dp", Shape::kStride, 4, {}}, 8)),
            (std::vector<std::vector<std::uint32_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(ranks_of(make_group({"w", Shape::kAll, 0, {}}, 3)), (std::vector<std::vector<std::uint32_t>>{{0, 1, 2}}));
  const auto pair = make_group({"pair", Shape::kExplicit, 0, {5, 2}}, 8);
  ASSERT_EQ(pair.size(), 1u);
  EXPECT_EQ(pair[0].name, "pair");
  EXPECT_EQ(pair[0].ranks, (std::vector<std::uint32_t>{5, 2}));
  EXPECT_EQ(make_group({"tp", Shape::kBlock, 4, {}}, 8)[1].name, "tp.1");
}

TEST(MicrobenchmarkGroups, RejectsShapesThatDoNotDivide) {
  using Shape = GroupSpec::Shape;
  try {
    make_group({"tp", Shape::kBlock, 3, {}}, 8);
    FAIL() << "accepted block 3 over 8 ranks";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "group 'tp': block 3 must be a positive divisor of the rank count 8");
  }
  EXPECT_THROW(make_group({"dp", Shape::kStride, 0, {}}, 8), UserError);
  EXPECT_THROW(make_group({"x", Shape::kExplicit, 0, {}}, 8), UserError);
}

TEST(Microbenchmark, ChainsEachRanksCollectivesInOrder) {
  MicrobenchmarkSpec spec;
  spec.groups.push_back({"tp", GroupSpec::Shape::kBlock, 2, {}});
  spec.collectives.push_back({CollectiveOp::kAllReduce, "world", 1_MiB, 2, std::nullopt});
  spec.collectives.push_back({CollectiveOp::kAllGather, "tp", 4_KiB, 1, collective::Algorithm::kDirect});
  const Workload w = make_microbenchmark(spec, 4);
  // 2 tp communicators + world; 4 ranks x (2 all-reduce + 1 all-gather) nodes.
  EXPECT_EQ(w.communicator_count(), 3u);
  ASSERT_EQ(w.node_count(), 12u);
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    std::vector<NodeId> mine;
    for (NodeId id = 0; id < w.node_count(); ++id) {
      if (w.node(id).rank == rank) mine.push_back(id);
    }
    ASSERT_EQ(mine.size(), 3u);
    EXPECT_TRUE(w.deps(mine[0]).empty());
    ASSERT_EQ(w.deps(mine[1]).size(), 1u);
    EXPECT_EQ(w.deps(mine[1])[0], mine[0]);
    EXPECT_EQ(w.deps(mine[2])[0], mine[1]);
    EXPECT_EQ(w.node(mine[2]).op, CollectiveOp::kAllGather);
    EXPECT_EQ(w.node(mine[2]).bytes, 4_KiB);
    EXPECT_EQ(w.node(mine[2]).algorithm, collective::Algorithm::kDirect);
    EXPECT_FALSE(w.node(mine[0]).algorithm.has_value());
    EXPECT_EQ(w.communicator(w.node(mine[2]).communicator).name, rank < 2 ? "tp.0" : "tp.1");
  }
  EXPECT_EQ(w.label(w.node(0).label), "collectives[0] all-reduce on world (1MiB)");
}

TEST(Microbenchmark, RanksOutsideAnExplicitGroupSkipIt) {
  MicrobenchmarkSpec spec;
  spec.groups.push_back({"pair", GroupSpec::Shape::kExplicit, 0, {1, 3}});
  spec.collectives.push_back({CollectiveOp::kAllToAll, "pair", 1_KiB, 3, std::nullopt});
  const Workload w = make_microbenchmark(spec, 4);
  ASSERT_EQ(w.node_count(), 6u);
  for (NodeId id = 0; id < w.node_count(); ++id) EXPECT_TRUE(w.node(id).rank == 1 || w.node(id).rank == 3);
}

TEST(Microbenchmark, RejectsBadSpecs) {
  MicrobenchmarkSpec unknown_group;
  unknown_group.collectives.push_back({CollectiveOp::kAllReduce, "tp", 1_KiB, 1, std::nullopt});
  try {
    make_microbenchmark(unknown_group, 4);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "collectives[0]: unknown group 'tp'");
  }
  MicrobenchmarkSpec empty;
  EXPECT_THROW(make_microbenchmark(empty, 4), UserError);
  MicrobenchmarkSpec out_of_range;
  out_of_range.groups.push_back({"x", GroupSpec::Shape::kExplicit, 0, {0, 9}});
  out_of_range.collectives.push_back({CollectiveOp::kAllReduce, "x", 1_KiB, 1, std::nullopt});
  EXPECT_THROW(make_microbenchmark(out_of_range, 4), UserError);
  MicrobenchmarkSpec twice;
  twice.groups.push_back({"x", GroupSpec::Shape::kAll, 0, {}});
  twice.groups.push_back({"x", GroupSpec::Shape::kAll, 0, {}});
  twice.collectives.push_back({CollectiveOp::kAllReduce, "x", 1_KiB, 1, std::nullopt});
  EXPECT_THROW(make_microbenchmark(twice, 4), UserError);
}

TEST(Workload, RejectsForwardDependenciesAndForeignRanks) {
  Workload w(2);
  const LabelId label = w.intern_label("test");
  Node compute;
  compute.label = label;
  const NodeId first = w.add_node(compute, {});
  const NodeId forward = first + 5;
  EXPECT_THROW(w.add_node(compute, std::span(&forward, 1)), UserError);
  const CommunicatorId solo = w.add_communicator({"solo", "solo", {0}});
  Node coll;
  coll.kind = NodeKind::kCollective;
  coll.rank = 1;
  coll.communicator = solo;
  coll.label = label;
  EXPECT_THROW(w.add_node(coll, {}), UserError);
  EXPECT_THROW(w.add_communicator({"dup", "dup", {0, 0}}), UserError);
}

}  // namespace
}  // namespace loom::workload
