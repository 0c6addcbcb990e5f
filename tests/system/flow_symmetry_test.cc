// Rank symmetry in flow mode (RuntimeOptions::symmetry with flow_closed_form): a skipped twin's
// operation reserves its own links, so that a run flow crossing them is a conflict (never a
// silently wrong time); where the operation standing for it runs its transfers (busy links),
// the twin's operation runs too; and every reduced run that completes is the full run, node by
// node.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "loom/network/flow/flow_backend.h"
#include "loom/system/runtime.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"
#include "system/same_run.h"

namespace loom::system {
namespace {

using testing::DagBuilder;
using testing::StarFabric;

RunResult run_flow(const StarFabric& fabric, const workload::Workload& w, RuntimeOptions options) {
  options.flow_closed_form = true;
  Simulator simulator;
  network::flow::FlowBackend backend(simulator, fabric.topology, fabric.routing);
  Runtime runtime(simulator, fabric.topology, w, backend, options);
  return runtime.run();
}

// Six ranks of one program: compute 10 us, then an all-reduce on the rank's pair (communicators
// 0 = {0, 1}, 1 = {2, 3}, 2 = {4, 5}); with `ring_after`, on the second stream an all-reduce
// on {1, 2}, {3, 4} or {5, 0} (communicators 3, 4, 5) starting `ring_after` after the compute,
// while the pairs' operations still run. Then compute 5 us.
DagBuilder pairs_and_ring(std::optional<Time> ring_after) {
  DagBuilder dag(6);
  for (std::uint32_t p = 0; p < 3; ++p) dag.communicator({2 * p, 2 * p + 1});
  if (ring_after) {
    for (std::uint32_t p = 0; p < 3; ++p) dag.communicator({2 * p + 1, (2 * p + 2) % 6});
  }
  for (std::uint32_t r = 0; r < 6; ++r) {
    const auto first = dag.compute(r, Time::us(10));
    const auto pair = dag.collective(r, r / 2, 1 << 20, {first});
    if (!ring_after) {
      dag.compute(r, Time::us(5), {pair});
      continue;
    }
    const workload::CommunicatorId ring = 3 + (r % 2 == 1 ? r / 2 : (r / 2 + 2) % 3);
    const auto wait = dag.compute(r, *ring_after, {first});
    const auto other = dag.collective(r, ring, 1 << 20, {wait}, 1);
    dag.compute(r, Time::us(5), {pair, other});
  }
  return dag;
}

TEST(FlowSymmetry, SkippedTwinsReserveTheirLinksAndTheRunIsTheFullOne) {
  const StarFabric fabric(6);
  DagBuilder dag = pairs_and_ring(std::nullopt);
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  ASSERT_EQ(s.class_count(), 1u);
  RuntimeOptions options;
  options.symmetry = &s;
  const RunResult reduced = run_flow(fabric, dag.workload(), options);
  EXPECT_TRUE(reduced.symmetry_mismatch.empty()) << reduced.symmetry_mismatch;
  EXPECT_TRUE(reduced.closed_form_conflicts.empty());
  EXPECT_EQ(reduced.skipped_operations, 2u);
  EXPECT_EQ(reduced.twin_operations_run, 0u);
  options.symmetry = nullptr;
  options.closed_form = false;  // every transfer of every rank
  testing::expect_same_run(reduced, run_flow(fabric, dag.workload(), options));
}

// The standing pair {0, 1} runs its transfers (out of closed form, as when its links are busy):
// the twins run theirs too, and the run is the full one.
TEST(FlowSymmetry, TwinsOfAnOperationRunningItsTransfersRunToo) {
  const StarFabric fabric(6);
  DagBuilder dag = pairs_and_ring(std::nullopt);
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  RuntimeOptions options;
  options.symmetry = &s;
  options.closed_form_skips = {true, false, false};
  const RunResult reduced = run_flow(fabric, dag.workload(), options);
  EXPECT_TRUE(reduced.symmetry_mismatch.empty()) << reduced.symmetry_mismatch;
  EXPECT_EQ(reduced.skipped_operations, 0u);
  EXPECT_EQ(reduced.twin_operations_run, 2u);
  ASSERT_EQ(reduced.collectives.size(), 3u);
  options.symmetry = nullptr;
  options.closed_form = false;
  const RunResult full = run_flow(fabric, dag.workload(), options);
  testing::expect_same_run(reduced, full);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(reduced.collectives[i].communicator, full.collectives[i].communicator);
    EXPECT_EQ(reduced.collectives[i].first_arrival, full.collectives[i].first_arrival);
    EXPECT_EQ(reduced.collectives[i].end, full.collectives[i].end);
    EXPECT_EQ(reduced.collectives[i].transfers, full.collectives[i].transfers);
  }
}

// The ring all-reduces start 2 us into the pairs' and cross their NICs: {5, 0} (with the
// representative) finds its links reserved and runs its transfers, and so do its twins {1, 2}
// and {3, 4}, whose flows cross the links that the skipped pairs {2, 3} and {4, 5} reserved.
// Those are conflicts naming the skipped communicators, and the run stops; with the pairs'
// transfers in the run (as the experiment repeats it) the reduced run is the full one.
TEST(FlowSymmetry, AFlowCrossingASkippedTwinsLinksIsAConflict) {
  const StarFabric fabric(6);
  DagBuilder dag = pairs_and_ring(Time::us(2));
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  ASSERT_EQ(s.class_count(), 1u);
  RuntimeOptions options;
  options.symmetry = &s;
  const RunResult first = run_flow(fabric, dag.workload(), options);
  const auto& conflicts = first.closed_form_conflicts;
  EXPECT_TRUE(std::find(conflicts.begin(), conflicts.end(), 1u) != conflicts.end())
      << "the skipped twin {2, 3}'s reservation was met";
  EXPECT_LT(first.makespan, Time::us(15));  // stopped at the conflict
  options.closed_form_skips = {true, true, true, false, false, false};
  const RunResult again = run_flow(fabric, dag.workload(), options);
  EXPECT_TRUE(again.closed_form_conflicts.empty());
  EXPECT_TRUE(again.symmetry_mismatch.empty()) << again.symmetry_mismatch;
  EXPECT_GT(again.twin_operations_run, 0u);
  options.symmetry = nullptr;
  options.closed_form = false;
  testing::expect_same_run(again, run_flow(fabric, dag.workload(), options));
}

}  // namespace
}  // namespace loom::system
