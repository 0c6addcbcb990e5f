// Inputs too large for the memory budget are refused before anything is built, with the key,
// the estimate and the limit; inputs within it load as before.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "loom/experiment/cluster_experiment.h"
#include "loom/experiment/experiment.h"
#include "fixtures.h"
#include "loom/system/runtime.h"
#include "user_error.h"

namespace loom::experiment {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string refusal(const std::string& text, const MemoryBudget& budget) {
  return loom::testing::user_error_of([&] {
    config::Document document = config::Document::parse(text, "exp.yaml");
    load(document, budget);
  });
}

constexpr const char* kRepeat = R"(topology: {hosts: 2, gpus_per_host: 4}
workload:
  type: microbenchmark
  collectives: [{op: all-reduce, size: 1MiB, repeat: 100000000}]
)";

TEST(MemoryBudgetCheck, AHugeRepeatIsRefusedAtItsKeyBeforeBuilding) {
  const MemoryBudget budget(std::uint64_t{1} << 30, "test budget");
  const double estimate = system::Runtime::estimated_bytes({800'000'000, 800'000'000 - 8, 8, 100'000'000});
  EXPECT_THAT(refusal(kRepeat, budget),
              AllOf(HasSubstr("exp.yaml:4:16: workload.collectives: needs about " + readable_bytes(estimate)),
                    HasSubstr("for 800000000 workload nodes on 8 ranks and their run state, more than the memory "
                              "budget of 1.0 GiB (test budget)")));
}

// With shared programs a node costs its run state only: no 64-byte record and CSR entry, and
// its dependencies are stored once (reversed, in the runtime) instead of twice.
TEST(MemoryBudgetCheck, SharedProgramsStoreNoRecordPerNode) {
  const workload::WorkloadCounts counts{19'321'344, 25'000'000, 1024};
  const double per_node = system::Runtime::estimated_bytes(counts, workload::NodeStorage::kPerNode);
  const double shared = system::Runtime::estimated_bytes(counts, workload::NodeStorage::kSharedPrograms);
  const double records = (sizeof(workload::Node) + 4.0) * 19'321'344 + 4.0 * 25'000'000;
  EXPECT_NEAR(per_node - shared, 1.3 * records, 1.0);
  EXPECT_LT(shared, 0.5 * per_node);
}

constexpr const char* kTraining = R"(topology: {hosts: 1, gpus_per_host: 4}
workload:
  type: training
  model: {name: tiny, layers: 2, hidden: 1024, heads: 8, kv_heads: 8, ffn_hidden: 4096, vocab: 32000, sequence: 512}
  pp: 2
  dp: 2
  global_batch: 8
  iterations: 1000000
)";

TEST(MemoryBudgetCheck, ManyIterationsAreRefusedAtTheWorkloadAndFewLoad) {
  const MemoryBudget budget(std::uint64_t{1} << 30, "test budget");
  EXPECT_THAT(refusal(kTraining, budget),
              AllOf(HasSubstr("exp.yaml:3:3: workload: needs about"), HasSubstr("workload nodes on 4 ranks")));
  std::string few = kTraining;
  few.replace(few.find("1000000"), 7, "2");
  config::Document document = config::Document::parse(few, "exp.yaml");
  EXPECT_EQ(load(document, budget).workload.rank_count(), 4u);
}

TEST(MemoryBudgetCheck, DlrmIterationsAreRefusedAtTheirKey) {
  EXPECT_THAT(refusal("topology: {hosts: 1, gpus_per_host: 8}\nworkload: {type: dlrm, iterations: 1000000}\n",
                      MemoryBudget(std::uint64_t{1} << 30, "test budget")),
              HasSubstr("exp.yaml:2:36: workload.iterations: needs about"));
}

// A topology file's sizes are checked against the run's budget (--max-memory), not the machine's.
TEST(MemoryBudgetCheck, ATopologyFileIsRefusedUnderTheRunsBudget) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("loom_budget_ig." + std::to_string(getpid()) + ".yaml");
  std::ofstream(file) << "devices:\n"
                         "  - name: box\n"
                         "    components: [{name: xpu, count: 2, choice: xpu}, {name: nic, count: 1, choice: nic}]\n"
                         "    edges: [{ep1: {component: xpu}, ep2: {component: nic}, link: pcie, scheme: many2many}]\n"
                         "    links: [{name: pcie}]\n"
                         "instances: [{name: s, device: box, count: 100000}]\n";
  const std::string text = "topology: {file: " + file.string() + "}\nworkload: {collectives: [{op: all-reduce, size: 1MiB}]}\n";
  EXPECT_THAT(refusal(text, MemoryBudget(std::uint64_t{16} << 20, "test budget")),
              AllOf(HasSubstr("instances[0].count: needs about"),
                    HasSubstr("for 3e+05 topology endpoints, more than the memory budget of 16.0 MiB (test budget)")));
  std::filesystem::remove(file);
}

TEST(MemoryBudgetCheck, MoreNodesThanIdsAreRefusedWhateverTheBudget) {
  std::string text = kRepeat;
  text.replace(text.find("100000000"), 9, "1000000");
  text.replace(text.find("hosts: 2"), 8, "hosts: 2048");  // 8,192 ranks
  EXPECT_THAT(refusal(text, MemoryBudget(~std::uint64_t{0}, "no limit")),
              HasSubstr("workload.collectives: expands to 8192000000 workload nodes, more than Loom's 32-bit node ids"));
}

TEST(MemoryBudgetCheck, ASimaiFileIsCountedExactlyAndRefusedAtItsKeyBeforeBuilding) {
  // SimAI's 9,216-GPU MoE example: 89,127,936 nodes and 13,198,128 collective operations,
  // counted from one rank per stage, held as shared programs (the topology is checked against
  // the ranks only once a workload fits).
  const auto file = loom::testing::fixture_path("simai/inputs/workloads/simai_example_workload_analytical.txt");
  LOOM_SKIP_WITHOUT_FIXTURE(file);
  const std::string text =
      "topology: {hosts: 1, gpus_per_host: 8}\nworkload: {type: trace, file: " + file.string() + "}\n";
  const double estimate =
      system::Runtime::estimated_bytes({89'127'936, 92'602'368, 9216, 13'198'128},
                                       workload::NodeStorage::kSharedPrograms);
  EXPECT_THAT(refusal(text, MemoryBudget(std::uint64_t{1} << 30, "test budget")),
              AllOf(HasSubstr("exp.yaml:2:31: workload.file: needs about " + readable_bytes(estimate)),
                    HasSubstr("for 89127936 workload nodes on 9216 ranks and their run state")));
}

// A Chakra trace is counted by one pass over its rank files (64 ranks of one all-reduce each)
// and held per node, whatever system.compact says.
TEST(MemoryBudgetCheck, AChakraTraceIsCountedAndRefusedAtItsKeyBeforeBuilding) {
  const auto prefix = loom::testing::fixture_path("chakra/generated_here/allreduce_1MB_64npus/all_reduce");
  LOOM_SKIP_WITHOUT_FIXTURE(prefix.string() + ".0.et");
  const std::string text =
      "topology: {hosts: 8, gpus_per_host: 8}\nworkload: {type: trace, file: " + prefix.string() + "}\n";
  const double estimate = system::Runtime::estimated_bytes({64, 0, 64, 1}, workload::NodeStorage::kPerNode);
  EXPECT_THAT(refusal(text, MemoryBudget(1024, "test budget")),
              AllOf(HasSubstr("exp.yaml:2:31: workload.file: needs about " + readable_bytes(estimate)),
                    HasSubstr("for 64 workload nodes on 64 ranks and their run state")));
}

// A cluster experiment's workloads are checked against the run's budget (`loom run
// --max-memory`), not the machine's.
TEST(MemoryBudgetCheck, AClusterWorkloadIsRefusedUnderTheRunsBudget) {
  constexpr const char* kCluster = R"(topology: {hosts: 2, gpus_per_host: 4}
cluster:
  mode: analytical
  workloads:
    big: {type: microbenchmark, collectives: [{op: all-reduce, size: 1MiB, repeat: 100000}]}
  jobs:
    - {id: a, gpus: 8, workload: big, iterations: 1}
)";
  const auto load_under = [&](const MemoryBudget& budget) {
    config::Document document = config::Document::parse(kCluster, "cluster.yaml");
    load_cluster(document, budget);
  };
  EXPECT_THAT(loom::testing::user_error_of([&] { load_under(MemoryBudget(std::uint64_t{16} << 20, "test budget")); }),
              AllOf(HasSubstr("cluster.yaml:5:46: cluster.workloads.big.collectives: needs about"),
                    HasSubstr("more than the memory budget of 16.0 MiB (test budget)")));
  EXPECT_NO_THROW(load_under(MemoryBudget(std::uint64_t{64} << 30, "test budget")));
}

}  // namespace
}  // namespace loom::experiment
