// Compact programs vs a record per node (system.compact, workload/shared_programs.h): the same
// experiment gives byte-identical tables and the same summary whichever way the workload holds
// its nodes, on the training examples, on plans that exercise every builder path (ZeRO-3
// with prefetch, interleaving, context parallelism, experts, per-rank edits by variation) and on
// SimAI workload files.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "experiment/switch_comparison.h"

namespace loom::experiment {
namespace {

void expect_same_compact_or_not(const std::string& name, const std::string& text,
                                const std::vector<std::string>& overrides = {}) {
  switched::expect_same_with_and_without("compact", {}, name, text, overrides);
}

TEST(CompactPrograms, TrainingExamplesAreByteIdentical) {
  expect_same_compact_or_not("gpt13b_flow", switched::example("gpt13b_training_flow.yaml"));
  expect_same_compact_or_not("llama70b_cp_zero", switched::example("llama70b_cp_zero.yaml"));
}

const std::string kSmallTraining = switched::small_training("flow");

TEST(CompactPrograms, EveryBuilderPathIsByteIdentical) {
  for (const auto& [name, overrides] : switched::communicator_variants()) {
    expect_same_compact_or_not(name, kSmallTraining, overrides);
  }
}

// Stragglers and random slowdowns change some ranks' compute nodes only: those ranks get
// programs of their own.
TEST(CompactPrograms, VariationIsByteIdentical) {
  expect_same_compact_or_not(
      "variation", kSmallTraining,
      {"workload.variation.compute_slowdown_chance=0.3", "workload.variation.compute_slowdown=[1.5, 2]",
       "workload.variation.stragglers=[{rank: 5, factor: 3, micro_batch: 1}]"});
}

// SimAI workload text, built rank by rank as training is: the fixtures small enough to hold
// per node.
TEST(CompactPrograms, SimaiWorkloadsAreByteIdentical) {
  LOOM_SKIP_WITHOUT_FIXTURE(switched::simai_workload_path(switched::kSmallSimaiWorkloads[0].first));
  for (const auto& [file, gpus] : switched::kSmallSimaiWorkloads) {
    expect_same_compact_or_not(file, switched::simai_experiment(file, gpus));
  }
}

// AICB's GPT-13B file (PP 2, vpp 20, 16 micro-batches): interleaved virtual stages, on one
// data-parallel replica (TP 8 x PP 2).
TEST(CompactPrograms, SimaiInterleavedPipelineIsByteIdentical) {
  const std::string file = "aicb_generated_gpt_13B-world_size128-tp8-pp2-ep1-gbs128-mbs1-seq4096.txt";
  LOOM_SKIP_WITHOUT_FIXTURE(switched::simai_workload_path(file));
  expect_same_compact_or_not("aicbgen_vpp", switched::simai_experiment(file, 16), {"workload.ranks=16"});
}

}  // namespace
}  // namespace loom::experiment
