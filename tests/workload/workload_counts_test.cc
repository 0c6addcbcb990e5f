// Counting a workload from its description, without building it, gives exactly what building
// it gives: the size check before a run and `workload show` rely on these counts.
#include <gtest/gtest.h>

#include "workload/synthesis_testing.h"
#include "loom/workload/microbenchmark.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload {
namespace {

using synthesis::testing::expect_counts_of;

TEST(WorkloadCounts, TrainingCountsEqualTheBuiltDagForEveryScheduleAndIterationCount) {
  using namespace synthesis;
  const TransformerConfig model = synthesis::testing::small_gpt();
  struct Case {
    std::uint32_t tp, pp, dp, batch, iterations, virtual_stages;
    PipelineSchedule schedule;
    bool overlap, distributed_optimizer, data_loading;
  };
  const Case cases[] = {
      {1, 1, 1, 1, 1, 1, PipelineSchedule::kOneFOneB, false, false, false},
      {2, 2, 2, 8, 3, 1, PipelineSchedule::kOneFOneB, true, false, false},
      {1, 4, 2, 16, 2, 1, PipelineSchedule::kGpipe, false, true, true},
      {2, 2, 1, 8, 4, 2, PipelineSchedule::kInterleaved, true, true, false},
      {1, 2, 4, 16, 5, 1, PipelineSchedule::kOneFOneB, false, false, true},
  };
  for (const Case& c : cases) {
    ParallelPlan plan;
    plan.tp = c.tp;
    plan.pp = c.pp;
    plan.dp = c.dp;
    plan.global_batch = c.batch;
    plan.iterations = c.iterations;
    plan.virtual_stages = c.virtual_stages;
    plan.schedule = c.schedule;
    plan.overlap_grad_reduce = c.overlap;
    plan.distributed_optimizer = c.distributed_optimizer;
    if (c.data_loading) {
      plan.data_loading.bytes_per_rank = 1 << 20;
      plan.data_loading.bandwidth = Bandwidth::gbps(100);
    }
    SCOPED_TRACE(::testing::Message() << "tp " << c.tp << " pp " << c.pp << " dp " << c.dp << " iterations "
                                      << c.iterations << " schedule " << to_string(c.schedule));
    expect_counts_of(synthesize_training(model, plan), count_training(model, plan));
  }
}

TEST(WorkloadCounts, MicrobenchmarkCountsEqualTheBuiltDag) {
  MicrobenchmarkSpec spec;
  spec.groups.push_back({"tp", GroupSpec::Shape::kBlock, 4, {}});
  spec.groups.push_back({"dp", GroupSpec::Shape::kStride, 4, {}});
  spec.groups.push_back({"pair", GroupSpec::Shape::kExplicit, 0, {0, 5}});
  spec.collectives.push_back({collective::CollectiveOp::kAllReduce, "tp", 1 << 20, 3, {}});
  spec.collectives.push_back({collective::CollectiveOp::kAllGather, "dp", 1 << 10, 2, {}});
  spec.collectives.push_back({collective::CollectiveOp::kAllReduce, "world", 1 << 10, 1, {}});
  spec.collectives.push_back({collective::CollectiveOp::kAllReduce, "pair", 1 << 10, 7, {}});
  expect_counts_of(make_microbenchmark(spec, 16), count_microbenchmark(spec, 16));
}

TEST(WorkloadCounts, CountingAHugeTrainingRunTakesNoMemory) {
  using namespace synthesis;
  ParallelPlan plan = synthesis::testing::plan(1, 2, 2, 8);
  plan.iterations = 1'000'000;
  const WorkloadCounts counts = count_training(synthesis::testing::small_gpt(), plan);
  plan.iterations = 1;
  const WorkloadCounts one = count_training(synthesis::testing::small_gpt(), plan);
  plan.iterations = 2;
  const WorkloadCounts two = count_training(synthesis::testing::small_gpt(), plan);
  EXPECT_EQ(counts.nodes, one.nodes + 999'999 * (two.nodes - one.nodes));
  EXPECT_EQ(counts.dependencies, one.dependencies + 999'999 * (two.dependencies - one.dependencies));
}

TEST(WorkloadCounts, AHundredThousandGpuPlanIsCountedFromOneRankPerStage) {
  // GPT-175B on 102,400 GPUs (TP8 x PP16 x DP800): every DP replica of a stage adds the same
  // nodes, so the count is 400 times that of DP2 with the same micro-batches per replica.
  using namespace synthesis;
  const TransformerConfig& gpt = find_transformer("gpt-175b");
  const WorkloadCounts big = count_training(gpt, synthesis::testing::plan(8, 16, 800, 8 * 800));
  const WorkloadCounts small = count_training(gpt, synthesis::testing::plan(8, 16, 2, 8 * 2));
  EXPECT_EQ(big.ranks, 102'400u);
  EXPECT_EQ(big.nodes, 400 * small.nodes);
  EXPECT_EQ(big.dependencies, 400 * small.dependencies);
}

}  // namespace
}  // namespace loom::workload
