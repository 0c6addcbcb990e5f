// Compact programs vs a record per node (system.compact, workload/shared_programs.h): the same
// experiment gives byte-identical tables and the same summary whichever way the workload holds
// its nodes, on the training examples, on plans that exercise every builder path (ZeRO-3
// with prefetch, interleaving, context parallelism, experts, per-rank edits by variation) and on
// SimAI workload files.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "experiment/switch_comparison.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;

void expect_same_compact_or_not(const std::string& name, const std::string& text,
                                const std::vector<std::string>& overrides = {}) {
  switched::expect_same_with_and_without("compact", "", name, text, overrides);
}

std::string example(const std::string& file) {
  return switched::read_file(fs::path(LOOM_SOURCE_DIR) / "examples" / file);
}

TEST(CompactPrograms, TrainingExamplesAreByteIdentical) {
  expect_same_compact_or_not("gpt13b_flow", example("gpt13b_training_flow.yaml"));
  expect_same_compact_or_not("llama70b_cp_zero", example("llama70b_cp_zero.yaml"));
}

const char* const kSmallTraining = R"(
topology: {blueprint: rail-optimized, hosts: 2, host_model: dgx-h100}
workload: {type: training, model: gpt-7b, tp: 2, pp: 2, dp: 4, global_batch: 16, iterations: 2}
collective: {algorithm: auto}
network: {mode: flow}
)";

TEST(CompactPrograms, EveryBuilderPathIsByteIdentical) {
  expect_same_compact_or_not("zero3", kSmallTraining,
                             {"workload.schedule=interleaved", "workload.virtual_stages=2", "workload.sharding=full"});
  expect_same_compact_or_not("zero1_cp", kSmallTraining,
                             {"workload.distributed_optimizer=true", "workload.cp=2", "workload.dp=2"});
  expect_same_compact_or_not("moe", kSmallTraining,
                             {"workload.model=mixtral-8x7b", "workload.ep=2", "workload.sequence_parallel=true"});
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

}  // namespace
}  // namespace loom::experiment
