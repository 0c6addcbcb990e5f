// Chakra traces run with ASTRA-sim's eager sends (workload::PointToPoint::kEager): ASTRA-sim's
// own custom ring all-reduce, whose receives wait on the rank's previous send, finishes in every
// network mode, with the closed-form time in analytical mode and the MSCCL plan's transfers.
#include <map>
#include <utility>

#include <gtest/gtest.h>

#include "loom/core/error.h"

#include "loom/collective/msccl/plan_reader.h"
#include "loom/collective/msccl/program.h"
#include "loom/network/network_mode.h"
#include "loom/system/rank_symmetry.h"
#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/chakra/chakra_writer.h"
#include "loom/workload/critical_path.h"
#include "system/dag_builder.h"
#include "system/fabric_fixture.h"
#include "system/same_run.h"
#include "workload/fixture_path.h"

namespace loom::workload::chakra {
namespace {

using system::RunResult;
using system::testing::StarFabric;
using namespace time_literals;

constexpr const char* kRing = "chakra/astra-sim_custom_ring_allreduce_8npus_1MB/custom_allreduce";
constexpr Bytes kStepBytes = 131072;  // 1 MiB in 8 chunks

// The ring's time alone on the fabric: 14 sends of one chunk back to back on every rank (a
// receive's data arrives as the rank's own send ends) and 7 reduces of 7 us.
Time ring_time() {
  return 14 * (StarFabric::kAlpha + serialization_time(kStepBytes, StarFabric::bottleneck())) + 7 * 7_us;
}

RunResult run_ring(network::NetworkMode mode, system::RuntimeOptions options = {}) {
  const ChakraTrace trace = read_chakra(testing::fixture(kRing));
  EXPECT_EQ(trace.workload.point_to_point(), PointToPoint::kEager);
  const StarFabric fabric(8);
  return system::testing::run_in_mode(mode, fabric.topology, fabric.routing, trace.workload, options);
}

TEST(ChakraEager, AstraSimCustomRingAllReduceFinishesInClosedFormTime) {
  LOOM_REQUIRE_FIXTURE(std::string(kRing) + ".0.et");
  system::RuntimeOptions options;
  options.record_transfers = true;
  const RunResult r = run_ring(network::NetworkMode::kAnalytical, options);
  EXPECT_EQ(r.makespan, ring_time());
  EXPECT_EQ(r.rank_finish, std::vector<Time>(8, ring_time()));
  EXPECT_EQ(r.transfers, 8u * 14);
  EXPECT_EQ(r.bytes_moved, 8u * 14 * kStepBytes);
  EXPECT_EQ(r.sends_held, 0u);  // each receive is posted as its data arrives
}

TEST(ChakraEager, AstraSimCustomRingAllReduceFinishesInFlowAndPacketModes) {
  LOOM_REQUIRE_FIXTURE(std::string(kRing) + ".0.et");
  for (const network::NetworkMode mode : {network::NetworkMode::kFlow, network::NetworkMode::kPacket}) {
    const RunResult r = run_ring(mode);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.transfers, 8u * 14);
    // No two sends share a link, so the modes differ only in how they time one transfer.
    for (const Time t : r.rank_finish) {
      const double ratio = static_cast<double>(t.picoseconds()) / static_cast<double>(ring_time().picoseconds());
      EXPECT_GE(ratio, 0.95) << network::to_string(mode);
      EXPECT_LE(ratio, 1.5) << network::to_string(mode);
    }
  }
}

TEST(ChakraEager, TheRingMovesWhatItsMscclPlanMoves) {
  LOOM_REQUIRE_FIXTURE(std::string(kRing) + ".0.et");
  const std::string xml = testing::fixture("msccl/msccl_xml/astra-sim_custom_allreduce_ring_8gpus.xml");
  LOOM_SKIP_WITHOUT_FIXTURE(xml);
  // (src, dst) -> transfers and payload bytes, from the plan at 1 MiB and from the trace's run.
  using PerPair = std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint32_t, Bytes>>;
  const collective::msccl::Program program(collective::msccl::read_plan_file(xml));
  const std::uint32_t reference = collective::msccl::reference_chunks(program.plan());
  PerPair planned;
  for (std::uint32_t n = 0; n < program.size(); ++n) {
    const collective::msccl::Node& node = program.node(n);
    if (node.kind != collective::msccl::NodeKind::kTransfer) continue;
    auto& [count, bytes] = planned[{node.src, node.dst}];
    ++count;
    bytes += collective::msccl::chunk_bytes(1 << 20, reference, node.chunk_index, node.chunks);
  }
  system::RuntimeOptions options;
  options.record_transfers = true;
  PerPair ran;
  for (const system::TransferRecord& t : run_ring(network::NetworkMode::kAnalytical, options).transfer_log) {
    auto& [count, bytes] = ran[{t.src_rank, t.dst_rank}];
    ++count;
    bytes += t.bytes;
  }
  EXPECT_EQ(planned.size(), 8u);
  EXPECT_EQ(ran, planned);
}

TEST(ChakraEager, TheRingsCriticalPathIsItsReduces) {
  LOOM_REQUIRE_FIXTURE(std::string(kRing) + ".0.et");
  ChakraTrace trace = read_chakra(testing::fixture(kRing));
  EXPECT_EQ(critical_path_length(trace.workload), 7 * 7_us);  // communication is free there
  trace.workload.set_point_to_point(PointToPoint::kRendezvous);
  EXPECT_THROW(critical_path_length(trace.workload), UserError);  // each send waits for a receive behind it
}

TEST(ChakraEager, AReducedRunOfTheRingIsTheFullRun) {
  LOOM_REQUIRE_FIXTURE(std::string(kRing) + ".0.et");
  const ChakraTrace trace = read_chakra(testing::fixture(kRing));
  const system::RankSymmetry classes = system::RankSymmetry::find(trace.workload);
  EXPECT_EQ(classes.class_count(), 1u);
  const StarFabric fabric(8);
  const RunResult reduced = system::testing::run_reduced(fabric.topology, fabric.routing, trace.workload, classes);
  EXPECT_TRUE(reduced.symmetry_mismatch.empty()) << reduced.symmetry_mismatch;
  const RunResult full = system::testing::run_analytical(fabric.topology, fabric.routing, trace.workload);
  system::testing::expect_same_run(reduced, full);
  EXPECT_EQ(reduced.sends_held, full.sends_held);
}

// A trace Loom writes reads back eager: rank 1 posts its first receive 50 us into the run, after
// the data came (held), and its second at once, before the data, sent after 80 us, comes.
TEST(ChakraEager, WrittenTracesReadBackWithEagerSends) {
  system::testing::DagBuilder dag(2);  // rank by rank, as the reader numbers the nodes
  const NodeId first_send = dag.send(0, 1, 1 << 20);
  const NodeId wait = dag.compute(0, 80_us, {first_send});
  const NodeId second_send = dag.send(0, 1, 1 << 20, {wait}, 1);
  const NodeId late = dag.compute(1, 50_us);
  const NodeId first_recv = dag.recv(1, 0, 1 << 20, {late});
  const NodeId second_recv = dag.recv(1, 0, 1 << 20, {first_recv}, 1);
  const auto dir = testing::scratch_dir("eager");
  write_chakra(dag.workload(), (dir / "pair").string());
  const ChakraTrace trace = read_chakra((dir / "pair").string());
  ASSERT_EQ(trace.workload.point_to_point(), PointToPoint::kEager);
  const StarFabric fabric(2);
  const RunResult r = system::testing::run_analytical(fabric.topology, fabric.routing, trace.workload);
  const Time one_mib = StarFabric::kAlpha + serialization_time(1 << 20, StarFabric::bottleneck());
  EXPECT_EQ(r.nodes[first_send].end, one_mib);
  EXPECT_EQ(r.nodes[first_recv].end, 50_us);
  EXPECT_EQ(r.nodes[second_recv].start, 50_us);
  EXPECT_EQ(r.nodes[second_send].start, one_mib + 80_us);
  EXPECT_EQ(r.nodes[second_recv].end, one_mib + 80_us + one_mib);
  EXPECT_EQ(r.sends_held, 1u);
}

}  // namespace
}  // namespace loom::workload::chakra
