// Every Chakra trace under shared/fixtures/chakra loads with the node counts its README gives.
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "loom/workload/chakra/chakra_reader.h"
#include "workload/fixture_path.h"

namespace loom::workload::chakra {
namespace {

using collective::CollectiveOp;
using testing::fixture;

struct Counts {
  std::uint32_t compute = 0, collective = 0, send = 0, recv = 0;
};
Counts count_rank(const Workload& w, std::uint32_t rank) {
  Counts c;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank != rank) continue;
    switch (n.kind) {
      case NodeKind::kCompute: ++c.compute; break;
      case NodeKind::kCollective: ++c.collective; break;
      case NodeKind::kSend: ++c.send; break;
      case NodeKind::kRecv: ++c.recv; break;
    }
  }
  return c;
}

bool any_warning(const ChakraTrace& t, const std::string& text) {
  return std::any_of(t.warnings.begin(), t.warnings.end(),
                     [&](const ImportWarning& w) { return to_string(w).find(text) != std::string::npos; });
}

void expect_single_collective(const std::string& prefix, std::uint32_t ranks, CollectiveOp op) {
  const ChakraTrace t = read_chakra(fixture(prefix));
  ASSERT_EQ(t.workload.rank_count(), ranks);
  ASSERT_EQ(t.workload.node_count(), ranks);
  EXPECT_EQ(t.version, "0.0.4");
  EXPECT_TRUE(t.warnings.empty()) << to_string(t.warnings.front());
  for (NodeId id = 0; id < ranks; ++id) {
    const Node& n = t.workload.node(id);
    EXPECT_EQ(n.kind, NodeKind::kCollective);
    EXPECT_EQ(n.op, op);
    EXPECT_EQ(n.bytes, 1048576u);
    EXPECT_EQ(n.rank, id);
    EXPECT_EQ(t.workload.communicator(n.communicator).name, "world");
    EXPECT_EQ(t.workload.communicator(n.communicator).ranks.size(), ranks);
  }
}

TEST(ChakraFixtures, MicrobenchmarksLoadOneCollectivePerRank) {
  LOOM_REQUIRE_FIXTURE("chakra/astra-sim_microbench_all_reduce_8npus_1MB");
  expect_single_collective("chakra/astra-sim_microbench_all_reduce_8npus_1MB/all_reduce", 8, CollectiveOp::kAllReduce);
  expect_single_collective("chakra/astra-sim_microbench_all_to_all_4npus_1MB/all_to_all", 4, CollectiveOp::kAllToAll);
  expect_single_collective("chakra/astra-sim_microbench_reduce_scatter_4npus_1MB/reduce_scatter", 4,
                           CollectiveOp::kReduceScatter);
  expect_single_collective("chakra/generated_here/allreduce_1MB_64npus/all_reduce", 64, CollectiveOp::kAllReduce);
}

TEST(ChakraFixtures, ProcessGroupNamesBecomeCommunicators) {
  LOOM_REQUIRE_FIXTURE("chakra/generated_here/allreduce_1MB_8npus_pgname_commgroups");
  const ChakraTrace t = read_chakra(fixture("chakra/generated_here/allreduce_1MB_8npus_pgname_commgroups/ar"));
  ASSERT_EQ(t.workload.node_count(), 8u);
  std::map<std::string, std::vector<std::uint32_t>> groups;
  for (CommunicatorId c = 0; c < t.workload.communicator_count(); ++c) {
    groups[t.workload.communicator(c).name] = t.workload.communicator(c).ranks;
  }
  EXPECT_EQ(groups, (std::map<std::string, std::vector<std::uint32_t>>{{"pg:1", {0, 1, 2, 3}}, {"pg:2", {4, 5, 6, 7}}}));
  EXPECT_EQ(t.workload.communicator(t.workload.node(5).communicator).name, "pg:2");
}

TEST(ChakraFixtures, ExplicitProcessGroupsOverrideTheTraces) {
  LOOM_REQUIRE_FIXTURE("chakra/generated_here/allreduce_1MB_8npus_pgname_commgroups");
  ReadOptions options;
  options.process_groups["1"] = {3, 2, 1, 0};
  const ChakraTrace t = read_chakra(fixture("chakra/generated_here/allreduce_1MB_8npus_pgname_commgroups/ar"), options);
  EXPECT_EQ(t.workload.communicator(t.workload.node(0).communicator).ranks, (std::vector<std::uint32_t>{3, 2, 1, 0}));
}

TEST(ChakraFixtures, CustomRingAllReduceIsSendsReceivesAndReductions) {
  LOOM_REQUIRE_FIXTURE("chakra/astra-sim_custom_ring_allreduce_8npus_1MB");
  const ChakraTrace t = read_chakra(fixture("chakra/astra-sim_custom_ring_allreduce_8npus_1MB/custom_allreduce"));
  ASSERT_EQ(t.workload.rank_count(), 8u);
  EXPECT_EQ(t.workload.node_count(), 8u * 35);
  for (std::uint32_t r = 0; r < 8; ++r) {
    const Counts c = count_rank(t.workload, r);
    EXPECT_EQ(c.send, 14u);
    EXPECT_EQ(c.recv, 14u);
    EXPECT_EQ(c.compute, 7u);
  }
  for (NodeId id = 0; id < t.workload.node_count(); ++id) {
    const Node& n = t.workload.node(id);
    if (n.kind == NodeKind::kCompute) {
      EXPECT_EQ(n.duration, Time::us(7));
    } else {
      EXPECT_EQ(n.bytes, 131072u);
    }
  }
  EXPECT_NO_THROW(t.workload.validate());  // every send has its receive
  EXPECT_TRUE(any_warning(t, "send node carries comm_type 5; ignored"));
  EXPECT_TRUE(any_warning(t, "recv node carries comm_type 6; ignored"));
  EXPECT_TRUE(any_warning(t, "GlobalMetadata.version is empty"));
}

TEST(ChakraFixtures, MlpModelParallelTutorial) {
  LOOM_REQUIRE_FIXTURE("chakra/tutorials_micro2024_MLP_ModelParallel_32npus");
  const ChakraTrace t = read_chakra(fixture("chakra/tutorials_micro2024_MLP_ModelParallel_32npus/MLP_ModelParallel"));
  ASSERT_EQ(t.workload.rank_count(), 32u);
  EXPECT_EQ(t.workload.node_count(), 32u * 29);
  EXPECT_EQ(t.workload.dependency_count(), 32u * 33);
  const Counts c = count_rank(t.workload, 0);
  EXPECT_EQ(c.compute, 18u);
  EXPECT_EQ(c.collective, 11u);
  Time compute_sum;
  std::map<CollectiveOp, int> ops;
  for (NodeId id = 0; id < t.workload.node_count(); ++id) {
    const Node& n = t.workload.node(id);
    if (n.rank != 0) continue;
    if (n.kind == NodeKind::kCompute) compute_sum += n.duration;
    if (n.kind == NodeKind::kCollective) {
      ++ops[n.op];
      EXPECT_GE(n.bytes, 37632u);
      EXPECT_LE(n.bytes, 147456u);
    }
  }
  EXPECT_EQ(compute_sum, Time::us(195206));
  EXPECT_EQ(ops[CollectiveOp::kAllGather], 6);
  EXPECT_EQ(ops[CollectiveOp::kAllReduce], 5);
}

TEST(ChakraFixtures, RealPyTorchTraceLoadsWithWarnings) {
  LOOM_REQUIRE_FIXTURE("chakra/chakra_tests_data/feeder_tests_trace.chakra.0.et");
  const ChakraTrace t = read_chakra_files({fixture("chakra/chakra_tests_data/feeder_tests_trace.chakra.0.et")});
  ASSERT_EQ(t.workload.rank_count(), 1u);
  EXPECT_EQ(t.workload.node_count(), 3664u);
  const Counts c = count_rank(t.workload, 0);
  EXPECT_EQ(c.collective, 7u);        // the COMM_COLL_NODEs that carry a comm_type
  EXPECT_EQ(c.compute, 3664u - 7u);  // 3643 COMP_NODEs + 14 CPU-side launch records
  std::map<CollectiveOp, int> ops;
  for (NodeId id = 0; id < t.workload.node_count(); ++id) {
    if (t.workload.node(id).kind == NodeKind::kCollective) ++ops[t.workload.node(id).op];
  }
  EXPECT_EQ(ops[CollectiveOp::kAllReduce], 5);
  EXPECT_EQ(ops[CollectiveOp::kBroadcast], 2);
  // 1277 control dependencies name nodes absent from the file: the first few are listed by node.
  EXPECT_TRUE(any_warning(t, "feeder_tests_trace.chakra.0.et: node 216: ctrl dependency on node 3, which is not in "
                             "the trace; dropped"));
  EXPECT_TRUE(any_warning(t, "1269 more 'dangling ctrl dep' warnings like the above"));
  EXPECT_TRUE(any_warning(t, "closes a cycle in this trace; dropped"));
  EXPECT_TRUE(any_warning(t, "COMM_COLL_NODE has no comm_type"));
}

}  // namespace
}  // namespace loom::workload::chakra
