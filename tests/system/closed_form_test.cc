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

TEST(ClosedForm, SingleRankCollectiveTakesNoTime) {
  const StarFabric fabric(2);
  EXPECT_EQ(one_collective(fabric.topology, fabric.routing, 1, CollectiveOp::kAllReduce, Algorithm::kRing, 4096),
            Time::zero());
}

}  // namespace
}  // namespace loom::system
