// Chakra traces read one rank file at a time: the counting pass agrees with what the reader
// builds on every fixture, and the reader holds far less than the files it read.
#include <filesystem>
#include <set>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "loom/workload/chakra/chakra_counts.h"
#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/chakra/chakra_writer.h"
#include "loom/workload/synthesis/training_step.h"
#include "loom/workload/synthesis/transformer_config.h"
#include "workload/fixture_path.h"

namespace loom::workload::chakra {
namespace {

// Every multi-file prefix and lone .et file under shared/fixtures/chakra.
std::set<std::string> fixture_traces() {
  std::set<std::string> traces;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::fixture("chakra"))) {
    const std::string path = entry.path().string();
    if (path.ends_with(".0.et")) traces.insert(path.substr(0, path.size() - 5));
  }
  return traces;
}

TEST(ChakraStreaming, CountsWithoutBuildingAgreeWithTheBuiltTraceOnEveryFixture) {
  LOOM_REQUIRE_FIXTURE("chakra");
  const std::set<std::string> traces = fixture_traces();
  ASSERT_GE(traces.size(), 7u);
  for (const std::string& prefix : traces) {
    SCOPED_TRACE(prefix);
    const std::vector<std::string> files = chakra_rank_files(prefix);
    const WorkloadCounts counted = count_chakra_files(files);
    const ChakraTrace read = read_chakra_files(files);
    const WorkloadCounts built = read.workload.counts();
    EXPECT_EQ(counted.nodes, built.nodes);
    EXPECT_EQ(counted.ranks, built.ranks);
    EXPECT_EQ(counted.collectives, built.collectives);
    // As listed: the reader drops the dangling and duplicate dependencies it warns about.
    EXPECT_GE(counted.dependencies, built.dependencies);
    if (read.warnings.empty()) {
      EXPECT_EQ(counted.dependencies, built.dependencies);
    }
  }
}

// 64 ranks of a small training plan written by Loom's Chakra writer: the reader holds the
// compact forms and one file's messages, well below the files' own bytes, and reads back every
// node and dependency.
TEST(ChakraStreaming, TheReaderHoldsOneFilesMessagesAtATime) {
  synthesis::ParallelPlan plan;
  plan.tp = 2;
  plan.pp = 2;
  plan.dp = 16;
  plan.global_batch = 64;
  const Workload written = synthesize_training(synthesis::find_transformer("gpt-7b"), plan, NodeStorage::kPerNode);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("loom_chakra_streaming." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<std::string> files = write_chakra(written, (dir / "gpt").string());
  std::uint64_t file_bytes = 0;
  for (const std::string& f : files) file_bytes += std::filesystem::file_size(f);
  const ChakraTrace read = read_chakra_files(files);
  const WorkloadCounts counted = count_chakra_files(files);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(read.workload.node_count(), written.node_count());
  EXPECT_EQ(read.workload.dependency_count(), written.dependency_count());
  EXPECT_GT(read.reader_peak_bytes, read.workload.node_count() * sizeof(Node));  // the compact forms
  EXPECT_LT(read.reader_peak_bytes, file_bytes);
  EXPECT_EQ(counted.nodes, written.node_count());
  EXPECT_EQ(counted.dependencies, written.dependency_count());
  EXPECT_EQ(counted.collectives, written.counts().collectives);
}

}  // namespace
}  // namespace loom::workload::chakra
