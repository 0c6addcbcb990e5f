// Closed-form timings of the multi-channel, chunked and new algorithms on a contention-free
// fabric where every transfer takes alpha + bytes * beta (timing_harness.h). Sizes are chosen
// so every transfer of a phase carries the same bytes: the formulas are then exact.
#include <cstdint>
#include <memory>

#include <gtest/gtest.h>

#include "loom/collective/collective.h"
#include "loom/collective/tree_schedule.h"
#include "timing_harness.h"

namespace loom::collective {
namespace {

using harness::run_timed;
using harness::Timing;

constexpr std::uint64_t kAlpha = 1'000'000;  // 1 us
constexpr std::uint64_t kBeta = 10;          // ps per byte: 800 Gb/s

std::uint64_t floor_log2(std::uint32_t n) {
  std::uint64_t levels = 0;
  while ((2u << levels) <= n) ++levels;
  return levels;
}

TEST(AlgorithmTiming, RingWithChannelsAndChunks) {
  // 2(n-1) K (alpha + S/(nP) beta) for all-reduce; (n-1) K (...) for all-gather.
  for (const std::uint32_t n : {2u, 3u, 5u, 8u, 13u}) {
    for (const auto& [channels, chunks] : {std::pair{1u, 4u}, std::pair{2u, 1u}, std::pair{4u, 3u}}) {
      const std::uint32_t pieces = channels * chunks;
      const Bytes per_piece = 1000;
      const CollectiveSpec all_reduce{.op = CollectiveOp::kAllReduce, .members = n,
                                      .size = Bytes{n} * pieces * per_piece, .channels = channels, .chunks = chunks};
      const std::uint64_t step = kAlpha + per_piece * kBeta;
      EXPECT_EQ(run_timed(Algorithm::kRing, all_reduce, kAlpha, kBeta).end_ps, 2 * (n - 1) * chunks * step)
          << n << " " << channels << "x" << chunks;
      CollectiveSpec all_gather = all_reduce;
      all_gather.op = CollectiveOp::kAllGather;
      EXPECT_EQ(run_timed(Algorithm::kRing, all_gather, kAlpha, kBeta).end_ps, (n - 1) * chunks * step);
    }
  }
}

TEST(AlgorithmTiming, RingBroadcastAndReducePipelineAlongTheChain) {
  // (n-1 + K-1) (alpha + S/P beta): chunk k leaves the root at k steps and needs n-1 hops.
  for (const std::uint32_t n : {2u, 4u, 7u, 16u}) {
    for (const std::uint32_t chunks : {1u, 2u, 8u}) {
      for (const CollectiveOp op : {CollectiveOp::kBroadcast, CollectiveOp::kReduce}) {
        const CollectiveSpec spec{.op = op, .members = n, .size = Bytes{chunks} * 4096, .chunks = chunks,
                                  .root = n / 2};
        const Timing timing = run_timed(Algorithm::kRing, spec, kAlpha, kBeta);
        EXPECT_EQ(timing.end_ps, (n - 1 + chunks - 1) * (kAlpha + 4096 * kBeta)) << to_string(op) << " n=" << n;
      }
    }
  }
}

TEST(AlgorithmTiming, HalvingDoublingPowerOfTwo) {
  // 2 log2(n) alpha + 2 (n-1)/n S beta.
  for (const std::uint32_t n : {2u, 4u, 8u, 16u, 64u, 256u}) {
    const Bytes size = Bytes{n} * 1024;
    const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = size};
    const Timing timing = run_timed(Algorithm::kHalvingDoubling, spec, kAlpha, kBeta);
    EXPECT_EQ(timing.end_ps, 2 * floor_log2(n) * kAlpha + 2 * (n - 1) * 1024 * kBeta) << n;
    // Reduce-scatter and all-gather take one half each.
    CollectiveSpec half = spec;
    half.op = CollectiveOp::kReduceScatter;
    EXPECT_EQ(run_timed(Algorithm::kHalvingDoubling, half, kAlpha, kBeta).end_ps,
              floor_log2(n) * kAlpha + (n - 1) * 1024 * kBeta);
  }
}

TEST(AlgorithmTiming, HalvingDoublingOtherSizesAddTwoSteps) {
  // Latency only: 2 floor(log2 n) + 2 steps (fold and unfold); n = 2^k keeps 2k.
  for (std::uint32_t n = 2; n <= 40; ++n) {
    const bool power = (n & (n - 1)) == 0;
    const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = 4096};
    EXPECT_EQ(run_timed(Algorithm::kHalvingDoubling, spec, kAlpha, 0).end_ps,
              (2 * floor_log2(n) + (power ? 0 : 2)) * kAlpha)
        << n;
  }
}

TEST(AlgorithmTiming, DoubleBinaryTreePipelinesUpAndDown) {
  // (2 floor(log2 n) + K - 1) (alpha + S/P beta); two channels = the two trees, same depth.
  for (const std::uint32_t n : {2u, 3u, 5u, 8u, 12u, 33u}) {
    for (const std::uint32_t chunks : {1u, 4u}) {
      for (const std::uint32_t channels : {1u, 2u}) {
        const std::uint32_t pieces = channels * chunks;
        const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = Bytes{n} * pieces * 100,
                                  .channels = channels, .chunks = chunks};
        const Timing timing = run_timed(Algorithm::kTree, spec, kAlpha, kBeta);
        EXPECT_EQ(timing.end_ps, (2 * floor_log2(n) + chunks - 1) * (kAlpha + Bytes{n} * 100 * kBeta))
            << "n=" << n << " " << channels << "x" << chunks;
      }
    }
  }
}

TEST(AlgorithmTiming, HierarchicalRingsPerDimension) {
  // g per host, h hosts: K [2(g-1)(alpha + S/(gP) beta) + 2(h-1)(alpha + S/(nP) beta)], either order.
  for (const auto& [hosts, per_host] : {std::pair{2u, 4u}, std::pair{4u, 8u}, std::pair{3u, 1u}, std::pair{1u, 5u}}) {
    for (const bool inter_first : {false, true}) {
      const std::uint32_t n = hosts * per_host;
      const std::uint32_t chunks = 2;
      const Bytes unit = 64;  // bytes per block and piece
      const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = Bytes{n} * chunks * unit,
                                .chunks = chunks,
                                .layout = std::make_shared<const GroupLayout>(regular_layout(hosts, per_host)),
                                .inter_host_first = inter_first};
      const std::uint32_t a = inter_first ? hosts : per_host;
      const std::uint32_t b = inter_first ? per_host : hosts;
      const std::uint64_t expected =
          chunks * (2 * (a - 1) * (kAlpha + b * unit * kBeta) + 2 * (b - 1) * (kAlpha + unit * kBeta));
      EXPECT_EQ(run_timed(Algorithm::kHierarchical, spec, kAlpha, kBeta).end_ps, expected)
          << hosts << "x" << per_host << " inter_first=" << inter_first;
    }
  }
}

TEST(AlgorithmTiming, DirectRootedOperations) {
  // The root's n-1 sends go window at a time; the others send or receive once.
  for (const std::uint32_t window : {1u, 3u}) {
    const std::uint32_t n = 8;
    const std::uint64_t step = kAlpha + 1000 * kBeta;
    const CollectiveSpec broadcast{.op = CollectiveOp::kBroadcast, .members = n, .size = 1000, .window = window};
    EXPECT_EQ(run_timed(Algorithm::kDirect, broadcast, kAlpha, kBeta).end_ps, (n - 1 + window - 1) / window * step);
    const CollectiveSpec reduce{.op = CollectiveOp::kReduce, .members = n, .size = 1000, .window = window};
    EXPECT_EQ(run_timed(Algorithm::kDirect, reduce, kAlpha, kBeta).end_ps, step);  // all at once into the root
    const CollectiveSpec gather{.op = CollectiveOp::kGather, .members = n, .size = 8000, .window = window};
    EXPECT_EQ(run_timed(Algorithm::kDirect, gather, kAlpha, kBeta).end_ps, step);
  }
}

TEST(AlgorithmTiming, ProtocolSetsWireBytesAndHopLatency) {
  // Two hosts of two: ring 0 -> 1 (intra) -> 2 (inter) -> 3 (intra) -> 0 (inter). LL doubles the
  // bytes on the wire (1000 B -> 2000 B) and pays NCCL's LL hop latency per link class.
  const CollectiveSpec spec{.op = CollectiveOp::kAllGather, .members = 4, .size = 4000,
                            .protocol = Protocol::kLL, .protocol_costs = nccl_protocol_costs(),
                            .layout = std::make_shared<const GroupLayout>(regular_layout(2, 2))};
  auto execution = make_execution(Algorithm::kRing, spec);
  Progress progress;
  execution->start(progress);
  ASSERT_EQ(progress.ready.size(), 4u);
  using namespace time_literals;
  for (const Transfer& t : progress.ready) {
    EXPECT_EQ(t.bytes, 1000u);
    EXPECT_EQ(t.wire_bytes, 2000u);
    EXPECT_EQ(t.protocol, Protocol::kLL);
    EXPECT_EQ(t.hop_latency, t.src % 2 == 0 ? 600_ns : 2700_ns) << t.src;
  }
  // The same run with default costs adds nothing.
  CollectiveSpec plain = spec;
  plain.protocol_costs = {};
  auto quiet = make_execution(Algorithm::kRing, plain);
  progress = {};
  quiet->start(progress);
  for (const Transfer& t : progress.ready) EXPECT_EQ(t.hop_latency, Time::zero());
}

TEST(AlgorithmTiming, BinaryTreeShape) {
  // Every position but the root has a parent that lists it as a child; depth floor(log2 n).
  for (std::uint32_t n = 1; n <= 200; ++n) {
    const BinaryTree tree(n);
    std::uint32_t deepest = 0;
    for (std::uint32_t v = 1; v <= n; ++v) {
      std::uint32_t depth = 0;
      for (std::uint32_t u = v; u != tree.root(); u = tree.parent(u)) {
        const std::uint32_t p = tree.parent(u);
        ASSERT_NE(p, 0u) << "n=" << n << " v=" << u;
        ASSERT_TRUE(tree.left(p) == u || tree.right(p) == u) << "n=" << n << " v=" << u;
        ++depth;
      }
      deepest = std::max(deepest, depth);
    }
    EXPECT_EQ(tree.parent(tree.root()), 0u);
    EXPECT_EQ(deepest, floor_log2(n)) << n;
  }
  // n = 6: root 4 -> {2, 6}, 2 -> {1, 3}, 6 -> {5}.
  const BinaryTree six(6);
  EXPECT_EQ(six.root(), 4u);
  EXPECT_EQ(six.left(4), 2u);
  EXPECT_EQ(six.right(4), 6u);
  EXPECT_EQ(six.left(6), 5u);
  EXPECT_EQ(six.right(6), 0u);
}

TEST(AlgorithmTiming, DoubleTreeLeavesAreMostlyInnerNodesOfTheOtherTree) {
  // NCCL's point of two trees: a member that is a leaf in both does no reduction work in either.
  for (const std::uint32_t n : {8u, 16u, 9u, 64u}) {
    const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = 1};
    const TreeSchedule trees(spec);
    const BinaryTree shape(n);
    std::uint32_t leaf_in_both = 0;
    for (std::uint32_t m = 0; m < n; ++m) {
      const bool leaf0 = shape.left(trees.position(m, 0)) == 0;
      const bool leaf1 = shape.left(trees.position(m, 1)) == 0;
      leaf_in_both += leaf0 && leaf1 ? 1 : 0;
      EXPECT_EQ(trees.member_at(trees.position(m, 1), 1), m);
    }
    EXPECT_LE(leaf_in_both, 1u) << n;
  }
}

}  // namespace
}  // namespace loom::collective
