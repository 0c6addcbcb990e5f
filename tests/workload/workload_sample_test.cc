// A workload described by a sample of its ranks (one per pipeline stage and the first few) and
// exact counts, as `loom workload show` and the size check before a run use it, says what the
// whole built workload says: the same counts, the same per-rank summaries for the ranks built,
// the same critical path at infinite bandwidth.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "workload/fixture_path.h"
#include "workload/synthesis_testing.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/simai/simai_text.h"
#include "loom/workload/synthesis/training_step.h"
#include "loom/workload/workload_files.h"
#include "loom/workload/workload_summary.h"

namespace loom::workload {
namespace {

using synthesis::testing::expect_counts_of;

// The sample's built ranks summarise as in the whole, and its critical path is the whole's.
void expect_sample_agrees(const Workload& whole, const Workload& sample, const std::vector<std::uint32_t>& built) {
  ASSERT_LT(built.size(), whole.rank_count()) << "the sample should leave ranks out";
  const WorkloadSummary a = summarize(whole), b = summarize(sample);
  for (std::uint32_t r : built) {
    SCOPED_TRACE(::testing::Message() << "rank " << r);
    EXPECT_EQ(a.ranks[r].nodes, b.ranks[r].nodes);
    EXPECT_EQ(a.ranks[r].flops, b.ranks[r].flops);
    EXPECT_EQ(a.ranks[r].compute_time, b.ranks[r].compute_time);
    EXPECT_EQ(a.ranks[r].bytes, b.ranks[r].bytes);
  }
  EXPECT_EQ(sample.communicator_count(), whole.communicator_count());
  EXPECT_EQ(sample.label_count(), whole.label_count());
  EXPECT_EQ(critical_path_length(sample, built), critical_path_length(whole));
  EXPECT_EQ(sample.memory_bytes_holding({whole.node_count(), whole.dependency_count(), whole.rank_count()}),
            whole.memory_bytes());
}

TEST(WorkloadSample, TrainingSamplesAgreeWithTheWholePlan) {
  using namespace synthesis;
  struct Case {
    const char* name;
    TransformerConfig model;
    ParallelPlan plan;
  };
  using synthesis::testing::plan;
  std::vector<Case> cases;
  cases.push_back({"1f1b", synthesis::testing::small_gpt(), plan(2, 4, 4, 32)});
  ParallelPlan interleaved = plan(2, 2, 2, 8);
  interleaved.schedule = PipelineSchedule::kInterleaved;
  interleaved.virtual_stages = 2;
  interleaved.iterations = 2;
  interleaved.distributed_optimizer = true;
  cases.push_back({"interleaved, distributed optimizer, 2 iterations", synthesis::testing::small_gpt(), interleaved});
  ParallelPlan gpipe = plan(1, 4, 4, 32);
  gpipe.schedule = PipelineSchedule::kGpipe;
  gpipe.recompute = Recompute::kFull;
  gpipe.overlap_grad_reduce = false;
  gpipe.data_loading.bytes_per_rank = 1 << 20;
  gpipe.data_loading.bandwidth = Bandwidth::gbps(100);
  gpipe.data_loading.shared = true;
  cases.push_back({"gpipe, full recompute, shared data loading", synthesis::testing::small_gpt(), gpipe});
  ParallelPlan context = plan(2, 2, 2, 8);
  context.cp = 2;
  context.sequence_parallel = true;
  context.sharding = Sharding::kOptimizer;
  cases.push_back({"context parallel, ZeRO-1", synthesis::testing::small_gpt(4, 1024), context});
  ParallelPlan moe = plan(2, 2, 4, 16);
  moe.sequence_parallel = true;
  moe.ep = 2;
  cases.push_back({"mixture of experts", {"small-moe", 4, 256, 4, 4, 1024, false, 1000, 128, true, 4, 2, 1.25, 1, 512, 1},
                   moe});
  ParallelPlan full = plan(1, 1, 8, 16);
  full.sharding = Sharding::kFull;
  cases.push_back({"full sharding", synthesis::testing::small_gpt(), full});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Workload whole = synthesize_training(c.model, c.plan, NodeStorage::kPerNode);  // as the sample holds it
    TrainingSample sample = sample_training(c.model, c.plan, 3);
    synthesis::testing::time_on_a100(whole);
    synthesis::testing::time_on_a100(sample.workload);
    expect_counts_of(whole, sample.counts);
    expect_sample_agrees(whole, sample.workload, sample.built_ranks);
  }
}

// Every SimAI fixture small enough to build whole (the 9,216-GPU example is not).
std::vector<std::filesystem::path> small_simai_fixtures() {
  std::vector<std::filesystem::path> files;
  const std::string dir = testing::fixture("simai/inputs/workloads");
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (count_workload(entry.path().string()).counts.nodes <= 4'000'000) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(WorkloadSample, SimaiCountsEqualTheBuiltWorkloadForEveryFixtureAndIterationCount) {
  LOOM_REQUIRE_FIXTURE("simai/inputs/workloads");
  const auto files = small_simai_fixtures();
  ASSERT_GE(files.size(), 15u);
  for (const auto& file : files) {
    for (std::uint32_t iterations : {1u, 3u}) {
      SCOPED_TRACE(::testing::Message() << file.filename() << ", " << iterations << " iterations");
      simai::Options options;
      options.iterations = iterations;
      const simai::SimaiWorkload whole = simai::read_simai(file.string(), options);
      expect_counts_of(whole.workload, whole.counts);
      EXPECT_EQ(whole.workload.memory_bytes(), whole.workload.memory_bytes_holding(whole.counts))
          << "a whole build reserves exactly what it counted";
      options.count_only = true;
      const simai::SimaiWorkload counted = simai::read_simai(file.string(), options);
      EXPECT_EQ(counted.workload.node_count(), 0u);
      expect_counts_of(whole.workload, counted.counts);
    }
  }
}

TEST(WorkloadSample, SimaiSamplesAgreeWithTheWholeWorkload) {
  LOOM_REQUIRE_FIXTURE("simai/inputs/workloads");
  std::size_t sampled = 0;
  for (const auto& file : small_simai_fixtures()) {
    SCOPED_TRACE(file.filename());
    const simai::SimaiWorkload whole = simai::read_simai(file.string());
    simai::Options options;
    options.sample = 3;
    const simai::SimaiWorkload sample = simai::read_simai(file.string(), options);
    EXPECT_EQ(sample.counts.nodes, whole.counts.nodes);
    if (sample.built_ranks.size() == whole.workload.rank_count()) continue;  // too few ranks to leave any out
    expect_sample_agrees(whole.workload, sample.workload, sample.built_ranks);
    ++sampled;
  }
  EXPECT_GE(sampled, 10u);
}

TEST(WorkloadSample, SimaiSampleBuildsTheFirstRankOfEveryStageAndTheFirstRanks) {
  // TP 2 x PP 3 over 24 ranks: DP 4, stages of 8 ranks.
  std::string text = "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 pp: 3 all_gpus: 24 pp_comm: 1024\n2\n";
  text += "a -1 10 ALLREDUCE 64 20 NONE 0 30 ALLREDUCE 128 5\n";
  text += "b -1 10 NONE 0 20 ALLREDUCE 64 30 ALLREDUCE 128 5\n";
  simai::Options options;
  options.sample = 3;
  const simai::SimaiWorkload sample = simai::parse_simai(text, "mini.txt", options);
  EXPECT_EQ(sample.built_ranks, (std::vector<std::uint32_t>{0, 1, 2, 8, 16}));
  const simai::SimaiWorkload whole = simai::parse_simai(text, "mini.txt");
  expect_counts_of(whole.workload, sample.counts);
  expect_sample_agrees(whole.workload, sample.workload, sample.built_ranks);
}

}  // namespace
}  // namespace loom::workload
