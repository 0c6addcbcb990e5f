// Classes refined before a run (class_refinement.h): the algorithm on stated member ends, and
// the runtime's use of it (no repeated runs, the full run's timings).
#include "loom/system/class_refinement.h"

#include <gtest/gtest.h>

#include "loom/system/runtime.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"
#include "system/same_run.h"

namespace loom::system {
namespace {

using testing::DagBuilder;
using testing::StarFabric;

std::vector<std::uint32_t> members_of(const RankSymmetry& s, std::uint32_t rank) {
  const auto members = s.members(s.class_of(rank));
  return {members.begin(), members.end()};
}

// An operation whose member j ends ends[j] microseconds after its start.
std::shared_ptr<const OperationTiming> timing(std::vector<std::int64_t> ends) {
  auto t = std::make_shared<OperationTiming>();
  for (std::uint32_t j = 0; j < ends.size(); ++j) t->ends.push_back({Time::us(ends[j]), j});
  return t;
}

// Four ranks of one program: an all-to-all over all four (communicator 0) whose members 0 and 1
// end at 1 us and 2 and 3 at 2 us; then an all-reduce in pairs {0, 2}, {1, 3}, whose members
// end alike; with `sends`, then rank r sends to rank r + 1 and receives from rank r - 1 (mod 4),
// all transfers alike.
DagBuilder all_to_all_then_pairs(bool sends) {
  DagBuilder dag(4);
  const auto world = dag.communicator({0, 1, 2, 3});
  const auto even = dag.communicator({0, 2});
  const auto odd = dag.communicator({1, 3});
  for (std::uint32_t r = 0; r < 4; ++r) {
    const auto a2a = dag.collective(r, world, 1 << 20, {}, 0, collective::CollectiveOp::kAllToAll);
    const auto pair = dag.collective(r, r % 2 == 0 ? even : odd, 1 << 20, {a2a});
    if (!sends) continue;
    const auto sent = dag.send(r, (r + 1) % 4, 1 << 10, {pair});
    dag.recv(r, (r + 3) % 4, 1 << 10, {sent});
  }
  return dag;
}
constexpr workload::CommunicatorId kWorld = 0;

// Round 1 splits by the all-to-all: A = {0, 1}, B = {2, 3}. The pairs then both hold one rank
// of A and one of B, alike; but rank 0 sends to A and receives from B, rank 1 sends to B and
// receives from A (2 and 3 likewise): round 2 leaves every rank alone, round 3 splits nothing.
TEST(ClassRefinement, SplitsByMemberEndsAndPartnersToAFixedPoint) {
  DagBuilder dag = all_to_all_then_pairs(true);
  const RankSymmetry found = RankSymmetry::find(dag.workload());
  ASSERT_EQ(found.class_count(), 1u);
  PartTimes times;
  std::uint32_t replays = 0;
  times.operation = [&](workload::CommunicatorId c, std::uint32_t, workload::NodeId) {
    ++replays;
    return c == kWorld ? timing({1, 1, 2, 2}) : timing({3, 3});
  };
  times.transfer = [](workload::NodeId) { return Time::us(5); };
  const RefinedClasses refined = refine_classes(dag.workload(), found, times);
  ASSERT_TRUE(refined.declined.empty()) << refined.declined;
  ASSERT_TRUE(refined.classes.has_value());
  EXPECT_EQ(replays, 3u);  // one call per operation
  EXPECT_EQ(refined.classes->class_count(), 4u);
  EXPECT_EQ(refined.rounds, 2u);
}

// Without the sends the all-to-all's split is the fixed point, and the pairs then have members
// of the same classes in the same order.
TEST(ClassRefinement, StopsWhereNoClassSplitsAndKeepsLowestRanksAsRepresentatives) {
  DagBuilder dag = all_to_all_then_pairs(false);
  PartTimes times;
  times.operation = [&](workload::CommunicatorId c, std::uint32_t, workload::NodeId) {
    return c == kWorld ? timing({1, 1, 2, 2}) : timing({3, 3});
  };
  times.transfer = [](workload::NodeId) { return Time::zero(); };
  const RefinedClasses refined = refine_classes(dag.workload(), RankSymmetry::find(dag.workload()), times);
  ASSERT_TRUE(refined.classes.has_value()) << refined.declined;
  EXPECT_EQ(refined.rounds, 1u);
  EXPECT_EQ(members_of(*refined.classes, 0), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(members_of(*refined.classes, 3), (std::vector<std::uint32_t>{2, 3}));
}

// An operation that cannot be timed apart leaves the classes to the run's checks, and says
// which operation.
TEST(ClassRefinement, DeclinesWhereAnOperationCannotBeTimedApart) {
  DagBuilder dag(2);
  const auto world = dag.communicator({0, 1}, workload::CommunicatorKind::kWorld, "world");
  for (std::uint32_t r = 0; r < 2; ++r) dag.collective(r, world, 1 << 20);
  PartTimes times;
  times.operation = [](workload::CommunicatorId, std::uint32_t, workload::NodeId) {
    return std::shared_ptr<const OperationTiming>();
  };
  times.transfer = [](workload::NodeId) { return Time::zero(); };
  const RefinedClasses refined = refine_classes(dag.workload(), RankSymmetry::find(dag.workload()), times);
  EXPECT_FALSE(refined.classes.has_value());
  EXPECT_NE(refined.declined.find("'world'"), std::string::npos) << refined.declined;
  EXPECT_NE(refined.declined.find("timed apart"), std::string::npos) << refined.declined;
}

// A ring broadcast reaches its members one after another: the runtime refines the one class of
// four ranks before the run, so that the reduced run finds no mismatch and has the full run's
// timings (with the classes given as found, the run's check splits them: rank_symmetry_test).
TEST(ClassRefinement, TheRuntimeRefinesBeforeTheRunAndMatchesTheFullRun) {
  const StarFabric fabric(4);
  DagBuilder dag(4);
  const auto world = dag.communicator({0, 1, 2, 3});
  for (std::uint32_t r = 0; r < 4; ++r) {
    const auto first = dag.compute(r, Time::us(10));
    const auto cast = dag.collective(r, world, 1 << 20, {first}, 0, collective::CollectiveOp::kBroadcast);
    dag.compute(r, Time::us(5), {cast});
  }
  const RankSymmetry found = RankSymmetry::find(dag.workload());
  ASSERT_EQ(found.class_count(), 1u);
  RuntimeOptions options;
  options.default_algorithm = collective::Algorithm::kRing;
  options.symmetry = &found;
  const RunResult reduced = testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
  EXPECT_TRUE(reduced.symmetry_mismatch.empty()) << reduced.symmetry_mismatch;
  ASSERT_NE(reduced.refined_classes, nullptr) << reduced.classes_not_refined;
  EXPECT_GE(reduced.refined_classes->class_count(), 3u);
  EXPECT_NE(reduced.refined_classes->representative(2), 0u);
  EXPECT_EQ(reduced.class_rounds, 1u);
  options.symmetry = nullptr;
  const RunResult full = testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
  for (workload::NodeId id = 0; id < full.nodes.size(); ++id) EXPECT_EQ(reduced.nodes[id].end, full.nodes[id].end) << id;
}

}  // namespace
}  // namespace loom::system
