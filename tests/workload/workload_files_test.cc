// Loading workload files by name (workload_files.h): one rank's file of a multi-rank Chakra
// trace loads the whole trace; a lone .et file loads as one rank.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture_path.h"
#include "loom/core/error.h"
#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/chakra/chakra_writer.h"
#include "loom/workload/synthesis/training_step.h"
#include "loom/workload/workload_files.h"
#include "loom/workload/workload_validation.h"

namespace loom::workload {
namespace {

// tp 2 x dp 2: communicators tp.0 {0,1}, tp.1 {2,3}, dp.0 {0,2}, dp.1 {1,3}.
std::string write_trace(const std::string& name) {
  synthesis::ParallelPlan p;
  p.tp = 2;
  p.dp = 2;
  p.global_batch = 2;
  const synthesis::TransformerConfig model{"tiny", 2, 256, 4, 4, 1024, false, 500, 128, true};
  const std::string prefix = (testing::scratch_dir(name) / "x").string();
  chakra::write_chakra(synthesis::synthesize_training(model, p), prefix);
  return prefix;
}

TEST(WorkloadFiles, OneRankFileOfAMultiRankTraceLoadsTheWholeTrace) {
  const std::string prefix = write_trace("one_rank_file");
  const LoadedWorkload loaded = load_workload(prefix + ".0.et");
  EXPECT_EQ(loaded.format, "chakra");
  ASSERT_EQ(loaded.workload.rank_count(), 4u);
  EXPECT_EQ(loaded.workload.node_count(), load_workload(prefix).workload.node_count());
  EXPECT_NO_THROW(validate(loaded.workload));
  ASSERT_FALSE(loaded.warnings.empty());
  EXPECT_EQ(to_string(loaded.warnings.front()),
            fmt::format("{}.0.et: one rank's file of the 4-rank trace '{}'; loaded every rank ({}.0.et .. {}.3.et)",
                        prefix, prefix, prefix, prefix));
  // Any rank's file names the same trace.
  EXPECT_EQ(load_workload(prefix + ".3.et").workload.rank_count(), 4u);
}

TEST(WorkloadFiles, AnExplicitSingleRankFileLoadsAsOneRankOrSaysWhatToPass) {
  const std::string prefix = write_trace("single_file");
  // Rank 0's file alone: the groups that hold none of the loaded ranks (tp.1 = {2, 3}, dp.1 =
  // {1, 3}) are left out instead of failing with "communicator 'tp.1' has no ranks".
  const chakra::ChakraTrace t = chakra::read_chakra_files({prefix + ".0.et"});
  EXPECT_EQ(t.workload.rank_count(), 1u);
  EXPECT_GT(t.workload.node_count(), 0u);
  EXPECT_EQ(t.workload.communicator_count(), 2u);  // tp.0 and dp.0, each cut to rank 0
  // Rank 2's file alone uses tp.1, which has no loaded member: the error says what to pass.
  try {
    chakra::read_chakra_files({prefix + ".2.et"});
    FAIL() << "loaded";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("process group 'tp.1' has none of the 1 loaded rank(s) as a member; "
                                               "this is one rank's file of a larger trace: load the whole trace by "
                                               "its prefix (the path without '.<rank>.et')"));
  }
}

TEST(WorkloadFiles, ALoneEtFileIsNotTakenForATrace) {
  LOOM_REQUIRE_FIXTURE("chakra/chakra_tests_data/feeder_tests_trace.chakra.0.et");
  const LoadedWorkload loaded = load_workload(testing::fixture("chakra/chakra_tests_data/feeder_tests_trace.chakra.0.et"));
  EXPECT_EQ(loaded.workload.rank_count(), 1u);
}

}  // namespace
}  // namespace loom::workload
