#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "loom/system/metrics.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"

namespace loom::system {
namespace {

using testing::DagBuilder;
using testing::StarFabric;
using namespace time_literals;
using workload::NodeId;

const Time kOneMiB = StarFabric::kAlpha + serialization_time(1 << 20, StarFabric::bottleneck());

RunResult run_on_star(DagBuilder& dag, std::uint32_t gpus, RuntimeOptions options = {}) {
  const StarFabric fabric(gpus);
  return testing::run_analytical(fabric.topology, fabric.routing, dag.workload(), options);
}

std::string error_of(DagBuilder& dag, std::uint32_t gpus) {
  try {
    run_on_star(dag, gpus);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PointToPoint, TransferStartsWhenBothSidesArriveAndCompletesBoth) {
  DagBuilder dag(2);
  const NodeId work = dag.compute(1, 50_us);
  const NodeId send = dag.send(0, 1, 1 << 20);
  const NodeId recv = dag.recv(1, 0, 1 << 20, {work});
  RuntimeOptions options;
  options.record_transfers = true;
  const RunResult r = run_on_star(dag, 2, options);
  EXPECT_EQ(r.nodes[send].start, Time::zero());
  EXPECT_EQ(r.nodes[send].rendezvous, recv);
  EXPECT_EQ(r.nodes[send].end, 50_us + kOneMiB);
  EXPECT_EQ(r.nodes[recv].end, 50_us + kOneMiB);
  ASSERT_EQ(r.transfer_log.size(), 1u);
  EXPECT_EQ(r.transfer_log[0].start, 50_us);
  EXPECT_EQ(r.transfer_log[0].end - r.transfer_log[0].start, kOneMiB);
  EXPECT_EQ(r.transfer_log[0].ideal, kOneMiB);
  EXPECT_EQ(r.transfer_log[0].src_rank, 0u);
  EXPECT_EQ(r.transfer_log[0].dst_rank, 1u);
  const Metrics m = compute_metrics(dag.workload(), r);
  EXPECT_EQ(m.ranks[0].sync_wait, 50_us);
  EXPECT_EQ(m.ranks[0].comm[kPointToPointKind], kOneMiB);
}

TEST(PointToPoint, MessagesOnOneChannelMatchInOrderAndTagsSeparateChannels) {
  // Rank 0 sends two tag-7 messages, then (on another stream) a tag-9 one; rank 1 receives the
  // tag-9 message first and the tag-7 ones on a second stream. Each receive meets its own send.
  DagBuilder dag(2);
  const NodeId s0 = dag.send(0, 1, 4096, {}, 7);
  const NodeId s1 = dag.send(0, 1, 1 << 20, {s0}, 7);
  const NodeId s_other = dag.send(0, 1, 8, {}, 9, 1);
  const NodeId r_other = dag.recv(1, 0, 8, {}, 9);
  const NodeId r0 = dag.recv(1, 0, 4096, {}, 7, 1);
  const NodeId r1 = dag.recv(1, 0, 1 << 20, {r0}, 7, 1);
  const RunResult r = run_on_star(dag, 2);
  EXPECT_EQ(r.nodes[s0].rendezvous, r0);
  EXPECT_EQ(r.nodes[s1].end, r.nodes[r1].end);
  EXPECT_EQ(r.nodes[s_other].end, r.nodes[r_other].end);
  EXPECT_EQ(r.nodes[s_other].end, StarFabric::kAlpha + serialization_time(8, StarFabric::bottleneck()));
  EXPECT_EQ(r.nodes[s1].end, StarFabric::kAlpha + serialization_time(4096, StarFabric::bottleneck()) + kOneMiB);
  EXPECT_EQ(r.transfers, 3u);
}

TEST(PointToPoint, CommunicationOverlapsComputeOnItsOwnStream) {
  // The send/recv pair and a 1 ms compute run side by side on rank 0.
  DagBuilder dag(2);
  dag.compute(0, 1_ms);
  dag.send(0, 1, 1 << 20);
  dag.recv(1, 0, 1 << 20);
  const RunResult r = run_on_star(dag, 2);
  EXPECT_EQ(r.makespan, std::max(1_ms, kOneMiB));
  const Metrics m = compute_metrics(dag.workload(), r);
  EXPECT_EQ(m.ranks[0].exposed_total, Time::zero());
}

TEST(PointToPoint, UnmatchedOrMismatchedMessagesAreUserErrors) {
  DagBuilder lonely(2);
  lonely.send(0, 1, 64);
  EXPECT_EQ(error_of(lonely, 2), "test: send #0 from rank 0 to rank 1 (tag 0) has no matching receive");
  DagBuilder sizes(2);
  sizes.send(0, 1, 64);
  sizes.recv(1, 0, 32);
  EXPECT_EQ(error_of(sizes, 2),
            "test: send #0 from rank 0 to rank 1 (tag 0) carries 64 bytes but its receive (test) expects 32");
  DagBuilder self(2);
  EXPECT_THROW(self.send(0, 0, 64), UserError);
}

TEST(PointToPoint, CrossedBlockingOrderIsReportedAsADeadlock) {
  // Both ranks receive first, then send, on one stream: neither send is ever posted.
  DagBuilder dag(2);
  const NodeId r0 = dag.recv(0, 1, 64);
  dag.send(0, 1, 64, {r0});
  const NodeId r1 = dag.recv(1, 0, 64);
  dag.send(1, 0, 64, {r1});
  EXPECT_EQ(error_of(dag, 2),
            "the workload cannot finish: a receive from rank 0 to rank 1 (tag 0, test) waits for a send that rank 0 "
            "never posts (a deadlock in the order of sends and receives?)");
}

}  // namespace
}  // namespace loom::system
