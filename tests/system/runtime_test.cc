#include "loom/system/runtime.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "system/fabric_fixture.h"

namespace loom::system {
namespace {

using collective::CollectiveOp;
using testing::StarFabric;
using namespace time_literals;

// A rank's part in a collective on `communicator`.
workload::Node collective_node(CollectiveOp op, workload::CommunicatorId communicator, workload::LabelId label,
                               Bytes bytes, std::uint32_t rank) {
  workload::Node node;
  node.kind = workload::NodeKind::kCollective;
  node.op = op;
  node.communicator = communicator;
  node.label = label;
  node.bytes = bytes;
  node.rank = rank;
  return node;
}

TEST(Runtime, RepeatsRunBackToBackAndConserveBytes) {
  const std::uint32_t n = 4;
  const StarFabric fabric(n);
  workload::MicrobenchmarkSpec spec;
  spec.collectives.push_back({CollectiveOp::kAllGather, "world", 4 * 65'536, 5, std::nullopt});
  const RunResult r = testing::run_analytical(fabric.topology, fabric.routing, workload::make_microbenchmark(spec, n));
  const Time one = (StarFabric::kAlpha + serialization_time(65'536, StarFabric::bottleneck())) * 3;
  ASSERT_EQ(r.collectives.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.collectives[i].start, one * static_cast<std::int64_t>(i));
    EXPECT_EQ(r.collectives[i].duration(), one);
    EXPECT_EQ(r.collectives[i].sequence, i);
  }
  EXPECT_EQ(r.makespan, one * 5);
  // A ring all-gather moves n(n-1) blocks of S/n.
  EXPECT_EQ(r.transfers, 5u * n * (n - 1));
  EXPECT_EQ(r.bytes_moved, 5ull * n * (n - 1) * 65'536);
  for (Time t : r.rank_finish) EXPECT_EQ(t, one * 5);
}

TEST(Runtime, DisjointCommunicatorsRunConcurrently) {
  const StarFabric fabric(8);
  workload::MicrobenchmarkSpec spec;
  spec.groups.push_back({"tp", workload::GroupSpec::Shape::kBlock, 4, {}});
  spec.collectives.push_back({CollectiveOp::kReduceScatter, "tp", 4 * 4096, 1, std::nullopt});
  const RunResult r = testing::run_analytical(fabric.topology, fabric.routing, workload::make_microbenchmark(spec, 8));
  ASSERT_EQ(r.collectives.size(), 2u);
  EXPECT_EQ(r.collectives[0].start, Time::zero());
  EXPECT_EQ(r.collectives[1].start, Time::zero());
  EXPECT_EQ(r.makespan, (StarFabric::kAlpha + serialization_time(4096, StarFabric::bottleneck())) * 3);
}

TEST(Runtime, ComputeNodesSerialiseOnTheRanksStreamAndGateCollectives) {
  const StarFabric fabric(2);
  workload::Workload w(2);
  const auto label = w.intern_label("test");
  const auto world = w.add_communicator({"world", "world", {0, 1}});
  workload::Node compute;
  compute.label = label;
  compute.rank = 0;
  compute.duration = 10_us;
  const workload::NodeId a = w.add_node(compute, {});
  const workload::NodeId b = w.add_node(compute, {});  // independent, but the stream is busy
  compute.rank = 1;
  compute.duration = 5_us;
  const workload::NodeId c = w.add_node(compute, {});
  const workload::NodeId deps0[] = {a, b};
  w.add_node(collective_node(CollectiveOp::kAllReduce, world, label, 2 * 4096, 0), deps0);
  w.add_node(collective_node(CollectiveOp::kAllReduce, world, label, 2 * 4096, 1), std::span(&c, 1));
  const RunResult r = testing::run_analytical(fabric.topology, fabric.routing, w);
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].first_arrival, 5_us);  // rank 1 arrives first
  EXPECT_EQ(r.collectives[0].start, 20_us);         // rank 0 after two 10us computes
  const Time ar = (StarFabric::kAlpha + serialization_time(4096, StarFabric::bottleneck())) * 2;
  EXPECT_EQ(r.makespan, 20_us + ar);
}

TEST(Runtime, MismatchedCollectiveIsAUserError) {
  const StarFabric fabric(2);
  workload::Workload w(2);
  const auto label = w.intern_label("entry 0");
  const auto world = w.add_communicator({"world", "world", {0, 1}});
  w.add_node(collective_node(CollectiveOp::kAllReduce, world, label, 1024, 0), {});
  w.add_node(collective_node(CollectiveOp::kAllGather, world, label, 1024, 1), {});
  try {
    testing::run_analytical(fabric.topology, fabric.routing, w);
    FAIL() << "ran a mismatched collective";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "collective #0 on communicator 'world' does not match across members: rank 1 calls "
                 "all-gather of 1KiB (ring) but the first member called all-reduce of 1KiB (ring) (entry 0)");
  }
}

TEST(Runtime, MemberThatNeverArrivesIsReported) {
  const StarFabric fabric(3);
  workload::Workload w(3);
  const auto label = w.intern_label("entry 0");
  const auto world = w.add_communicator({"world", "world", {0, 1, 2}});
  w.add_node(collective_node(CollectiveOp::kAllReduce, world, label, 3 * 1024, 0), {});
  w.add_node(collective_node(CollectiveOp::kAllReduce, world, label, 3 * 1024, 1), {});
  try {
    testing::run_analytical(fabric.topology, fabric.routing, w);
    FAIL() << "finished a collective that rank 2 never joined";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "the workload cannot finish: collective #0 on communicator 'world' (entry 0) waits for "
                 "rank(s) 2 that never reach it");
  }
}

TEST(Runtime, MoreRanksThanGpusIsAUserError) {
  const StarFabric fabric(2);
  workload::Workload w(4);
  Simulator simulator;
  network::AnalyticalBackend backend(simulator, fabric.topology, fabric.routing);
  EXPECT_THROW(Runtime(simulator, fabric.topology, w, backend, {}), UserError);
}

}  // namespace
}  // namespace loom::system
