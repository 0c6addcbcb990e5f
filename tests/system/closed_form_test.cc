// Collective times on contention-free fabrics against their closed forms, exactly (integer
// picoseconds): with per-transfer latency alpha, bottleneck B, n ranks and size S,
//   ring all-reduce                    2(n-1) (alpha + S/(nB))
//   ring/direct all-gather, reduce-scatter (n-1) (alpha + S/(nB))
//   direct all-to-all, window 1         (n-1) (alpha + S/(nB))
//   direct all-reduce, window 1        2(n-1) (alpha + S/(nB))
#include <gtest/gtest.h>

#include "system/fabric_fixture.h"

namespace loom::system {
namespace {

using collective::Algorithm;
using collective::CollectiveOp;
using testing::StarFabric;

struct Case {
  CollectiveOp op;
  Algorithm algorithm;
  std::uint32_t steps_per_rank_minus_one;  // the closed form's multiple of (n-1)
};

Time one_collective(const topology::Topology& topology, const topology::Routing& routing, std::uint32_t n,
                    CollectiveOp op, Algorithm algorithm, Bytes size) {
  workload::MicrobenchmarkSpec spec;
  spec.collectives.push_back({op, "world", size, 1, algorithm});
  const workload::Workload w = workload::make_microbenchmark(spec, n);
  const RunResult result = testing::run_analytical(topology, routing, w);
  EXPECT_EQ(result.collectives.size(), 1u);
  return result.collectives.at(0).duration();
}

class ClosedForm : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(ClosedForm, StarFabricMatchesAlphaBeta) {
  const std::uint32_t n = GetParam();
  const StarFabric fabric(n);
  const Bytes size = Bytes{n} * 3 * 65'536;  // divisible by n: every block is S/n
  const Time step = StarFabric::kAlpha + serialization_time(size / n, StarFabric::bottleneck());
  const Case cases[] = {
      {CollectiveOp::kAllReduce, Algorithm::kRing, 2},      {CollectiveOp::kAllGather, Algorithm::kRing, 1},
      {CollectiveOp::kReduceScatter, Algorithm::kRing, 1},  {CollectiveOp::kAllToAll, Algorithm::kRing, 1},
      {CollectiveOp::kAllReduce, Algorithm::kDirect, 2},    {CollectiveOp::kAllGather, Algorithm::kDirect, 1},
      {CollectiveOp::kReduceScatter, Algorithm::kDirect, 1}, {CollectiveOp::kAllToAll, Algorithm::kDirect, 1},
  };
  for (const Case& c : cases) {
    const Time expected = step * (static_cast<std::int64_t>(c.steps_per_rank_minus_one) * (n - 1));
    EXPECT_EQ(one_collective(fabric.topology, fabric.routing, n, c.op, c.algorithm, size), expected)
        << collective::to_string(c.op) << " " << collective::to_string(c.algorithm) << " n=" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(RankCounts, ClosedForm, ::testing::Values(2u, 3u, 4u, 5u, 7u, 8u, 12u, 16u, 31u));

TEST(ClosedForm, RingInsideOneHostUsesTheScaleUpFabric) {
  // 8 GPUs behind one NVSwitch: alpha = 2 * nvlink_latency + nvswitch_latency, B = nvlink.
  const topology::Topology topology = testing::nvswitch_host();
  const topology::Routing routing(topology);
  const Bytes size = 64ull << 20;
  const Time step = Time::ns(700) + serialization_time(size / 8, Bandwidth::gbps(3600));
  EXPECT_EQ(one_collective(topology, routing, 8, CollectiveOp::kAllReduce, Algorithm::kRing, size), step * 14);
}

// NCCL's tree (one channel, one chunk) over 16 single-GPU hosts on one switch: the binary tree
// over positions 1..16 has root 16 with the one child 8; 8 has children 4 and 12, they have
// 2, 6 and 10, 14, and those the odd positions (leaves). Up, each inner node receives from its
// two children at once through its one NIC (the pair shares the NIC's downlink: 2S/B per
// level) for three levels, then 8 sends alone to 16 (S/B): 7 S/B. Down, the mirror image: 16
// sends to 8 alone, then every inner node sends to its two children at once through its
// uplink: 7 S/B. Eight edges deep in all: 14 S/B + 8 alpha, in both modes.
TEST(ClosedForm, TreeOnOneSwitchSharesEachNicBetweenTwoChildren) {
  const std::uint32_t n = 16;
  const StarFabric fabric(n);
  const Bytes size = 64ull << 20;
  workload::MicrobenchmarkSpec spec;
  spec.collectives.push_back({CollectiveOp::kAllReduce, "world", size, 1, Algorithm::kTree});
  const workload::Workload w = workload::make_microbenchmark(spec, n);
  const Time expected = serialization_time(size, StarFabric::bottleneck()) * 14 + StarFabric::kAlpha * 8;
  const Time analytical = testing::run_analytical(fabric.topology, fabric.routing, w).collectives.at(0).duration();
  EXPECT_EQ(analytical, expected);
  const Time flow = testing::run_in_mode(network::NetworkMode::kFlow, fabric.topology, fabric.routing, w)
                        .collectives.at(0)
                        .duration();
  EXPECT_NEAR(flow.seconds(), expected.seconds(), 1e-9);  // flow's rates round up by at most 1 ps each
}

TEST(ClosedForm, SingleRankCollectiveTakesNoTime) {
  const StarFabric fabric(2);
  EXPECT_EQ(one_collective(fabric.topology, fabric.routing, 1, CollectiveOp::kAllReduce, Algorithm::kRing, 4096),
            Time::zero());
}

}  // namespace
}  // namespace loom::system
