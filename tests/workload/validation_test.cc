// Whole-workload validation (workload_validation.h): broken DAGs are rejected with the
// communicator, sequence number, both ranks and both values named; well-formed workloads pass.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../system/dag_builder.h"
#include "fixture_path.h"
#include "loom/core/error.h"
#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/synthesis/training_step.h"
#include "loom/workload/workload_validation.h"
#include "user_error.h"

namespace loom::workload {
namespace {

using collective::CollectiveOp;
using system::testing::DagBuilder;

std::string error_of(const Workload& w) {
  return loom::testing::user_error_of([&] { validate(w); });
}

TEST(Validation, AgreeingCollectivesPass) {
  DagBuilder dag(3);
  const auto world = dag.communicator({0, 1, 2}, CommunicatorKind::kWorld, "world");
  for (std::uint32_t r = 0; r < 3; ++r) {
    const NodeId a = dag.collective(r, world, 4096);
    dag.collective(r, world, 1024, {a}, 0, CollectiveOp::kAllGather);
  }
  EXPECT_EQ(error_of(dag.workload()), "no error");
}

TEST(Validation, DifferentOpOnOneMemberIsNamed) {
  DagBuilder dag(3, "layer 4");
  const auto tp = dag.communicator({0, 1, 2}, CommunicatorKind::kTensor, "tp.1");
  for (std::uint32_t r = 0; r < 3; ++r) dag.collective(r, tp, 2048);
  for (std::uint32_t r = 0; r < 3; ++r) {
    dag.collective(r, tp, 2048, {}, 0, r == 2 ? CollectiveOp::kReduceScatter : CollectiveOp::kAllReduce);
  }
  EXPECT_EQ(error_of(dag.workload()),
            "collective #1 on communicator 'tp.1': its members disagree: rank 0 issues all-reduce of 2KiB [layer 4] "
            "but rank 2 issues reduce-scatter of 2KiB [layer 4]; expected the same op, size and algorithm on every "
            "member");
}

TEST(Validation, DifferentSizeIsNamed) {
  DagBuilder dag(2, "bucket");
  const auto dp = dag.communicator({1, 0}, CommunicatorKind::kData, "dp.0");
  dag.collective(0, dp, 1 << 20);
  dag.collective(1, dp, 1 << 21);
  // Member order is the communicator's: rank 1 is member 0.
  EXPECT_EQ(error_of(dag.workload()),
            "collective #0 on communicator 'dp.0': its members disagree: rank 1 issues all-reduce of 2MiB [bucket] "
            "but rank 0 issues all-reduce of 1MiB [bucket]; expected the same op, size and algorithm on every member");
}

TEST(Validation, DifferentExplicitAlgorithmIsNamedButOneUnsetIsNot) {
  for (const bool both : {false, true}) {
    Workload w(2);
    const auto world = w.add_communicator({"world", "world", {0, 1}, CommunicatorKind::kWorld});
    Node n;
    n.kind = NodeKind::kCollective;
    n.communicator = world;
    n.bytes = 64;
    n.label = w.intern_label("x");
    n.algorithm = collective::Algorithm::kRing;
    w.add_node(n, {});
    n.rank = 1;
    n.algorithm = both ? std::optional(collective::Algorithm::kDirect) : std::nullopt;
    w.add_node(n, {});
    if (both) {
      EXPECT_THAT(error_of(w), ::testing::HasSubstr("rank 0 issues all-reduce of 64B (ring) [x] but rank 1 issues "
                                                  "all-reduce of 64B (direct) [x]"));
    } else {
      EXPECT_EQ(error_of(w), "no error");
    }
  }
}

TEST(Validation, MemberThatNeverIssuesIsNamed) {
  DagBuilder dag(3, "fwd.tp_attn");
  const auto tp = dag.communicator({0, 1, 2}, CommunicatorKind::kTensor, "tp.0");
  dag.collective(0, tp, 512);
  dag.collective(1, tp, 512);
  dag.collective(2, tp, 512);
  dag.collective(0, tp, 512);
  dag.collective(2, tp, 512);
  EXPECT_EQ(error_of(dag.workload()),
            "collective #1 on communicator 'tp.0': rank 0 issues all-reduce of 512B [fwd.tp_attn] but member rank 1 "
            "never does (it issues 1 collectives on 'tp.0', rank 0 issues 2); expected every member to issue each "
            "collective");
}

TEST(Validation, SendWithoutReceiveIsNamed) {
  DagBuilder dag(2, "pp.send_activation");
  dag.send(0, 1, 100);
  EXPECT_EQ(error_of(dag.workload()),
            "pp.send_activation: send #0 from rank 0 to rank 1 (tag 0) has no matching receive");
}

TEST(Validation, SynthesisedTrainingStepsPass) {
  using namespace synthesis;
  const TransformerConfig model{"small-gpt", 8, 512, 8, 8, 2048, false, 1000, 256, true};
  for (const Sharding sharding : {Sharding::kNone, Sharding::kOptimizer, Sharding::kFull}) {
    ParallelPlan p;
    p.tp = 2;
    p.pp = 2;
    p.dp = 2;
    p.sequence_parallel = true;
    p.global_batch = 8;
    p.sharding = sharding;
    EXPECT_EQ(error_of(synthesize_training(model, p)), "no error") << to_string(sharding);
  }
}

TEST(Validation, ChakraFixturesPass) {
  for (const char* prefix : {"chakra/astra-sim_custom_ring_allreduce_8npus_1MB/custom_allreduce",
                             "chakra/generated_here/allreduce_1MB_8npus_pgname_commgroups/ar",
                             "chakra/tutorials_micro2024_MLP_ModelParallel_32npus/MLP_ModelParallel"}) {
    if (!testing::has_fixture(std::string(prefix) + ".0.et")) {
      GTEST_SKIP() << "shared fixture " << prefix << ".0.et not found (a user's clone)";
    }
    EXPECT_EQ(error_of(chakra::read_chakra(testing::fixture(prefix)).workload), "no error") << prefix;
  }
}

}  // namespace
}  // namespace loom::workload
