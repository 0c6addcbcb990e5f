#include "loom/system/metrics.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"

namespace loom::system {
namespace {

using testing::DagBuilder;
using testing::StarFabric;
using namespace time_literals;
using workload::CommunicatorKind;
using workload::NodeId;

RunResult run_on_star(DagBuilder& dag, std::uint32_t gpus, RuntimeOptions options = {}) {
  const StarFabric fabric(gpus);
  return testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
}

// A 2-member all-reduce of 2*4096 bytes on the star: two ring steps.
const Time kPairAllReduce = (StarFabric::kAlpha + serialization_time(4096, StarFabric::bottleneck())) * 2;

TEST(Metrics, OneFOneBPipelineWithComputeOnlyReproducesTheBubble) {
  // p stages, m micro-batches, forward f and backward b per stage; 1F1B program order per stage
  // (p-s-1 warm-up forwards, then one forward / one backward, then the remaining backwards).
  // Closed form: iteration (m + p - 1)(f + b); every stage idles (p - 1)(f + b).
  constexpr std::uint32_t p = 4, m = 8;
  const Time f = 1_ms, b = 2_ms;
  DagBuilder dag(p);
  std::vector<std::vector<NodeId>> fwd(p, std::vector<NodeId>(m)), bwd(p, std::vector<NodeId>(m));
  std::vector<NodeId> last(p, system::kNoNode);
  auto chain = [&](std::uint32_t s, Time d, NodeId cross) {
    std::vector<NodeId> deps;
    if (last[s] != system::kNoNode) deps.push_back(last[s]);
    if (cross != system::kNoNode) deps.push_back(cross);
    workload::Node n;
    n.rank = s;
    n.duration = d;
    workload::Node& node = n;
    node.label = dag.workload().intern_label("stage");
    last[s] = dag.workload().add_node(node, deps);
    return last[s];
  };
  // Build in an order where every cross-stage dependency already exists: walk time slots.
  std::vector<std::uint32_t> next_f(p, 0), next_b(p, 0);
  std::vector<std::vector<char>> order(p);  // 'F' / 'B' program order per stage
  for (std::uint32_t s = 0; s < p; ++s) {
    const std::uint32_t warm = std::min(p - s - 1, m);
    for (std::uint32_t i = 0; i < warm; ++i) order[s].push_back('F');
    for (std::uint32_t i = 0; i < m - warm; ++i) {
      order[s].push_back('F');
      order[s].push_back('B');
    }
    for (std::uint32_t i = 0; i < warm; ++i) order[s].push_back('B');
  }
  std::vector<std::size_t> pos(p, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::uint32_t s = 0; s < p; ++s) {
      if (pos[s] == order[s].size()) continue;
      if (order[s][pos[s]] == 'F') {
        const std::uint32_t j = next_f[s];
        if (s > 0 && next_f[s - 1] <= j) continue;  // upstream forward not built yet
        fwd[s][j] = chain(s, f, s > 0 ? fwd[s - 1][j] : system::kNoNode);
        ++next_f[s];
      } else {
        const std::uint32_t j = next_b[s];
        if (s + 1 < p && next_b[s + 1] <= j) continue;
        bwd[s][j] = chain(s, b, s + 1 < p ? bwd[s + 1][j] : fwd[s][j]);
        ++next_b[s];
      }
      ++pos[s];
      progress = true;
    }
  }
  const RunResult r = run_on_star(dag, p);
  const Metrics metrics = compute_metrics(dag.workload(), r);
  EXPECT_EQ(r.makespan, (f + b) * (m + p - 1));
  for (std::uint32_t s = 0; s < p; ++s) {
    EXPECT_EQ(metrics.ranks[s].compute, (f + b) * m) << "stage " << s;
    EXPECT_EQ(metrics.ranks[s].idle, (f + b) * (p - 1)) << "stage " << s;
    EXPECT_EQ(metrics.ranks[s].comm_total, Time::zero());
  }
  // The critical path is all compute and spans the iteration.
  EXPECT_EQ(metrics.critical_compute, r.makespan);
  EXPECT_EQ(metrics.critical_path.front().start, Time::zero());
  EXPECT_EQ(metrics.critical_path.back().end, r.makespan);
}

TEST(Metrics, DataParallelBucketsOverlappedWithBackwardExposeOnlyTheTail) {
  // Each rank: four 100us backward chunks; after each, an all-reduce bucket on the comm stream.
  // Every bucket but the last hides behind the next chunk, so only the last one is exposed.
  DagBuilder dag(2);
  const auto dp = dag.communicator({0, 1}, CommunicatorKind::kData);
  for (std::uint32_t rank = 0; rank < 2; ++rank) {
    NodeId previous = system::kNoNode;
    for (int chunk = 0; chunk < 4; ++chunk) {
      const NodeId compute = previous == system::kNoNode ? dag.compute(rank, 100_us)
                                                         : dag.compute(rank, 100_us, {previous});
      dag.collective(rank, dp, 2 * 4096, {compute});
      previous = compute;
    }
  }
  const RunResult r = run_on_star(dag, 2);
  const Metrics m = compute_metrics(dag.workload(), r);
  EXPECT_EQ(r.makespan, 400_us + kPairAllReduce);
  for (const RankMetrics& rm : m.ranks) {
    EXPECT_EQ(rm.compute, 400_us);
    EXPECT_EQ(rm.comm[static_cast<std::size_t>(CommunicatorKind::kData)], kPairAllReduce * 4);
    EXPECT_EQ(rm.exposed[static_cast<std::size_t>(CommunicatorKind::kData)], kPairAllReduce);
    EXPECT_EQ(rm.exposed_total, kPairAllReduce);
    EXPECT_EQ(rm.idle, Time::zero());
  }
}

TEST(Metrics, CriticalPathOnAHandBuiltDagIsExact) {
  // rank 0: A (10us) -> C0 -> D (5us);  rank 1: B (30us) -> C1;  C = all-reduce of C0, C1.
  // C cannot start before B ends, so the path is B [0,30us], C0 [30us, 30us+ar], D.
  DagBuilder dag(2);
  const auto world = dag.communicator({0, 1}, CommunicatorKind::kWorld);
  const NodeId a = dag.compute(0, 10_us);
  const NodeId b = dag.compute(1, 30_us);
  const NodeId c0 = dag.collective(0, world, 2 * 4096, {a});
  dag.collective(1, world, 2 * 4096, {b});
  const NodeId d = dag.compute(0, 5_us, {c0});
  const RunResult r = run_on_star(dag, 2);
  const Metrics m = compute_metrics(dag.workload(), r);
  ASSERT_EQ(m.critical_path.size(), 3u);
  EXPECT_EQ(m.critical_path[0].node, b);
  EXPECT_EQ(m.critical_path[0].start, Time::zero());
  EXPECT_EQ(m.critical_path[0].end, 30_us);
  EXPECT_EQ(m.critical_path[1].node, c0);
  EXPECT_EQ(m.critical_path[1].start, 30_us);
  EXPECT_EQ(m.critical_path[1].end, 30_us + kPairAllReduce);
  EXPECT_EQ(m.critical_path[2].node, d);
  EXPECT_EQ(m.critical_path[2].end, 35_us + kPairAllReduce);
  EXPECT_EQ(m.critical_compute, 35_us);
  EXPECT_EQ(m.critical_comm[static_cast<std::size_t>(CommunicatorKind::kWorld)], kPairAllReduce);
  // Rank 0 waited 20us at the rendezvous; rank 1 not at all.
  EXPECT_EQ(m.ranks[0].sync_wait, 20_us);
  EXPECT_EQ(m.ranks[1].sync_wait, Time::zero());
  EXPECT_EQ(m.ranks[0].idle, 20_us);
}

TEST(Metrics, IterationTimesAreGapsBetweenIterationEnds) {
  DagBuilder dag(2);
  const NodeId first = dag.compute(0, 10_us, {}, 0);
  dag.compute(1, 4_us, {}, 0);
  dag.compute(0, 7_us, {first}, 1);
  const Metrics m = compute_metrics(dag.workload(), run_on_star(dag, 2));
  EXPECT_EQ(m.iteration_times, (std::vector<Time>{10_us, 7_us}));
}

void expect_same_metrics(const Metrics& a, const Metrics& b) {
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (std::size_t r = 0; r < a.ranks.size(); ++r) {
    EXPECT_EQ(a.ranks[r].finish, b.ranks[r].finish) << r;
    EXPECT_EQ(a.ranks[r].compute, b.ranks[r].compute) << r;
    EXPECT_EQ(a.ranks[r].comm, b.ranks[r].comm) << r;
    EXPECT_EQ(a.ranks[r].exposed, b.ranks[r].exposed) << r;
    EXPECT_EQ(a.ranks[r].comm_total, b.ranks[r].comm_total) << r;
    EXPECT_EQ(a.ranks[r].exposed_total, b.ranks[r].exposed_total) << r;
    EXPECT_EQ(a.ranks[r].sync_wait, b.ranks[r].sync_wait) << r;
    EXPECT_EQ(a.ranks[r].idle, b.ranks[r].idle) << r;
  }
  EXPECT_EQ(a.iteration_times, b.iteration_times);
  ASSERT_EQ(a.critical_path.size(), b.critical_path.size());
  for (std::size_t i = 0; i < a.critical_path.size(); ++i) {
    EXPECT_EQ(a.critical_path[i].node, b.critical_path[i].node) << i;
    EXPECT_EQ(a.critical_path[i].start, b.critical_path[i].start) << i;
  }
}

// Ranks laid out one after another are taken in batches of a bounded number of intervals; the
// metrics are those of one batch holding every rank, whatever the bound (one rank per batch
// when a rank alone exceeds it). Ranks laid out interleaved form one batch.
TEST(Metrics, BatchesOfRanksGiveTheSameMetrics) {
  DagBuilder dag(4);
  const auto dp = dag.communicator({0, 1, 2, 3}, CommunicatorKind::kData);
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    NodeId previous = system::kNoNode;
    for (std::uint32_t chunk = 0; chunk < 3; ++chunk) {
      const Time length = Time::us(50 + 10 * ((rank + chunk) % 3));
      const NodeId compute = previous == system::kNoNode ? dag.compute(rank, length, {}, chunk / 2)
                                                         : dag.compute(rank, length, {previous}, chunk / 2);
      dag.collective(rank, dp, 4 * 4096, {compute});
      previous = compute;
    }
  }
  const RunResult r = run_on_star(dag, 4);
  const Metrics whole = compute_metrics(dag.workload(), r);
  EXPECT_GT(whole.ranks[0].sync_wait + whole.ranks[1].sync_wait, Time::zero());
  for (const std::size_t batch : {std::size_t{1}, std::size_t{6}, std::size_t{13}}) {
    SCOPED_TRACE(batch);
    expect_same_metrics(compute_metrics(dag.workload(), r, batch), whole);
  }
}

}  // namespace
}  // namespace loom::system
