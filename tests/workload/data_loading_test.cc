// Reading the training data from storage before the first iteration (parallel_plan.h,
// DataLoading): a "data.load" node of closed-form duration on every rank, which every rank's
// first op waits for and which delays the whole step by exactly its duration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../system/fabric_fixture.h"
#include "workload/synthesis_testing.h"
#include "loom/core/error.h"
#include "loom/workload/compute/compute_model.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload::synthesis {
namespace {

using namespace loom::time_literals;

TransformerConfig small_gpt() { return testing::small_gpt(4); }

ParallelPlan two_stages() {
  ParallelPlan p;
  p.tp = 2;
  p.pp = 2;
  p.dp = 2;
  p.global_batch = 4;
  return p;
}

Workload timed(const ParallelPlan& p) {
  Workload w = synthesize_training(small_gpt(), p);
  testing::time_on_a100(w);
  return w;
}

// 1 GiB per rank at 100 Gb/s: 2^30 · 8 / 10^11 s = 85,899,345,920 ps, plus 5 us latency;
// shared storage of 800 Gb/s among 8 ranks is the same per-rank rate.
TEST(DataLoading, DurationIsBytesOverBandwidthPlusLatency) {
  DataLoading d{1ull << 30, Bandwidth::gbps(100), false, 5_us};
  EXPECT_EQ(d.duration(8), Time::ps(85'899'345'920) + 5_us);
  DataLoading shared{1ull << 30, Bandwidth::gbps(800), true, 5_us};
  EXPECT_EQ(shared.duration(8), d.duration(8));
}

TEST(DataLoading, EveryRankStartsWithTheLoad) {
  ParallelPlan p = two_stages();
  p.data_loading = {1ull << 30, Bandwidth::gbps(100), false, Time::zero()};
  const Workload w = timed(p);
  std::vector<NodeId> load(p.ranks(), 0xffffffffu);
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (w.label(n.label) != "data.load") continue;
    EXPECT_EQ(n.duration, Time::ps(85'899'345'920));  // the compute model kept it
    EXPECT_EQ(n.flops, 0u);
    load[n.rank] = id;
  }
  for (std::uint32_t r = 0; r < p.ranks(); ++r) {
    ASSERT_NE(load[r], 0xffffffffu) << "rank " << r;
    // The rank's next compute node in program order waits for the load.
    NodeId next = load[r] + 1;
    while (w.node(next).kind != NodeKind::kCompute) ++next;
    const auto deps = w.deps(next);
    EXPECT_NE(std::find(deps.begin(), deps.end(), load[r]), deps.end()) << "rank " << r;
  }
}

// On a contention-free fabric every rank starts later by the same amount: the makespan grows by
// exactly the load's duration.
TEST(DataLoading, DelaysTheStepByItsDuration) {
  const ParallelPlan plain = two_stages();
  ParallelPlan loading = plain;
  loading.data_loading = {256ull << 20, Bandwidth::gbps(200), true, 10_us};
  const Time d = loading.data_loading.duration(8);
  EXPECT_EQ(d, Time::ps(256ll * 1048576 * 8 * 8 * 1000 / 200) + 10_us);
  const system::testing::StarFabric fabric(plain.ranks());
  system::RuntimeOptions options;
  options.comm_streams = kCommStreams;
  const Workload a = timed(plain), b = timed(loading);
  const Time without = system::testing::run_analytical(fabric.topology, fabric.routing, a, options).makespan;
  const Time with = system::testing::run_analytical(fabric.topology, fabric.routing, b, options).makespan;
  EXPECT_EQ(with - without, d);
}

TEST(DataLoading, NeedsABandwidth) {
  ParallelPlan p = two_stages();
  p.data_loading.bytes_per_rank = 1;
  try {
    synthesize_training(small_gpt(), p);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("data loading of bytes_per_rank > 0 needs a storage bandwidth"));
  }
}

}  // namespace
}  // namespace loom::workload::synthesis
