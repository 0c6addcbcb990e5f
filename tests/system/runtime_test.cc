#include "loom/system/runtime.h"

#include <gtest/gtest.h>

#include <functional>
#include <utility>
#include <vector>

#include "loom/core/error.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"

namespace loom::system {
namespace {

using collective::CollectiveOp;
using testing::DagBuilder;
using testing::StarFabric;
using namespace time_literals;

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

// The records are held for the whole run, one per operation: reserved from the workload's
// count (Workload::counts, which the size check estimates from), never grown by doubling.
TEST(Runtime, HoldsExactlyOneRecordPerCollectiveOperation) {
  const StarFabric fabric(8);
  workload::MicrobenchmarkSpec spec;
  spec.groups.push_back({"tp", workload::GroupSpec::Shape::kBlock, 4, {}});
  spec.collectives.push_back({CollectiveOp::kAllReduce, "tp", 4096, 37, std::nullopt});
  spec.collectives.push_back({CollectiveOp::kAllGather, "world", 4096, 3, std::nullopt});
  const workload::Workload w = workload::make_microbenchmark(spec, 8);
  EXPECT_EQ(w.counts().collectives, 2u * 37 + 3);
  const RunResult r = testing::run_analytical(fabric.topology, fabric.routing, w);
  EXPECT_EQ(r.collectives.size(), 2u * 37 + 3);
  EXPECT_EQ(r.collectives.capacity(), r.collectives.size());
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
  DagBuilder dag(2);
  const auto world = dag.communicator({0, 1});
  const workload::NodeId a = dag.compute(0, 10_us);
  const workload::NodeId b = dag.compute(0, 10_us);  // independent, but the stream is busy
  const workload::NodeId c = dag.compute(1, 5_us);
  dag.collective(0, world, 2 * 4096, {a, b});
  dag.collective(1, world, 2 * 4096, {c});
  const RunResult r = testing::run_analytical(fabric.topology, fabric.routing, dag.workload());
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].first_arrival, 5_us);  // rank 1 arrives first
  EXPECT_EQ(r.collectives[0].start, 20_us);         // rank 0 after two 10us computes
  const Time ar = (StarFabric::kAlpha + serialization_time(4096, StarFabric::bottleneck())) * 2;
  EXPECT_EQ(r.makespan, 20_us + ar);
}

// Members are found by rank whatever order a communicator lists them in: two communicators
// over the same four ranks, one listing them backwards and shuffled, run one after the other.
TEST(Runtime, MembersMatchByRankInAnyCommunicatorOrder) {
  const StarFabric fabric(4);
  DagBuilder dag(4);
  const auto shuffled = dag.communicator({3, 0, 2, 1});
  const auto ordered = dag.communicator({0, 1, 2, 3});
  for (std::uint32_t rank = 0; rank < 4; ++rank) {
    const workload::NodeId first = dag.collective(rank, shuffled, 4 * 65'536, {}, 0, CollectiveOp::kAllGather);
    dag.collective(rank, ordered, 4 * 65'536, {first}, 0, CollectiveOp::kAllGather);
  }
  const RunResult r = testing::run_analytical(fabric.topology, fabric.routing, dag.workload());
  // A 4-member ring all-gather: 3 steps of one 64 KiB block each.
  const Time one = (StarFabric::kAlpha + serialization_time(65'536, StarFabric::bottleneck())) * 3;
  ASSERT_EQ(r.collectives.size(), 2u);
  EXPECT_EQ(r.collectives[0].communicator, shuffled);
  EXPECT_EQ(r.collectives[0].start, Time::zero());
  EXPECT_EQ(r.collectives[0].end, one);
  EXPECT_EQ(r.collectives[1].communicator, ordered);
  EXPECT_EQ(r.collectives[1].start, one);
  EXPECT_EQ(r.makespan, one * 2);
}

std::string error_of(DagBuilder& dag, std::uint32_t gpus) {
  const StarFabric fabric(gpus);
  try {
    testing::run_analytical(fabric.topology, fabric.routing, dag.workload());
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Runtime, MismatchedCollectiveIsAUserError) {
  DagBuilder dag(2, "entry 0");
  const auto world = dag.communicator({0, 1}, workload::CommunicatorKind::kWorld, "world");
  dag.collective(0, world, 1024, {}, 0, CollectiveOp::kAllReduce);
  dag.collective(1, world, 1024, {}, 0, CollectiveOp::kAllGather);
  EXPECT_EQ(error_of(dag, 2),
            "collective #0 on communicator 'world' does not match across members: rank 1 calls "
            "all-gather of 1KiB (ring) but the first member called all-reduce of 1KiB (ring) (entry 0)");
}

TEST(Runtime, MemberThatNeverArrivesIsReported) {
  DagBuilder dag(3, "entry 0");
  const auto world = dag.communicator({0, 1, 2}, workload::CommunicatorKind::kWorld, "world");
  dag.collective(0, world, 3 * 1024);
  dag.collective(1, world, 3 * 1024);
  EXPECT_EQ(error_of(dag, 3),
            "the workload cannot finish: collective #0 on communicator 'world' (entry 0) waits for "
            "rank(s) 2 that never reach it");
}

TEST(Runtime, TooManyStreamsIsAUserError) {
  const StarFabric fabric(2);
  DagBuilder dag(2);
  dag.compute(0, 1_us);
  Simulator simulator;
  network::AnalyticalBackend backend(simulator, fabric.topology, fabric.routing);
  RuntimeOptions options;
  options.comm_streams = 1u << 29;  // 2 ranks x (1 + 2^29) streams: over the 2^30 a node can name
  try {
    Runtime(simulator, fabric.topology, dag.workload(), backend, options);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "2 ranks x 536870913 streams: expected fewer than 1073741824 streams in all");
  }
}

// A backend whose transfers never finish and keep an event busy at the same instant.
class SpinningBackend final : public network::Backend {
 public:
  explicit SpinningBackend(Simulator& simulator) : simulator_(simulator) {}
  network::NetworkMode mode() const override { return network::NetworkMode::kFlow; }
  network::Capabilities capabilities() const override { return {}; }
  void start(const network::TransferRequest&, network::CompletionHandler&, std::uint64_t) override { spin(); }
  Time ideal_time(const network::TransferRequest&) const override { return Time::zero(); }

 private:
  void spin() { simulator_.post_in<&SpinningBackend::spin>(Time::zero(), this); }
  Simulator& simulator_;
};

// A compute of 3 us, then a send over a backend that never delivers: the clock stands still at
// 3 us while events keep coming, and a 1 ns watchdog stops the run.
RunResult run_stalled(bool keep_stalled_run, std::function<bool(bool)> stall_agreement = {}) {
  const StarFabric fabric(2);
  DagBuilder dag(2);
  const workload::NodeId work = dag.compute(0, 3_us);
  dag.send(0, 1, 1024, {work});
  dag.recv(1, 0, 1024);
  Simulator simulator;
  SpinningBackend backend(simulator);
  RuntimeOptions options;
  options.watchdog = std::chrono::nanoseconds(1);
  options.keep_stalled_run = keep_stalled_run;
  options.stall_agreement = std::move(stall_agreement);
  Runtime runtime(simulator, fabric.topology, dag.workload(), backend, options);
  return runtime.run();
}

constexpr const char* kStalled = "no progress: simulated time stayed at 3us for 1ns of wall time (131072 events "
                                 "processed, 1 of 3 operations done); stopped by the watchdog (system.watchdog)";

TEST(Runtime, TheWatchdogStopsARunWhoseClockStandsStill) {
  try {
    run_stalled(false);
    FAIL() << "expected the watchdog to stop the run";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), kStalled);
  }
}

TEST(Runtime, AStalledRunCanKeepWhatRanUntilTheWatchdogStoppedIt) {
  const RunResult result = run_stalled(true);
  EXPECT_FALSE(result.complete);
  EXPECT_EQ(result.stop_reason, kStalled);
  EXPECT_EQ(result.makespan, 3_us);
  ASSERT_EQ(result.nodes.size(), 3u);
  EXPECT_EQ(result.nodes[0].start, Time::zero());
  EXPECT_EQ(result.nodes[0].end, 3_us);
  // The send never finished: it ends at the stop, and no transfer is listed as done.
  EXPECT_EQ(result.nodes[1].end, 3_us);
  EXPECT_TRUE(result.transfer_log.empty());
}

// Over MPI ranks the verdict is the one all ranks agree on: here the other ranks see the stall
// one check later than this one.
TEST(Runtime, AStalledRunStopsWhereTheRanksAgree) {
  std::vector<bool> verdicts;
  const RunResult result = run_stalled(true, [&verdicts](bool stalled_here) {
    verdicts.push_back(stalled_here);
    return verdicts.size() == 3;
  });
  EXPECT_EQ(verdicts, (std::vector<bool>{false, true, true}));
  EXPECT_EQ(result.stop_reason, "no progress: simulated time stayed at 3us for 1ns of wall time (196608 events "
                                "processed, 1 of 3 operations done); stopped by the watchdog (system.watchdog)");
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
