#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "loom/report/summary.h"
#include "loom/report/tables.h"
#include "loom/report/timeline.h"
#include "system/fabric_fixture.h"

namespace loom::report {
namespace {

namespace fs = std::filesystem;
using namespace time_literals;
using system::testing::StarFabric;

std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct SmallRun {
  SmallRun() : fabric(4) {
    workload::MicrobenchmarkSpec spec;
    spec.groups.push_back({"tp", workload::GroupSpec::Shape::kBlock, 2, {}});
    spec.collectives.push_back({collective::CollectiveOp::kAllGather, "tp", 2 * 4096, 3, std::nullopt});
    workload = std::make_unique<workload::Workload>(workload::make_microbenchmark(spec, 4));
    system::RuntimeOptions options;
    options.record_transfers = true;
    result = system::testing::run_analytical(fabric.topology, fabric.routing, *workload, options);
    metrics = system::compute_metrics(*workload, result);
    dir = fs::temp_directory_path() / ("loom_report_test." + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                       "." + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
  }
  StarFabric fabric;
  std::unique_ptr<workload::Workload> workload;
  system::RunResult result;
  system::Metrics metrics;
  fs::path dir;
};

TEST(OutputFile, FormatsAreExact) {
  EXPECT_EQ(microseconds(Time::ps(12'500'000)), "12.500000");
  EXPECT_EQ(microseconds(Time::ps(7)), "0.000007");
  EXPECT_EQ(microseconds(Time::zero() - 1_us), "-1.000000");
  EXPECT_EQ(csv_quote("a \"b\", c"), "\"a \"\"b\"\", c\"");
}

TEST(Tables, OneRowPerThingWithHeaders) {
  SmallRun run;
  const WrittenFile collectives = write_collectives_csv(run.dir, *run.workload, run.result, 1000);
  EXPECT_EQ(collectives.rows, 6u);  // 2 communicators x 3 repeats
  EXPECT_EQ(collectives.dropped, 0u);
  const auto c = lines_of(collectives.path);
  ASSERT_EQ(c.size(), 7u);
  EXPECT_EQ(c[0].rfind("label,op,group,communicator,members,size_bytes,algorithm,", 0), 0u);
  EXPECT_NE(c[1].find(",all-gather,tp,tp.0,2,8192,ring,"), std::string::npos) << c[1];

  const WrittenFile flows = write_flows_csv(run.dir, run.result, 1000);
  EXPECT_EQ(flows.rows, run.result.transfers);
  const auto f = lines_of(flows.path);
  ASSERT_EQ(f.size(), run.result.transfers + 1);
  EXPECT_EQ(f[0], "src_rank,dst_rank,src_node,dst_node,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,transfer");
  // Contention-free: every transfer takes its ideal time.
  EXPECT_NE(f[1].find(",1.000000"), std::string::npos) << f[1];

  const WrittenFile ranks = write_ranks_csv(run.dir, run.metrics, 1000);
  EXPECT_EQ(ranks.rows, 4u);
  EXPECT_EQ(lines_of(ranks.path).size(), 5u);
}

TEST(Tables, SwitchEndsOfInSwitchReductionsHaveNoRank) {
  system::RunResult result;
  result.transfer_log.push_back({3, 9, 1, topology::kNone, 4096, 0_ns, 2_us, 1_us});
  const fs::path dir = fs::temp_directory_path() / "loom_report_test.switch_ends";
  fs::remove_all(dir);
  const auto f = lines_of(write_flows_csv(dir, result, 10).path);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1], "1,,3,9,4096,0.000,2000.000,1000.000,2.000000,c0.0.0.0");
}

TEST(Tables, TransferColumnNamesTheOperation) {
  system::RunResult result;
  result.transfer_log.push_back({3, 9, 1, 2, 4096, 0_ns, 2_us, 1_us, 7, 4, 2, 11});
  result.transfer_log.push_back({3, 9, 1, 2, 4096, 0_ns, 2_us, 1_us, system::kPointToPoint, 42});
  const fs::path dir = fs::temp_directory_path() / "loom_report_test.transfer_column";
  fs::remove_all(dir);
  const auto f = lines_of(write_flows_csv(dir, result, 10).path);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[1].substr(f[1].rfind(',') + 1), "c7.4.2.11");
  EXPECT_EQ(f[2].substr(f[2].rfind(',') + 1), "p42");
}

// A transfer's identity with its ends is unique in a run, so that two runs of one workload
// can be compared transfer by transfer (scripts/compare-runs.py).
TEST(Tables, TransfersAreIdentifiedUniquely) {
  SmallRun run;
  const auto f = lines_of(write_flows_csv(run.dir, run.result, 1000).path);
  std::set<std::string> seen;
  for (std::size_t i = 1; i < f.size(); ++i) {
    const std::string& row = f[i];
    const std::string ends = row.substr(0, row.find(',', row.find(',') + 1));
    EXPECT_TRUE(seen.insert(ends + "," + row.substr(row.rfind(',') + 1)).second) << row;
  }
  EXPECT_GT(seen.size(), 1u);
}

TEST(Tables, CapsLeaveRowsOutAndSaySo) {
  SmallRun run;
  const WrittenFile flows = write_flows_csv(run.dir, run.result, 2);
  EXPECT_EQ(flows.rows, 2u);
  EXPECT_EQ(flows.dropped, run.result.transfers - 2);
  EXPECT_EQ(lines_of(flows.path).size(), 3u);
}

TEST(Timeline, IsTraceEventJsonWithOneEventPerNodeAndNamedThreads) {
  SmallRun run;
  const WrittenFile timeline = write_timeline(run.dir, run.fabric.topology, *run.workload, run.result, 1000);
  std::ifstream in(timeline.path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  int complete = 0, thread_names = 0, process_names = 0;
  for (const auto& event : trace["traceEvents"]) {
    if (event["ph"] == "X") {
      ++complete;
      EXPECT_EQ(event["cat"], "collective");
      EXPECT_GE(event["dur"].get<double>(), 0.0);
    } else if (event["name"] == "thread_name") {
      ++thread_names;
    } else if (event["name"] == "process_name") {
      ++process_names;
    }
  }
  EXPECT_EQ(complete, static_cast<int>(run.workload->node_count()));
  EXPECT_EQ(thread_names, 4);   // one comm stream per GPU used
  EXPECT_EQ(process_names, 4);  // one GPU per host on the star
  EXPECT_EQ(timeline.rows, run.workload->node_count());
}

TEST(Summary, AggregatesMetricsAndListsOutputs) {
  SmallRun run;
  std::vector<WrittenFile> files = {write_flows_csv(run.dir, run.result, 5)};
  const nlohmann::json s = make_summary(
      {3, "analytical", {{"seed", 3}}, nullptr, {{"total_bytes", 7}}, {"trace.0.et: node 4: odd attribute"}, nullptr},
      *run.workload, run.result, run.metrics, files);
  EXPECT_EQ(s["seed"], 3);
  EXPECT_EQ(s["memory"]["total_bytes"], 7);
  EXPECT_EQ(s["warnings"], nlohmann::json::array({"trace.0.et: node 4: odd attribute"}));
  EXPECT_EQ(s["outputs"][0]["file"], "flows.csv");
  EXPECT_EQ(s["outputs"][0]["rows_left_out"], run.result.transfers - 5);
  const double makespan = run.result.makespan.microseconds();
  EXPECT_DOUBLE_EQ(s["metrics"]["critical_path"]["length_us"].get<double>(), makespan);
  EXPECT_DOUBLE_EQ(s["metrics"]["ranks"]["by_comm_kind"]["tp"]["exposed_us"]["max"].get<double>(), makespan);
  EXPECT_DOUBLE_EQ(s["metrics"]["ranks"]["compute_us"]["max"].get<double>(), 0.0);
  EXPECT_EQ(s["metrics"]["iteration_us"].size(), 1u);
}

}  // namespace
}  // namespace loom::report
