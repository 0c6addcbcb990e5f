// CommunicatorTwins and the runtime's skipped operations: a communicator of mirrored ranks only
// whose twin runs the same operations is not run, its records and its members' timings are the
// full run's, and a fabric that treats the two groups differently is caught.
#include "loom/system/communicator_twins.h"

#include <gtest/gtest.h>

#include "loom/system/runtime.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"
#include "system/same_run.h"

namespace loom::system {
namespace {

using testing::DagBuilder;

// Six ranks of one program: compute, an all-reduce on its pair's communicator, compute.
DagBuilder pairs(const std::vector<std::vector<std::uint32_t>>& groups) {
  DagBuilder dag(6);
  std::vector<workload::CommunicatorId> comm_of(6);
  for (const auto& group : groups) {
    const workload::CommunicatorId c = dag.communicator(group);
    for (std::uint32_t r : group) comm_of[r] = c;
  }
  for (std::uint32_t r = 0; r < 6; ++r) {
    const auto first = dag.compute(r, Time::us(10));
    const auto reduce = dag.collective(r, comm_of[r], 1 << 20, {first});
    dag.compute(r, Time::us(5), {reduce});
  }
  return dag;
}

// Three hosts of two GPUs on one switch: a pair within a host talks over NVLink, a pair across
// hosts over the NICs.
topology::Topology two_gpu_hosts() {
  topology::SingleSwitchParams p;
  p.hosts = 3;
  p.host.gpus_per_host = 2;
  p.host.nvlink_bandwidth = Bandwidth::gbps(3600);
  p.host.nic_bandwidth = Bandwidth::gbps(400);
  return topology::make_single_switch(p);
}

TEST(CommunicatorTwins, PairsOfMirroredRanksAreStoodForByTheRepresentativesPair) {
  DagBuilder dag = pairs({{0, 1}, {2, 3}, {4, 5}});
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  ASSERT_EQ(s.class_count(), 1u);
  const CommunicatorTwins twins = CommunicatorTwins::find(dag.workload(), s);
  EXPECT_FALSE(twins.skipped(0));
  EXPECT_EQ(twins.twin(1), 0u);
  EXPECT_EQ(twins.twin(2), 0u);
  const auto stood_for = twins.stands_for(0);
  EXPECT_EQ(std::vector<workload::CommunicatorId>(stood_for.begin(), stood_for.end()),
            (std::vector<workload::CommunicatorId>{1, 2}));
  EXPECT_EQ(twins.skipped_count(), 2u);
}

// Two classes, {0, 1} and {2, 3}: the group {3, 1} lists its classes in the other order than
// the running {0, 2}, so it has no twin, runs, and the run is the full one.
TEST(CommunicatorTwins, AGroupOfOtherMemberOrderHasNoTwinAndRuns) {
  DagBuilder dag(4);
  const auto a = dag.communicator({0, 2});
  const auto b = dag.communicator({3, 1});
  for (std::uint32_t r = 0; r < 4; ++r) {
    const auto first = dag.compute(r, Time::us(r < 2 ? 1 : 2));
    dag.collective(r, r == 0 || r == 2 ? a : b, 1 << 20, {first});
  }
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  ASSERT_EQ(s.class_count(), 2u);
  EXPECT_EQ(CommunicatorTwins::find(dag.workload(), s).skipped_count(), 0u);
  const testing::StarFabric fabric(4);
  RuntimeOptions options;
  options.symmetry = &s;
  const RunResult reduced = testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
  EXPECT_TRUE(reduced.symmetry_mismatch.empty()) << reduced.symmetry_mismatch;
  EXPECT_EQ(reduced.skipped_operations, 0u);
  testing::expect_same_run(reduced, testing::run_analytical(fabric.topology, fabric.routing, dag.workload()));
}

TEST(CommunicatorTwins, AReducedRunSkipsTheTwinsOperationsAndMatchesTheFullRun) {
  const testing::StarFabric fabric(6);
  DagBuilder dag = pairs({{0, 1}, {2, 3}, {4, 5}});
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  const RunResult reduced = testing::run_reduced(fabric.topology, fabric.routing, dag.workload(), s);
  const RunResult full = testing::run_analytical(fabric.topology, fabric.routing, dag.workload());
  EXPECT_TRUE(reduced.symmetry_mismatch.empty()) << reduced.symmetry_mismatch;
  EXPECT_EQ(reduced.skipped_communicators, 2u);
  EXPECT_EQ(reduced.skipped_operations, 2u);
  testing::expect_same_run(reduced, full);
  ASSERT_EQ(reduced.collectives.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(reduced.collectives[i].communicator, full.collectives[i].communicator);
    EXPECT_EQ(reduced.collectives[i].start, full.collectives[i].start);
    EXPECT_EQ(reduced.collectives[i].end, full.collectives[i].end);
    EXPECT_EQ(reduced.collectives[i].transfers, full.collectives[i].transfers);
  }
}

// Pair {0, 1} shares a host, {2, 4} and {3, 5} cross the switch: the twin {0, 1} cannot stand
// for {2, 4}. The run says so, splits ranks 2 and 4 off, and with the split classes {2, 4}
// runs and stands for {3, 5}, exactly.
TEST(CommunicatorTwins, ATwinOnOtherLinksIsCaughtAndSplitOff) {
  const topology::Topology topology = two_gpu_hosts();
  const topology::Routing routing(topology);
  DagBuilder dag = pairs({{0, 1}, {2, 4}, {3, 5}});
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  RuntimeOptions options;
  options.symmetry = &s;
  options.refine_classes = false;  // the run's own check is under test
  const RunResult reduced = testing::run_analytical(topology, routing, dag.workload(), options);
  EXPECT_NE(reduced.symmetry_mismatch.find("which was to stand for it"), std::string::npos) << reduced.symmetry_mismatch;
  ASSERT_EQ(reduced.symmetry_split.size(), 6u);
  EXPECT_EQ(reduced.symmetry_split[0], 0u);
  EXPECT_EQ(reduced.symmetry_split[1], 0u);
  EXPECT_NE(reduced.symmetry_split[2], 0u);
  EXPECT_NE(reduced.symmetry_split[4], 0u);
  const RankSymmetry split = s.refined(reduced.symmetry_split);
  options.symmetry = &split;
  const RunResult again = testing::run_analytical(topology, routing, dag.workload(), options);
  EXPECT_TRUE(again.symmetry_mismatch.empty()) << again.symmetry_mismatch;
  EXPECT_EQ(again.skipped_operations, 1u);
  options.symmetry = nullptr;
  testing::expect_same_run(again, testing::run_analytical(topology, routing, dag.workload(), options));
}

// The transfer log needs every transfer: nothing is skipped, and the result says why.
TEST(CommunicatorTwins, TheTransferLogKeepsEveryOperation) {
  const testing::StarFabric fabric(6);
  DagBuilder dag = pairs({{0, 1}, {2, 3}, {4, 5}});
  const RankSymmetry s = RankSymmetry::find(dag.workload());
  RuntimeOptions options;
  options.symmetry = &s;
  options.record_transfers = true;
  const RunResult reduced = testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
  EXPECT_EQ(reduced.skipped_operations, 0u);
  EXPECT_NE(reduced.operations_not_skipped.find("output.flows"), std::string::npos);
  EXPECT_EQ(reduced.collectives.size(), 3u);
}

}  // namespace
}  // namespace loom::system
