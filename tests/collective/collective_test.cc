#include "loom/collective/collective.h"

#include "loom/collective/block_layout.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"

namespace loom::collective {
namespace {

TEST(CollectiveNames, RoundTrip) {
  EXPECT_EQ(to_string(CollectiveOp::kAllReduce), "all-reduce");
  EXPECT_EQ(to_string(CollectiveOp::kAllGather), "all-gather");
  EXPECT_EQ(to_string(CollectiveOp::kReduceScatter), "reduce-scatter");
  EXPECT_EQ(to_string(CollectiveOp::kAllToAll), "all-to-all");
  EXPECT_EQ(to_string(Algorithm::kRing), "ring");
  EXPECT_EQ(to_string(Algorithm::kDirect), "direct");
  EXPECT_EQ(to_string(CollectiveOp::kAllToAllV), "all-to-all-v");
  EXPECT_EQ(to_string(CollectiveOp::kBarrier), "barrier");
  EXPECT_EQ(to_string(Algorithm::kHalvingDoubling), "halving-doubling");
  for (const CollectiveOp op : all_collective_ops()) EXPECT_EQ(parse_collective_op(to_string(op)), op);
  for (const Algorithm a : all_algorithms()) EXPECT_EQ(parse_algorithm(to_string(a)), a);
  EXPECT_EQ(all_collective_ops().size(), 10u);
  EXPECT_EQ(to_string(Algorithm::kNvls), "nvls");
  EXPECT_EQ(to_string(Algorithm::kNvlsTree), "nvls-tree");
  EXPECT_EQ(to_string(Algorithm::kInNetwork), "in-network");
  EXPECT_EQ(all_algorithms().size(), 8u);
}

TEST(CollectiveNames, UnknownNamesListTheValidOnes) {
  try {
    parse_collective_op("allreduce");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "unknown collective operation 'allreduce'; expected one of: all-reduce, all-gather, "
                 "reduce-scatter, all-to-all, all-to-all-v, broadcast, reduce, gather, scatter, barrier");
  }
  try {
    parse_algorithm("Ring");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "unknown collective algorithm 'Ring'; expected one of: ring, direct, tree, halving-doubling, hierarchical, "
                           "nvls, nvls-tree, in-network");
  }
  EXPECT_THROW(parse_collective_op(""), UserError);
}

TEST(BusBandwidth, NcclTestsFactors) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kAllToAll, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kAllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kAllToAll, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kReduce, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kBroadcast, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::kBarrier, 8), 0.0);
  try {
    bus_bandwidth_factor(CollectiveOp::kAllReduce, 0);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "bus bandwidth factor: members is 0; expected at least 1 member");
  }
}

TEST(BlockLayout, RemainderGoesToTheFirstBlocks) {
  // 10 bytes over 4 slices: 3, 3, 2, 2.
  EXPECT_EQ(slice_bytes(10, 4, 0), 3u);
  EXPECT_EQ(slice_bytes(10, 4, 1), 3u);
  EXPECT_EQ(slice_bytes(10, 4, 2), 2u);
  EXPECT_EQ(slice_bytes(10, 4, 3), 2u);
  EXPECT_EQ(slice_bytes(3, 5, 2), 1u);
  EXPECT_EQ(slice_bytes(3, 5, 3), 0u);
  EXPECT_EQ(slice_bytes(0, 1, 0), 0u);
  for (const std::uint32_t n : {1u, 2u, 3u, 7u, 64u}) {
    for (const Bytes size : {Bytes{0}, Bytes{1}, Bytes{63}, Bytes{1000003}}) {
      Bytes sum = 0;
      for (std::uint32_t b = 0; b < n; ++b) sum += slice_bytes(size, n, b);
      EXPECT_EQ(sum, size) << n << " " << size;
    }
  }
  EXPECT_THROW(slice_bytes(10, 4, 4), InternalError);
}

TEST(BlockLayout, AllToAllBlocksAreSrcTimesNPlusDst) {
  const CollectiveSpec spec{.op = CollectiveOp::kAllToAll, .members = 4, .size = 10};
  EXPECT_EQ(block_count(CollectiveOp::kAllToAll, 4), 16u);
  EXPECT_EQ(block_count(CollectiveOp::kAllGather, 4), 4u);
  // Block (2, 1) = 9 carries slice 1 of member 2's send buffer: 3 bytes; block (1, 3) = 7: 2.
  EXPECT_EQ(block_bytes(spec, 9), 3u);
  EXPECT_EQ(block_bytes(spec, 7), 2u);
  EXPECT_THROW(block_bytes(spec, 16), InternalError);
}

void expect_invalid(Algorithm algorithm, const CollectiveSpec& spec, const char* message) {
  try {
    make_execution(algorithm, spec);
    FAIL() << "expected a UserError: " << message;
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), message);
  }
}

TEST(MakeExecution, RejectsUnusableSpecs) {
  expect_invalid(Algorithm::kRing, {.op = CollectiveOp::kAllReduce, .members = 0, .size = 8},
                 "all-reduce: members is 0; expected at least 1 member");
  expect_invalid(Algorithm::kDirect,
                 {.op = CollectiveOp::kAllGather, .members = 4, .size = 8, .window = 0},
                 "all-gather: window is 0; expected at least 1 transfer outstanding per member");
  expect_invalid(Algorithm::kRing, {.op = CollectiveOp::kAllReduce, .members = 4, .size = 8, .channels = 0},
                 "all-reduce: channels is 0; expected at least 1");
  expect_invalid(Algorithm::kRing, {.op = CollectiveOp::kAllReduce, .members = 4, .size = 8, .chunks = 0},
                 "all-reduce: chunks is 0; expected at least 1");
  expect_invalid(Algorithm::kRing,
                 {.op = CollectiveOp::kAllReduce, .members = 4, .size = 8, .channels = 512, .chunks = 256},
                 "all-reduce: channels x chunks is 512 x 256; expected at most 65536 pieces per block");
  expect_invalid(Algorithm::kRing, {.op = CollectiveOp::kBroadcast, .members = 4, .size = 8, .root = 4},
                 "broadcast: root is member 4; expected a member index below 4");
  expect_invalid(Algorithm::kDirect, {.op = CollectiveOp::kAllToAllV, .members = 3, .size = 8},
                 "all-to-all-v: pair_bytes has 0 entries; expected members x members = 9");
  expect_invalid(Algorithm::kTree, {.op = CollectiveOp::kAllGather, .members = 4, .size = 8},
                 "the tree algorithm does not implement all-gather; algorithms that do: ring, direct, "
                 "halving-doubling");
  expect_invalid(Algorithm::kRing, {.op = CollectiveOp::kGather, .members = 4, .size = 8},
                 "the ring algorithm does not implement gather; algorithms that do: direct");
  expect_invalid(Algorithm::kRing, {.op = CollectiveOp::kAllToAll, .members = 65537, .size = 8},
                 "all-to-all: members is 65537; expected at most 65536 (block ids are 32-bit)");
}

TEST(MakeExecution, SingleMemberFinishesAtStartWithoutTransfers) {
  const auto one_pair = std::make_shared<const std::vector<Bytes>>(1, 7);
  for (const Algorithm algorithm : all_algorithms()) {
    for (const CollectiveOp op : all_collective_ops()) {
      if (!supports(algorithm, op)) continue;
      auto execution = make_execution(algorithm, {.op = op, .members = 1, .size = 1024, .pair_bytes = one_pair});
      EXPECT_FALSE(execution->finished());
      Progress progress;
      execution->start(progress);
      EXPECT_TRUE(progress.ready.empty());
      EXPECT_EQ(progress.finished_members, std::vector<std::uint32_t>{0});
      EXPECT_TRUE(execution->finished());
    }
  }
}

TEST(MakeExecution, RingAllReduceFirstStepsFollowTheRing) {
  // n = 4, 10 bytes: blocks of 3, 3, 2, 2. Step 0 of member i sends block i-1 to i+1 (reduce).
  auto execution = make_execution(Algorithm::kRing, {.op = CollectiveOp::kAllReduce, .members = 4, .size = 10});
  Progress progress;
  execution->start(progress);
  ASSERT_EQ(progress.ready.size(), 4u);
  const std::uint32_t expected_block[] = {3, 0, 1, 2};
  const Bytes expected_bytes[] = {2, 3, 3, 2};
  for (std::uint32_t i = 0; i < 4; ++i) {
    const Transfer& t = progress.ready[i];
    EXPECT_EQ(t.src, i);
    EXPECT_EQ(t.dst, (i + 1) % 4);
    EXPECT_EQ(t.block, expected_block[i]);
    EXPECT_EQ(t.bytes, expected_bytes[i]);
    EXPECT_EQ(t.action, DataAction::kReduce);
  }
  // Member 1 receives block 3 from member 0, but forwards it (step 1) to member 2 only once its
  // own step-0 send has arrived too: one connection, one step at a time.
  const Transfer first = progress.ready[0];
  const Transfer second = progress.ready[1];
  progress = {};
  execution->on_done(first, progress);
  EXPECT_TRUE(progress.ready.empty());
  execution->on_done(second, progress);
  ASSERT_EQ(progress.ready.size(), 1u);
  EXPECT_EQ(progress.ready[0].src, 1u);
  EXPECT_EQ(progress.ready[0].dst, 2u);
  EXPECT_EQ(progress.ready[0].block, 3u);
  EXPECT_EQ(progress.ready[0].step, 1u);
  EXPECT_TRUE(progress.finished_members.empty());
}

TEST(MakeExecution, LargeCommunicatorsStartWithOneTransferPerMemberAndWindow) {
  constexpr std::uint32_t n = 16384;
  for (const auto op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
                        CollectiveOp::kAllToAll}) {
    auto ring = make_execution(Algorithm::kRing, {.op = op, .members = n, .size = 1u << 30});
    Progress progress;
    ring->start(progress);
    EXPECT_EQ(progress.ready.size(), n) << to_string(op);
    const Transfer first = progress.ready[0];
    const Transfer second = progress.ready[1];
    progress = {};
    // All-to-all members move on when their own send arrives; the others also wait to receive.
    ring->on_done(first, progress);
    EXPECT_EQ(progress.ready.size(), op == CollectiveOp::kAllToAll ? 1u : 0u) << to_string(op);
    ring->on_done(second, progress);
    EXPECT_EQ(progress.ready.size(), op == CollectiveOp::kAllToAll ? 2u : 1u) << to_string(op);
    EXPECT_FALSE(ring->finished());

    auto direct = make_execution(Algorithm::kDirect, {.op = op, .members = n, .size = 1u << 30, .window = 4});
    progress = {};
    direct->start(progress);
    EXPECT_EQ(progress.ready.size(), 4 * n) << to_string(op);
  }
}

}  // namespace
}  // namespace loom::collective
