// A run stopped early by its watcher (Runtime::run's RunWatcher; Ctrl-C in `loom run`): what
// happened until the stop comes back consistent and marked incomplete.
#include <gtest/gtest.h>

#include "loom/system/metrics.h"
#include "loom/system/runtime.h"
#include "system/fabric_fixture.h"

namespace loom::system {
namespace {

using collective::CollectiveOp;
using testing::StarFabric;

TEST(RuntimeInterrupt, AStoppedRunReturnsWhatHappenedUntilTheStop) {
  const std::uint32_t n = 4;
  const StarFabric fabric(n);
  workload::MicrobenchmarkSpec spec;
  // 20,000 ring all-gathers of 4 ranks: well over one check's worth (2^16) of events.
  spec.collectives.push_back({CollectiveOp::kAllGather, "world", 4 * 65'536, 20000, std::nullopt});
  const workload::Workload workload = workload::make_microbenchmark(spec, n);
  Simulator simulator;
  network::NetworkParams params;
  const std::unique_ptr<network::Backend> backend = network::make_backend(simulator, fabric.topology, fabric.routing, params);
  RuntimeOptions options;
  options.record_transfers = true;
  Runtime runtime(simulator, fabric.topology, workload, *backend, options);
  std::vector<RunProgress> seen;
  const RunResult r = runtime.run([&](const RunProgress& p) {
    seen.push_back(p);
    return false;  // stop at the first check
  });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].events, Simulator::kWatchdogEvents);
  EXPECT_EQ(seen[0].nodes_total, workload.node_count());
  EXPECT_GT(seen[0].nodes_done, 0u);
  EXPECT_LT(seen[0].nodes_done, seen[0].nodes_total);
  EXPECT_EQ(seen[0].now, simulator.now());

  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.stop_reason, "interrupted");
  EXPECT_EQ(r.events, Simulator::kWatchdogEvents);
  EXPECT_EQ(r.makespan, simulator.now());
  EXPECT_GT(r.collectives.size(), 0u);
  EXPECT_LT(r.collectives.size(), 20000u);
  for (const CollectiveRecord& c : r.collectives) EXPECT_LE(c.end, r.makespan);
  // Only finished transfers are logged; those in flight at the stop are counted as issued.
  EXPECT_LT(r.transfer_log.size(), r.transfers);
  for (const TransferRecord& t : r.transfer_log) {
    EXPECT_LE(t.start, t.end);
    EXPECT_LE(t.end, r.makespan);
  }
  for (workload::NodeId id = 0; id < r.nodes.size(); ++id) {
    const NodeTiming t = r.nodes[id];
    EXPECT_LE(t.start, t.end);
    EXPECT_LE(t.end, r.makespan);
  }
  // The metrics of a cut run still add up: every rank's time within the makespan.
  const Metrics m = compute_metrics(workload, r);
  for (const RankMetrics& rank : m.ranks) {
    EXPECT_GE(rank.idle, Time::zero());
    EXPECT_EQ(rank.idle + rank.compute + rank.exposed_total, r.makespan);
  }
}

TEST(RuntimeInterrupt, AWatcherThatNeverStopsLeavesTheRunComplete) {
  const StarFabric fabric(4);
  workload::MicrobenchmarkSpec spec;
  spec.collectives.push_back({CollectiveOp::kAllGather, "world", 4 * 65'536, 20000, std::nullopt});
  const workload::Workload workload = workload::make_microbenchmark(spec, 4);
  // Every transfer in the run: enough events for the watcher to be called.
  RuntimeOptions options;
  options.closed_form = false;
  const RunResult plain = testing::run_analytical(fabric.topology, fabric.routing, workload, options);
  Simulator simulator;
  const std::unique_ptr<network::Backend> backend =
      network::make_backend(simulator, fabric.topology, fabric.routing, network::NetworkParams{});
  Runtime runtime(simulator, fabric.topology, workload, *backend, options);
  int checks = 0;
  const RunResult watched = runtime.run([&](const RunProgress&) { return ++checks > 0; });
  EXPECT_GT(checks, 0);
  EXPECT_TRUE(watched.complete);
  EXPECT_EQ(watched.makespan, plain.makespan);
  EXPECT_EQ(watched.events, plain.events);
}

}  // namespace
}  // namespace loom::system
