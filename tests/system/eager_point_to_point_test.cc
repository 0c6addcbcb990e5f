// Eager point-to-point semantics (workload::PointToPoint::kEager, runtime_eager.cc): a send's
// transfer starts with the send and ends it on arrival; its receive ends at the later of its
// own start and that arrival.
#include <gtest/gtest.h>

#include <algorithm>

#include "loom/core/error.h"
#include "loom/system/metrics.h"
#include "loom/system/rank_symmetry.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"
#include "system/same_run.h"

namespace loom::system {
namespace {

using testing::DagBuilder;
using testing::StarFabric;
using namespace time_literals;
using workload::NodeId;
using workload::PointToPoint;

const Time kOneMiB = StarFabric::kAlpha + serialization_time(1 << 20, StarFabric::bottleneck());

RunResult run_on_star(const workload::Workload& w, RuntimeOptions options = {}) {
  const StarFabric fabric(w.rank_count());
  return testing::run_analytical(fabric.topology, fabric.routing, w, options);
}

std::string error_of(const workload::Workload& w) {
  try {
    run_on_star(w);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(EagerPointToPoint, DataArrivingBeforeTheReceiveIsHeldAndTakenWhenItIsPosted) {
  DagBuilder dag(2);
  dag.workload().set_point_to_point(PointToPoint::kEager);
  const NodeId work = dag.compute(1, 50_us);
  const NodeId send = dag.send(0, 1, 1 << 20);
  const NodeId recv = dag.recv(1, 0, 1 << 20, {work});
  RuntimeOptions options;
  options.record_transfers = true;
  const RunResult r = run_on_star(dag.workload(), options);
  EXPECT_EQ(r.nodes[send].start, Time::zero());
  EXPECT_EQ(r.nodes[send].end, kOneMiB);  // the send does not wait for the receive
  EXPECT_EQ(r.nodes[recv].start, 50_us);
  EXPECT_EQ(r.nodes[recv].end, 50_us);     // the data was there
  EXPECT_EQ(r.nodes[recv].rendezvous, recv);
  EXPECT_EQ(r.sends_held, 1u);
  ASSERT_EQ(r.transfer_log.size(), 1u);
  EXPECT_EQ(r.transfer_log[0].start, Time::zero());
  EXPECT_EQ(r.transfer_log[0].end, kOneMiB);
  EXPECT_EQ(r.makespan, 50_us);
  // NCCL's rendezvous (the default) starts the transfer only when the receive is posted.
  dag.workload().set_point_to_point(PointToPoint::kRendezvous);
  const RunResult rendezvous = run_on_star(dag.workload());
  EXPECT_EQ(rendezvous.nodes[send].end, 50_us + kOneMiB);
  EXPECT_EQ(rendezvous.sends_held, 0u);
}

TEST(EagerPointToPoint, AReceivePostedFirstWaitsForTheDataToArrive) {
  DagBuilder dag(2);
  dag.workload().set_point_to_point(PointToPoint::kEager);
  const NodeId work = dag.compute(0, 50_us);
  const NodeId send = dag.send(0, 1, 1 << 20, {work});
  const NodeId recv = dag.recv(1, 0, 1 << 20);
  const RunResult r = run_on_star(dag.workload());
  EXPECT_EQ(r.nodes[recv].start, Time::zero());
  EXPECT_EQ(r.nodes[send].end, 50_us + kOneMiB);
  EXPECT_EQ(r.nodes[recv].end, 50_us + kOneMiB);
  EXPECT_EQ(r.nodes[recv].rendezvous, send);  // its transfer began with the send
  EXPECT_EQ(r.sends_held, 0u);
  const Metrics m = compute_metrics(dag.workload(), r);
  EXPECT_EQ(m.ranks[1].sync_wait, 50_us);
}

// ASTRA-sim's hardware model keeps one send or collective in flight per rank, and a posted
// receive occupies nothing: rank 1's sends go out while its receive, posted first on the same
// stream, waits for data rank 0 sends late.
TEST(EagerPointToPoint, AWaitingReceiveLeavesItsStreamToTheRanksSends) {
  DagBuilder dag(3);
  dag.workload().set_point_to_point(PointToPoint::kEager);
  const NodeId work = dag.compute(0, 50_us);
  dag.send(0, 1, 1 << 20, {work});
  const NodeId waiting = dag.recv(1, 0, 1 << 20);
  const NodeId first = dag.send(1, 2, 1 << 20);
  const NodeId second = dag.send(1, 2, 1 << 20);
  dag.recv(2, 1, 1 << 20);
  dag.recv(2, 1, 1 << 20);
  const RunResult r = run_on_star(dag.workload());
  EXPECT_EQ(r.nodes[waiting].start, Time::zero());
  EXPECT_EQ(r.nodes[waiting].end, 50_us + kOneMiB);
  EXPECT_EQ(r.nodes[first].start, Time::zero());
  EXPECT_EQ(r.nodes[first].end, kOneMiB);
  EXPECT_EQ(r.nodes[second].start, kOneMiB);  // sends still go one at a time
  EXPECT_EQ(r.nodes[second].enabler, first);
  EXPECT_EQ(r.makespan, std::max(50_us + kOneMiB, kOneMiB + kOneMiB));
}

TEST(EagerPointToPoint, MessagesOnAChannelMatchInOrderWhateverTheOrderOfArrival) {
  // Two sends on one (src, dst, tag), the small one second: it arrives first, but belongs to the
  // second receive. The first receive ends when the large message arrives.
  DagBuilder dag(2);
  dag.workload().set_point_to_point(PointToPoint::kEager);
  dag.send(0, 1, 1 << 20, {}, 3, 0);
  dag.send(0, 1, 4096, {}, 3, 1);
  const NodeId r0 = dag.recv(1, 0, 1 << 20, {}, 3, 0);
  const NodeId r1 = dag.recv(1, 0, 4096, {r0}, 3, 0);
  const RunResult r = run_on_star(dag.workload());
  EXPECT_GE(r.nodes[r0].end, kOneMiB);
  EXPECT_EQ(r.nodes[r1].end, r.nodes[r0].end);  // its data was held
  EXPECT_EQ(r.sends_held, 1u);
}

TEST(EagerPointToPoint, HeadToHeadSendsFinishWhereRendezvousDeadlocks) {
  // Each rank sends, then receives, on one stream: with rendezvous each send waits for a receive
  // queued behind the other rank's send.
  DagBuilder dag(2);
  for (std::uint32_t r = 0; r < 2; ++r) {
    const NodeId send = dag.send(r, 1 - r, 1 << 20);
    dag.recv(r, 1 - r, 1 << 20, {send});
  }
  EXPECT_NE(error_of(dag.workload()).find("a send from rank 0 to rank 1 (tag 0, test) waits for a receive"),
            std::string::npos);
  dag.workload().set_point_to_point(PointToPoint::kEager);
  const RunResult r = run_on_star(dag.workload());
  EXPECT_EQ(r.makespan, kOneMiB);
  EXPECT_EQ(r.rank_finish, (std::vector<Time>{kOneMiB, kOneMiB}));
}

TEST(EagerPointToPoint, AReceiveNoSendReachesIsNamed) {
  // Each rank receives first: neither send is ever issued.
  DagBuilder dag(2);
  dag.workload().set_point_to_point(PointToPoint::kEager);
  for (std::uint32_t r = 0; r < 2; ++r) {
    const NodeId recv = dag.recv(r, 1 - r, 1 << 20);
    dag.send(r, 1 - r, 1 << 20, {recv});
  }
  EXPECT_NE(error_of(dag.workload()).find("a receive from rank 0 to rank 1 (tag 0, test) waits for a send that rank 0"),
            std::string::npos)
      << error_of(dag.workload());
}

TEST(EagerPointToPoint, DataNeverReceivedIsNamed) {
  // Rank 0's tag-0 message arrives, but rank 1 posts its receive only after a tag-1 message that
  // rank 0 sends once it hears from rank 1, which rank 1 sends after that receive.
  DagBuilder dag(2);
  dag.workload().set_point_to_point(PointToPoint::kEager);
  dag.send(0, 1, 64, {}, 0);
  const NodeId hear = dag.recv(0, 1, 64, {}, 5);
  dag.send(0, 1, 64, {hear}, 1);
  const NodeId first = dag.recv(1, 0, 64, {}, 1);
  const NodeId second = dag.recv(1, 0, 64, {first}, 0);
  dag.send(1, 0, 64, {second}, 5);
  EXPECT_NE(error_of(dag.workload())
                .find("the data of a send from rank 0 to rank 1 (tag 0, test) arrived, but rank 1 never posts its receive"),
            std::string::npos)
      << error_of(dag.workload());
}

TEST(EagerPointToPoint, AReducedRunIsTheFullRun) {
  // A ring of 4 ranks, each sending to the next and receiving from the previous in turns, with
  // compute between: one program, one class.
  DagBuilder dag(4);
  dag.workload().set_point_to_point(PointToPoint::kEager);
  for (std::uint32_t r = 0; r < 4; ++r) {
    NodeId last = dag.send(r, (r + 1) % 4, 1 << 20);
    for (int step = 0; step < 3; ++step) {
      last = dag.recv(r, (r + 3) % 4, 1 << 20, {last});
      last = dag.compute(r, 7_us, {last});
      last = dag.send(r, (r + 1) % 4, 1 << 20, {last});
    }
    dag.recv(r, (r + 3) % 4, 1 << 20, {last});
  }
  const StarFabric fabric(4);
  const RankSymmetry classes = RankSymmetry::find(dag.workload());
  ASSERT_EQ(classes.class_count(), 1u);
  const RunResult reduced = testing::run_reduced(fabric.topology, fabric.routing, dag.workload(), classes);
  EXPECT_TRUE(reduced.symmetry_mismatch.empty()) << reduced.symmetry_mismatch;
  const RunResult full = testing::run_analytical(fabric.topology, fabric.routing, dag.workload());
  testing::expect_same_run(reduced, full);
  EXPECT_EQ(full.makespan, 4 * kOneMiB + 3 * 7_us);
  EXPECT_EQ(full.sends_held, 0u);  // each receive is posted as its data arrives
  EXPECT_EQ(reduced.sends_held, 0u);
}

}  // namespace
}  // namespace loom::system
